"""Dialogs for categories a person keeps (seed 000 keeps categories as data): add or
rename one, merge one into another.

They are opened with `open()` (never `exec()`, which would pump the event loop inside a
coroutine) and say what the person asked through signals; the view does the work off the
GUI thread and either closes the dialog or shows the store's objection in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import CategoryInfo
from memory_app.gui.colours import ERROR, text_style

MAX_NAME = 60


def _error_label(parent: QWidget) -> QLabel:
    label = QLabel("", parent)
    label.setObjectName("categoryDialogError")
    label.setWordWrap(True)
    label.setStyleSheet(text_style(ERROR, parent.palette()))
    label.hide()
    return label


class CategoryDialog(QDialog):
    """The name and description of a new category, or of one being renamed.

    Signals:
        submitted(str, str): the name and description the person asked for.
    """

    submitted = Signal(str, str)

    def __init__(self, parent: QWidget | None, category: CategoryInfo | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("categoryDialog")
        self.category = category
        self.setWindowTitle("Rename Category" if category else "Add Category")
        self.name = QLineEdit(category.name if category else "", self)
        self.name.setObjectName("categoryName")
        self.name.setMaxLength(MAX_NAME)
        self.name.setPlaceholderText("Testing notes")
        self.description = QPlainTextEdit(category.description if category else "", self)
        self.description.setObjectName("categoryDescription")
        self.description.setPlaceholderText("What memories belong here (the extractor reads it)")
        self.description.setTabChangesFocus(True)
        self.description.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.error = _error_label(self)
        form = QFormLayout()
        form.addRow("&Name:", self.name)
        form.addRow("&Description:", self.description)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Save" if category else "Add")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(lambda text: ok.setEnabled(bool(text.strip())))
        ok.setEnabled(bool(self.name.text().strip()))
        layout = QVBoxLayout(self)
        if category is not None:
            note = QLabel(
                f"Memories keep their category: only how “{category.name}” is shown changes.",
                self,
            )
            note.setWordWrap(True)
            layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(420, self.sizeHint().height())

    def submit(self) -> None:
        self.show_error("")
        self.submitted.emit(self.name.text(), self.description.toPlainText())

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))


class MergeCategoryDialog(QDialog):
    """Which category the memories of `source` move into.

    Signals:
        submitted(str): the key of the category to merge into.
    """

    submitted = Signal(str)

    def __init__(
        self, parent: QWidget | None, source: CategoryInfo, others: Sequence[CategoryInfo]
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mergeCategoryDialog")
        self.source = source
        self.setWindowTitle("Merge Category")
        self.target = QComboBox(self)
        self.target.setObjectName("mergeTarget")
        for category in others:
            if category.key != source.key:
                self.target.addItem(category.name, category.key)
        count = source.item_count
        memories = "1 memory" if count == 1 else f"{count:,} memories"
        text = QLabel(
            f"Move the {memories} of “{source.name}” (and any it keeps archived, superseded "
            f"or deleted) into another category, then remove “{source.name}”. Its summary "
            "joins the other one; Edit ▸ Undo takes the merge back.",
            self,
        )
        text.setWordWrap(True)
        self.error = _error_label(self)
        form = QFormLayout()
        form.addRow("Merge &into:", self.target)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Merge")
        ok.setEnabled(self.target.count() > 0)
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(440, self.sizeHint().height())

    def submit(self) -> None:
        key = self.target.currentData()
        if key is not None:
            self.show_error("")
            self.submitted.emit(key)

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))
