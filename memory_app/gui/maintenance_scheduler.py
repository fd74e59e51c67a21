"""Maintenance nobody has to remember: the startup check of seed 001 §2 and the schedule.

A few seconds after the window opens, new Claude Code and Codex sessions are imported (at
most 20 a run; the rest wait for the next run) once the person has said yes to that
(`auto_import.py`: the first start asks, nothing is imported before), the conversations
kept pending because their extraction failed are extracted again, and every maintenance
job whose interval has passed runs in the background. After that both are checked every
hour: an API that was down is usually back within the hour, and an hour of quiet costs
nothing. A job set to "apply without review" applies its changes; the others leave them in
the Maintenance view for a person to accept or reject. While the window is open, the
session watcher (`session_watcher.py`) asks for the same import whenever a session has
settled.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from memory_app.background import import_in_process, retry_in_process
from memory_app.domain.jobs import JobState
from memory_app.domain.records import ImportReport, MaintenanceRunRecord
from memory_app.gui.auto_import import first_start_choice
from memory_app.gui.context import AppContext
from memory_app.ingest import claude_projects_dir, codex_sessions_dir

log = logging.getLogger(__name__)

SETTINGS_KEY = "maintenance/background"  # "false" switches both off
STARTUP_DELAY_MS = 5_000  # let the window paint and settle first
CHECK_INTERVAL_MS = 60 * 60 * 1000
STARTUP_IMPORT_LIMIT = 20  # seed 001: MAX_BRANCHES_PER_RUN; the rest wait for next time
# A session file written in the last five minutes is still in use: it waits.
SETTLE_SECONDS = 300.0
IMPORT_JOB = "startup-import"  # not "import": a person's import must not cancel it
RETRY_JOB = "retry-pending"


def background_enabled(value: object) -> bool:
    """A QSettings value as a switch (INI files give back "true"/"false" strings)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    return bool(value) if value is not None else True


