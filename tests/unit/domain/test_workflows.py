"""A workflow's and a code pattern's markdown form, read back, and their compression
levels (seed 004: "deploy: test→build→stage→verify→prod" as the one-line hint)."""

from __future__ import annotations

from memory_app.domain.compression import forms
from memory_app.domain.workflows import (
    parse_pattern,
    parse_workflow,
    pattern_content,
    tidy_content,
    trim_snippet,
    workflow_content,
)

RELEASE = workflow_content("release", ["bump the version", "tag it", "build", "publish."])


def test_a_workflow_round_trips_and_has_seed_004s_forms() -> None:
    assert RELEASE == "release:\n1. bump the version\n2. tag it\n3. build\n4. publish"
    flow = parse_workflow(RELEASE)
    assert flow is not None and flow.steps[-1] == "publish"
    level = forms(7, "project conventions", RELEASE, "workflow")
    assert level.full == RELEASE
    assert level.summary == "release: bump the version → tag it → build → publish"
    assert level.compressed == "release: bump version → tag → build → publish"
    assert level.index == "#7 workflow: release"
    # The same text as a plain memory is one collapsed line, as before.
    assert forms(7, "project conventions", RELEASE).full.startswith("release: 1. bump")
    assert parse_workflow("Use pytest. 1. only one step") is None


def test_a_pattern_round_trips_with_its_snippet_and_scope() -> None:
    snippet = "\n\n    def handler(req):\n        return ok(req)\n\n"
    content = pattern_content("Handlers return ok()", snippet, "python", "api/handlers/*.py")
    pattern = parse_pattern(content)
    assert pattern is not None
    assert pattern.snippet == "def handler(req):\n    return ok(req)"
    assert (pattern.language, pattern.applies_to) == ("python", "api/handlers/*.py")
    level = forms(8, "coding preferences", content, "code_pattern")
    assert "```python\ndef handler(req):\n    return ok(req)\n```" in level.full
    assert level.summary == "Handlers return ok() (in api/handlers/*.py)"
    assert level.compressed == "api/handlers/*.py: def handler(req):"
    assert level.index == "#8 code pattern: api/handlers/*.py"


def test_snippets_are_cut_to_fifteen_lines_and_stored_lines_survive_tidying() -> None:
    long = "\n".join(f"line_{n} = {n}" for n in range(40))
    trimmed = trim_snippet(long)
    assert len(trimmed.splitlines()) == 15 and trimmed.endswith("…")
    messy = "release:  \n\n1.   bump   it\n2. ship"
    assert tidy_content(messy, "workflow") == "release:\n1. bump it\n2. ship"
    assert tidy_content(messy, "fact") == "release: 1. bump it 2. ship"
