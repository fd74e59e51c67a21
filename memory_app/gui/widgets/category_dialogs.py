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
        self.setWindowTitle(self.tr("Rename Category") if category else self.tr("Add Category"))
        self.name = QLineEdit(category.name if category else "", self)
        self.name.setObjectName("categoryName")
        self.name.setMaxLength(MAX_NAME)
        self.name.setPlaceholderText(self.tr("Testing notes"))
        self.description = QPlainTextEdit(category.description if category else "", self)
        self.description.setObjectName("categoryDescription")
        self.description.setPlaceholderText(
            self.tr("What memories belong here (the extractor reads it)")
        )
        self.description.setTabChangesFocus(True)
        self.description.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.error = _error_label(self)
        form = QFormLayout()
        form.addRow(self.tr("&Name:"), self.name)
        form.addRow(self.tr("&Description:"), self.description)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Save") if category else self.tr("Add"))
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(lambda text: ok.setEnabled(bool(text.strip())))
        ok.setEnabled(bool(self.name.text().strip()))
        layout = QVBoxLayout(self)
        if category is not None:
            note = QLabel(
                self.tr("Memories keep their category: only how “{name}” is shown changes.").format(
                    name=category.name
                ),
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
        self.setWindowTitle(self.tr("Merge Category"))
        self.target = QComboBox(self)
        self.target.setObjectName("mergeTarget")
        for category in others:
            if category.key != source.key:
                self.target.addItem(category.name, category.key)
        text = QLabel(
            self.tr(
                "Move the %Ln memories of “{name}” (and any it keeps archived, superseded or "
                "deleted) into another category, then remove “{name}”. Its summary joins the "
                "other one; Edit ▸ Undo takes the merge back.",
                "",
                source.item_count,
            ).format(name=source.name),
            self,
        )
        text.setWordWrap(True)
        self.error = _error_label(self)
        form = QFormLayout()
        form.addRow(self.tr("Merge &into:"), self.target)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Merge"))
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
