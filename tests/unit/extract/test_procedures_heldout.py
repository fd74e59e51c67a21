"""HELD-OUT phrasings for procedures.py, written after its rules and not tuned to them:
the score is reported as measured (see the printed line), with a floor only to catch a
regression. A miss here is a real gap of the rules, not a test to fix."""

from __future__ import annotations

import pytest

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.workflows import parse_pattern, parse_workflow
from memory_app.extract.offline import OfflineExtractor
from tests.helpers import conversation

CODE = (
    "```ts\nexport const handler = withAuth(async (req) => {\n"
    "  return ok(await svc(req));\n});\n```"
)

# (user message, expected steps) for workflows; None: no workflow expected.
WORKFLOWS: list[tuple[str, tuple[str, ...] | None]] = [
    (
        "To deploy to staging, run the tests, build the docker image and then push it to "
        "the registry.",
        ("run the tests", "build the docker image", "push it to the registry"),
    ),
    (
        "Our hotfix process is: branch off main, fix, open a PR, then cherry-pick to release.",
        ("branch off main", "fix", "open a PR", "cherry-pick to release"),
    ),
    (
        "When you add a dependency, first update pyproject.toml, then run uv lock, finally "
        "commit both files.",
        ("update pyproject.toml", "run uv lock", "commit both files"),
    ),
    (
        "Here's how we cut a release:\n- bump the changelog\n- tag the commit\n- push the tag",
        ("bump the changelog", "tag the commit", "push the tag"),
    ),
    (
        "Steps to restore a backup:\n1. stop the api\n2. copy the dump into place\n"
        "3. start the api again",
        ("stop the api", "copy the dump into place", "start the api again"),
    ),
    (
        "Before merging, rebase on main → run the linters → squash.",
        ("rebase on main", "run the linters", "squash"),
    ),
    ("First of all, great work on the parser, then let's look at the tests.", None),
    ("1. The header is too big 2. The logo is blurry", None),
    ("To be fair, the tests, the docs and the build were all fine.", None),
    ("I first tried pip, then poetry, finally settled on uv.", None),
]

# (user message, expected scope) for code patterns; None: no pattern expected.
PATTERNS: list[tuple[str, str | None]] = [
    (f"Every lambda in src/handlers/ should look like this:\n{CODE}", "src/handlers/"),
    (f"This is how we write handlers, always wrap them in withAuth:\n{CODE}", ""),
    (f"We do it like this for all the route files:\n{CODE}", "route files"),
    (f"This crashes with a 500, can you see why?\n{CODE}", None),
    (f"Here is the current handler:\n{CODE}", None),
]


def _run(message: str) -> list:  # type: ignore[type-arg]
    items = OfflineExtractor().extract(conversation((message, "OK.")), DEFAULT_CATEGORIES)
    return [i for i in items if i.type in ("workflow", "code_pattern")]


def test_held_out_phrasings_score(capsys: pytest.CaptureFixture[str]) -> None:
    right = 0
    misses: list[str] = []
    for message, steps in WORKFLOWS:
        found = [parse_workflow(i.content) for i in _run(message) if i.type == "workflow"]
        got = tuple(found[0].steps) if found and found[0] is not None else None
        if (steps is None and not found) or (steps is not None and got == steps):
            right += 1
        else:
            misses.append(f"workflow {message[:50]!r}: got {got}")
    for message, scope in PATTERNS:
        found = [parse_pattern(i.content) for i in _run(message) if i.type == "code_pattern"]
        got = found[0].applies_to if found and found[0] is not None else None
        if got == scope:
            right += 1
        else:
            misses.append(f"pattern {message[:50]!r}: got scope {got!r}")
    total = len(WORKFLOWS) + len(PATTERNS)
    with capsys.disabled():
        print(f"\nheld-out procedures: {right}/{total} right; misses: {misses}")
    assert right / total >= 0.6, misses
