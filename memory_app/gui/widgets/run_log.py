"""The log of maintenance runs: what ran, how it ended, what it found or changed, and
Undo for a run that applied changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedLayout,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.humanize import relative_time
from memory_app.domain.maintenance import JOB_TITLES
from memory_app.domain.records import MaintenanceRunRecord
from memory_app.gui.colours import ERROR, muted_colour, muted_style, text_colour
from memory_app.gui.times import full_time

JOB, STATUS, STARTED, RESULT = range(4)
RUN_ROLE = Qt.ItemDataRole.UserRole
RUN_TITLES = {
    **JOB_TITLES,
    "apply": "Reviewed changes applied",
    "startup": "New Claude Code sessions",
}
STATUS_WORDS = {
    "success": "Done",
    "error": "Failed",
    "cancelled": "Cancelled",
    "running": "Running",
}
# The figures worth a word in the summary, in order: (key, one, many). The rest are in
# the tooltip.
FIGURE_WORDS: tuple[tuple[str, str, str], ...] = (
    ("applied", "change applied", "changes applied"),
    ("pending", "change to review", "changes to review"),
    ("stale", "stale change skipped", "stale changes skipped"),
    ("new_sessions", "new session", "new sessions"),
    ("imported", "imported", "imported"),
    ("deferred", "left for next time", "left for next time"),
    ("duplicate_groups", "duplicate group", "duplicate groups"),
    ("contradictions", "contradiction", "contradictions"),
    ("to_archive", "to archive", "to archive"),
    ("categories_to_compress", "category to compress", "categories to compress"),
    ("invalid", "invalid memory", "invalid memories"),
)


def summarize_figures(result: dict[str, Any]) -> str:
    """The few figures that say what a run did, in words; "nothing to change" if none."""
    words = []
    for key, one, many in FIGURE_WORDS:
        value = result.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not value:
            continue
        words.append(f"{value:,} {one if value == 1 else many}")
    if result.get("index_ok") is False:
        words.append("search index damaged")
    if result.get("index_rebuilt"):
        words.append("index rebuilt" if result.get("index_ok_after", True) else "rebuild failed")
    if result.get("database_ok") is False:
        words.append("database problems")
    if words:
        return ", ".join(words)
    return "no new sessions" if "new_sessions" in result else "nothing to change"


def describe_figures(result: dict[str, Any]) -> str:
    """Every figure, one a line, for the tooltip."""
    lines = []
    for key, value in result.items():
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value) or "none"
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        lines.append(f"{key.replace('_', ' ')}: {value}")
    return "\n".join(lines)


def run_title(run: MaintenanceRunRecord) -> str:
    title = RUN_TITLES.get(run.kind, run.kind.capitalize())
    return f"{title} (dry run)" if run.dry_run else title


class RunLog(QWidget):
    """The runs, newest first, and Undo for the selected one.

    Signals:
        undo_requested(object): undo the changes this `MaintenanceRunRecord` applied.
    """

    undo_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("maintenanceLogPanel")
        self.runs: list[MaintenanceRunRecord] = []
        self.undone: frozenset[str] = frozenset()
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("maintenanceLog")
        self.tree.setAccessibleName("Maintenance log")
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setHeaderLabels(["Run", "Status", "Started", "Result"])
        header = self.tree.header()
        header.setStretchLastSection(True)
        for column in (JOB, STATUS, STARTED):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemSelectionChanged.connect(self._update_undo)
        self.title = QLabel("<b>Log</b>", self)
        self.undo_button = QPushButton("&Undo Run", self)
        self.undo_button.setObjectName("undoRun")
        self.undo_button.setToolTip("Undo every change the selected run applied")
        self.undo_button.clicked.connect(self._undo_clicked)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.undo_button)

        self.empty = QLabel(
            "No maintenance has run yet. Each run, what it found and what it changed will "
            "be listed here.",
            self,
        )
        self.empty.setObjectName("maintenanceLogEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet(f"{muted_style(self.palette())} padding: 16px;")
        holder = QWidget(self)
        self.pages = QStackedLayout(holder)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.tree)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(holder, 1)
        self._update_undo()

    def show_runs(self, runs: Sequence[MaintenanceRunRecord], undone: frozenset[str]) -> None:
        selected = self.selected_run()
        self.runs, self.undone = list(runs), undone
        self.tree.clear()
        muted = QBrush(muted_colour(self.tree.palette()))
        for run in runs:
            row = self._row(run, muted)
            self.tree.addTopLevelItem(row)
            if selected is not None and run.id == selected.id:
                self.tree.setCurrentItem(row)
        self.pages.setCurrentWidget(self.tree if runs else self.empty)
        self._update_undo()

    def _row(self, run: MaintenanceRunRecord, muted: QBrush) -> QTreeWidgetItem:
        status = STATUS_WORDS.get(run.status, run.status)
        if run.group_id and run.group_id in self.undone:
            status += ", undone"
        result = run.error if run.status == "error" and run.error else None
        row = QTreeWidgetItem(
            [
                run_title(run),
                status,
                relative_time(run.started_at),
                result or summarize_figures(run.result),
            ]
        )
        row.setData(JOB, RUN_ROLE, run)
        row.setToolTip(STARTED, full_time(run.started_at))
        details = describe_figures(run.result)
        if run.error:
            details = f"{run.error}\n\n{details}" if details else run.error
        row.setToolTip(RESULT, details or "No figures")
        if run.status == "error":
            for column in (STATUS, RESULT):
                row.setForeground(column, QBrush(text_colour(ERROR, self.tree.palette())))
        elif run.dry_run or run.status == "cancelled":
            row.setForeground(STATUS, muted)
        return row

    def selected_run(self) -> MaintenanceRunRecord | None:
        item = self.tree.currentItem()
        if item is None or not item.isSelected():
            return None
        run = item.data(JOB, RUN_ROLE)
        return run if isinstance(run, MaintenanceRunRecord) else None

    def can_undo(self, run: MaintenanceRunRecord | None) -> bool:
        return run is not None and bool(run.group_id) and run.group_id not in self.undone

    def _update_undo(self) -> None:
        run = self.selected_run()
        self.undo_button.setEnabled(self.can_undo(run))
        if run is not None and run.group_id and run.group_id in self.undone:
            self.undo_button.setToolTip("Already undone")
        elif run is not None and not run.group_id:
            self.undo_button.setToolTip("This run applied no changes")
        else:
            self.undo_button.setToolTip("Undo every change the selected run applied")

    def _undo_clicked(self) -> None:
        run = self.selected_run()
        if self.can_undo(run):
            self.undo_requested.emit(run)
