"""What a view shows when there is nothing to show: why, and what to do about it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from memory_app.assets import icon_path


class EmptyState(QWidget):
    def __init__(
        self,
        icon: str,
        title: str,
        text: str,
        action: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        layout = QVBoxLayout(self)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.setSpacing(10)
        picture = QLabel(self)
        picture.setPixmap(QIcon(str(icon_path(icon))).pixmap(48, 48))
        picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel(f"<h3>{title}</h3>", self)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text = QLabel(text, self)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setMaximumWidth(460)
        # A word-wrapped label in a centring layout shrinks to its shortest lines;
        # a minimum width keeps the explanation a readable paragraph.
        self.text.setMinimumWidth(360)
        layout.addWidget(picture)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 0, Qt.AlignmentFlag.AlignHCenter)
        self.button: QPushButton | None = None
        if action:
            self.button = QPushButton(action, self)
            layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)
