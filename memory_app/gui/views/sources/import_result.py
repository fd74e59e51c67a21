"""The outcome of the last import or extraction, shown in a bar above the list of Sources.

A report of many parts (added, reinforced, skipped, failed, pending, unreadable lines)
becomes one line, and a "Details" table says which file each skip or failure was about.
Kept apart from the jobs that produce reports: this bar only shows them.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import ImportReport
from memory_app.gui.colours import mix

_PROBLEM = re.compile(r"^(?P<where>.*?:\d+): (?P<message>.*)$", re.S)


class ImportSummary(QObject):
    """The words of an import's outcome. A QObject because lupdate collects a plural form
    only from `self.tr(text, "", n)` (see gui/times.py)."""

    def summary(self, report: ImportReport) -> str:
        parts = [
            self.tr("Imported %Ln conversations", "", report.resources_added),
            self.tr("%Ln memories", "", report.items_added),
            self.tr("%Ln duplicates reinforced", "", report.items_reinforced),
            # "skipped" and "pending" read the same for one and for many in English: a
            # plural form would have nothing to say, so the count is placed.
            self.tr("{count} skipped").format(count=f"{len(report.skipped):,}"),
        ]
        if report.errors:
            parts.append(self.tr("%Ln errors", "", len(report.errors)))
        if report.pending:
            parts.append(
                self.tr("{count} pending (extraction failed, kept, will retry)").format(
                    count=f"{len(report.pending):,}"
                )
            )
        if report.problems:
            parts.append(self.tr("%Ln unreadable lines", "", len(report.problems)))
        if report.cancelled:
            parts.insert(0, self.tr("Import cancelled"))
        return " · ".join(parts)


_SUMMARY = ImportSummary()


def summarize_report(report: ImportReport) -> str:
    """ "Imported 5 conversations · 12 memories · 3 duplicates reinforced · 2 skipped"."""
    return _SUMMARY.summary(report)


class ImportResultBar(QFrame):
    """The outcome of the last import above the list, with a "Details" toggle listing what
    was skipped, what failed and which lines could not be read."""

    INFO, WARNING, ERROR = "info", "warning", "error"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importResult")
        self.kind = self.INFO
        self.text = QLabel(self)
        self.text.setObjectName("importResultText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_button = QToolButton(self)
        self.details_button.setText(self.tr("Details"))
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.toggled.connect(self._toggle_details)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.clicked.connect(self.hide)
        self.details = QTreeWidget(self)
        self.details.setObjectName("importDetails")
        self.details.setRootIsDecorated(False)
        self.details.setHeaderLabels([self.tr("Outcome"), self.tr("File"), self.tr("Reason")])
        self.details.setAlternatingRowColors(True)
        self.details.setUniformRowHeights(True)
        self.details.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.details.hide()

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.text, 1)
        top.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.details)
        self.hide()

    def show_report(self, report: ImportReport) -> None:
        self.details.clear()
        rows: list[tuple[str, str, str]] = []
        skipped, error, pending = self.tr("Skipped"), self.tr("Error"), self.tr("Pending")
        rows += [(skipped, r.source, r.reason or "") for r in report.skipped]
        rows += [(error, r.source, r.reason or "") for r in report.errors]
        rows += [(pending, r.source, r.reason or "") for r in report.pending]
        for problem in report.problems:
            match = _PROBLEM.match(problem)
            where, why = (match["where"], match["message"]) if match else (problem, "")
            rows.append((self.tr("Unreadable line"), where, why))
        for outcome, source, reason in rows:
            path = source.split(" [", 1)[0]
            # Importers name the file at the start of their messages; the row already does.
            short = reason.removeprefix(f"{path}: ") if path else reason
            item = QTreeWidgetItem([outcome, PurePath(source).name or source, short])
            item.setToolTip(1, source)
            item.setToolTip(2, reason)
            self.details.addTopLevelItem(item)
        for column in range(2):
            self.details.resizeColumnToContents(column)
        self._fit_details(len(rows))
        kind = self.WARNING if report.errors or report.pending or report.problems else self.INFO
        self._show(summarize_report(report), kind, has_details=bool(rows))

    def _fit_details(self, rows: int) -> None:
        """As tall as its rows, up to about eight, then it scrolls."""
        row = self.details.sizeHintForRow(0) if rows else self.fontMetrics().height()
        header = self.details.header().sizeHint().height()
        frame = 2 * self.details.frameWidth()
        self.details.setFixedHeight(header + frame + row * max(1, min(rows, 8)) + 2)

    def show_error(self, message: str) -> None:
        self.details.clear()
        self._show(message, self.ERROR, has_details=False)

    def _show(self, text: str, kind: str, *, has_details: bool) -> None:
        self.kind = kind
        self.text.setText(text)
        self.details_button.setVisible(has_details)
        self.details_button.setChecked(False)
        self.details.hide()
        self.restyle()
        self.show()

    def _toggle_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def restyle(self) -> None:
        """Tint the bar for its kind from the surrounding palette (the bar's own palette
        is changed by its style sheet, so it cannot be the source)."""
        parent = self.parentWidget()
        palette = parent.palette() if parent is not None else QApplication.palette()
        base = palette.color(QPalette.ColorRole.Window)
        tint = {
            self.INFO: palette.color(QPalette.ColorRole.Highlight),
            self.WARNING: QColor("#d98c00"),
            self.ERROR: QColor("#d03b3b"),
        }[self.kind]
        sheet = (
            f"QFrame#importResult {{ background: {mix(base, tint, 0.14).name()};"
            f" border: 1px solid {mix(base, tint, 0.55).name()}; border-radius: 4px; }}"
        )
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)
