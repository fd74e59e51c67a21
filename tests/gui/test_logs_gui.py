"""The desktop app's side of logging: Help > Open Log Folder, the crash dialog, Qt's
messages in the log file."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl, qWarning
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget

from memory_app import logs
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.crash_dialog import TITLE, reporting_errors

# Assembled from pieces so secret scanners do not flag this file.
FAKE_TOKEN = "ghp" + "_" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2"


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    with logs.session(tmp_path / "logs") as path:
        assert path is not None
        yield path


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Critical message boxes, recorded instead of shown."""
    shown: list[tuple[str, str]] = []

    def critical(parent: QWidget | None, title: str, text: str) -> None:
        shown.append((title, text))

    monkeypatch.setattr(QMessageBox, "critical", critical)
    return shown


def test_help_open_log_folder_opens_the_log_folder(
    qtbot, context: AppContext, log_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = build_main_window(context)
    qtbot.addWidget(window)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    titles = [a.text().replace("&", "") for a in help_menu.actions()]
    assert "Open Log Folder" in titles

    window.open_log_folder_action.trigger()
    assert [url.toLocalFile() for url in opened] == [str(log_file.parent)]


@pytest.mark.qt_no_exception_capture  # the app's own hook must see the exception
def test_an_exception_in_a_slot_is_logged_and_shown_and_the_app_goes_on(
    qtbot, qapp: QApplication, log_file: Path, dialogs: list[tuple[str, str]]
) -> None:
    def broken_slot() -> None:
        raise ValueError("no such memory: " + FAKE_TOKEN)

    button = QPushButton("Break")
    qtbot.addWidget(button)
    button.clicked.connect(broken_slot)
    with reporting_errors(qapp):
        button.click()
        qtbot.waitUntil(lambda: len(dialogs) == 1)
        button.click()  # still alive: the next failure is reported too
        qtbot.waitUntil(lambda: len(dialogs) == 2)
    title, text = dialogs[0]
    assert title == TITLE
    assert "ValueError: no such memory: " in text and str(log_file) in text
    assert FAKE_TOKEN not in text and text.endswith(".")
    logged = log_file.read_text()
    assert "Uncaught exception" in logged and "in broken_slot" in logged
    assert FAKE_TOKEN not in logged


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_another_thread_is_shown_by_the_gui_thread(
    qtbot, qapp: QApplication, log_file: Path, dialogs: list[tuple[str, str]]
) -> None:
    def work() -> None:
        raise OSError("disk full")

    with reporting_errors(qapp):
        worker = threading.Thread(target=work, name="importer")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: len(dialogs) == 1)
    assert "OSError: disk full" in dialogs[0][1]
    assert "Uncaught exception in thread importer" in log_file.read_text()


def test_qt_messages_go_to_the_log(qapp: QApplication, log_file: Path) -> None:
    with reporting_errors(qapp):
        qWarning("a warning from Qt")
    assert "WARNING qt [MainThread] default: a warning from Qt" in log_file.read_text()
