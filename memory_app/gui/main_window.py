"""The main window: a thin container of views with a sidebar, menus and a status bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSize, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QIcon,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
)

from memory_app import logs
from memory_app.assets import icon_path
from memory_app.domain.records import Stats
from memory_app.gui.backups import BackupActions
from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.drop_import import DropHighlight, plan_drop
from memory_app.gui.shortcuts_dialog import ShortcutsDialog, collect_shortcuts
from memory_app.gui.tray import SETTINGS_KEY as TRAY_SETTINGS_KEY
from memory_app.gui.tray import TrayAnnouncer, TrayIcon, tray_enabled
from memory_app.gui.views.base import View
from memory_app.gui.widgets.status_indicator import CountsLabel, StatusIndicator
from memory_app.gui.widgets.toast import Toast

# The long jobs the status bar's Cancel stops: imports (a person's and the startup one)
# and maintenance.
CANCELLABLE_JOBS = ("import", "startup-import", "maintenance")


class MainWindow(QMainWindow):
    """Sidebar of views, one stacked page each; menus and shortcuts; the status bar."""

    def __init__(self, context: AppContext, views: list[View]) -> None:
        super().__init__()
        self.context = context
        self.views = views
        self.setWindowTitle(self.tr("Memory Curator"))
        self.setMinimumSize(QSize(900, 600))

        self.sidebar = QListWidget(self)
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setIconSize(QSize(20, 20))
        self.sidebar.setFrameShape(QListWidget.Shape.NoFrame)
        self.sidebar.setMinimumWidth(170)
        self.sidebar.setMaximumWidth(240)
        self.stack = QStackedWidget(self)
        for index, view in enumerate(views):
            item = QListWidgetItem(QIcon(str(icon_path(view.icon))), view.title)
            item.setToolTip(
                self.tr("{view} (Ctrl+{number})").format(view=view.title, number=index + 1)
            )
            item.setSizeHint(QSize(0, 34))
            self.sidebar.addItem(item)
            self.stack.addWidget(view)
        splitter = QSplitter(self)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(0, False)
        splitter.setSizes([190, 1000])
        self.setCentralWidget(splitter)
        self.sidebar.currentRowChanged.connect(self._show_row)

        self._build_status_bar()
        self._build_menus()
        self._build_drop_target()
        self._build_tray()
        context.events.navigate.connect(self.navigate)
        context.events.notify.connect(self.toast.show_message)
        context.events.memories_changed.connect(self.refresh_counts)
        context.events.sources_changed.connect(self.refresh_counts)
        self._restore_state()

    # -- building ---------------------------------------------------------------------

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.indicator = StatusIndicator(self.context.status, self)
        self.indicator.details_requested.connect(self.show_status_details)
        self.counts = CountsLabel(self)  # "last import 13 min ago" ages on its own
        self.toast = Toast(self)
        bar.addWidget(self.indicator)
        bar.addWidget(self.counts)
        bar.addWidget(self.toast)
        self.maintenance_badge = QLabel(self.tr("Maintenance running"), self)
        self.maintenance_badge.setObjectName("maintenanceBadge")
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setFlat(True)
        self.cancel_button.clicked.connect(self.cancel_jobs)
        for widget in (self.maintenance_badge, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
        self.context.status.changed.connect(self._status_changed)
        self._status_changed()

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu(self.tr("&File"))
        self.import_files_action = self._action(
            self.tr("Import &Files…"), "Ctrl+I", self.import_files
        )
        self.import_folder_action = self._action(
            self.tr("Import F&older…"), "Ctrl+Shift+I", self.import_folder
        )
        file_menu.addAction(self.import_files_action)
        file_menu.addAction(self.import_folder_action)
        file_menu.addSeparator()
        self.backups = BackupActions(self.context, self)
        self.backup_action = self._action(self.tr("&Back Up Store…"), None, self.backups.back_up)
        self.restore_action = self._action(
            self.tr("&Restore from Backup…"), None, self.backups.restore
        )
        file_menu.addAction(self.backup_action)
        file_menu.addAction(self.restore_action)
        file_menu.addSeparator()
        file_menu.addAction(
            self._action(self.tr("&Quit"), QKeySequence.StandardKey.Quit, self.close)
        )

        edit_menu = menu.addMenu(self.tr("&Edit"))
        self.undo_action = self._action(self.tr("&Undo"), QKeySequence.StandardKey.Undo, self.undo)
        self.redo_action = self._action(self.tr("&Redo"), QKeySequence.StandardKey.Redo, self.redo)
        # Ctrl+Shift+Z first (what the menu shows), then the platform's other Redo keys.
        shift_z = QKeySequence("Ctrl+Shift+Z")
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        self.redo_action.setShortcuts([shift_z, *(k for k in redo_keys if k != shift_z)])
        self.find_action = self._action(
            self.tr("&Find Memories"), QKeySequence.StandardKey.Find, self.find_memories
        )
        self.delete_action = self._action(
            self.tr("&Delete"), QKeySequence.StandardKey.Delete, self.delete
        )
        for action in (self.undo_action, self.redo_action, self.find_action, self.delete_action):
            edit_menu.addAction(action)

        view_menu = self.view_menu = menu.addMenu(self.tr("&View"))
        for index, view in enumerate(self.views):
            action = self._action(
                view.title, f"Ctrl+{index + 1}", lambda i=index: self.show_view(i)
            )
            view_menu.addAction(action)

        help_menu = menu.addMenu(self.tr("&Help"))
        self.shortcuts_action = self._action(
            self.tr("&Keyboard Shortcuts"),
            QKeySequence.StandardKey.HelpContents,
            self.show_shortcuts,
        )
        help_menu.addAction(self.shortcuts_action)
        self.open_log_folder_action = self._action(
            self.tr("Open &Log Folder"), None, self.open_log_folder
        )
        help_menu.addAction(self.open_log_folder_action)
        help_menu.addAction(self._action(self.tr("&About Memory Curator"), None, self.about))

    def _build_drop_target(self) -> None:
        """Files and folders dropped anywhere on the window are imported."""
        self.setAcceptDrops(True)
        self.drop_highlight = DropHighlight(self)

    def _build_tray(self) -> None:
        """The tray icon (where the desktop has a tray) and View > Show Icon in the Tray."""
        self.tray_announcer = TrayAnnouncer(self.context.status, self.isActiveWindow, parent=self)
        enabled = tray_enabled(self.context.settings.value(TRAY_SETTINGS_KEY, True))
        self.tray = TrayIcon(self, self.tray_announcer, enabled=enabled, parent=self)
        self.tray.import_requested.connect(self.import_files)
        self.tray.quit_requested.connect(self.close)
        self.tray_action = QAction(self.tr("Show Icon in the &Tray"), self)
        self.tray_action.setCheckable(True)
        self.tray_action.setChecked(enabled and self.tray.available)
        self.tray_action.setEnabled(self.tray.available)  # greyed out: this desktop has none
        self.tray_action.toggled.connect(self.set_tray_enabled)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.tray_action)

    def _action(self, text: str, shortcut: Any, slot: Any) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        return action

    # -- navigation -------------------------------------------------------------------

    def view(self, key: str) -> View:
        return next(v for v in self.views if v.key == key)

    def current_view(self) -> View:
        return self.views[self.stack.currentIndex()]

    def show_view(self, index: int, argument: Any = None) -> None:
        self._pending_argument = argument
        if self.sidebar.currentRow() == index:
            self._show_row(index)
        else:
            self.sidebar.setCurrentRow(index)

    def navigate(self, key: str, argument: Any = None) -> None:
        index = next(i for i, v in enumerate(self.views) if v.key == key)
        self.show_view(index, argument)

    def _show_row(self, index: int) -> None:
        if index < 0:
            return
        self.stack.setCurrentIndex(index)
        argument = getattr(self, "_pending_argument", None)
        self._pending_argument = None
        self.views[index].activate(argument)
        self.context.settings.setValue("window/view", self.views[index].key)

    # -- actions ----------------------------------------------------------------------

    def find_memories(self) -> None:
        self.navigate("memories")
        focus = getattr(self.view("memories"), "focus_search", None)
        if focus is not None:
            focus()

    def delete(self) -> None:
        handler = getattr(self.current_view(), "delete_selected", None)
        if handler is not None:
            handler()

    def undo(self) -> None:
        self.context.spawn(self._undo())

    async def _undo(self) -> None:
        service = self.context.service
        if not await self.context.call(service.can_undo):
            self.context.events.notify.emit(self.tr("Nothing to undo."), None)
            return
        ids = await self.context.call(service.undo)
        self.context.events.memories_changed.emit()
        # A category's rename or addition touches no memory.
        self.context.events.notify.emit(
            self.tr("Undid the last change to %Ln memories.", "", len(ids))
            if ids
            else self.tr("Undid the last change."),
            None,
        )

    def redo(self) -> None:
        self.context.spawn(self._redo())

    async def _redo(self) -> None:
        service = self.context.service
        if not await self.context.call(service.can_redo):
            self.context.events.notify.emit(self.tr("Nothing to redo."), None)
            return
        ids = await self.context.call(service.redo)
        self.context.events.memories_changed.emit()
        self.context.events.notify.emit(
            self.tr("Redid the change to %Ln memories.", "", len(ids))
            if ids
            else self.tr("Redid the last undone change."),
            None,
        )

    def import_files(self) -> None:
        self.navigate("sources")
        handler = getattr(self.view("sources"), "import_files", None)
        if handler is not None:
            handler()

    def import_folder(self) -> None:
        self.navigate("sources")
        handler = getattr(self.view("sources"), "import_folder", None)
        if handler is not None:
            handler()

    def import_paths(self, paths: list[Path]) -> None:
        """Import these files and folders as File > Import does: in the Sources view, which
        shows the progress and the outcome."""
        self.navigate("sources")
        self.context.events.import_requested.emit(list(paths))

    def set_tray_enabled(self, enabled: bool) -> None:
        self.context.settings.setValue(TRAY_SETTINGS_KEY, enabled)
        self.tray.set_enabled(enabled)

    def show_shortcuts(self) -> ShortcutsDialog:
        """Help > Keyboard Shortcuts: read from the window's actions as they are now."""
        previous = getattr(self, "shortcuts_dialog", None)
        if previous is not None:
            previous.close()
        dialog = ShortcutsDialog(collect_shortcuts(self), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _result: setattr(self, "shortcuts_dialog", None))
        self.shortcuts_dialog: ShortcutsDialog | None = dialog
        dialog.open()
        return dialog

    def cancel_jobs(self) -> None:
        for kind in CANCELLABLE_JOBS:
            self.context.jobs.cancel(kind)

    def show_status_details(self) -> None:
        status = self.context.status
        if status.last_error:
            QMessageBox.warning(self, self.tr("Last error"), status.last_error)

    def open_log_folder(self) -> None:
        """Show the log files in the file manager (made first if nothing was logged yet)."""
        folder = logs.current_folder()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def about(self) -> None:
        from memory_app import __version__

        markup = "<b>{name}</b> {version}<br>{about}<br>{store}"
        text = markup.format(
            name=self.tr("Memory Curator"),
            version=__version__,
            about=self.tr("The long-term memory of AI coding assistants, kept in the open."),
            store=self.tr("Store: {location}").format(
                location=self.context.service.db.path or self.context.service.db.url
            ),
        )
        QMessageBox.about(self, self.tr("About Memory Curator"), text)

    # -- status bar -------------------------------------------------------------------

    def _status_changed(self) -> None:
        status = self.context.status
        busy = status.state == StatusModel.PROCESSING
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(
            busy and any(self.context.jobs.active(kind) for kind in CANCELLABLE_JOBS)
        )
        if busy:
            self.progress.setRange(0, status.total or 0)
            self.progress.setValue(status.done)
        self.maintenance_badge.setVisible(status.maintenance)

    def refresh_counts(self) -> None:
        self.context.spawn(self._refresh_counts())

    async def _refresh_counts(self) -> None:
        stats = await self.context.call(self.context.service.get_stats)
        self.show_counts(stats)

    def show_counts(self, stats: Stats) -> None:
        self.tray_announcer.conflicts_counted(stats.conflicts_open)
        self.counts.show_stats(stats)
        for index, view in enumerate(self.views):
            text = view.title
            if view.key == "conflicts" and stats.conflicts_open:
                text = f"{view.title}  ({stats.conflicts_open})"
            self.sidebar.item(index).setText(text)

    # -- drag and drop ----------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        plan = plan_drop(event.mimeData())
        if plan.accepted and event.possibleActions() & Qt.DropAction.CopyAction:
            event.setDropAction(Qt.DropAction.CopyAction)  # never Move: the files stay
            event.accept()
            central = self.centralWidget()
            assert central is not None  # set in __init__
            self.drop_highlight.show_over(central, plan.describe())
            return
        event.ignore()
        if event.source() is None:  # from another program; drags inside are the views'
            self.context.events.notify.emit(
                plan.refusal() or self.tr("Only files can be dropped here to import."), None
            )

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self.drop_highlight.isVisible():
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_highlight.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_highlight.hide()
        plan = plan_drop(event.mimeData())  # again: files may have gone meanwhile
        if not plan.accepted:
            event.ignore()
            self.context.events.notify.emit(plan.refusal(), None)
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.import_paths(list(plan.paths))
        if plan.refusal():
            self.context.events.notify.emit(plan.refusal(), None)

    # -- state ------------------------------------------------------------------------

    def _restore_state(self) -> None:
        settings = self.context.settings
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 760)
        key = settings.value("window/view", "dashboard")
        keys = [v.key for v in self.views]
        self.show_view(keys.index(key) if key in keys else 0)
        self.refresh_counts()

    def save_state(self) -> None:
        self.context.settings.setValue("window/geometry", self.saveGeometry())
        self.context.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
