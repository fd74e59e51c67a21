"""A dashboard card: a small caption over a big number, clickable into its view."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QEnterEvent,
    QFocusEvent,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

# Keys that press a focused card, like a button.
_ACTIVATE_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_Select)


class StatCard(QWidget):
    """A framed, focusable tile with a caption and a value; behaves like a button.

    The frame is painted from the palette (Base fill, Mid border, Highlight border when
    focused or hovered), so the card follows light and dark themes without a stylesheet.

    Signals:
        clicked: the card was clicked, or activated with Enter/Space while focused.
    """

    clicked = Signal()

    RADIUS = 6.0

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._hovered = False
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAttribute(Qt.WidgetAttribute.WA_Hover)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(caption)

        self.caption = QLabel(caption, self)
        self.caption.setObjectName("statCaption")
        self.caption.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.value_label = QLabel("—", self)
        self.value_label.setObjectName("statValue")
        self.value_label.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.75)
        font.setWeight(QFont.Weight.DemiBold)
        self.value_label.setFont(font)
        for label in (self.caption, self.value_label):
            # Clicks and the pointing cursor belong to the card, not to its labels.
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # The card is filled with Base, so its text takes Base's partner colour.
        self.value_label.setForegroundRole(QPalette.ColorRole.Text)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 12)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.value_label)

    # -- content ----------------------------------------------------------------------

    def value(self) -> str:
        """The text the card shows as its value."""
        return self.value_label.text()

    def set_value(self, text: str, tooltip: str = "") -> None:
        self.value_label.setText(text)
        self.setToolTip(tooltip)
        self.setAccessibleDescription(f"{text}. {tooltip}".strip() if tooltip else text)

    # -- behaviour --------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ACTIVATE_KEYS and not event.isAutoRepeat():
            event.accept()
            self.clicked.emit()
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        # Like a button: the click counts only if released over the card.
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            event.accept()
            self.clicked.emit()
            return
        super().mouseReleaseEvent(event)

    def enterEvent(self, event: QEnterEvent) -> None:
        self._hovered = True
        self.update()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._hovered = False
        self.update()
        super().leaveEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusOutEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        highlighted = self.hasFocus() or self._hovered
        width = 2.0 if self.hasFocus() else 1.0
        border = QColor(
            palette.color(QPalette.ColorRole.Highlight if highlighted else QPalette.ColorRole.Mid)
        )
        rect = QRectF(self.rect()).adjusted(width / 2, width / 2, -width / 2, -width / 2)
        painter.setPen(QPen(border, width))
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, self.RADIUS, self.RADIUS)
