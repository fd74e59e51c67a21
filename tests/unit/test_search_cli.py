"""`memory-app search` with the search syntax: the README's line run exactly as written,
the syntax in `--help`, and a bad filter as a clear error."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from memory_app.cli import build_parser, main
from memory_app.config import resolve_settings
from memory_app.domain.search_syntax import SYNTAX_HELP
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from tests.helpers import ScriptedExtractor, conversation

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

ROOT = Path(__file__).resolve().parents[2]
README_LINE = "memory-app search 'category:coding_preferences -flaky pyt'"


def seeded(data: Path) -> None:
    items = [
        ExtractedItem("coding_preferences", "Use pytest fixtures for shared setup", 0.9),
        ExtractedItem("coding_preferences", "Mark flaky pytest cases, never delete them", 0.9),
        ExtractedItem("bug_patterns", "pytest hung on a shared event loop", 0.9),
        ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.9),
    ]
    service = MemoryService.open(resolve_settings(data, env={}), ScriptedExtractor(items))
    try:
        service.memorize(
            conversation(("Some long enough conversation about tests.", "And a reply too."))
        )
    finally:
        service.close()


def test_the_readme_search_line_runs_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_LINE in readme
    data = tmp_path / "data"
    seeded(data)
    argv = shlex.split(README_LINE)
    assert argv[0] == "memory-app"
    assert main([*argv[1:], "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Use pytest fixtures for shared setup" in out
    assert "flaky" not in out and "event loop" not in out and "pathlib" not in out
    assert main([*argv[1:], "--data-dir", str(data), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [r["content"] for r in found] == ["Use pytest fixtures for shared setup"]


def test_search_help_explains_the_syntax() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = sub.choices["search"].format_help()  # type: ignore[attr-defined]
    flat = " ".join(text.split())
    assert " ".join(SYNTAX_HELP.split()) in flat
    for piece in ("pyt finds pytest", '"a phrase"', "-word", "category:KEY", "project:NAME"):
        assert piece in flat


def test_a_bad_filter_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    seeded(data)
    code = main(["search", "pytest category:nope", "--data-dir", str(data)])
    err = capsys.readouterr().err
    assert code == 1 and "no category 'nope'; use one of coding_preferences" in err
    code = main(["search", "category: pytest", "--data-dir", str(data), "--json"])
    out = capsys.readouterr().out
    assert code == 1 and "category: needs a value" in json.loads(out)["error"]
