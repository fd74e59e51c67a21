"""Qt's own messages (qWarning and the like from Qt itself) into Python's log.

By default Qt prints them on stderr, which an app started from the desktop menu does
not have; routed here they reach the log file, redacted like every other record.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QMessageLogContext, QtMsgType

log = logging.getLogger("qt")

LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,  # Qt aborts next: at least it is logged
}


def log_qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """A handler for `qInstallMessageHandler`."""
    category = context.category or "default"
    log.log(LEVELS.get(kind, logging.WARNING), "%s: %s", category, message)
