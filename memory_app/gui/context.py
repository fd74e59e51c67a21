"""What every window and view is handed: the service, the workers, shared state.

Built once by the composition root (`app.py`) and passed by constructor; nothing is
reached through a global.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from memory_app.gui.runtime import JobRunner, TaskKeeper, Worker
from memory_app.gui.translations import translate
from memory_app.service import MemoryService

if TYPE_CHECKING:  # the runner is built on this module's StatusModel and AppEvents
    from memory_app.gui.maintenance_runner import MaintenanceRunner

T = TypeVar("T")


class StatusModel(QObject):
    """The app's state as the status indicator shows it.

    Signals:
        changed: any of the fields below changed.
    """

    READY, PROCESSING, ERROR = "ready", "processing", "error"
    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.state = self.READY
        self.message = ""
        self.done = 0
        self.total = 0
        self.last_error: str | None = None
        self.maintenance = False

    def begin(self, message: str) -> None:
        self.state, self.message, self.done, self.total = self.PROCESSING, message, 0, 0
        self.changed.emit()

    def progress(self, done: int, total: int, message: str = "") -> None:
        self.state = self.PROCESSING
        self.done, self.total = done, total
        if message:
            self.message = message
        self.changed.emit()

    def finish(self, message: str = "") -> None:
        self.state, self.message, self.done, self.total = self.READY, message, 0, 0
        self.changed.emit()

    def fail(self, message: str) -> None:
        self.state, self.message, self.last_error = self.ERROR, message, message
        self.changed.emit()

    def set_maintenance(self, running: bool) -> None:
        self.maintenance = running
        self.changed.emit()


class AppEvents(QObject):
    """Signals between views that must not know each other.

    Signals:
        memories_changed: items were added, edited, deleted or restored.
        sources_changed: conversations were imported.
        navigate(str, object): show a view ("sources", "memories", …) with an argument,
            e.g. ("sources", (resource_id, turn_start, turn_end)).
        notify(str, object): a transient message; the object is an undo callback or None.
        import_requested(object): import conversations where the request was made (the
            Sources view owns importing): "files" or "folder" asks for them first; a list
            of Paths imports those at once.
        auto_import_changed(bool, bool): the person switched automatic imports of new
            Claude Code sessions on or off (see `auto_import.py`); the second value says
            whether to look for new sessions at once.
    """

    memories_changed = Signal()
    sources_changed = Signal()
    navigate = Signal(str, object)
    notify = Signal(str, object)
    import_requested = Signal(object)
    auto_import_changed = Signal(bool, bool)


class Dialogs:
    """The one seam for modal questions and file pickers (replaced in tests)."""

    def import_paths(self, parent: QWidget, start: Path | None) -> list[Path]:
        files, _ = QFileDialog.getOpenFileNames(
            parent,
            translate("Dialogs", "Import conversations"),
            str(start or Path.home()),
            translate(
                "Dialogs", "Conversations (*.jsonl *.json *.md *.markdown *.txt);;All files (*)"
            ),
        )
        return [Path(f) for f in files]

    def import_folder(self, parent: QWidget, start: Path | None) -> Path | None:
        folder = QFileDialog.getExistingDirectory(
            parent,
            translate("Dialogs", "Import a folder of conversations"),
            str(start or Path.home()),
        )
        return Path(folder) if folder else None

    def confirm(self, parent: QWidget, title: str, text: str) -> bool:
        answer = QMessageBox.question(parent, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def claude_md_path(self, parent: QWidget, start: Path) -> Path | None:
        """The CLAUDE.md to export into; it may not exist yet. The file is edited, not
        overwritten (only the managed block changes), so no overwrite question."""
        name, _ = QFileDialog.getSaveFileName(
            parent,
            translate("Dialogs", "Export to CLAUDE.md"),
            str(start),
            translate("Dialogs", "Markdown (*.md);;All files (*)"),
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        return Path(name) if name else None

    def backup_path(self, parent: QWidget, suggested: Path) -> Path | None:
        """Where to write a backup of the store (the dialog asks before replacing a file)."""
        name, _ = QFileDialog.getSaveFileName(
            parent,
            translate("Dialogs", "Back up the store"),
            str(suggested),
            translate("Dialogs", "Backups (*.bak *.db);;All files (*)"),
        )
        return Path(name) if name else None

    def backup_to_restore(self, parent: QWidget, start: Path) -> Path | None:
        """The backup file to put in place of the store."""
        name, _ = QFileDialog.getOpenFileName(
            parent,
            translate("Dialogs", "Restore from a backup"),
            str(start),
            translate("Dialogs", "Backups (*.bak *.db);;All files (*)"),
        )
        return Path(name) if name else None


@dataclass
class AppContext:
    service: MemoryService
    db: Worker
    jobs: JobRunner
    tasks: TaskKeeper
    status: StatusModel
    events: AppEvents
    settings: QSettings
    maintenance: MaintenanceRunner  # one maintenance job at a time, for view and scheduler
    dialogs: Dialogs = field(default_factory=Dialogs)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a service call on the database worker and await its result."""
        return await self.db.run(fn, *args, **kwargs)

    def spawn(self, coro: Any) -> Any:
        return self.tasks.spawn(coro)

    def shutdown(self) -> None:
        """Stop background work: cancel tasks, cancel and join jobs, stop the worker."""
        self.tasks.cancel_all()
        self.jobs.shutdown()
        self.db.shutdown()
