"""The memory editor's Links section: a memory's links, each a link that opens the
other memory, and "Add link…" with a small dialog (memory_app/links)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memory_app.links.model import HAND_KINDS, LinkInfo


class AddLinkDialog(QDialog):
    """Which memory to link to, and how."""

    def __init__(self, item_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Link memory #{number}").format(number=item_id))
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.target = QSpinBox(self)
        self.target.setRange(1, 2_147_483_647)
        self.target.setToolTip(self.tr("The other memory's id, as the table shows it"))
        form.addRow(self.tr("&Memory #"), self.target)
        self.kind = QComboBox(self)
        names = {
            "related": self.tr("Related"),
            "depends-on": self.tr("Depends on (it needs the other)"),
        }
        for kind in HAND_KINDS:
            self.kind.addItem(names[kind], kind)
        form.addRow(self.tr("&Kind"), self.kind)
        layout.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def choice(self) -> tuple[int, str]:
        return self.target.value(), str(self.kind.currentData())


class LinksSection(QWidget):
    """Signals:
    memory_requested(int): open this memory (a link was clicked).
    add_requested(int, int, str): link memory (first) to memory (second) with a kind.
    """

    memory_requested = Signal(int)
    add_requested = Signal(int, int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item_id: int | None = None
        self.dialog: AddLinkDialog | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = self.tr("Links")  # outside the f-string, where lupdate sees it
        heading = QLabel(f"<b>{html.escape(title)}</b>", self)
        layout.addWidget(heading)
        self.list = QLabel(self)
        self.list.setObjectName("links")
        self.list.setWordWrap(True)
        self.list.setOpenExternalLinks(False)
        self.list.linkActivated.connect(self._open)
        layout.addWidget(self.list)
        row = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add link…"), self)
        self.add_button.setToolTip(
            self.tr("Link this memory to another: context brings what it depends on along")
        )
        self.add_button.clicked.connect(self.open_add_dialog)
        row.addWidget(self.add_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.show_links(None, ())

    def show_links(self, item_id: int | None, links: Sequence[LinkInfo]) -> None:
        self.item_id = item_id
        self.add_button.setEnabled(item_id is not None)
        self.shown = list(links)
        if not links:
            self.list.setText(self.tr("No links.") if item_id is not None else "—")
            return
        lines = []
        for link in links:
            text = html.escape(link.line())
            if link.other_is_episode:
                lines.append(text)  # episodes open in their own view
            else:
                lines.append(f'<a href="memory:{link.other_id}">{text}</a>')
        self.list.setText("<br>".join(lines))

    def lines(self) -> list[str]:
        return [link.line() for link in self.shown]

    def open_add_dialog(self) -> None:
        if self.item_id is None:
            return
        self.dialog = AddLinkDialog(self.item_id, self)
        self.dialog.accepted.connect(self._add)
        self.dialog.open()

    def _add(self) -> None:
        if self.dialog is None or self.item_id is None:
            return
        target, kind = self.dialog.choice()
        self.add_requested.emit(self.item_id, target, kind)

    def _open(self, href: str) -> None:
        self.memory_requested.emit(int(href.split(":", 1)[1]))
