"""A transient message in the status bar, with an Undo button when the action can be undone."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

SHOW_MS = 8_000


class Toast(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.undo_button = QPushButton(self.tr("Undo"), self)
        self.undo_button.setFlat(True)
        self.undo_button.setToolTip(self.tr("Undo (Ctrl+Z)"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.undo_button)
        self._undo: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.undo_button.clicked.connect(self._do_undo)
        self.hide()

    def show_message(self, text: str, undo: Callable[[], None] | None = None) -> None:
        self.label.setText(text)
        self._undo = undo
        self.undo_button.setVisible(undo is not None)
        self.show()
        self._timer.start(SHOW_MS)

    def _do_undo(self) -> None:
        undo, self._undo = self._undo, None
        self.hide()
        if undo is not None:
            undo()
