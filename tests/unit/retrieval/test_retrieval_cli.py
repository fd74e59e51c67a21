"""`memory-app retrieve | context | export claude-md` on a small store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.domain.claude_md import BEGIN_MARKER, END_MARKER
from memory_app.service import MemoryService
from tests.small_store import build_small_store


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        build_small_store(service)
    finally:
        service.close()
    return folder


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def test_retrieve_shows_scores_and_counts_access(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, data, "retrieve", "pytest fixtures", "--json")
    assert code == 0
    results = json.loads(out)
    assert "pytest fixtures" in results[0]["content"]
    assert set(results[0]["components"]) >= {"relevance", "recency"}
    first = results[0]["id"]
    _, out, _ = run(capsys, data, "show", str(first), "--json")
    assert json.loads(out)["access_count"] == 1  # written when the command closed the store


def test_retrieve_time_travel_and_bad_dates(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(capsys, data, "retrieve", "tabs", "--at", "2000-01-01", "--json")
    assert code == 0 and json.loads(out) == []
    with pytest.raises(SystemExit):
        run(capsys, data, "retrieve", "tabs", "--at", "last tuesday")


def test_context_stays_within_its_budget(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(capsys, data, "context", "indentation", "--budget", "300", "--json")
    assert code == 0
    plan = json.loads(out)
    assert plan["used_tokens"] <= 300
    assert estimate_tokens(plan["context"]) <= plan["used_tokens"]
    assert plan["tiers"][0]["entries"][0]["conflict_id"] is not None  # tabs vs spaces
    code, _, err = run(capsys, data, "context", "x", "--budget", "3")
    assert code == 1 and "token budget" in err


def test_export_replaces_the_block_in_place_and_keeps_the_users_text(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    before, after = "# My project\n\nBuild with make.\n", "\n## Notes\nMine, keep.\n"
    target.write_text(before + after)
    code, out, _ = run(capsys, data, "export", "claude-md", str(target))
    assert code == 0 and "Wrote" in out
    first = target.read_text()
    assert first.startswith(before + after)
    assert first.count(BEGIN_MARKER) == 1 and first.rstrip().endswith(END_MARKER)
    assert "<!-- memory " in first  # each line says where it came from
    assert "Indent" not in first and "tabs" not in first  # in an open conflict: left out

    # The person edits around the block; the next export replaces only the block.
    start, end = first.index(BEGIN_MARKER), first.index(END_MARKER) + len(END_MARKER)
    edited = "Intro line.\n" + first[:start] + first[start:end] + "\nTrailing words.\n"
    target.write_text(edited)
    assert run(capsys, data, "edit", "2", "--content", "Always use async/await everywhere")[0] == 0
    code, out, _ = run(capsys, data, "export", "claude-md", str(target), "--json")
    assert code == 0 and json.loads(out)["written"]
    second = target.read_text()
    new_start = second.index(BEGIN_MARKER)
    assert second[:new_start] == edited[: start + len("Intro line.\n")]
    assert second.endswith("\nTrailing words.\n")
    assert second.count(BEGIN_MARKER) == 1
    assert "Always use async/await everywhere" in second

    code, out, _ = run(capsys, data, "export", "claude-md", str(target))
    assert code == 0 and "Already up to date" in out


def test_export_caps_the_block_and_dry_run_writes_nothing(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    code, out, _ = run(
        capsys, data, "export", "claude-md", str(target), "--max-chars", "400", "--dry-run"
    )
    assert code == 0 and "+" + BEGIN_MARKER in out
    assert not target.exists()
    run(capsys, data, "export", "claude-md", str(target), "--max-chars", "400")
    text = target.read_text()
    block = text[text.index(BEGIN_MARKER) : text.index(END_MARKER) + len(END_MARKER)]
    assert len(block) <= 400


def test_export_refuses_a_damaged_block_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    damaged = f"# Mine\n{BEGIN_MARKER}\nhalf a block, no end\n"
    target.write_text(damaged)
    code, _, err = run(capsys, data, "export", "claude-md", str(target))
    assert code == 1 and "end" in err.lower()
    assert target.read_text() == damaged
