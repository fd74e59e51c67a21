"""The status bar's left side: the indicator of seed 000 §7.1 (a coloured dot and a word,
always visible) and the counts beside it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from PySide6.QtCore import QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from memory_app.domain.records import Stats
from memory_app.gui.colours import ERROR, HUES, SUCCESS, WARNING, readable
from memory_app.gui.context import StatusModel
from memory_app.gui.times import relative_time

# How often "last import 5 min ago" is said again: it must not say "just now" an hour later.
AGE_REFRESH_MS = 30_000

# The dot's hue per state (colours.py); its lightness follows the palette.
KINDS = {
    StatusModel.READY: SUCCESS,
    StatusModel.PROCESSING: WARNING,
    StatusModel.ERROR: ERROR,
}
# WCAG 2, 1.4.11: a graphic that carries meaning needs 3:1 against what surrounds it.
DOT_CONTRAST = 3.0


class StatusDot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = KINDS[StatusModel.READY]
        self.setFixedSize(QSize(12, 12))

    @property
    def colour(self) -> QColor:
        """The state's hue with at least 3:1 contrast on this palette's window."""
        window = self.palette().color(QPalette.ColorRole.Window)
        return readable(HUES[self.kind], [window], DOT_CONTRAST)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colour)
        painter.drawEllipse(1, 1, 10, 10)


class StatusIndicator(QWidget):
    """Ready / Processing… with what and how far / Error, with the message on hover.

    Signals:
        details_requested: the person clicked it (the window shows the last error).
    """

    details_requested = Signal()

    def __init__(self, status: StatusModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = status
        self.dot = StatusDot(self)
        self.label = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(6)
        layout.addWidget(self.dot)
        layout.addWidget(self.label)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        status.changed.connect(self.refresh)
        self.refresh()

    def text(self) -> str:
        return self.label.text()

    def refresh(self) -> None:
        status = self.status
        self.dot.kind = KINDS[status.state]
        self.dot.update()
        if status.state == StatusModel.PROCESSING:
            detail = status.message or self.tr("Working")
            if status.total:
                detail += f" ({status.done}/{status.total})"
            self.label.setText(self.tr("Processing… {detail}").format(detail=detail))
            self.setToolTip(detail)
        elif status.state == StatusModel.ERROR:
            self.label.setText(
                self.tr("Error: {message}").format(message=status.message)
                if status.message
                else self.tr("Error")
            )
            self.setToolTip(self.tr("{error}\nClick for details.").format(error=status.last_error))
        else:
            self.label.setText(
                self.tr("Ready · {message}").format(message=status.message)
                if status.message
                else self.tr("Ready")
            )
            self.setToolTip(self.tr("Memory Curator is ready."))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.details_requested.emit()
        super().mouseReleaseEvent(event)


class CountsText(QObject):
    """The words of the counts (a QObject: lupdate collects counted phrases from
    `self.tr` only, see gui/times.py)."""

    def say(self, stats: Stats, now: datetime | None = None) -> str:
        return self.tr("%Ln memories · last import {when}", "", stats.items).format(
            when=relative_time(stats.last_memorized, now)
        )


_COUNTS = CountsText()


def counts_text(stats: Stats, now: datetime | None = None) -> str:
    """ "1204 memories · last import 13 min ago" (the time relative to `now`)."""
    return _COUNTS.say(stats, now)


class CountsLabel(QLabel):
    """The counts beside the indicator; the time of the last import ages as time passes.

    `show_stats()` sets what is counted; a timer says the time again every
    `AGE_REFRESH_MS`, from `clock` (replaced in tests to move time on).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("counts")
        self.stats: Stats | None = None
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self.timer = QTimer(self)
        self.timer.setInterval(AGE_REFRESH_MS)
        self.timer.timeout.connect(self.refresh)

    def show_stats(self, stats: Stats) -> None:
        self.stats = stats
        self.refresh()
        if not self.timer.isActive():
            self.timer.start()

    def refresh(self) -> None:
        if self.stats is not None:
            self.setText(counts_text(self.stats, self.clock()))
