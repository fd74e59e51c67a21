"""Composition root of the desktop app: builds the service, the workers and the window,
and runs Qt and asyncio as one loop (qasync)."""

from __future__ import annotations

import asyncio
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_app import __version__
from memory_app.assets import APP_ICON_NAME, icon_path
from memory_app.config import APP_FOLDER, APP_ID, Settings
from memory_app.gui.backups import DailyBackups
from memory_app.gui.context import AppContext, AppEvents, StatusModel
from memory_app.gui.crash_dialog import reporting_errors
from memory_app.gui.event_loop import EventLoop
from memory_app.gui.main_window import MainWindow
from memory_app.gui.maintenance_runner import MaintenanceRunner
from memory_app.gui.maintenance_scheduler import MaintenanceScheduler
from memory_app.gui.runtime import JobRunner, TaskKeeper, Worker
from memory_app.gui.session_watcher import SessionWatcher
from memory_app.gui.single_instance import SingleInstance, bring_to_front, note_already_running
from memory_app.gui.team_sync_timer import TeamSyncTimer
from memory_app.gui.translations import install_translators, translate
from memory_app.gui.user_settings import open_user_settings
from memory_app.gui.views.base import View
from memory_app.service import MemoryService
from memory_app.store.errors import StoreError

APP_NAME = "Memory Curator"
ORGANIZATION = APP_FOLDER  # the settings are opened by name: gui/user_settings.py


def prepare_application_identity() -> None:
    """Names the desktop shell matches the window against; must precede QApplication."""
    QCoreApplication.setApplicationName(APP_ID)
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationVersion(__version__)
    QGuiApplication.setApplicationDisplayName(APP_NAME)
    QGuiApplication.setDesktopFileName(APP_ID)


# The GUI thread shares the interpreter lock with the database and job threads. With the
# default 5 ms switch interval a busy import made every paint wait for the lock again and
# again (stalls of 50-100 ms); handing the lock over every millisecond keeps the window
# fluid at a small cost to the import's throughput.
GIL_SWITCH_INTERVAL_S = 0.001


def build_context(service: MemoryService, settings: QSettings) -> AppContext:
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    status = StatusModel()
    jobs = JobRunner()
    events = AppEvents()
    return AppContext(
        service=service,
        db=Worker("memory-db"),
        jobs=jobs,
        tasks=TaskKeeper(on_error=status.fail),
        status=status,
        events=events,
        settings=settings,
        maintenance=MaintenanceRunner(service, jobs, status, events),
    )


def build_views(context: AppContext) -> list[View]:
    from memory_app.gui.views.conflicts import ConflictsView
    from memory_app.gui.views.context import ContextView
    from memory_app.gui.views.dashboard import DashboardView
    from memory_app.gui.views.episodes import EpisodesView
    from memory_app.gui.views.maintenance import MaintenanceView
    from memory_app.gui.views.memories import MemoriesView
    from memory_app.gui.views.settings import SettingsView
    from memory_app.gui.views.sources import SourcesView

    return [
        DashboardView(context),
        MemoriesView(context),
        ConflictsView(context),
        SourcesView(context),
        EpisodesView(context),
        MaintenanceView(context),
        ContextView(context),
        SettingsView(context),
    ]


def build_main_window(context: AppContext) -> MainWindow:
    return MainWindow(context, build_views(context))


class _FirstPaint(QObject):
    """Reports the time of the window's first paint (used by the startup benchmark)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            print(f"first-paint {time.time():.6f}", flush=True)
            QTimer.singleShot(0, QApplication.quit)
        return False


def run_app(settings: Settings) -> int:
    prepare_application_identity()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    install_translators(app)
    with reporting_errors(app):
        return _run_window(app, settings)


def _run_window(app: QApplication, settings: Settings) -> int:
    app.setWindowIcon(QIcon(str(icon_path(APP_ICON_NAME))))
    instance = SingleInstance(settings.data_dir)
    if not instance.claim():  # another window has this store: show it, open nothing
        return note_already_running(instance.send())
    loop = EventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        service = MemoryService.open(settings)
    except StoreError as exc:
        QMessageBox.critical(
            None, translate("App", "Memory Curator cannot open its store"), str(exc)
        )
        instance.close()
        return 1
    if service.db.damage is not None:  # readable, but every change is refused
        QMessageBox.warning(
            None, translate("App", "Memory Curator's store is damaged"), service.db.damage
        )
    context = build_context(service, open_user_settings())
    window = build_main_window(context)
    instance.activation_requested.connect(lambda token: bring_to_front(window, token))
    if os.environ.get("MEMORY_APP_EXIT_AFTER_PAINT"):
        probe = _FirstPaint(window)
        central = window.centralWidget()
        assert central is not None  # MainWindow sets it in __init__
        central.installEventFilter(probe)
    window.show()
    # Seed 001's startup check and the maintenance schedule, in the background, and new
    # sessions imported while the window is open (the QSettings key
    # "maintenance/background" = false switches them off). New sessions are imported only
    # once the person has said yes (auto_import.py): the first start asks on the welcome page.
    scheduler = MaintenanceScheduler(context)
    watcher = SessionWatcher(scheduler)
    # The daily backup (QSettings "backups/keep" or MEMORY_APP_BACKUP_KEEP: how many).
    daily_backups = DailyBackups(context)
    team_sync = TeamSyncTimer(context)  # only does something once `team connect` linked it
    if service.db.damage is None:  # on a damaged store every job would be refused
        scheduler.start()
        watcher.start()
        daily_backups.start()
        if scheduler.enabled:  # the same switch as the other background work
            team_sync.start()
    closing = asyncio.Event()
    app.aboutToQuit.connect(window.save_state)  # also when quit without closing the window
    app.aboutToQuit.connect(closing.set)
    try:
        with loop:
            loop.run_until_complete(closing.wait())
    finally:
        watcher.stop()
        scheduler.stop()
        team_sync.stop()
        daily_backups.stop()
        window.backups.shutdown()
        context.shutdown()
        service.close()
        instance.close()
    return 0
