"""Uncaught exceptions in the desktop app: logged with their traceback, then told.

An exception raised in a slot does not stop Qt: PySide hands it to `sys.excepthook`
and the event loop carries on. The hooks here first call the ones already installed
(memory_app.logs writes the traceback to the log file), then show one critical message
box saying what happened and where the log is, so a failure of an app started from the
menu is neither silent nor, when Qt can go on, fatal. Exceptions in other threads are
reported the same way; the box is always shown by the GUI thread (a queued signal).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

from PySide6.QtCore import QObject, Qt, Signal, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_app import logs
from memory_app.domain.redaction import redact
from memory_app.gui.qt_log import log_qt_message
from memory_app.gui.translations import translate

TITLE = "Memory Curator hit an error"  # in English; CrashReporter shows it translated
MAX_DETAIL = 200

SysHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]
ThreadHook = Callable[[threading.ExceptHookArgs], object]


def describe(error: BaseException) -> str:
    """The error in a few words, without secrets: `ValueError: bad row`."""
    text = redact(str(error)).text.strip().replace("\n", " ")
    if len(text) > MAX_DETAIL:
        text = text[: MAX_DETAIL - 1] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def crash_message(what: str) -> str:
    """One sentence: what happened and where the details are."""
    path = logs.current_log_file()
    if path is None:
        return translate(
            "CrashReporter",
            "Memory Curator ran into an unexpected error ({error}); start it from a terminal"
            " with --verbose to see the details.",
        ).format(error=what)
    return translate(
        "CrashReporter",
        "Memory Curator ran into an unexpected error ({error}); the details are in the log"
        " file {path}.",
    ).format(error=what, path=path)


class CrashReporter(QObject):
    """Wraps the exception hooks to show a critical message box after logging.

    Signals:
        crashed(str): an uncaught exception, described; shown by the GUI thread.
    """

    crashed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._showing = False
        self._saved: tuple[SysHook, ThreadHook] | None = None
        self.crashed.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> None:
        previous_sys, previous_thread = self._saved = (sys.excepthook, threading.excepthook)

        def on_exception(
            kind: type[BaseException], value: BaseException, tb: TracebackType | None
        ) -> None:
            previous_sys(kind, value, tb)
            if isinstance(value, Exception):
                self.crashed.emit(describe(value))

        def on_thread_exception(args: threading.ExceptHookArgs) -> None:
            previous_thread(args)
            if isinstance(args.exc_value, Exception):
                self.crashed.emit(describe(args.exc_value))

        sys.excepthook, threading.excepthook = on_exception, on_thread_exception

    def uninstall(self) -> None:
        if self._saved is not None:
            sys.excepthook, threading.excepthook = self._saved
            self._saved = None

    def _show(self, what: str) -> None:
        if self._showing:  # one box at a time: a failing repaint would stack them up
            return
        self._showing = True
        try:
            QMessageBox.critical(
                QApplication.activeWindow(),
                self.tr("Memory Curator hit an error"),
                crash_message(what),
            )
        finally:
            self._showing = False


@contextmanager
def reporting_errors(app: QApplication) -> Iterator[CrashReporter]:
    """Crash dialogs and Qt's messages in the log while the block runs."""
    reporter = CrashReporter(app)
    previous = qInstallMessageHandler(log_qt_message)
    reporter.install()
    try:
        yield reporter
    finally:
        reporter.uninstall()
        qInstallMessageHandler(previous)
