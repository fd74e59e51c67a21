"""Workflows and code patterns kept as memory content (seed 004 "Memory Types" 3 and 4).

A memory has no structured field for a workflow's steps or a pattern's snippet, so both
live in its content, in a fixed markdown form that reads well as text, survives editing
by hand, and is read back here:

    release:
    1. bump the version
    2. tag it

    Handle API errors with a typed result
    ```python
    return Err(ApiError(...))
    ```
    Applies to: API handlers

Context assembly shows them by these parts (domain/compression.py): a workflow as its
steps or "release: bump version → tag → build", a pattern as its snippet and scope.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

WORKFLOW = "workflow"
CODE_PATTERN = "code_pattern"
STRUCTURED_TYPES = frozenset({WORKFLOW, CODE_PATTERN})
MAX_STEPS = 12
MAX_STEP_CHARS = 160
MAX_SNIPPET_LINES = 15
APPLIES_TO = "Applies to:"

_STEP = re.compile(r"^\s*(\d{1,2})[.)]\s+(\S.*)$")
_FENCE = re.compile(r"^```([\w+#.-]*)\s*\n(.*?)\n```[ \t]*$", re.MULTILINE | re.DOTALL)
_APPLIES = re.compile(r"^\s*applies to:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Workflow:
    """Ordered steps, with the name of what they do ("release"), if one was said."""

    name: str
    steps: tuple[str, ...]


@dataclass(frozen=True)
class CodePattern:
    """A snippet to follow, what it is for, and where it applies."""

    description: str
    snippet: str
    language: str = ""
    applies_to: str = ""


def workflow_content(name: str, steps: Sequence[str]) -> str:
    """The content a workflow is stored as: `name:` then one numbered step a line."""
    tidy = [" ".join(s.split()).rstrip(".;,") for s in steps if s.strip()]
    lines = [f"{n}. {step}" for n, step in enumerate(tidy[:MAX_STEPS], start=1)]
    title = " ".join(name.split()).rstrip(":")
    return "\n".join(([f"{title}:"] if title else []) + lines)


def parse_workflow(content: str) -> Workflow | None:
    """The workflow in `content`, or None when it holds fewer than two numbered steps."""
    name = ""
    steps: list[str] = []
    for line in content.splitlines():
        step = _STEP.match(line)
        if step is not None:
            steps.append(" ".join(step.group(2).split()))
        elif line.strip() and not steps and not name:
            name = line.strip().rstrip(":").strip()
    if len(steps) < 2:
        return None
    return Workflow(name, tuple(steps))


def trim_snippet(snippet: str, max_lines: int = MAX_SNIPPET_LINES) -> str:
    """The snippet dedented, without blank lines around it, at most `max_lines` lines
    (a cut one ends in "…" so nobody mistakes it for the whole)."""
    lines = textwrap.dedent(snippet.expandtabs(4)).splitlines()
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], "…"]
    return "\n".join(lines)


def pattern_content(
    description: str, snippet: str, language: str = "", applies_to: str = ""
) -> str:
    """The content a code pattern is stored as: its description, the fenced snippet and
    an "Applies to:" line when its scope is known."""
    parts = [" ".join(description.split()), f"```{language}\n{trim_snippet(snippet)}\n```"]
    if applies_to.strip():
        parts.append(f"{APPLIES_TO} {' '.join(applies_to.split())}")
    return "\n".join(p for p in parts if p)


def parse_pattern(content: str) -> CodePattern | None:
    """The code pattern in `content`, or None when it holds no fenced snippet."""
    fence = _FENCE.search(content)
    if fence is None:
        return None
    applies = _APPLIES.search(content[fence.end() :])
    description = " ".join(content[: fence.start()].split()).rstrip(":")
    return CodePattern(
        description=description,
        snippet=fence.group(2),
        language=fence.group(1),
        applies_to=applies.group(1) if applies else "",
    )


def tidy_content(content: str, memory_type: str | None) -> str:
    """Content as stored: whitespace collapsed, except that a workflow keeps one step a
    line and a code pattern its snippet's lines (read back by the parsers above)."""
    if memory_type == WORKFLOW and parse_workflow(content) is not None:
        lines = (" ".join(line.split()) for line in content.splitlines())
        return "\n".join(line for line in lines if line)
    if memory_type == CODE_PATTERN and parse_pattern(content) is not None:
        out: list[str] = []
        fenced = False
        for line in content.splitlines():
            if line.strip().startswith("```"):
                fenced = not fenced
                out.append(line.strip())
            elif fenced:
                out.append(line.rstrip())
            elif line.strip():
                out.append(" ".join(line.split()))
        return "\n".join(out)
    return " ".join(content.split())
