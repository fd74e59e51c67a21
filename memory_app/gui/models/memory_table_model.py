"""The memory table: a lazy model over the store, with filtering and sorting in SQL.

Rows arrive a page at a time (`canFetchMore`/`fetchMore`), asynchronously and guarded
against re-entry, so 100,000 memories scroll without being loaded whole. A new query
(search text, filters, sort) replaces the rows; answers to superseded queries are
dropped by a generation counter, so fast typing never shows stale results. A query
whose search text the store does not understand (`SearchSyntaxError`: an unknown
category, a filter without its value) changes nothing: the rows stay, and `refused` says
why.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from memory_app.domain.records import ItemQuery, MemoryRecord
from memory_app.domain.search_syntax import (
    SearchQuery,
    SearchSyntaxError,
    Term,
    parse_search,
    resolve_category,
)
from memory_app.domain.sharing import TEAM
from memory_app.gui.times import relative_time

ModelIndex = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
RECORD_ROLE = Qt.ItemDataRole.UserRole + 2
PAGE = 200

# (sort key, how to show a record's value), in the order of the headers (`headers()`)
COLUMNS: tuple[tuple[str, Callable[[MemoryRecord], Any]], ...] = (
    ("content", lambda r: r.content),
    ("category", lambda r: r.category),
    ("confidence", lambda r: f"{r.confidence:.2f}"),
    ("access_count", lambda r: str(r.access_count)),
    ("last_accessed_at", lambda r: relative_time(r.last_accessed_at)),
    ("extracted_at", lambda r: r.extracted_at.strftime("%Y-%m-%d")),
    ("status", lambda r: r.status),
    ("pinned", lambda r: ""),
)
CONTENT, CATEGORY, CONFIDENCE, USED, LAST_USED, EXTRACTED, STATUS, PINNED = range(len(COLUMNS))
_NUMERIC = {CONFIDENCE, USED}

# Both take the query and a check, called on the worker thread just before the query
# runs, that says whether the answer is still wanted; when not they skip the work.
Fetch = Callable[[ItemQuery, Callable[[], bool]], Awaitable[list[MemoryRecord]]]
Count = Callable[[ItemQuery, Callable[[], bool]], Awaitable[int]]
Spawn = Callable[[Any], Any]


class MemoryTableModel(QAbstractTableModel):
    """Signals:
    loaded(int): a new query's first page arrived; the argument is the total count.
    settled: nothing is loading any more (after a query or a page).
    refused(str, str): the store did not understand a query's search text (the reason,
        and the text); the rows and `query` stay those of the last query shown.
    """

    loaded = Signal(int)
    settled = Signal()
    refused = Signal(str, str)

    def __init__(self, fetch: Fetch, count: Count, spawn: Spawn, parent: Any = None) -> None:
        super().__init__(parent)
        self._fetch = fetch
        self._count = count
        self._spawn = spawn
        self._query = ItemQuery(limit=PAGE)
        self._shown = self._query  # the query whose answer the rows are
        self._rows: list[MemoryRecord] = []
        self._total = 0
        self._generation = 0
        self._fetching = False
        self.category_names: dict[str, str] = {}
        self.pin_icon: Any = None  # set by the view (models create no widgets or icons)
        self.team_icon: Any = None  # the badge of a team memory (domain/sharing.py)

    # -- Qt model interface -----------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return self.headers()[section]
        return None

    def headers(self) -> tuple[str, ...]:
        """The columns' titles, in the order of COLUMNS."""
        return (
            self.tr("Content"),
            self.tr("Category"),
            self.tr("Confidence"),
            self.tr("Used"),
            self.tr("Last used"),
            self.tr("Extracted"),
            self.tr("Status"),
            self.tr("Pinned"),
        )

    def team_badge(self, record: MemoryRecord) -> str:
        """What the team badge's tooltip says ("" for a personal memory)."""
        if record.sharing != TEAM:
            return ""
        if record.team_dirty or record.team_seq is None:
            return self.tr("Team memory: shared with your team with the next sync")
        return self.tr("Team memory: shared with your team")

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        record = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == CATEGORY:
                return self.category_names.get(record.category, record.category)
            return COLUMNS[column][1](record)
        if role == SORT_ROLE:
            value = getattr(record, COLUMNS[column][0])
            return "" if value is None else value
        if role == RECORD_ROLE:
            return record
        if role == Qt.ItemDataRole.ToolTipRole and column == CONTENT:
            badge = self.team_badge(record)
            return f"{badge}\n\n{record.content}" if badge else record.content
        if role == Qt.ItemDataRole.DecorationRole and column == CONTENT and record.sharing == TEAM:
            return self.team_icon
        if role == Qt.ItemDataRole.DecorationRole and column == PINNED and record.pinned:
            return self.pin_icon
        if role == Qt.ItemDataRole.ToolTipRole and column == PINNED and record.pinned:
            return self.tr("Pinned: never archived or merged")
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def canFetchMore(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._fetching and len(self._rows) < self._total

    def fetchMore(self, parent: ModelIndex = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        self._fetching = True
        page = dataclasses.replace(self._query, offset=len(self._rows), limit=PAGE)
        self._spawn(self._append(page, self._generation))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        self.set_query(
            dataclasses.replace(self._query, sort_key=COLUMNS[column][0], descending=descending)
        )

    # -- loading ----------------------------------------------------------------------

    @property
    def query(self) -> ItemQuery:
        return self._query

    @property
    def total(self) -> int:
        return self._total

    @property
    def busy(self) -> bool:
        return self._fetching

    def set_query(self, query: ItemQuery) -> None:
        """Show what `query` selects, from its first page (loaded off the GUI thread)."""
        self._query = dataclasses.replace(query, offset=0, limit=PAGE)
        self._generation += 1
        self._fetching = True
        self._spawn(self._reload(self._query, self._generation))

    def reload(self) -> None:
        """The same query again (the store changed): as many rows as were loaded, so
        the rows a person scrolled to and selected are still there afterwards."""
        self._generation += 1
        self._fetching = True
        query = dataclasses.replace(self._query, limit=max(PAGE, len(self._rows)))
        self._spawn(self._reload(query, self._generation))

    def set_category_names(self, names: dict[str, str]) -> None:
        """Show categories by these names (the rows may have arrived before them)."""
        if names == self.category_names:
            return
        self.category_names = dict(names)
        if self._rows:
            last = len(self._rows) - 1
            self.dataChanged.emit(self.index(0, CATEGORY), self.index(last, CATEGORY))

    async def _reload(self, query: ItemQuery, generation: int) -> None:
        def current() -> bool:
            return generation == self._generation

        refused: str | None = None
        try:
            # Typing queues queries on the one database worker; any that a newer query
            # has made stale by the time their turn comes are skipped, not run.
            total = await self._count(query, current)
            rows = await self._fetch(query, current) if total and current() else []
        except SearchSyntaxError as exc:  # what was typed, not a failure of the app
            refused, total, rows = str(exc), 0, []
        finally:
            if generation == self._generation:
                self._fetching = False
        if generation != self._generation:
            return  # a newer query was asked for meanwhile
        if refused is not None:  # the rows stay those of the last query shown
            self._query = self._shown
            self.refused.emit(refused, query.text)
            self.settled.emit()
            return
        self._shown = self._query
        self.beginResetModel()
        self._rows = list(rows)
        self._total = total
        self.endResetModel()
        self.loaded.emit(total)
        self.settled.emit()

    async def _append(self, page: ItemQuery, generation: int) -> None:
        try:
            rows = await self._fetch(page, lambda: generation == self._generation)
        except SearchSyntaxError as exc:  # the store's categories changed meanwhile
            if generation == self._generation:
                self.refused.emit(str(exc), page.text)
            rows = []
        finally:
            if generation == self._generation:
                self._fetching = False
                self.settled.emit()
        if generation != self._generation or not rows:
            if not rows and generation == self._generation:
                self._total = len(self._rows)  # the store shrank meanwhile
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    # -- records ----------------------------------------------------------------------

    def record(self, row: int) -> MemoryRecord:
        return self._rows[row]

    def row_of(self, item_id: int) -> int | None:
        return next((i for i, r in enumerate(self._rows) if r.id == item_id), None)

    def update_record(self, record: MemoryRecord) -> None:
        """Show an edited record in place (a targeted dataChanged, no reset)."""
        row = self.row_of(record.id)
        if row is None:
            return
        self._rows[row] = record
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def remove_ids(self, ids: Sequence[int]) -> None:
        """Drop rows that no longer match (deleted, moved away) without a reload."""
        gone = set(ids)
        for row in range(len(self._rows) - 1, -1, -1):
            if self._rows[row].id in gone:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rows[row]
                self.endRemoveRows()
                self._total -= 1


class MemoryFilterProxy(QSortFilterProxyModel):
    """Sorting is the store's job (the model re-queries); the proxy narrows the loaded rows
    at once while the full-text query is on its way, so typing feels instant.

    The narrowing reads the query as the store will (`search_syntax.parse_search`): each
    word or phrase must be in the memory's text or tags (anywhere in a word, leniently:
    the store's answer replaces it), `-word` and `-"a phrase"` hide the memories with
    those whole words, and `category:` and `project:` (and their `-` forms) filter by the
    memory's category and project. A filter the store will refuse (an unknown category)
    narrows nothing: the store's answer says what is wrong.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(CONTENT)
        self._search = SearchQuery()
        self._categories: frozenset[str] = frozenset()
        self._excluded_categories: frozenset[str] = frozenset()

    def set_quick_filter(self, text: str) -> None:
        try:
            # Stripped, as the view asks the store (a category still being typed stays one).
            search = parse_search(text.strip())
        except SearchSyntaxError:  # a filter without its value: the store will say so
            search = SearchQuery()
        known = self._known_categories()
        included = self._resolve(search.categories, known)
        excluded = self._resolve(search.excluded_categories, known)
        if search.partial_category:
            try:
                key = resolve_category(search.partial_category, known, partial=True)
            except SearchSyntaxError:  # none or several start that way: no narrowing yet
                key = None
            if key is not None and search.partial_category_excluded:
                excluded.add(key)
            elif key is not None:
                included.add(key)
        self.beginFilterChange()
        self._search = search
        self._categories, self._excluded_categories = frozenset(included), frozenset(excluded)
        self.endFilterChange()

    def _known_categories(self) -> list[tuple[str, str]]:
        source = self.sourceModel()
        return list(source.category_names.items()) if isinstance(source, MemoryTableModel) else []

    @staticmethod
    def _resolve(values: Iterable[str], known: list[tuple[str, str]]) -> set[str]:
        keys: set[str] = set()
        for value in values:
            try:
                key = resolve_category(value, known)
            except SearchSyntaxError:
                continue
            if key is not None:
                keys.add(key)
        return keys

    def filterAcceptsRow(self, source_row: int, source_parent: ModelIndex) -> bool:
        search = self._search
        if search.empty:
            return True
        index = self.sourceModel().index(source_row, CONTENT, source_parent)
        record = index.data(RECORD_ROLE)
        if not isinstance(record, MemoryRecord):
            return True
        if self._categories and record.category not in self._categories:
            return False
        if record.category in self._excluded_categories:
            return False
        if search.projects and not any(_in_project(record.project, p) for p in search.projects):
            return False
        if any(_in_project(record.project, p) for p in search.excluded_projects):
            return False
        if not (search.terms or search.excluded):
            return True
        words = _searchable(record.content, record.tags)
        if not all(" ".join(term.words) in words for term in search.terms):
            return False
        return not any(_has_words(words, term) for term in search.excluded)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self.sourceModel()
        if source is not None and column >= 0:
            source.sort(column, order)


_WORD = re.compile(r"\w+", re.UNICODE)  # a word as the search reads one
_SEPARATORS = "/\\"


@lru_cache(maxsize=4096)
def _searchable(content: str, tags: tuple[str, ...]) -> str:
    """A memory's text and tags as the search sees them: its words, lower-cased, one
    space apart (and one before and after, so whole words can be told)."""
    words = _WORD.findall(" ".join((content, *tags)).lower())
    return f" {' '.join(words)} "


def _has_words(searchable: str, term: Term) -> bool:
    """Whether the text holds the term's words as whole words (the last may be a prefix)."""
    phrase = " " + " ".join(term.words)
    return phrase in searchable if term.prefix else f"{phrase} " in searchable


def _in_project(project: str | None, value: str) -> bool:
    """Whether a memory of `project` is in the project `value` names, as the store decides
    (search_match.py): the folder itself or its last part, any case."""
    if not project:
        return False
    folder = project.rstrip(_SEPARATORS).lower()
    wanted = (value.rstrip(_SEPARATORS) or value).lower()
    return folder == wanted or folder.endswith(("/" + wanted, "\\" + wanted))
