"""Memory categories: configurable data, with the five of seed 000 as the default set."""

from __future__ import annotations

from dataclasses import dataclass

# Memory types merged from seed 002 (preference, rule, decision, fact, fix, todo) and
# seed 003 (fact, decision, preference, entity, procedure, constraint, goal), plus the
# "convention" that seed 000's categories need. Default importance follows seed 003.
TYPE_IMPORTANCE: dict[str, float] = {
    "preference": 0.6,
    "decision": 0.7,
    "convention": 0.6,
    "rule": 0.6,
    "fix": 0.6,
    "fact": 0.5,
    "entity": 0.5,
    "procedure": 0.5,
    "constraint": 0.6,
    "goal": 0.8,
    "todo": 0.5,
    # Seed 004's structured memory types: steps or a snippet in the content's markdown
    # form (domain/workflows.py).
    "code_pattern": 0.6,
    "workflow": 0.6,
}
MEMORY_TYPES = tuple(TYPE_IMPORTANCE)


@dataclass(frozen=True)
class Category:
    """A bucket of memories with a human name and the type its items default to."""

    key: str
    name: str
    description: str
    default_type: str = "fact"
    position: int = 0


DEFAULT_CATEGORIES: tuple[Category, ...] = (
    Category(
        "coding_preferences",
        "Coding preferences",
        "Preferences about coding style, library choices, patterns and best practices.",
        "preference",
        0,
    ),
    Category(
        "architectural_decisions",
        "Architectural decisions",
        "Important design choices, trade-offs accepted and architectural patterns.",
        "decision",
        1,
    ),
    Category(
        "project_conventions",
        "Project conventions",
        "Naming conventions, file organization, tooling and project-specific standards.",
        "convention",
        2,
    ),
    Category(
        "bug_patterns",
        "Bug patterns",
        "Recurring issues, root causes identified and fixes applied.",
        "fix",
        3,
    ),
    Category(
        "implementation_notes",
        "Implementation notes",
        "Lessons learned, approaches tried and guidance for future work.",
        "fact",
        4,
    ),
)


def default_importance(memory_type: str) -> float:
    return TYPE_IMPORTANCE.get(memory_type, 0.5)
