"""Maintenance: the log of past runs (scheduling and run-now arrive with the jobs)."""

from __future__ import annotations

from PySide6.QtWidgets import QStackedLayout, QTreeWidget, QTreeWidgetItem, QWidget

from memory_app.domain.humanize import relative_time
from memory_app.domain.records import MaintenanceRunRecord
from memory_app.gui.context import AppContext
from memory_app.gui.views.base import View
from memory_app.gui.widgets.empty_state import EmptyState


def describe_result(result: dict[str, object]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in result.items()) or "—"


class MaintenanceView(View):
    key = "maintenance"
    title = "Maintenance"
    icon = "maintenance"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.log = QTreeWidget(self)
        self.log.setObjectName("maintenanceLog")
        self.log.setRootIsDecorated(False)
        self.log.setAlternatingRowColors(True)
        self.log.setHeaderLabels(["Job", "Status", "Started", "Result"])
        self.empty = EmptyState(
            "maintenance",
            "No maintenance has run yet",
            "Maintenance merges duplicates, archives memories nobody uses and keeps the "
            "search index healthy. Each run and what it changed will be listed here.",
            parent=self,
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.log)

    async def reload(self) -> None:
        runs = await self.context.call(self.context.service.maintenance_runs)
        self.show_runs(runs)

    def show_runs(self, runs: list[MaintenanceRunRecord]) -> None:
        self.log.clear()
        for run in runs:
            kind = run.kind + (" (dry run)" if run.dry_run else "")
            result = run.error or describe_result(run.result)
            self.log.addTopLevelItem(
                QTreeWidgetItem([kind, run.status, relative_time(run.started_at), result])
            )
        for column in range(self.log.columnCount()):
            self.log.resizeColumnToContents(column)
        self.pages.setCurrentWidget(self.log if runs else self.empty)
