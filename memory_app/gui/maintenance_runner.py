"""Running one maintenance job at a time in the background, for the Maintenance view and
the scheduler alike.

The job runs in a child process (`maintenance_in_process`) awaited through the app's job
thread, so the window stays smooth. Its progress crosses to the GUI thread through a
queued Qt signal; the status bar shows it, with the maintenance badge, until it ends.
"""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import QObject, Qt, Signal

from memory_app.background import maintenance_in_process
from memory_app.domain.jobs import JobState
from memory_app.domain.maintenance import JOB_TITLES
from memory_app.domain.records import MaintenanceRunRecord
from memory_app.gui.context import AppEvents, StatusModel
from memory_app.gui.runtime import JobRunner
from memory_app.gui.translations import translate
from memory_app.service import MemoryService

log = logging.getLogger(__name__)

JOB_KIND = "maintenance"  # the JobRunner kind: a second maintenance job would cancel the first
# Progress reports closer together than this are dropped (except the last word of a step):
# every emit crosses threads, and nobody reads twenty updates a second.
PROGRESS_INTERVAL_S = 0.05


def job_title(kind: str) -> str:
    """ "Nightly consolidation": a job's name as the window shows it."""
    titles = {
        "nightly": translate("MaintenanceRunner", "Nightly consolidation"),
        "weekly": translate("MaintenanceRunner", "Weekly summarization"),
        "monthly": translate("MaintenanceRunner", "Monthly re-index"),
        "full": translate("MaintenanceRunner", "Full maintenance"),
    }
    return titles.get(kind) or JOB_TITLES.get(kind, kind.capitalize())


def job_label(kind: str, dry_run: bool) -> str:
    """ "Nightly consolidation (dry run)": what the status bar says is running."""
    title = job_title(kind)
    return translate("MaintenanceRunner", "{job} (dry run)").format(job=title) if dry_run else title


class _ProgressBridge(QObject):
    """Carries a job's progress from its thread to the GUI thread.

    Signals:
        progressed(int, int, int, str): run number, done, total, message; emitted on the
            job thread and connected with a queued connection, so the slot runs on the GUI
            thread.
    """

    progressed = Signal(int, int, int, str)


class MaintenanceRunner(QObject):
    """Runs maintenance jobs one at a time off the GUI thread and reports on them.

    Signals:
        started(str, bool): a job began (kind, dry run).
        progressed(int, int, str): done, total and what it is doing, on the GUI thread.
        finished(object): the job ended with this `MaintenanceRunRecord` (success, error
            or cancelled).
        failed(str): the job could not run at all (e.g. its process died); no record.
    """

    started = Signal(str, bool)
    progressed = Signal(int, int, str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        service: MemoryService,
        jobs: JobRunner,
        status: StatusModel,
        events: AppEvents,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.jobs = jobs
        self.status = status
        self.events = events
        self.kind: str | None = None  # the job running now
        self.dry_run = False
        self._state: JobState | None = None
        self._serial = 0
        self._bridge = _ProgressBridge(self)
        self._bridge.progressed.connect(self._progress, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        return self._state is not None

    @property
    def cancelling(self) -> bool:
        return self._state is not None and self._state.cancelled

    def cancel(self) -> None:
        """Ask the running job to stop at its next safe point (the store stays as it was)."""
        if self._state is not None:
            self._state.cancel()

    # -- words ------------------------------------------------------------------------

    def outcome(self, record: MaintenanceRunRecord) -> str:
        """One line on how a run ended, for the status bar."""
        label = job_label(record.kind, record.dry_run)
        if record.status == "cancelled":
            return self.tr("{job} cancelled").format(job=label)
        if record.status == "error":
            error = record.error or self.tr("unknown error")
            return self.tr("{job} failed: {error}").format(job=label, error=error)
        applied = record.result.get("applied")
        pending = record.result.get("pending")
        if applied:
            return self.tr("{job}: applied %Ln changes", "", applied).format(job=label)
        if pending:
            return self.to_review(label, pending)
        return self.tr("{job}: nothing to change").format(job=label)

    def to_review(self, label: str, count: int) -> str:
        """ "Nightly consolidation: 3 changes to review": the outcome of a run whose changes
        wait for a person."""
        return self.tr("{job}: %Ln changes to review", "", count).format(job=label)

    async def run(
        self, kind: str, *, dry_run: bool, apply: bool = False
    ) -> MaintenanceRunRecord | None:
        """Run one job ("nightly", "weekly", "monthly" or "full") and return its record;
        None when another maintenance job is running or the job could not run at all."""
        if self.running:
            return None
        self._serial += 1
        serial = self._serial
        bridge = self._bridge
        last_at, last_message = 0.0, ""

        def report(done: int, total: int, message: str) -> None:
            # On the job thread: skip bursts, keep every change of step.
            nonlocal last_at, last_message
            now = time.monotonic()
            if message == last_message and now - last_at < PROGRESS_INTERVAL_S and done < total:
                return
            last_at, last_message = now, message
            bridge.progressed.emit(serial, done, total, message)

        state = JobState(on_progress=report)
        self._state, self.kind, self.dry_run = state, kind, dry_run
        service = self.service
        label = job_label(kind, dry_run)

        def work(job: JobState) -> MaintenanceRunRecord:
            return maintenance_in_process(service, kind, dry_run=dry_run, apply=apply, job=job)

        self.status.set_maintenance(True)
        self.status.begin(label)
        self.started.emit(kind, dry_run)
        try:
            record = await self.jobs.run(JOB_KIND, work, state)
        except Exception as exc:  # a failed job must leave the window working
            log.warning("maintenance %s failed", kind, exc_info=exc)
            if str(exc):
                message = self.tr("{job} failed: {error}").format(job=label, error=exc)
            else:
                message = self.tr("{job} failed ({error})").format(job=label, error=repr(exc))
            # The outcome first, then the flag: whoever watches the status must never see
            # "processing" without "maintenance" and take the job for something else.
            self.status.fail(message)
            self._end()
            self.failed.emit(message)
            return None
        if record.status == "error":
            self.status.fail(self.outcome(record))
        else:
            self.status.finish(self.outcome(record))
        self._end()
        self.finished.emit(record)
        if not record.dry_run and record.status == "success":
            # A real run refreshes decay factors, may open conflicts and apply changes.
            self.events.memories_changed.emit()
        return record

    def _end(self) -> None:
        self._state, self.kind = None, None
        self.status.set_maintenance(False)

    def _progress(self, serial: int, done: int, total: int, message: str) -> None:
        """On the GUI thread: the running job reported progress (late reports dropped)."""
        if serial != self._serial or self._state is None:
            return
        self.status.progress(done, total, message)
        self.progressed.emit(done, total, message)
