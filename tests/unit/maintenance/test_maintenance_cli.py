"""`memory-app maintenance …`: run (dry, review, applied), status, changes, apply, undo."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from tests.unit.maintenance.test_jobs import add


def cli(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, Any, str]:
    code = main([*args, "--data-dir", str(data), "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        add(
            service, "Use pytest fixtures for database tests in the importer module", confidence=0.9
        )
        add(service, "use pytest fixtures for the database tests in the importer module.")
    finally:
        service.close()
    return folder


def statuses(data: Path) -> list[str]:
    service = MemoryService.open(resolve_settings(data, env={}))
    try:
        return [m.status for m in service.list_items(status=None)]
    finally:
        service.close()


def test_a_dry_run_reports_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, runs, _ = cli(capsys, data, "maintenance", "run", "nightly", "--dry-run")
    assert code == 0
    assert runs[0]["kind"] == "nightly" and runs[0]["dry_run"] is True
    assert runs[0]["result"]["duplicate_groups"] == 1 and runs[0]["result"]["pending"] == 1
    assert statuses(data) == ["active", "active"]
    code, changes, _ = cli(capsys, data, "maintenance", "changes")
    assert [c["kind"] for c in changes] == ["merge"]


def test_a_run_applies_and_undo_reverses_it(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, runs, _ = cli(capsys, data, "maintenance", "run", "nightly")
    assert code == 0 and runs[0]["result"]["applied"] == 1
    group = runs[0]["group_id"]
    assert group.startswith("maintenance:")
    assert sorted(statuses(data)) == ["active", "superseded"]
    code, undone, _ = cli(capsys, data, "maintenance", "undo")
    assert code == 0 and undone["group_id"] == group and len(undone["undone"]) == 2
    assert statuses(data) == ["active", "active"]


def test_review_leaves_the_changes_for_a_person_then_apply_all(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    cli(capsys, data, "maintenance", "run", "full", "--review")
    assert statuses(data) == ["active", "active"]
    code, applied, _ = cli(capsys, data, "maintenance", "apply", "--all")
    assert code == 0 and applied["applied"] >= 1 and applied["stale"] == 0
    assert sorted(statuses(data)) == ["active", "superseded"]


def test_status_says_what_is_due_and_run_due_runs_it(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, status, _ = cli(capsys, data, "maintenance", "status")
    assert code == 0
    assert [(j["kind"], j["due"]) for j in status["jobs"]] == [
        ("nightly", True),
        ("weekly", True),
        ("monthly", True),
    ]
    code, runs, _ = cli(capsys, data, "maintenance", "run", "due")
    assert [r["kind"] for r in runs] == ["nightly", "weekly", "monthly"]
    _, status, _ = cli(capsys, data, "maintenance", "status")
    assert not any(j["due"] for j in status["jobs"])
    _, runs, _ = cli(capsys, data, "maintenance", "run", "due")
    assert runs == []


def test_text_output_and_a_bad_job_name(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code = main(["maintenance", "run", "weekly", "--dry-run", "--quiet", "--data-dir", str(data)])
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("Weekly summarization (dry run): success")
    with pytest.raises(SystemExit):
        main(["maintenance", "run", "hourly", "--data-dir", str(data)])


def test_a_dry_run_without_json_or_quiet_shows_progress_and_the_report(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    # Issue 15: without --json the namespace has no `json` and the run crashed.
    code = main(["maintenance", "run", "nightly", "--dry-run", "--data-dir", str(data)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("Nightly consolidation (dry run): success")
    assert err.endswith("\n") and "Traceback" not in err


def test_a_full_run_rebuilds_summaries_an_interrupted_import_never_wrote(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Issue 15: imports write summaries after the last file; a process killed before
    # that left them missing, and maintenance only refreshed categories it changed.
    chat = tmp_path / "style.md"
    chat.write_text(
        "User: We always use async/await, never .then() chains.\n\n"
        "Assistant: Got it, async/await everywhere.\n"
    )
    data = tmp_path / "store"
    assert main(["import", str(chat), "--data-dir", str(data), "--json"]) == 0
    with sqlite3.connect(data / "memory.db") as conn:
        written = conn.execute("SELECT category, item_count FROM category_summary").fetchall()
        conn.execute("DELETE FROM category_summary")
    conn.close()
    assert ("coding_preferences", 1) in written
    capsys.readouterr()
    code, runs, _ = cli(capsys, data, "maintenance", "run", "full")
    assert code == 0 and runs[0]["result"]["summaries_rebuilt"] == 1
    with sqlite3.connect(data / "memory.db") as conn:
        rebuilt = conn.execute("SELECT category, item_count FROM category_summary").fetchall()
    conn.close()
    assert rebuilt == [("coding_preferences", 1)]
    service = MemoryService.open(resolve_settings(data, env={}))
    try:
        assert "async/await" in service.get_category("coding_preferences").summary_markdown
    finally:
        service.close()
    # Nothing is missing any more: the next run rebuilds nothing.
    _, runs, _ = cli(capsys, data, "maintenance", "run", "nightly")
    assert runs[0]["result"]["summaries_rebuilt"] == 0
