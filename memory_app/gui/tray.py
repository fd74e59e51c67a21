"""The tray icon: a way back to the window and a word when background work ends.

`TrayAnnouncer` decides what to say and needs no tray: it follows the status model (the
same one the status indicator shows, so every import, extraction and maintenance run that
reports progress is seen) and the open-conflict count the window learns after each
change. It speaks only while the window is not the active one, and gathers what ends
close together into one message. `TrayIcon` shows it, where the desktop has a tray; where
it has none (`QSystemTrayIcon.isSystemTrayAvailable()` is false) nothing is made at all.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from memory_app.assets import APP_ICON_NAME, icon_path
from memory_app.gui.context import StatusModel
from memory_app.gui.single_instance import bring_to_front

SETTINGS_KEY = "tray/enabled"  # "false" hides the icon (View > Show Icon in the Tray)
# What ends within this time goes into one message (an import, then the conflicts it
# opened, counted a moment later).
GATHER_MS = 1_500
MESSAGE_MS = 8_000


def tray_enabled(value: object) -> bool:
    """A QSettings value as a switch (INI files give back "true"/"false" strings)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    return bool(value) if value is not None else True


class TrayAnnouncer(QObject):
    """Decides when the tray says something and what.

    Signals:
        announce(str, str, bool): title, message and whether it is a warning (the work
            failed); emitted only while the window is not active.
    """

    announce = Signal(str, str, bool)

    def __init__(
        self,
        status: StatusModel,
        window_active: Callable[[], bool],
        *,
        gather_ms: int = GATHER_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.status = status
        self.window_active = window_active
        self._busy = status.state == StatusModel.PROCESSING
        self._label = status.message if self._busy else ""
        self._conflicts: int | None = None  # unknown until first counted
        self._pending: list[str] = []
        self._warning = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(gather_ms)
        self._timer.timeout.connect(self.flush)
        status.changed.connect(self._status_changed)

    def _status_changed(self) -> None:
        status = self.status
        if status.state == StatusModel.PROCESSING:
            if not self._busy:
                self._label = status.message
            self._busy = True
            return
        if not self._busy:  # an error of something the person just did, not background work
            return
        self._busy = False
        failed = status.state == StatusModel.ERROR
        if status.message:
            message = status.message
        elif failed:
            message = self.tr("{work} failed").format(work=self._label)
        else:
            message = self.tr("{work} finished").format(
                work=self._label or self.tr("Background work")
            )
        self._queue(message, warning=failed)

    def conflicts_counted(self, count: int) -> None:
        """The number of open conflicts now; more than last time is announced."""
        previous, self._conflicts = self._conflicts, count
        if previous is not None and count > previous:
            self._queue(self.tr("%Ln new conflicts to resolve", "", count - previous))

    def _queue(self, message: str, *, warning: bool = False) -> None:
        if self.window_active():
            return
        self._pending.append(message)
        self._warning = self._warning or warning
        self._timer.start()

    def flush(self) -> None:
        """Say what has gathered (unless the window became active meanwhile)."""
        self._timer.stop()
        pending, warning = self._pending, self._warning
        self._pending, self._warning = [], False
        if pending and not self.window_active():
            self.announce.emit(self.tr("Memory Curator"), "\n".join(pending), warning)


class TrayIcon(QObject):
    """The icon with its menu (Show Window, Import Files…, Quit), where a tray exists.

    Signals:
        import_requested: the person chose Import Files… from the menu.
        quit_requested: the person chose Quit from the menu.
    """

    import_requested = Signal()
    quit_requested = Signal()

    def __init__(
        self,
        window: QWidget,
        announcer: TrayAnnouncer,
        *,
        enabled: bool = True,
        available: bool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.available = QSystemTrayIcon.isSystemTrayAvailable() if available is None else available
        self.icon: QSystemTrayIcon | None = None
        self.menu = QMenu(window)
        self.show_action = QAction(self.tr("&Show Window"), self.menu)
        self.show_action.triggered.connect(self.show_window)
        self.import_action = QAction(self.tr("&Import Files…"), self.menu)
        self.import_action.triggered.connect(self._import)
        self.quit_action = QAction(self.tr("&Quit"), self.menu)
        self.quit_action.triggered.connect(self.quit_requested)
        for action in (self.show_action, self.import_action):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        announcer.announce.connect(self.show_message)
        self.set_enabled(enabled)

    @property
    def shown(self) -> bool:
        return self.icon is not None

    def set_enabled(self, enabled: bool) -> None:
        """Show or remove the icon (nothing happens where there is no tray)."""
        if enabled and self.available and self.icon is None:
            self.icon = QSystemTrayIcon(QIcon(str(icon_path(APP_ICON_NAME))), self)
            self.icon.setToolTip(self.tr("Memory Curator"))
            self.icon.setContextMenu(self.menu)
            self.icon.activated.connect(self._activated)
            self.icon.show()
        elif not enabled and self.icon is not None:
            self.icon.hide()
            self.icon.deleteLater()
            self.icon = None

    def show_message(self, title: str, message: str, warning: bool) -> None:
        if self.icon is None:
            return
        kind = (
            QSystemTrayIcon.MessageIcon.Warning
            if warning
            else QSystemTrayIcon.MessageIcon.Information
        )
        self.icon.showMessage(title, message, kind, MESSAGE_MS)

    def show_window(self) -> None:
        bring_to_front(self.window)

    def _import(self) -> None:
        self.show_window()
        self.import_requested.emit()

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.show_window()
