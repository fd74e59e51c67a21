"""The imported conversations as a table: a thin model over `ResourceRecord`s.

Sorting and filtering happen in a `QSortFilterProxyModel` (see `resource_proxy`): the
model gives native values under `SORT_ROLE` and one lower-cased text of title, project,
branch and file name under `FILTER_ROLE`, so the proxy needs no subclass.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from memory_app.domain.records import ResourceRecord
from memory_app.gui.translations import translate

COLUMN_COUNT = 6
DATE, TITLE, PROJECT, BRANCH, TURNS, MEMORIES = range(COLUMN_COUNT)

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
OBJECT_ROLE = Qt.ItemDataRole.UserRole + 2
FILTER_ROLE = Qt.ItemDataRole.UserRole + 3

_Index = QModelIndex | QPersistentModelIndex


def resource_date(record: ResourceRecord) -> datetime:
    """When the conversation happened, or when it was imported if the file did not say."""
    return record.started_at or record.imported_at


def format_date(when: datetime) -> str:
    """ "YYYY-MM-DD HH:MM" in local time (naive datetimes are taken as they are)."""
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M")


def resource_title(record: ResourceRecord) -> str:
    """The title, else the file name, else the session id, else "Conversation #id"."""
    if record.title and record.title.strip():
        return " ".join(record.title.split())
    if record.source_path:
        return PurePath(record.source_path).name
    if record.session_id:
        return record.session_id
    return translate("ResourceTableModel", "Conversation #{number}").format(number=record.id)


def project_name(record: ResourceRecord) -> str:
    """The last path component of the project folder ("" when unknown)."""
    if not record.project:
        return ""
    return PurePath(record.project.rstrip("/\\") or record.project).name or record.project


class ResourceTableModel(QAbstractTableModel):
    """One row per imported conversation, in the order given (the proxy sorts)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._records: list[ResourceRecord] = []

    # -- contents ---------------------------------------------------------------------

    def set_records(self, records: list[ResourceRecord]) -> None:
        self.beginResetModel()
        self._records = list(records)
        self.endResetModel()

    def records(self) -> list[ResourceRecord]:
        return list(self._records)

    def record(self, row: int) -> ResourceRecord:
        return self._records[row]

    def row_of(self, resource_id: int) -> int:
        """The row showing `resource_id`, or -1."""
        return next((i for i, r in enumerate(self._records) if r.id == resource_id), -1)

    # -- QAbstractTableModel ----------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._records)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else COLUMN_COUNT

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < COLUMN_COUNT:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers()[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in (TURNS, MEMORIES):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headers(self) -> tuple[str, ...]:
        """The columns' titles, in column order (DATE … MEMORIES)."""
        return (
            self.tr("Date"),
            self.tr("Title"),
            self.tr("Project"),
            self.tr("Branch"),
            self.tr("Turns"),
            self.tr("Memories"),
        )

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.checkIndex(index, QAbstractTableModel.CheckIndexOption.IndexIsValid):
            return None
        record = self._records[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(record, column)
        if role == SORT_ROLE:
            return self._sort_value(record, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(record, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (TURNS, MEMORIES):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == OBJECT_ROLE:
            return record
        if role == FILTER_ROLE:
            # The file name too: a session is titled by its prompt, yet found by its UUID.
            name = PurePath(record.source_path).name if record.source_path else ""
            parts = (resource_title(record), record.project, record.branch, name)
            return " ".join(part for part in parts if part).casefold()
        return None

    @staticmethod
    def _display(record: ResourceRecord, column: int) -> str:
        if column == DATE:
            return format_date(resource_date(record))
        if column == TITLE:
            return resource_title(record)
        if column == PROJECT:
            return project_name(record)
        if column == BRANCH:
            return record.branch or ""
        if column == TURNS:
            return f"{record.turn_count:,}"
        if record.status == "pending":
            # Kept while its extraction failed: none yet, not "0".
            return translate("ResourceTableModel", "pending")
        return f"{record.item_count:,}"

    @staticmethod
    def _sort_value(record: ResourceRecord, column: int) -> Any:
        # Plain floats, ints and strings: QVariant compares them natively.
        if column == DATE:
            return resource_date(record).timestamp()
        if column == TURNS:
            return record.turn_count
        if column == MEMORIES:
            return record.item_count
        return ResourceTableModel._display(record, column).casefold()

    @staticmethod
    def _tooltip(record: ResourceRecord, column: int) -> str | None:
        if column == MEMORIES and record.status == "pending":
            reason = record.status_reason or translate("ResourceTableModel", "the extractor failed")
            return translate("ResourceTableModel", "Extraction pending: {reason}").format(
                reason=reason
            )
        if column == PROJECT:
            return record.project or None
        if column == TITLE:
            lines = [resource_title(record)]
            if record.source_path:
                lines.append(record.source_path)
            return "\n".join(lines)
        if column == DATE:
            parts = [
                translate("ResourceTableModel", "Imported {date}").format(
                    date=format_date(record.imported_at)
                )
            ]
            if record.started_at is not None:
                started = translate("ResourceTableModel", "Started {date}")
                parts.insert(0, started.format(date=format_date(record.started_at)))
            return "\n".join(parts)
        return None


def resource_proxy(
    model: ResourceTableModel, parent: QObject | None = None
) -> QSortFilterProxyModel:
    """A sorting, case-insensitively filtering proxy over the model (title/project/branch)."""
    proxy = QSortFilterProxyModel(parent)
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    proxy.setFilterRole(FILTER_ROLE)
    proxy.setFilterKeyColumn(TITLE)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    return proxy
