"""`memory-app conflicts list|show|resolve`, text and --json, and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from tests.unit.test_conflicts_service import SPACES, TABS, said


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with one open conflict: tabs (40 days ago) against spaces (yesterday)."""
    path = tmp_path / "data"
    service = MemoryService.open(resolve_settings(path, env={}), OfflineExtractor())
    try:
        service.memorize(said(TABS, 40, "a"))
        service.memorize(said(SPACES, 1, "b"))
        assert len(service.conflicts()) == 1
    finally:
        service.close()
    return path


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_and_show(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(capsys, data, "conflicts", "list")
    assert code == 0
    assert "#1" in out and "unresolved" in out and "tabs → spaces" in out

    code, out, _ = run(capsys, data, "conflicts", "list", "--json")
    listed = json.loads(out)
    assert [c["id"] for c in listed] == [1] and listed[0]["item_ids"] == [1, 2]

    code, out, _ = run(capsys, data, "conflicts", "show", "1")
    assert code == 0
    assert "Older: memory #1" in out and "Newer: memory #2" in out
    assert TABS in out and "conflicts resolve 1" in out

    code, out, _ = run(capsys, data, "conflicts", "show", "1", "--json")
    shown = json.loads(out)
    assert [i["id"] for i in shown["items"]] == [1, 2]
    assert TABS in shown["excerpts"]["1"]


def test_resolve_then_undo(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(capsys, data, "conflicts", "resolve", "1", "--keep", "newer", "--json")
    assert code == 0
    assert json.loads(out)["status"] == "accepted_newer"
    _, out, _ = run(capsys, data, "show", "1", "--json")
    assert json.loads(out)["status"] == "superseded" and json.loads(out)["superseded_by"] == 2

    _, out, _ = run(capsys, data, "conflicts", "list")
    assert out.strip() == "No conflicts."
    _, out, _ = run(capsys, data, "conflicts", "list", "--status", "all")
    assert "accepted_newer" in out

    code, out, err = run(capsys, data, "conflicts", "resolve", "1", "--keep", "older")
    assert code == 1 and "already resolved" in err

    run(capsys, data, "undo")
    _, out, _ = run(capsys, data, "conflicts", "list", "--status", "unresolved", "--json")
    assert [c["id"] for c in json.loads(out)] == [1]


def test_keep_both_with_a_note_and_merge(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(
        capsys, data, "conflicts", "resolve", "1", "--keep", "both", "--note", "Makefiles use tabs"
    )
    assert code == 0 and "kept_both_with_context" in out
    run(capsys, data, "undo")
    code, out, _ = run(
        capsys, data, "conflicts", "resolve", "1", "--merge", "Spaces, tabs in Makefiles", "--json"
    )
    assert code == 0 and json.loads(out)["status"] == "merged"


def test_unknown_ids_and_bad_arguments(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, _, err = run(capsys, data, "conflicts", "show", "42")
    assert code == 1 and "no conflict with id 42" in err
    code, out, _ = run(capsys, data, "conflicts", "resolve", "42", "--keep", "newer", "--json")
    assert code == 1 and "no conflict with id 42" in json.loads(out)["error"]
    with pytest.raises(SystemExit):
        run(capsys, data, "conflicts", "resolve", "1")  # --keep or --merge is required
