"""Which existing memories a new one might contradict: a handful, never all pairs.

A contradiction talks about the same thing, so the item's own words find them: one
full-text query (any word may match, best first) over every category, limited to the
same project or global memories. Categories are where an extractor filed a statement,
not what it says: "images go straight from the browser to S3" may be an implementation
note one day and an architectural decision the next, and a bug pattern's fix ("always
remove event listeners on disconnect") is a rule like any other. Pairs already judged
or already in an open conflict are left out, so detection stays cheap however often it
runs.
"""

from __future__ import annotations

from sqlmodel import Session

from memory_app.retrieval.ranker import affordable_terms
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store.dialects import Dialect
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import query_terms
from memory_app.store.tables import MemoryItemRow

MAX_CANDIDATES = 20


def in_scope(project_a: str | None, project_b: str | None) -> bool:
    """Same project, or one of them applies everywhere."""
    return project_a is None or project_b is None or project_a == project_b


def same_scope(a: MemoryItemRow, b: MemoryItemRow) -> bool:
    return in_scope(a.project, b.project)


def related_ids(
    session: Session,
    dialect: Dialect,
    content: str,
    *,
    limit: int,
    skip: set[int] | frozenset[int] = frozenset(),
) -> list[int]:
    """Active memories of any category sharing `content`'s words, best first.

    Its rarer words only, once the common ones would match thousands of memories:
    ranking every match of a long statement's OR query cost 40 ms at 100k memories.
    """
    words = affordable_terms(query_terms(content), session.connection())
    if not words:
        return []
    try:
        found = dialect.search_item_ids(
            session.connection(),
            " ".join(words),
            limit=min(limit + len(skip), 500),
            statuses=("active",),
            match_any=True,
        )
    except EmptyQueryError:
        return []
    return [item_id for item_id, _ in found if item_id not in skip]


def candidates(
    session: Session, dialect: Dialect, item: MemoryItemRow, limit: int = MAX_CANDIDATES
) -> list[MemoryItemRow]:
    """The active items most likely to contradict `item`, best first, at most `limit`."""
    if item.id is None:
        return []
    skip = {item.id} | conflict_store.judged_partners(session, item.id)
    skip |= conflict_store.open_partners(session, item.id)
    ids = related_ids(session, dialect, item.content, limit=limit, skip=skip)
    rows = repo.items_by_ids(session, ids[: limit * 2])
    out = [rows[i] for i in ids if i in rows and same_scope(item, rows[i])]
    return out[:limit]
