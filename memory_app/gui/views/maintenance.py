"""Maintenance (UX.md "Maintenance"): the schedule with Run now and a dry-run switch, the
changes the jobs propose with accept / reject and a before → after preview ("Apply
accepted" applies them as one undoable group), and the log of past runs.

Jobs run through the app's `MaintenanceRunner` (a child process), so the window stays
responsive; the scheduler uses the same runner, and this view shows its runs too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from memory_app.domain.maintenance import JOB_KINDS, ProposedChange, Schedule
from memory_app.domain.records import MaintenanceRunRecord
from memory_app.gui.context import AppContext
from memory_app.gui.maintenance_runner import job_label
from memory_app.gui.times import relative_time
from memory_app.gui.translations import translate
from memory_app.gui.views.base import View
from memory_app.gui.widgets.changeset import ChangesetPanel
from memory_app.gui.widgets.maintenance_schedule import SchedulePanel
from memory_app.gui.widgets.run_log import RunLog, run_title
from memory_app.operations.maintenance import JobStatus
from memory_app.service import MemoryService
from memory_app.store.errors import StoreError

log = logging.getLogger(__name__)

SETTINGS_DRY_RUN = "maintenance/dryRun"
SETTINGS_SPLITTER = "maintenance/splitter"
RUNS_SHOWN = 50
ACTION_ERRORS = (StoreError, ValueError, LookupError)


@dataclass(frozen=True)
class MaintenanceSnapshot:
    """Everything the view shows, read in one trip to the database worker."""

    jobs: tuple[JobStatus, ...]
    changes: tuple[ProposedChange, ...]
    runs: tuple[MaintenanceRunRecord, ...]
    undone: frozenset[str]  # change groups already undone: their runs offer no Undo


def load_snapshot(service: MemoryService, runs: int = RUNS_SHOWN) -> MaintenanceSnapshot:
    undone = frozenset(
        c.group_id for c in service.maintenance_changes(decisions=("undone",)) if c.group_id
    )
    return MaintenanceSnapshot(
        jobs=tuple(service.maintenance_schedule()),
        changes=tuple(service.maintenance_changes()),
        runs=tuple(service.maintenance_runs(runs)),
        undone=undone,
    )


def run_origins(runs: tuple[MaintenanceRunRecord, ...]) -> dict[int, str]:
    """Run id → "from Nightly consolidation (dry run), 3 h ago" for the preview."""
    return {
        r.id: translate("MaintenanceView", "from {run}, {time}").format(
            run=run_title(r), time=relative_time(r.started_at)
        )
        for r in runs
    }


class MaintenanceView(View):
    key = "maintenance"
    icon = "maintenance"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Maintenance")
        self.runner = context.maintenance
        self.snapshot: MaintenanceSnapshot | None = None
        self.last_record: MaintenanceRunRecord | None = None
        self._applying = False
        # The job label and count of the status bar's "…: 3 changes to review", while it
        # says so (a run's outcome, kept up to date as changes are decided).
        self._review: tuple[str, int] | None = None

        self.schedule = SchedulePanel(self)
        self.changeset = ChangesetPanel(self)
        self.log = RunLog(self)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.changeset)
        self.splitter.addWidget(self.log)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([420, 220])
        self.splitter.splitterMoved.connect(
            lambda *_: context.settings.setValue(SETTINGS_SPLITTER, self.splitter.saveState())
        )
        stored = context.settings.value(SETTINGS_SPLITTER)
        if stored is not None and not isinstance(stored, str):
            self.splitter.restoreState(stored)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.schedule)
        layout.addWidget(self.splitter, 1)

        dry = context.settings.value(SETTINGS_DRY_RUN, True)
        self.schedule.dry_run.setChecked(dry not in (False, "false", "0"))
        self.schedule.dry_run_changed.connect(
            lambda on: context.settings.setValue(SETTINGS_DRY_RUN, on)
        )
        self.schedule.schedule_changed.connect(self.save_schedule)
        self.schedule.run_requested.connect(self.run_job)
        self.schedule.cancel_requested.connect(self.cancel_job)
        self.changeset.decided.connect(self.decide)
        self.changeset.apply_requested.connect(self.apply_accepted)
        self.log.undo_requested.connect(self.undo_run)

        shortcut = QShortcut(QKeySequence("Ctrl+Return"), self)
        shortcut.setWhatsThis(self.tr("Apply the accepted changes"))  # in Help > Keyboard Shortcuts
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.apply_accepted)

        self.runner.started.connect(self._job_started)
        self.runner.progressed.connect(self.schedule.show_progress)
        self.runner.finished.connect(self._job_finished)
        self.runner.failed.connect(self._job_failed)
        context.events.memories_changed.connect(self.schedule_reload)
        if self.runner.running:  # the scheduler got there first
            self._job_started(self.runner.kind or "", self.runner.dry_run)

    # -- loading ----------------------------------------------------------------------

    async def reload(self) -> None:
        snapshot = await self.context.call(load_snapshot, self.context.service)
        self.loaded = True
        self.show_snapshot(snapshot)

    def show_snapshot(self, snapshot: MaintenanceSnapshot) -> None:
        self.snapshot = snapshot
        self.schedule.show_schedule(list(snapshot.jobs))
        self.changeset.show_changes(snapshot.changes, run_origins(snapshot.runs))
        self.log.show_runs(snapshot.runs, snapshot.undone)
        self._recount_review(snapshot.changes)

    def _recount_review(self, changes: tuple[ProposedChange, ...]) -> None:
        """The status bar's "Nightly consolidation: 3 changes to review" (a run's outcome)
        says how many still wait, and goes once none does (applied or rejected)."""
        status = self.context.status
        if self._review is None:
            return
        label, shown = self._review
        if status.state != status.READY or status.message != self.runner.to_review(label, shown):
            self._review = None  # the status bar has moved on
            return
        waiting = sum(1 for change in changes if change.decision in ("pending", "accepted"))
        if not waiting:
            self._review = None
            status.finish()
            return
        if waiting != shown:
            self._review = (label, waiting)
            status.finish(self.runner.to_review(label, waiting))

    # -- the schedule -----------------------------------------------------------------

    def save_schedule(self, schedule: Schedule) -> Any:
        return self.context.spawn(self._save_schedule(schedule))

    async def _save_schedule(self, schedule: Schedule) -> None:
        try:
            await self.context.call(self.context.service.set_schedule, schedule)
        except ACTION_ERRORS as exc:
            self.context.status.fail(
                self.tr("Could not save the schedule: {error}").format(error=exc)
            )
        await self.reload()  # the next run moves with the interval

    # -- running jobs -----------------------------------------------------------------

    def run_job(self, kind: str, dry_run: bool | None = None) -> Any:
        """Run a job now ("full" runs all three); returns the task, None if one runs."""
        if self.runner.running:
            return None
        if dry_run is None:
            dry_run = self.schedule.is_dry_run()
        return self.context.spawn(self._run(kind, dry_run))

    async def _run(self, kind: str, dry_run: bool) -> None:
        jobs = self.snapshot.jobs if self.snapshot is not None else ()
        schedules = {s.schedule.kind: s.schedule for s in jobs}
        kinds = JOB_KINDS if kind == "full" else (kind,)
        # A real run applies its changes only where the schedule says so; otherwise they
        # wait here for a review, as they would after a scheduled run.
        apply = all(k in schedules and schedules[k].auto_apply for k in kinds)
        record = await self.runner.run(kind, dry_run=dry_run, apply=apply)
        if record is not None:
            self.last_record = record

    def cancel_job(self) -> None:
        self.runner.cancel()
        if self.runner.running:
            self.schedule.show_cancelling()

    def _job_started(self, kind: str, dry_run: bool) -> None:
        self.schedule.set_running(job_label(kind, dry_run))
        self.changeset.set_busy(True)

    def _job_finished(self, record: MaintenanceRunRecord) -> None:
        self.schedule.set_running(None)
        pending = record.result.get("pending")
        waits = record.status == "success" and not record.result.get("applied")
        # The runner's outcome then reads "…: 3 changes to review" (see _recount_review).
        self._review = (
            (job_label(record.kind, record.dry_run), pending) if waits and pending else None
        )
        self.changeset.set_busy(self._applying)
        self.last_record = record
        self.loaded = True
        self.schedule_reload()

    def _job_failed(self, message: str) -> None:
        self.schedule.set_running(None)
        self._review = None
        self.changeset.set_busy(self._applying)
        self.schedule_reload()

    # -- the changeset ----------------------------------------------------------------

    def decide(self, ids: list[int], decision: str) -> Any:
        return self.context.spawn(self._decide(list(ids), decision))

    async def _decide(self, ids: list[int], decision: str) -> None:
        try:
            await self.context.call(self.context.service.decide_changes, ids, decision)
        except ACTION_ERRORS as exc:
            self.context.status.fail(
                self.tr("Could not record the decision: {error}").format(error=exc)
            )
            self.schedule_reload()  # show what the store really holds

    def apply_accepted(self) -> Any:
        counts = self.changeset.counts_by_decision()
        if self._applying or self.runner.running or not counts["accepted"]:
            return None
        return self.context.spawn(self._apply())

    async def _apply(self) -> None:
        self._applying = True
        self.changeset.set_busy(True)
        service = self.context.service
        try:
            result = await self.context.call(service.apply_changes)
        except ACTION_ERRORS as exc:
            self.context.status.fail(
                self.tr("Could not apply the changes: {error}").format(error=exc)
            )
            return
        finally:
            self._applying = False
            self.changeset.set_busy(self.runner.running)
        if result.stale:
            text = self.tr(
                "Applied {applied}; %Ln changes skipped: the memories changed since the run "
                "proposed it.",
                "",
                result.stale,
            ).format(applied=self.tr("%Ln changes", "", result.applied))
        else:
            text = self.tr("Applied %Ln changes.", "", result.applied)
        group = result.group_id
        undo = (lambda: self._undo_group(group)) if group else None
        self.context.events.notify.emit(text, undo)
        if result.applied:
            self.context.events.memories_changed.emit()
        await self.reload()

    def undo_run(self, run: MaintenanceRunRecord) -> Any:
        if not run.group_id:
            return None
        return self.context.spawn(self._undo(run.group_id))

    def _undo_group(self, group_id: str) -> None:
        self.context.spawn(self._undo(group_id))

    async def _undo(self, group_id: str) -> None:
        try:
            touched = await self.context.call(self.context.service.undo_maintenance, group_id)
        except ACTION_ERRORS as exc:
            self.context.status.fail(
                self.tr("Could not undo the maintenance changes: {error}").format(error=exc)
            )
            return
        if touched:
            text = self.tr("Undid the maintenance changes to %Ln memories.", "", len(touched))
        else:
            text = self.tr("Undid the maintenance changes.")
        self.context.events.notify.emit(text, None)
        self.context.events.memories_changed.emit()
        await self.reload()
