"""Composition root of the desktop app: builds the service and the window, runs Qt."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QVBoxLayout, QWidget

from memory_app import __version__
from memory_app.config import APP_ID, Settings
from memory_app.domain.records import Stats
from memory_app.service import MemoryService

APP_NAME = "Memory Curator"


class OverviewWindow(QMainWindow):
    """A first window: what the store holds and how to fill it."""

    def __init__(self, stats: Stats, database: str) -> None:
        super().__init__()
        self.setWindowTitle(APP_NAME)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(32, 32, 32, 32)
        title = QLabel(f"<h1>{APP_NAME}</h1>")
        self.summary = QLabel(self._summary(stats))
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        hint = QLabel(
            "Import conversations from a terminal with "
            "<code>memory-app import ~/.claude/projects</code>; "
            "<code>memory-app --help</code> lists every command."
            f"<br><small>Store: {database}</small>"
        )
        hint.setWordWrap(True)
        for widget in (title, self.summary, hint):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.setCentralWidget(body)
        self.resize(640, 360)

    @staticmethod
    def _summary(stats: Stats) -> str:
        return (
            f"<p><b>{stats.items:,}</b> memories in <b>{stats.categories}</b> categories, "
            f"from <b>{stats.resources:,}</b> conversations.</p>"
        )


def prepare_application_identity() -> None:
    """Names the desktop shell matches the window against; must precede QApplication."""
    QCoreApplication.setApplicationName(APP_ID)
    QCoreApplication.setOrganizationName("memory-curator")
    QCoreApplication.setApplicationVersion(__version__)
    QGuiApplication.setApplicationDisplayName(APP_NAME)
    QGuiApplication.setDesktopFileName(APP_ID)


def run_app(settings: Settings) -> int:
    prepare_application_identity()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    service = MemoryService.open(settings)
    try:
        window = OverviewWindow(service.get_stats(), str(service.db.path or service.db.url))
        window.show()
        return app.exec()
    finally:
        service.close()
