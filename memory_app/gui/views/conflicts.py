"""Conflicts: the records of contradicting memories (resolution comes with its own panel)."""

from __future__ import annotations

from PySide6.QtWidgets import QStackedLayout, QTreeWidget, QTreeWidgetItem, QWidget

from memory_app.domain.humanize import relative_time
from memory_app.domain.records import ConflictRecord
from memory_app.gui.context import AppContext
from memory_app.gui.views.base import View
from memory_app.gui.widgets.empty_state import EmptyState


class ConflictsView(View):
    key = "conflicts"
    title = "Conflicts"
    icon = "conflicts"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.table = QTreeWidget(self)
        self.table.setObjectName("conflictList")
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        self.table.setHeaderLabels(["Conflict", "Category", "Status", "Memories", "Detected"])
        self.empty = EmptyState(
            "conflicts",
            "No contradictions",
            "When two memories disagree (say, “use tabs” and later “we switched to "
            "spaces”), they appear here side by side for you to decide. Nothing is "
            "overwritten without you.",
            parent=self,
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.table)

    async def reload(self) -> None:
        records = await self.context.call(self.context.service.conflicts)
        self.show_conflicts(records)

    def show_conflicts(self, records: list[ConflictRecord]) -> None:
        self.table.clear()
        for record in records:
            item = QTreeWidgetItem(
                [
                    f"#{record.id} {record.reason or ''}".strip(),
                    record.category,
                    record.status.replace("_", " "),
                    ", ".join(f"#{i}" for i in record.item_ids),
                    relative_time(record.created_at),
                ]
            )
            self.table.addTopLevelItem(item)
        for column in range(self.table.columnCount()):
            self.table.resizeColumnToContents(column)
        self.pages.setCurrentWidget(self.table if records else self.empty)
