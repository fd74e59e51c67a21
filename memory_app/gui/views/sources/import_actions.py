"""The action row of Sources and the jobs behind it: importing files or a folder,
extracting the selected conversation again with Claude, retrying a pending one.

Each of these runs as the long "import" job (a new one cancels the one running) on its
own thread; its progress crosses to the GUI thread through a queued Qt signal and shows
at the right of the row, with Cancel. The row says how a job ended through its signals,
so where the outcome is shown stays the view's business.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from memory_app.background import import_in_process
from memory_app.domain.jobs import JobState
from memory_app.domain.records import ImportReport, ResourceRecord
from memory_app.extract.base import ExtractorError
from memory_app.gui.context import AppContext
from memory_app.gui.extractor_choice import claude_extractor
from memory_app.gui.translations import translate
from memory_app.gui.views.sources.import_result import summarize_report
from memory_app.ingest import claude_projects_dir
from memory_app.service import MemoryService

log = logging.getLogger(__name__)

_SETTINGS_FOLDER = "sources/lastFolder"


def _reextract_work(
    service: MemoryService, ids: Sequence[int], doing: str
) -> Callable[[JobState], ImportReport]:
    """A job running `service.reextract` over conversations, reported like an import;
    `doing` says what happens to conversation `{id}`."""
    finished = translate("ImportActions", "Extraction finished")

    def work(job: JobState) -> ImportReport:
        results = []
        for done, ident in enumerate(ids):
            if job.cancelled:
                break
            job.report(done, len(ids), doing.format(id=ident))
            results.append(service.reextract(ident))
        job.report(len(results), len(ids), finished)
        return ImportReport(
            files=len(ids), results=tuple(results), cancelled=len(results) < len(ids)
        )

    return work


class _ProgressBridge(QObject):
    """Carries a job's progress from its thread to the GUI thread.

    Signals:
        progressed(int, int, int, str): import number, done, total, message; emitted on
            the job thread and connected with a queued connection, so the slot runs on
            the GUI thread.
    """

    progressed = Signal(int, int, int, str)


class ImportActions(QWidget):
    """Import Files…, Import Folder…, Extract with Claude, Retry Extraction; while a job
    runs, its progress and Cancel. `selected` gives the conversation Extract and Retry
    act on.

    Signals:
        started(): a job began: the outcome shown of the last one is out of date.
        failed(str): a job, or starting one, failed; the message says why.
        reported(object): the ImportReport of the job just finished (the latest job only).
        finished(): a job finished with a report (a superseded one too).
    """

    started = Signal()
    failed = Signal(str)
    reported = Signal(object)
    finished = Signal()

    def __init__(
        self,
        context: AppContext,
        selected: Callable[[], ResourceRecord | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self._selected = selected
        self._serial = 0
        self._bridge: _ProgressBridge | None = None
        self.claude_key = False  # a key in the environment or keyring (looked up on reload)
        self.last_report: ImportReport | None = None

        self.import_files_button = QPushButton(self.tr("Import Files…"), self)
        self.import_files_button.setToolTip(
            self.tr("Import Claude Code sessions (.jsonl) or chats saved as text or markdown")
        )
        self.import_files_button.clicked.connect(self.import_files)
        self.import_folder_button = QPushButton(self.tr("Import Folder…"), self)
        self.import_folder_button.setToolTip(
            self.tr("Import every conversation in a folder, e.g. ~/.claude/projects")
        )
        self.import_folder_button.clicked.connect(self.import_folder)
        self.extract_button = QPushButton(self.tr("Extract with Claude"), self)
        self.extract_button.setObjectName("extractWithClaude")
        self.extract_button.setToolTip(self._extract_tip(ready=True))
        self.extract_button.clicked.connect(self.extract_with_claude)
        self.extract_button.setEnabled(False)
        self.retry_button = QPushButton(self.tr("Retry Extraction"), self)
        self.retry_button.setToolTip(
            self.tr(
                "Extract the selected conversation again now: its extraction failed (the API "
                "was down or answered badly), so it was kept without memories"
            )
        )
        self.retry_button.clicked.connect(self.retry_extraction)
        self.retry_button.hide()
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("importProgressText")
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress_label.setMaximumWidth(360)
        self.progress_label.setAlignment(
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        )
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setObjectName("importProgress")
        self.progress_bar.setFixedWidth(180)
        self.progress_bar.setTextVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop the import after the current file"))
        self.cancel_button.clicked.connect(self.cancel_import)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.import_files_button)
        row.addWidget(self.import_folder_button)
        row.addWidget(self.extract_button)
        row.addWidget(self.retry_button)
        row.addStretch(1)
        row.addWidget(self.progress_label, 1)
        row.addWidget(self.progress_bar)
        row.addWidget(self.cancel_button)
        self._set_importing(False)

    # -- choosing what to import ------------------------------------------------------------

    @property
    def importing(self) -> bool:
        return self._bridge is not None

    def import_files(self) -> None:
        """Ask for files and import them."""
        paths = self.context.dialogs.import_paths(self, self._start_folder(prefer_claude=False))
        if paths:
            self._remember_folder(paths[0].parent)
            self.start_import(paths)

    def import_folder(self) -> None:
        """Ask for a folder (Claude Code's projects folder offered first) and import it."""
        folder = self.context.dialogs.import_folder(self, self._start_folder(prefer_claude=True))
        if folder is not None:
            self._remember_folder(folder)
            self.start_import([folder])

    def handle_request(self, request: object) -> None:
        """Another view asked to import (see AppEvents.import_requested)."""
        if request == "files":
            self.import_files()
        elif request == "folder":
            self.import_folder()
        elif isinstance(request, list | tuple):
            self.start_import([Path(path) for path in request])

    def _start_folder(self, *, prefer_claude: bool) -> Path | None:
        claude = claude_projects_dir()
        stored = self.context.settings.value(_SETTINGS_FOLDER)
        last = (
            Path(stored) if isinstance(stored, str) and stored and Path(stored).is_dir() else None
        )
        choices = (claude, last) if prefer_claude else (last, claude)
        return next((c for c in choices if c is not None and c.is_dir()), None)

    def _remember_folder(self, folder: Path) -> None:
        self.context.settings.setValue(_SETTINGS_FOLDER, str(folder))

    # -- starting and stopping jobs ---------------------------------------------------------

    def start_import(self, paths: Sequence[Path]) -> Any:
        """Import files or folders as a job; returns the task (a new import cancels the
        running one)."""
        return self.context.spawn(self._import(list(paths)))

    def cancel_import(self) -> None:
        self.context.jobs.cancel("import")
        if self.importing:
            self.cancel_button.setEnabled(False)
            self.progress_label.setText(self.tr("Cancelling after the current file…"))

    def extract_with_claude(self) -> Any:
        """Run Claude over the selected conversation as a job (progress, cancel, summary)."""
        resource = self._selected()
        if resource is None:
            return None
        try:
            extractor = claude_extractor(self.context)
        except ExtractorError as exc:
            message = self.tr("Cannot extract with Claude: {error}").format(error=exc)
            self.context.status.fail(message)
            self.failed.emit(message)
            return None
        claude = MemoryService(self.context.service.db, extractor)  # the same store
        doing = self.tr("Claude is reading conversation #{id}")
        work = _reextract_work(claude, [resource.id], doing)
        label = self.tr("Extracting with Claude")
        return self.context.spawn(self._import([], work=work, label=label))

    def retry_extraction(self) -> Any:
        """Extract the selected pending conversation again now (the Retry button)."""
        resource = self._selected()
        if resource is None or resource.status != "pending":
            return None
        return self.retry_conversation(resource.id)

    def retry_conversation(self, resource_id: int) -> Any:
        """Extract a pending conversation again now with the extractor in use: the same
        job as "Extract with Claude" (it stays pending, with the new reason, on failure)."""
        if self.importing:
            return None
        doing = self.tr("Extracting conversation #{id}")
        work = _reextract_work(self.context.service, [resource_id], doing)
        label = self.tr("Retrying extraction")
        return self.context.spawn(self._import([], work=work, label=label))

    def claude_available(self) -> bool:
        """Claude can be asked: it is the extractor in use, or a key is set."""
        return getattr(self.context.service.extractor, "name", "") == "claude" or self.claude_key

    def update_extract_button(self) -> None:
        """Enabled for a selected conversation when Claude can be asked and nothing runs;
        without a key the tooltip says what is missing."""
        ready = self.claude_available()
        chosen = self._selected() is not None
        self.extract_button.setEnabled(ready and chosen and not self.importing)
        self.extract_button.setToolTip(self._extract_tip(ready=ready))

    def _extract_tip(self, *, ready: bool) -> str:
        """What Extract with Claude does, or what it needs first."""
        if ready:
            return self.tr(
                "Let Claude read the selected conversation again: new memories are added, "
                "known ones reinforced (needs an Anthropic API key)"
            )
        return self.tr(
            "Needs an Anthropic API key: set ANTHROPIC_API_KEY, or save a key in "
            "Settings > Extractor"
        )

    def show_retry(self, record: ResourceRecord | None) -> None:
        """Retry Extraction is offered for a pending conversation only."""
        self.retry_button.setVisible(record is not None and record.status == "pending")
        self.retry_button.setEnabled(not self.importing)

    # -- running a job ----------------------------------------------------------------------

    async def _import(
        self,
        paths: list[Path],
        *,
        work: Callable[[JobState], ImportReport] | None = None,
        label: str | None = None,
    ) -> None:
        label = label or self.tr("Importing conversations")
        self._serial += 1
        serial = self._serial
        bridge = _ProgressBridge()
        bridge.progressed.connect(self._progress, Qt.ConnectionType.QueuedConnection)
        self._bridge = bridge
        state = JobState(on_progress=lambda d, t, m: bridge.progressed.emit(serial, d, t, m))
        service = self.context.service
        self.started.emit()
        self._set_importing(True)
        self.progress_bar.setRange(0, 0)
        self.progress_label.setText(
            self.tr("Looking for conversations…")
            if work is None
            else self.tr("{task}…").format(task=label)
        )
        self.context.status.begin(label)
        if work is None:

            def work(job: JobState) -> ImportReport:
                return import_in_process(service, paths, job=job)

        try:
            report = await self.context.jobs.run("import", work, state)
        except Exception as exc:  # a failed import must leave the window working
            log.warning("import failed", exc_info=exc)
            if serial == self._serial:
                message = (
                    self.tr("Import failed: {error}").format(error=exc)
                    if str(exc)
                    else self.tr("Import failed ({error})").format(error=repr(exc))
                )
                self.context.status.fail(message)
                self.failed.emit(message)
            return
        finally:
            if serial == self._serial:
                self._bridge = None
                self._set_importing(False)
        self.last_report = report
        if serial == self._serial:
            self.reported.emit(report)
            self.context.status.finish(
                self.tr("Import cancelled")
                if report.cancelled
                else summarize_report(report).split(" · ")[0]
            )
        if report.results:
            self.context.events.sources_changed.emit()
            self.context.events.memories_changed.emit()
        self.finished.emit()

    def _progress(self, serial: int, done: int, total: int, message: str) -> None:
        """On the GUI thread: a job reported progress (late reports are dropped)."""
        if serial != self._serial or self._bridge is None:
            return
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)
        if self.cancel_button.isEnabled():
            shown = f"{message} ({min(done + 1, total)}/{total})" if total else message
            metrics = self.progress_label.fontMetrics()
            width = max(120, self.progress_label.width())
            self.progress_label.setText(
                metrics.elidedText(shown, Qt.TextElideMode.ElideMiddle, width)
            )
            self.progress_label.setToolTip(shown)
        self.context.status.progress(done, total, message)

    def _set_importing(self, running: bool) -> None:
        for widget in (self.progress_label, self.progress_bar, self.cancel_button):
            widget.setVisible(running)
        self.cancel_button.setEnabled(running)
        self.update_extract_button()
        self.retry_button.setEnabled(not running)
        if not running:
            self.progress_label.clear()
            self.progress_label.setToolTip("")
