"""The log of maintenance runs: what ran, how it ended, what it found or changed, and
Undo for a run that applied changes."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
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

from memory_app.domain.records import MaintenanceRunRecord
from memory_app.gui.colours import ERROR, muted_colour, muted_style, text_colour
from memory_app.gui.maintenance_runner import job_title
from memory_app.gui.times import full_time, relative_time
from memory_app.gui.translations import translate

JOB, STATUS, STARTED, RESULT = range(4)
RUN_ROLE = Qt.ItemDataRole.UserRole


def status_word(status: str) -> str:
    """ "Done", "Failed"…: how a run ended, in a word."""
    words = {
        "success": translate("RunLog", "Done"),
        "error": translate("RunLog", "Failed"),
        "cancelled": translate("RunLog", "Cancelled"),
        "running": translate("RunLog", "Running"),
    }
    return words.get(status, status)


class RunFigures(QObject):
    """A run's figures in words (a QObject: lupdate gives a counted phrase its plural forms
    only through `self.tr`)."""

    def summary(self, result: dict[str, Any]) -> str:
        """The few figures that say what a run did, in words; "nothing to change" if none."""

        def count(key: str) -> int:
            value = result.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        # The figures worth a word, in order; the rest are in the tooltip.
        figures = (
            ("applied", lambda n: self.tr("%Ln changes applied", "", n)),
            ("pending", lambda n: self.tr("%Ln changes to review", "", n)),
            ("stale", lambda n: self.tr("%Ln stale changes skipped", "", n)),
            ("new_sessions", lambda n: self.tr("%Ln new sessions", "", n)),
            ("imported", lambda n: self.tr("%Ln imported", "", n)),
            ("deferred", lambda n: self.tr("%Ln left for next time", "", n)),
            ("duplicate_groups", lambda n: self.tr("%Ln duplicate groups", "", n)),
            ("contradictions", lambda n: self.tr("%Ln contradictions", "", n)),
            ("to_archive", lambda n: self.tr("%Ln to archive", "", n)),
            ("categories_to_compress", lambda n: self.tr("%Ln categories to compress", "", n)),
            ("invalid", lambda n: self.tr("%Ln invalid memories", "", n)),
        )
        words = [phrase(count(key)) for key, phrase in figures if count(key)]
        if result.get("index_ok") is False:
            words.append(self.tr("search index damaged"))
        if result.get("index_rebuilt"):
            if result.get("index_ok_after", True):
                words.append(self.tr("index rebuilt"))
            else:
                words.append(self.tr("rebuild failed"))
        if result.get("database_ok") is False:
            words.append(self.tr("database problems"))
        if words:
            return ", ".join(words)
        if "new_sessions" in result:
            return self.tr("no new sessions")
        return self.tr("nothing to change")


def summarize_figures(result: dict[str, Any]) -> str:
    """The few figures that say what a run did, in words; "nothing to change" if none."""
    return RunFigures().summary(result)


def describe_figures(result: dict[str, Any]) -> str:
    """Every figure, one a line, for the tooltip (named by their keys)."""
    lines = []
    for key, value in result.items():
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value) or translate("RunLog", "none")
        elif isinstance(value, bool):
            value = translate("RunLog", "yes") if value else translate("RunLog", "no")
        lines.append(f"{key.replace('_', ' ')}: {value}")
    return "\n".join(lines)


def run_title(run: MaintenanceRunRecord) -> str:
    titles = {
        "apply": translate("RunLog", "Reviewed changes applied"),
        "startup": translate("RunLog", "New Claude Code sessions"),
    }
    title = titles.get(run.kind) or job_title(run.kind)
    return translate("RunLog", "{run} (dry run)").format(run=title) if run.dry_run else title


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
        self.tree.setAccessibleName(self.tr("Maintenance log"))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setHeaderLabels(
            [self.tr("Run"), self.tr("Status"), self.tr("Started"), self.tr("Result")]
        )
        header = self.tree.header()
        header.setStretchLastSection(True)
        for column in (JOB, STATUS, STARTED):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemSelectionChanged.connect(self._update_undo)
        self.title = QLabel("<b>{}</b>".format(html.escape(self.tr("Log"))), self)
        self.undo_button = QPushButton(self.tr("&Undo Run"), self)
        self.undo_button.setObjectName("undoRun")
        self.undo_button.setToolTip(self.tr("Undo every change the selected run applied"))
        self.undo_button.clicked.connect(self._undo_clicked)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.undo_button)

        self.empty = QLabel(
            self.tr(
                "No maintenance has run yet. Each run, what it found and what it changed "
                "will be listed here."
            ),
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
        status = status_word(run.status)
        if run.group_id and run.group_id in self.undone:
            status = self.tr("{status}, undone").format(status=status)
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
        row.setToolTip(RESULT, details or self.tr("No figures"))
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
            self.undo_button.setToolTip(self.tr("Already undone"))
        elif run is not None and not run.group_id:
            self.undo_button.setToolTip(self.tr("This run applied no changes"))
        else:
            self.undo_button.setToolTip(self.tr("Undo every change the selected run applied"))

    def _undo_clicked(self) -> None:
        run = self.selected_run()
        if self.can_undo(run):
            self.undo_requested.emit(run)