class MaintenanceScheduler(QObject):
    """Runs due maintenance and the startup import in the background.

    Built by the composition root; `start()` arms the timers unless switched off (by the
    constructor or the QSettings key "maintenance/background"). Tests call
    `check_now()`, `import_new_sessions()` and `retry_pending()` directly instead.

    The startup import runs only when `auto_import` is True: given to the constructor, or
    read by `resolve_auto_import()` from the settings and the store (at `start()`), and
    changed whenever the person answers (`AppEvents.auto_import_changed`).

    Signals:
        checked(object): a schedule check ended; the list of `MaintenanceRunRecord`s it ran.
        imported(object): an import of new sessions ended (at startup, or asked for by
            the session watcher); its `ImportReport` (None if nothing was new).
        retried(object): the pending conversations were extracted again; the
            `ImportReport` (None if none was pending, or the job failed).
        auto_import_changed(bool): automatic imports were settled or switched on or off
            (the session watcher follows it).
    """

    checked = Signal(object)
    imported = Signal(object)
    retried = Signal(object)
    auto_import_changed = Signal(bool)
    # Emitted on the job thread, received (queued) on the GUI thread.
    _import_progress = Signal(int, int, str)

    def __init__(
        self,
        context: AppContext,
        *,
        enabled: bool | None = None,
        claude_dir: Path | None = None,
        codex_dir: Path | None = None,
        import_limit: int = STARTUP_IMPORT_LIMIT,
        settle_seconds: float = SETTLE_SECONDS,
        auto_import: bool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        if enabled is None:
            enabled = background_enabled(context.settings.value(SETTINGS_KEY, True))
        self.enabled = enabled
        self.claude_dir = claude_dir
        self.codex_dir = codex_dir
        self.import_limit = import_limit
        self.settle_seconds = settle_seconds
        self.deferred = 0  # sessions the last import left for the next one (its limit)
        # None until settled (see resolve_auto_import): then the person's answer.
        self.auto_import = auto_import
        self._checking = False
        self._importing = False
        self._import_again = False
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self._hourly)
        self._import_progress.connect(
            self._show_import_progress, Qt.ConnectionType.QueuedConnection
        )
        context.events.auto_import_changed.connect(self._answered)

    def start(self, delay_ms: int = STARTUP_DELAY_MS) -> bool:
        """Arm the startup check and the hourly one; False when switched off."""
        if not self.enabled:
            return False
        if self.auto_import is None:  # settled now, so the watcher need not wait for the check
            self.context.spawn(self.resolve_auto_import())
        QTimer.singleShot(delay_ms, self, self._startup)
        self._timer.start()
        return True

    def stop(self) -> None:
        self._timer.stop()

    def _startup(self) -> None:
        self.context.spawn(self._startup_check())

    async def _startup_check(self) -> None:
        # New conversations first, so tonight's consolidation already sees them.
        if await self.resolve_auto_import():
            await self._import_new_sessions()
        await self._retry_pending()
        await self._run_due()

    # -- the person's answer -------------------------------------------------------------

    async def resolve_auto_import(self) -> bool:
        """Whether new sessions are imported automatically, settled on the first start
        of a store from the settings and whether it holds conversations."""
        if self.auto_import is None:
            service = self.context.service
            known = await self.context.call(lambda: bool(service.resources(limit=1)))
            if self.auto_import is None:  # the person may have answered meanwhile
                self._set_auto_import(first_start_choice(self.context.settings, known))
        return bool(self.auto_import)

    def _set_auto_import(self, on: bool) -> None:
        self.auto_import = on
        self.auto_import_changed.emit(on)

    def _answered(self, on: bool, import_now: bool) -> None:
        """The person switched automatic imports on or off (welcome page, Settings)."""
        self._set_auto_import(on)
        if on and import_now and self.enabled:
            self.import_new_sessions()

    def _hourly(self) -> None:
        self.context.spawn(self._hourly_check())

    async def _hourly_check(self) -> None:
        await self._retry_pending()
        await self._run_due()

    # -- the schedule -------------------------------------------------------------------

    def check_now(self) -> object:
        """Run every job that is due, one after another, in the background (a task)."""
        return self.context.spawn(self._run_due())

    async def _run_due(self) -> list[MaintenanceRunRecord]:
        runner = self.context.maintenance
        if self._checking or runner.running:
            return []  # the next check tries again
        self._checking = True
        ran: list[MaintenanceRunRecord] = []
        try:
            due = await self.context.call(self.context.service.due_jobs)
            for schedule in due:
                if runner.running:  # someone started a job meanwhile: theirs goes first
                    break
                record = await runner.run(schedule.kind, dry_run=False, apply=schedule.auto_apply)
                if record is None:
                    break
                ran.append(record)
                if record.status == "cancelled":
                    break  # cancelled by a person: not the moment for the others either
        finally:
            self._checking = False
        self.checked.emit(ran)
        return ran

    # -- new Claude Code and Codex sessions -----------------------------------------------

    @property
    def projects_root(self) -> Path:
        """The folder of Claude Code's sessions this scheduler imports from."""
        return self.claude_dir or claude_projects_dir()

    @property
    def codex_root(self) -> Path:
        """The folder of the Codex CLI's sessions (`YYYY/MM/DD/rollout-*.jsonl`)."""
        return self.codex_dir or codex_sessions_dir()

    @property
    def session_roots(self) -> tuple[Path, ...]:
        """Every folder new sessions are imported from."""
        return (self.projects_root, self.codex_root)

    @property
    def importing(self) -> bool:
        return self._importing

    def import_new_sessions(self) -> object:
        """Import the sessions not imported yet, at most `import_limit` (a task).

        One import at a time: asked while one runs, another runs right after it (a new
        import job would cancel the running one).
        """
        return self.context.spawn(self._import_new_sessions())

    async def _import_new_sessions(self) -> ImportReport | None:
        if self._importing:
            self._import_again = True
            return None
        self._importing = True
        try:
            while True:
                self._import_again = False
                report = await self._import_once()
                if not self._import_again:
                    return report
        finally:
            self._importing = False
            self._import_again = False

    async def _import_once(self) -> ImportReport | None:
        roots = [root for root in self.session_roots if root.is_dir()]
        self.deferred = 0
        if not roots:
            self.imported.emit(None)
            return None
        context = self.context
        service = context.service
        found = await context.call(service.new_sessions, roots, settle_seconds=self.settle_seconds)
        if not found:
            self.imported.emit(None)
            return None
        batch = found[: self.import_limit]
        status = context.status

        def work(job: JobState) -> ImportReport:
            return import_in_process(service, batch, job=job)

        status.begin(self.tr("Importing %Ln new sessions", "", len(batch)))
        error: str | None = None
        report: ImportReport | None = None
        try:
            state = JobState(on_progress=self._import_progress.emit)
            report = await context.jobs.run(IMPORT_JOB, work, state)
        except Exception as exc:  # the window keeps working; the log says what happened
            log.warning("startup import failed", exc_info=exc)
            error = str(exc) or repr(exc)
        imported = report.resources_added if report is not None else 0
        deferred = len(found) - len(batch)
        if report is not None and report.cancelled:
            handled = len(report.results)
            deferred += len(batch) - handled
        self.deferred = deferred
        await context.call(service.log_startup_import, len(found), imported, deferred, error)
        if error is not None:
            status.fail(self.tr("Importing new sessions failed: {error}").format(error=error))
        else:
            message = self.tr("Imported %Ln new sessions", "", imported)
            if deferred:
                message = self.tr("{imported}; %Ln wait for the next run", "", deferred).format(
                    imported=message
                )
            status.finish(message)
        if report is not None and report.results:
            context.events.sources_changed.emit()
            context.events.memories_changed.emit()
        self.imported.emit(report)
        return report

    # -- conversations whose extraction failed ---------------------------------------------

    def retry_pending(self) -> object:
        """Extract the pending conversations again with the app's extractor (a task)."""
        return self.context.spawn(self._retry_pending())

    async def _retry_pending(self) -> ImportReport | None:
        context = self.context
        service = context.service
        if context.jobs.active(RETRY_JOB):
            return None  # the one running covers them
        # Those whose answers were paid for and unusable too often wait for a person.
        ids = await context.call(service.pending_ids, automatic=True)
        if not ids:
            self.retried.emit(None)
            return None
        status = context.status
        status.begin(self.tr("Extracting %Ln pending conversations again", "", len(ids)))
        report: ImportReport | None = None
        try:
            state = JobState(on_progress=self._import_progress.emit)
            report = await context.jobs.run(
                RETRY_JOB, lambda job: retry_in_process(service, automatic=True, job=job), state
            )
        except Exception as exc:  # the window keeps working; the next check tries again
            log.warning("retrying pending conversations failed", exc_info=exc)
            status.fail(
                self.tr("Extracting pending conversations failed: {error}").format(error=exc)
            )
            self.retried.emit(None)
            return None
        still = len(report.pending)
        done = len(report.results) - still
        message = self.tr("Extracted {done} of %Ln pending conversations", "", len(ids)).format(
            done=done
        )
        if still:  # not a failure of the app: they are kept, and tried again next hour
            message = self.tr("{extracted}; %Ln still pending: {reason}", "", still).format(
                extracted=message, reason=report.pending[0].reason
            )
        status.finish(message)
        if done:
            context.events.sources_changed.emit()
            context.events.memories_changed.emit()
        self.retried.emit(report)
        return report

    def _show_import_progress(self, done: int, total: int, message: str) -> None:
        if self.context.status.state == self.context.status.PROCESSING:
            self.context.status.progress(done, total, message)
