"""The memory table's query: filters, sort and paging in SQL, never in Python.

The table shows up to hundreds of thousands of rows; it asks for one page at a time
and for the total count, and both must stay fast at 100k items.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    and_,
    func,
    literal_column,
    select,
    text,
)
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.expression import TextClause, UnaryExpression
from sqlmodel import Session, col

from memory_app.domain.records import NO_BRANCH, SORT_KEYS, ItemQuery, MemoryRecord
from memory_app.store.dialects import dialect_of
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import TABLE_COLUMNS
from memory_app.store.repository import records_by_ids
from memory_app.store.search_match import CompiledSearch, compile_search
from memory_app.store.tables import MemoryItemRow

_ITEM = MemoryItemRow
_ITEM_TABLE = "memory_item"


def _conditions(query: ItemQuery) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if query.category is not None:
        where.append(col(_ITEM.category) == query.category)
    if query.statuses:
        where.append(col(_ITEM.status).in_(query.statuses))
    if query.pinned is not None:
        where.append(col(_ITEM.pinned) == query.pinned)
    if query.min_confidence > 0.0:
        where.append(col(_ITEM.confidence) >= query.min_confidence)
    if query.max_confidence < 1.0:
        where.append(col(_ITEM.confidence) <= query.max_confidence)
    if query.since is not None:
        where.append(col(_ITEM.extracted_at) >= query.since)
    if query.until is not None:
        where.append(col(_ITEM.extracted_at) < query.until)
    if query.source_resource_id is not None:
        where.append(col(_ITEM.source_resource_id) == query.source_resource_id)
    if query.branch == NO_BRANCH:
        where.append(col(_ITEM.branch).is_(None))
    elif query.branch is not None:
        where.append(col(_ITEM.branch) == query.branch)
    if query.sharing is not None:
        where.append(col(_ITEM.sharing) == query.sharing)
    return where


def _search(session: Session, query: ItemQuery) -> CompiledSearch | None:
    """The search text compiled (search_syntax.py), None when it asks for nothing: a
    filter still without its value shows what the other filters select."""
    if not query.text.strip():
        return None
    try:
        return compile_search(session.connection(), query.text, columns=TABLE_COLUMNS)
    except EmptyQueryError:
        return None


def _search_conditions(conn: Connection, search: CompiledSearch) -> list[TextClause]:
    conditions = search.conditions(_ITEM_TABLE, dialect_of(conn))
    return [text(sql).bindparams(**params) for sql, params in conditions]


def _hits(conn: Connection, search: CompiledSearch, *, ranked: bool = True) -> Select[Any]:
    """The ids (and relevance, lower is better) of the memories the search matches."""
    assert search.match is not None
    hits = dialect_of(conn).memory_hits(search.match, "fts")
    columns: list[Any] = [literal_column(hits.id).label("id")]
    if ranked:
        columns.append(literal_column(hits.rank).label("rank"))
    return (
        select(*columns)
        .select_from(_bound(hits.table, hits.params))
        .where(_bound(hits.condition, hits.params))
    )


def _bound(sql: str, params: dict[str, Any]) -> TextClause:
    """SQL text with the parameters it names bound."""
    used = {name: value for name, value in params.items() if f":{name}" in sql}
    return text(sql).bindparams(**used) if used else text(sql)


def _matching(session: Session, query: ItemQuery) -> tuple[Select[Any], bool]:
    """Ids (and relevance) of the items the query selects, unordered.

    With search text the full-text index drives: its matches are found first and then
    joined to their items (`id IN (…)` walks the primary key). Letting SQLite start from
    the item table instead probed the index once per item: seconds at 100k items. Text of
    only exclusions and filters has nothing to rank by: it only adds conditions.
    """
    where: list[ColumnElement[bool] | TextClause] = [*_conditions(query)]
    search = _search(session, query)
    conn = session.connection()
    if search is not None:
        where += _search_conditions(conn, search)
    if search is not None and search.match is not None:
        hits = _hits(conn, search).subquery("hits")
        # A LEFT JOIN keeps SQLite from reordering: the hits stay the outer loop. The
        # filters on the item then drop the (never expected) unmatched rows anyway.
        stmt = (
            select(col(_ITEM.id), hits.c.rank)
            .select_from(hits.join(_ITEM, col(_ITEM.id) == hits.c.id, isouter=True))
            .where(col(_ITEM.id).is_not(None), *where)
        )
        return stmt, True
    return select(col(_ITEM.id)).where(and_(True, *where)), False


def count_items(session: Session, query: ItemQuery) -> int:
    where: list[ColumnElement[bool] | TextClause] = [*_conditions(query)]
    search = _search(session, query)
    conn = session.connection()
    if search is not None:
        where += _search_conditions(conn, search)
    if search is not None and search.match is not None:
        matches = _hits(conn, search, ranked=False)
        where.append(col(_ITEM.id).in_(matches))  # walks the primary key per match
    total = session.connection().execute(
        select(func.count()).select_from(_ITEM).where(and_(True, *where))
    )
    return int(total.scalar_one())


def query_items(session: Session, query: ItemQuery) -> list[MemoryRecord]:
    """One page of records in the order the query asks for."""
    if query.sort_key is not None and query.sort_key not in SORT_KEYS:
        raise ValueError(f"cannot sort by {query.sort_key!r}; use one of {', '.join(SORT_KEYS)}")
    stmt, searching = _matching(session, query)
    order: list[UnaryExpression[Any]]
    if query.sort_key is None and searching:
        order = [literal_column("rank").asc()]
    else:
        sort_column: Mapped[Any] | ColumnElement[Any] = col(
            getattr(_ITEM, query.sort_key or "extracted_at")
        )
        if query.sort_key == "content":
            sort_column = func.lower(sort_column)
        order = [sort_column.desc() if query.descending else sort_column.asc()]
        order.append(col(_ITEM.id).desc() if query.descending else col(_ITEM.id).asc())
    stmt = stmt.order_by(*order).offset(query.offset).limit(query.limit)
    rows = session.connection().execute(stmt).all()
    ids = [row[0] for row in rows]
    found = records_by_ids(session, ids)
    return [found[i] for i in ids if i in found]
