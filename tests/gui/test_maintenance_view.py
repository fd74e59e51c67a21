"""The Maintenance view and the background scheduler on a real store: the schedule, Run now
as a dry run, reviewing and applying the proposed changes as one undoable group, the log,
cancelling, the status bar's badge, and the startup import of new Claude Code sessions.

Jobs run the way the app runs them: in a child process through the job thread."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from memory_app.domain.maintenance import Schedule
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.maintenance_scheduler import (
    SETTINGS_KEY,
    MaintenanceScheduler,
    background_enabled,
)
from memory_app.gui.views.maintenance import MaintenanceView
from memory_app.gui.widgets.change_preview import digest_diff, format_value
from memory_app.gui.widgets.run_log import summarize_figures
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MaintenanceRunRow, MemoryItemRow

Settle = Callable[..., None]
RunUntil = Callable[..., None]
JOB_TIMEOUT = 90  # a job starts a child process; slow machines take seconds for that
KEEP = "Use pytest fixtures for database tests in the importer module"
DUPLICATE = "use pytest fixtures for the database tests in the importer module."
STALE = "Keep the legacy fax gateway adapter behind a flag"
OLD = datetime.now(UTC) - timedelta(days=200)
SESSIONS = (
    "simonw_sample_session.jsonl",
    "daaain_representative_messages.jsonl",
    "spotter_short.jsonl",
)


def add(service: MemoryService, content: str, **fields: Any) -> int:
    """A memory written straight into the store, with any field set."""
    values: dict[str, Any] = {
        "category": "coding_preferences",
        "type": "preference",
        "confidence": 0.7,
        "importance": 0.6,
        **fields,
    }
    with service.db.writing() as session:
        row = repo.add_item(
            session,
            MemoryItemRow(content=content, content_key="", **values),
            actor="user",
            group_id=None,
        )
        service._refresh_summaries(session, {row.category})
        return row.id or 0


@pytest.fixture
def memories(service: MemoryService) -> dict[str, int]:
    """Two near-duplicates, an unrelated memory and an old unimportant one."""
    return {
        "keep": add(service, KEEP, confidence=0.9),
        "dup": add(service, DUPLICATE, confidence=0.6, tags=["testing"]),
        "other": add(service, "Prefer pathlib over os.path when touching files"),
        "stale": add(service, STALE, extracted_at=OLD, importance=0.2, tags=["legacy"]),
    }


@pytest.fixture
def view(qtbot: Any, context: AppContext, settle: Settle) -> MaintenanceView:
    panel = MaintenanceView(context)
    qtbot.addWidget(panel)
    panel.resize(1100, 760)
    panel.show()
    panel.activate()
    settle()
    return panel


def only_schedule(service: MemoryService, kind: str, **fields: Any) -> None:
    """Switch every job off except `kind` (with these schedule fields)."""
    for other in ("nightly", "weekly", "monthly"):
        if other == kind:
            service.set_schedule(Schedule(kind, **fields))
        else:
            service.set_schedule(Schedule(other, enabled=False))


def run_now(view: MaintenanceView, kind: str, settle: Settle) -> None:
    button = view.schedule.run_all if kind == "full" else view.schedule.rows[kind].run
    button.click()
    settle(timeout=JOB_TIMEOUT)
    assert not view.runner.running


def change_rows(view: MaintenanceView) -> list[Any]:
    return view.changeset._rows()


def log_rows(view: MaintenanceView) -> list[list[str]]:
    tree = view.log.tree
    return [
        [tree.topLevelItem(i).text(c) for c in range(tree.columnCount())]
        for i in range(tree.topLevelItemCount())
    ]


def select_run(view: MaintenanceView, index: int) -> None:
    view.log.tree.setCurrentItem(view.log.tree.topLevelItem(index))


def dry_run_nightly(view: MaintenanceView, settle: Settle) -> None:
    assert view.schedule.dry_run.isChecked()  # the default: only propose
    run_now(view, "nightly", settle)


# -- the schedule ---------------------------------------------------------------------------


def test_the_schedule_shows_the_three_jobs(view: MaintenanceView) -> None:
    rows = view.schedule.rows
    assert list(rows) == ["nightly", "weekly", "monthly"]
    assert [r.enabled.text() for r in rows.values()] == [
        "Nightly consolidation",
        "Weekly summarization",
        "Monthly re-index",
    ]
    assert [r.every.value() for r in rows.values()] == [1, 7, 30]
    assert all(r.enabled.isChecked() and not r.auto_apply.isChecked() for r in rows.values())
    assert [r.last_run.text() for r in rows.values()] == ["never"] * 3
    assert [r.next_run.text() for r in rows.values()] == ["due now"] * 3
    assert "near-duplicates" in rows["nightly"].enabled.toolTip()
    assert rows["weekly"].every.accessibleName() == "Weekly summarization: run every how many days"
    # Nothing proposed, nothing run: both say so.
    assert view.changeset.pages.currentWidget() is view.changeset.empty
    assert view.log.pages.currentWidget() is view.log.empty


def test_schedule_changes_are_saved_through_the_service(
    view: MaintenanceView, context: AppContext, settle: Settle
) -> None:
    row = view.schedule.rows["weekly"]
    row.every.setValue(14)
    settle()
    row.auto_apply.setChecked(True)
    settle()
    saved = {s.schedule.kind: s.schedule for s in context.service.maintenance_schedule()}
    assert saved["weekly"] == Schedule("weekly", enabled=True, every_days=14, auto_apply=True)
    assert saved["nightly"] == Schedule("nightly", every_days=1)  # the others untouched
    monthly = view.schedule.rows["monthly"]
    monthly.enabled.setChecked(False)
    settle()
    assert context.service.maintenance_schedule()[2].schedule.enabled is False
    assert monthly.next_run.text() == "off"
    assert not monthly.every.isEnabled() and not monthly.auto_apply.isEnabled()
    assert [j.kind for j in context.service.due_jobs()] == ["nightly", "weekly"]


# -- reviewing proposed changes --------------------------------------------------------------


def test_a_dry_run_proposes_the_merge_with_before_and_after(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    dry_run_nightly(view, settle)
    service = context.service
    assert service.get_item(memories["dup"]).status == "active"  # a dry run changes nothing
    assert view.changeset.pages.currentWidget() is view.changeset.main
    group = view.changeset.tree.topLevelItem(0)
    assert group.text(0) == "Merge duplicates (1)"
    (row,) = change_rows(view)
    assert row.text(0) == f"{KEEP} (+1 duplicate)"
    assert row.text(1) == "Pending"
    assert row.checkState(0) == Qt.CheckState.PartiallyChecked
    preview = view.changeset.preview.toPlainText()
    assert KEEP in preview and DUPLICATE in preview
    assert "Kept and reinforced · memory #" in preview
    assert "Superseded · memory #" in preview
    assert "active\t→\tsuperseded" in preview or ("active" in preview and "superseded" in preview)
    assert "Tags" in preview and "testing" in preview  # the duplicate's tag joins the survivor
    assert view.changeset.counts.text() == "1 change · 1 pending"
    assert not view.changeset.apply_button.isEnabled()
    run, *_ = log_rows(view)
    assert run[:2] == ["Nightly consolidation (dry run)", "Done"]
    assert "1 change to review" in run[3] and "1 duplicate group" in run[3]
    select_run(view, 0)
    assert not view.log.undo_button.isEnabled()  # a dry run applied nothing


def test_accept_apply_and_undo(
    qtbot: Any,
    view: MaintenanceView,
    context: AppContext,
    memories: dict[str, int],
    settle: Settle,
) -> None:
    dry_run_nightly(view, settle)
    service = context.service
    (row,) = change_rows(view)
    view.changeset.tree.setCurrentItem(row)
    view.changeset.tree.setFocus()
    qtbot.keyClick(view.changeset.tree, Qt.Key.Key_A)  # A accepts
    settle()
    (change,) = service.maintenance_changes()
    assert change.decision == "accepted"
    assert change_rows(view)[0].text(1) == "Accepted"
    assert change_rows(view)[0].checkState(0) == Qt.CheckState.Checked
    assert view.changeset.apply_button.isEnabled()

    notices: list[tuple[str, Any]] = []
    changed: list[bool] = []
    context.events.notify.connect(lambda text, undo: notices.append((text, undo)))
    context.events.memories_changed.connect(lambda: changed.append(True))
    qtbot.keyClick(view.changeset.tree, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert service.get_item(memories["dup"]).status == "superseded"
    assert service.get_item(memories["dup"]).superseded_by == memories["keep"]
    assert notices and notices[-1][0] == "Applied 1 change." and callable(notices[-1][1])
    assert changed
    assert view.changeset.pages.currentWidget() is view.changeset.empty  # nothing left
    applied, dry_run = log_rows(view)[:2]
    assert applied[:2] == ["Reviewed changes applied", "Done"]
    assert applied[3] == "1 change applied"
    assert dry_run[0] == "Nightly consolidation (dry run)"
    select_run(view, 1)
    assert not view.log.undo_button.isEnabled()
    select_run(view, 0)
    assert view.log.undo_button.isEnabled()

    view.log.undo_button.click()
    settle()
    assert service.get_item(memories["dup"]).status == "active"
    assert notices[-1][0] == "Undid the maintenance changes to 2 memories."
    assert log_rows(view)[0][1] == "Done, undone"
    select_run(view, 0)
    assert not view.log.undo_button.isEnabled()


def test_the_notice_after_applying_undoes_the_group(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    dry_run_nightly(view, settle)
    notices: list[Any] = []
    context.events.notify.connect(lambda _text, undo: notices.append(undo))
    view.changeset.accept_all_button.click()
    settle()
    view.changeset.apply_button.click()
    settle()
    assert context.service.get_item(memories["dup"]).status == "superseded"
    notices[-1]()  # the toast's Undo
    settle()
    assert context.service.get_item(memories["dup"]).status == "active"


def test_a_rejected_change_is_not_applied(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    dry_run_nightly(view, settle)
    (row,) = change_rows(view)
    view.changeset.tree.setCurrentItem(row)
    view.changeset.reject_button.click()
    settle()
    (change,) = context.service.maintenance_changes()
    assert change.decision == "rejected"
    (row,) = change_rows(view)
    assert row.text(1) == "Rejected" and row.checkState(0) == Qt.CheckState.Unchecked
    assert row.font(0).strikeOut()
    assert not view.changeset.apply_button.isEnabled()
    assert view.apply_accepted() is None
    assert context.service.get_item(memories["dup"]).status == "active"
    assert view.changeset.counts.text() == "1 change · 1 rejected"


def test_the_check_box_accepts_then_rejects(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    dry_run_nightly(view, settle)
    (row,) = change_rows(view)
    row.setCheckState(0, Qt.CheckState.Checked)  # what a click on the box does
    settle()
    assert context.service.maintenance_changes()[0].decision == "accepted"
    change_rows(view)[0].setCheckState(0, Qt.CheckState.Unchecked)
    settle()
    assert context.service.maintenance_changes()[0].decision == "rejected"


def test_archive_and_compress_previews(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    run_now(view, "weekly", settle)
    groups = [
        view.changeset.tree.topLevelItem(i).text(0)
        for i in range(view.changeset.tree.topLevelItemCount())
    ]
    assert groups == ["Archive (1)", "Compress into the category summary (1)"]
    archive, compress = change_rows(view)
    assert archive.text(0) == STALE
    view.changeset.tree.setCurrentItem(archive)
    text = view.changeset.preview.toPlainText()
    assert "Archived · memory #" in text and STALE in text
    assert "active" in text and "archived" in text and "under 0.3" in text  # the reason
    view.changeset.tree.setCurrentItem(compress)
    text = view.changeset.preview.toPlainText()
    assert "Category digest" in text and "+ " in text and "legacy" in text
    assert context.service.get_item(memories["stale"]).status == "active"


def test_a_reload_keeps_the_current_row_and_the_selection(
    view: MaintenanceView, memories: dict[str, int], settle: Settle
) -> None:
    run_now(view, "weekly", settle)
    archive, compress = change_rows(view)
    view.changeset.tree.setCurrentItem(compress)
    archive.setSelected(True)
    picked = [c.id for c in view.changeset.selected_changes()]
    current = view.changeset.current_change()
    assert current is not None and len(picked) == 2
    view.show_snapshot(view.snapshot)  # what a reload after any change does
    assert [c.id for c in view.changeset.selected_changes()] == picked
    assert view.changeset.current_change() == current


# -- running ----------------------------------------------------------------------------------


def test_cancel_stops_the_job_and_the_log_says_so(
    view: MaintenanceView,
    context: AppContext,
    memories: dict[str, int],
    settle: Settle,
    run_until: RunUntil,
) -> None:
    view.schedule.dry_run.setChecked(False)
    view.schedule.run_all.click()
    run_until(lambda: view.runner.running)
    assert view.schedule.progress_row.isVisibleTo(view)
    assert not view.schedule.run_all.isEnabled()
    assert not view.schedule.rows["nightly"].run.isEnabled()
    view.schedule.cancel_button.click()
    assert not view.schedule.cancel_button.isEnabled()  # once is enough
    settle(timeout=JOB_TIMEOUT)
    assert view.last_record is not None and view.last_record.status == "cancelled"
    assert context.service.maintenance_runs()[0].status == "cancelled"
    assert log_rows(view)[0][:2] == ["Full maintenance", "Cancelled"]
    assert context.service.get_item(memories["dup"]).status == "active"
    assert not view.schedule.progress_row.isVisibleTo(view)
    assert view.schedule.run_all.isEnabled()
    assert context.status.state == context.status.READY
    assert context.status.message == "Full maintenance cancelled"


def test_the_badge_shows_while_a_job_runs(
    qtbot: Any, context: AppContext, memories: dict[str, int], settle: Settle, run_until: RunUntil
) -> None:
    window = build_main_window(context)
    qtbot.addWidget(window)
    window.show()
    window.navigate("maintenance")
    settle()
    view = window.view("maintenance")
    assert isinstance(view, MaintenanceView)
    assert not window.maintenance_badge.isVisibleTo(window)
    view.schedule.rows["monthly"].run.click()
    run_until(lambda: context.status.maintenance)
    assert window.maintenance_badge.isVisibleTo(window)
    assert window.indicator.text().startswith("Processing… Monthly re-index (dry run)")
    settle(timeout=JOB_TIMEOUT)
    assert not window.maintenance_badge.isVisibleTo(window)
    assert window.indicator.text() == "Ready · Monthly re-index (dry run): nothing to change"


def test_a_second_job_waits_for_the_first(
    view: MaintenanceView, context: AppContext, settle: Settle, run_until: RunUntil
) -> None:
    assert view.run_job("weekly", dry_run=True) is not None
    run_until(lambda: view.runner.running)
    assert view.run_job("nightly", dry_run=True) is None  # refused, not queued
    settle(timeout=JOB_TIMEOUT)
    assert [r.kind for r in context.service.maintenance_runs()] == ["weekly"]


def test_the_log_shows_failures_in_words(
    view: MaintenanceView, context: AppContext, settle: Settle
) -> None:
    with context.service.db.writing() as session:
        session.add(
            MaintenanceRunRow(
                kind="weekly",
                status="error",
                result={"categories_to_compress": 2},
                error="RuntimeError: disk on fire",
            )
        )
    view.activate()
    settle()
    (run,) = log_rows(view)
    assert run[:2] == ["Weekly summarization", "Failed"]
    assert run[3] == "RuntimeError: disk on fire"
    assert "categories to compress: 2" in view.log.tree.topLevelItem(0).toolTip(3)


# -- the scheduler ------------------------------------------------------------------------------


def test_the_scheduler_runs_what_is_due_and_nothing_else(
    qtbot: Any, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    service = context.service
    only_schedule(service, "nightly", auto_apply=True)
    scheduler = MaintenanceScheduler(context, enabled=False)
    ran: list[list[Any]] = []
    scheduler.checked.connect(ran.append)
    changed: list[bool] = []
    context.events.memories_changed.connect(lambda: changed.append(True))
    scheduler.check_now()
    settle(timeout=JOB_TIMEOUT)
    (record,) = ran[-1]
    assert (record.kind, record.dry_run, record.status) == ("nightly", False, "success")
    assert record.group_id is not None  # applied without review
    assert service.get_item(memories["dup"]).status == "superseded"
    assert changed
    assert not context.status.maintenance
    scheduler.check_now()  # nothing is due any more
    settle(timeout=JOB_TIMEOUT)
    assert ran[-1] == []
    assert len(service.maintenance_runs()) == 1


def test_without_apply_the_scheduled_changes_wait_for_review(
    view: MaintenanceView, context: AppContext, memories: dict[str, int], settle: Settle
) -> None:
    only_schedule(context.service, "nightly")
    scheduler = MaintenanceScheduler(context, enabled=False)
    scheduler.check_now()
    settle(timeout=JOB_TIMEOUT)
    assert context.service.get_item(memories["dup"]).status == "active"
    (row,) = change_rows(view)  # the view shows what the scheduler's run proposed
    assert row.text(1) == "Pending"
    assert log_rows(view)[0][:2] == ["Nightly consolidation", "Done"]
    assert view.schedule.rows["nightly"].last_run.text() == "just now"
    assert view.schedule.rows["nightly"].next_run.text() == "in 1 day"


def test_the_scheduler_is_off_when_the_setting_says_so(context: AppContext) -> None:
    assert background_enabled(None) and background_enabled("true") and background_enabled(True)
    assert not background_enabled("false") and not background_enabled(False)
    context.settings.setValue(SETTINGS_KEY, False)
    scheduler = MaintenanceScheduler(context)
    assert not scheduler.enabled
    assert scheduler.start() is False


# -- the startup import -------------------------------------------------------------------------


@pytest.fixture
def claude_home(samples_dir: Path) -> Path:
    """Three real Claude Code sessions in a fake ~/.claude/projects, last written an hour ago
    (files written in the last five minutes are still in use and wait)."""
    root = Path.home() / ".claude" / "projects"
    project = root / "-home-dev-shop"
    project.mkdir(parents=True)
    an_hour_ago = time.time() - 3600
    for offset, name in enumerate(SESSIONS):
        target = project / name
        shutil.copy(samples_dir / "claude-code" / name, target)
        os.utime(target, (an_hour_ago + offset, an_hour_ago + offset))  # oldest first
    return root


def test_the_startup_check_imports_new_claude_code_sessions(
    context: AppContext, claude_home: Path, settle: Settle
) -> None:
    scheduler = MaintenanceScheduler(context, enabled=False)
    reports: list[Any] = []
    scheduler.imported.connect(reports.append)
    sources: list[bool] = []
    context.events.sources_changed.connect(lambda: sources.append(True))
    scheduler.import_new_sessions()
    settle(timeout=JOB_TIMEOUT)
    service = context.service
    assert sorted(Path(r.source_path or "").name for r in service.resources()) == sorted(SESSIONS)
    assert sources and reports[-1] is not None and reports[-1].resources_added == 3
    (logged,) = service.maintenance_runs()
    assert logged.kind == "startup" and logged.status == "success"
    assert logged.result == {"new_sessions": 3, "imported": 3, "deferred": 0}
    assert context.status.message == "Imported 3 new sessions"
    scheduler.import_new_sessions()  # nothing new the second time: nothing logged
    settle(timeout=JOB_TIMEOUT)
    assert reports[-1] is None
    assert len(service.maintenance_runs()) == 1


def test_the_startup_import_takes_at_most_its_limit(
    context: AppContext, claude_home: Path, settle: Settle
) -> None:
    scheduler = MaintenanceScheduler(context, enabled=False, import_limit=2)
    scheduler.import_new_sessions()
    settle(timeout=JOB_TIMEOUT)
    service = context.service
    first = sorted(Path(r.source_path or "").name for r in service.resources())
    assert first == sorted(SESSIONS[:2])  # the oldest two
    assert service.maintenance_runs()[0].result == {
        "new_sessions": 3,
        "imported": 2,
        "deferred": 1,
    }
    assert "1 waits for the next run" in context.status.message
    scheduler.import_new_sessions()  # the next start takes the rest
    settle(timeout=JOB_TIMEOUT)
    assert len(service.resources()) == 3


def test_no_claude_folder_no_import(context: AppContext, settle: Settle) -> None:
    scheduler = MaintenanceScheduler(context, enabled=False)
    scheduler.import_new_sessions()
    settle()
    assert context.service.resources() == [] and context.service.maintenance_runs() == []


# -- words --------------------------------------------------------------------------------------


def test_figures_in_words() -> None:
    assert summarize_figures({"applied": 3, "stale": 1}) == (
        "3 changes applied, 1 stale change skipped"
    )
    assert summarize_figures({"duplicate_groups": 0, "contradictions": 0}) == "nothing to change"
    index = {"index_ok": False, "index_rebuilt": True, "index_ok_after": True}
    assert summarize_figures(index) == "search index damaged, index rebuilt"
    assert summarize_figures({"new_sessions": 0}) == "no new sessions"
    assert format_value("superseded_by", 4) == "memory #4"
    assert format_value("tags", []) == "none"
    assert digest_diff("a\nb", "a\nc") == [(" ", "a"), ("-", "b"), ("+", "c")]
