"""The list side of Sources: a filter, the table of imported conversations, and a count.

The table is a view over `ResourceTableModel` through its filtering, sorting proxy; this
module only lays them out and answers "which conversation is selected" and "select this
one", so the Sources view never touches proxy indexes itself.
"""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import ResourceRecord
from memory_app.gui.models.resource_table_model import (
    BRANCH,
    DATE,
    MEMORIES,
    OBJECT_ROLE,
    PROJECT,
    TITLE,
    TURNS,
    ResourceTableModel,
    resource_proxy,
)


class ConversationList(QWidget):
    """`filter_edit` over `table` over `count`: the conversations, newest first."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ResourceTableModel(self)
        self.proxy: QSortFilterProxyModel = resource_proxy(self.model, self)
        self._columns_fitted = False

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("sourceFilter")
        self.filter_edit.setPlaceholderText(self.tr("Filter by title, project, branch or file"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.filter_edit.textChanged.connect(self.update_count)
        self.table = QTableView(self)
        self.table.setObjectName("sourceList")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(DATE, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        self.count = QLabel(self)
        self.count.setObjectName("sourceCount")
        self.count.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)

    def fit_columns_once(self) -> None:
        """Size the columns to their contents the first time there are rows: later
        reloads keep the widths a person may have dragged."""
        if self._columns_fitted or self.model.rowCount() == 0:
            return
        self._fit_columns()
        self._columns_fitted = True

    def _fit_columns(self) -> None:
        """Size the columns to their contents, capping project and branch so the title
        keeps the room (it stretches)."""
        header = self.table.horizontalHeader()
        for column in (DATE, PROJECT, BRANCH, TURNS, MEMORIES):
            self.table.resizeColumnToContents(column)
        for column, cap in ((PROJECT, 100), (BRANCH, 80)):
            if header.sectionSize(column) > cap:
                header.resizeSection(column, cap)

    def update_count(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        if shown != total:
            text = self.tr("{shown} of %Ln conversations", "", total).format(shown=shown)
        else:
            text = self.tr("%Ln conversations", "", total)
        self.count.setText(text)

    def selected_resource(self) -> ResourceRecord | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        record = rows[0].data(OBJECT_ROLE)
        return record if isinstance(record, ResourceRecord) else None

    def select(self, resource_id: int | None) -> bool:
        """Select the row of a conversation (None clears); False if it is not shown."""
        selection = self.table.selectionModel()
        if resource_id is None:
            selection.clearSelection()
            return False
        row = self.model.row_of(resource_id)
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        selection.select(
            index,
            selection.SelectionFlag.ClearAndSelect | selection.SelectionFlag.Rows,
        )
        selection.setCurrentIndex(index, selection.SelectionFlag.NoUpdate)
        self.table.scrollTo(index)
        return True
