"""Exporting a project's memories into the managed block of a CLAUDE.md, from Context.

The file is asked for first (one remembered per project), the change is planned off the
GUI thread and shown as a diff, and only an accepted diff is written. Every way this can
end is reported under the preview, and an error says which file and that nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from memory_app.gui.context import AppContext
from memory_app.gui.widgets.diff_dialog import DiffDialog
from memory_app.retrieval.claude_md_export import ClaudeMdExport
from memory_app.retrieval.export_file import ExportError

# Errors an export can end in; each says which file and that nothing changed.
EXPORT_ERRORS = (ExportError, ValueError, OSError)


class ClaudeMdExporter(QObject):
    """Runs one export at a time for the Context view (`parent` owns the dialogs);
    `show_message` reports how it went."""

    def __init__(
        self, context: AppContext, parent: QWidget, show_message: Callable[..., None]
    ) -> None:
        super().__init__()
        self.context = context
        self._parent = parent
        self._show_message = show_message
        self.diff_dialog: DiffDialog | None = None  # open while the diff is being looked at

    def export(self, project: str | None) -> None:
        """Ask for the file here (a modal picker), then plan and show the diff off-thread."""
        path = self.context.dialogs.claude_md_path(self._parent, self._export_start(project))
        if path is not None:
            self.context.spawn(self._plan_export(path, project))

    @staticmethod
    def settings_key(project: str | None) -> str:
        # One remembered file per project; the path is quoted so its slashes make no groups.
        return "context/claude_md/" + quote(project or "*", safe="")

    def _export_start(self, project: str | None) -> Path:
        remembered = self.context.settings.value(self.settings_key(project))
        if isinstance(remembered, str) and remembered:
            return Path(remembered)
        if project is not None and Path(project).is_dir():
            return Path(project) / "CLAUDE.md"
        return Path.home() / "CLAUDE.md"

    async def _plan_export(self, path: Path, project: str | None) -> None:
        service = self.context.service
        self._show_message(self.tr("Preparing the export to {path}…").format(path=path))
        try:
            export = await self.context.call(service.plan_claude_md, path, project=project)
        except EXPORT_ERRORS as exc:
            self._show_message(
                self.tr("Cannot export: {error}").format(error=exc),
                error=True,
            )
            return
        self.context.settings.setValue(self.settings_key(project), str(path))
        if not export.changed:
            self._show_message(
                self.tr(
                    "Already up to date: {path} holds these %Ln memories.",
                    "",
                    len(export.included),
                ).format(path=path)
            )
            return
        self._show_message("")
        dialog = DiffDialog(export, path, self._parent)
        dialog.accepted.connect(lambda: self.context.spawn(self._write_export(export, path)))
        dialog.rejected.connect(
            lambda: self._show_message(self.tr("Export cancelled; nothing written."))
        )
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        self.diff_dialog = dialog
        dialog.open()

    def _dialog_closed(self, dialog: DiffDialog) -> None:
        if self.diff_dialog is dialog:
            self.diff_dialog = None
        dialog.deleteLater()

    async def _write_export(self, export: ClaudeMdExport, path: Path) -> None:
        try:
            await self.context.call(self.context.service.write_claude_md, export)
        except EXPORT_ERRORS as exc:
            self._show_message(
                self.tr("Cannot export: {error}").format(error=exc),
                error=True,
            )
            return
        self._show_message(
            self.tr("Wrote %Ln memories to {path}.", "", len(export.included)).format(path=path)
        )
