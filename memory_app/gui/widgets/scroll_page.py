"""A frameless, resizing scroll area: how a view shows content taller than the window."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scroll_page(
    parent: QWidget, name: str = "", content: QWidget | None = None
) -> tuple[QScrollArea, QWidget]:
    """A scroll area without a frame (the view's own margins draw the edge) that widens
    `content` with itself, and the content: a new plain page when none is given."""
    scroll = QScrollArea(parent)
    if name:
        scroll.setObjectName(name)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    page = content if content is not None else QWidget(scroll)
    scroll.setWidget(page)
    return scroll, page
