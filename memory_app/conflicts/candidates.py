"""Which existing memories a new one might contradict: a handful, never all pairs.

A contradiction talks about the same thing, so the item's own words find them: one
full-text query (any word may match, best first) per related category, limited to the
same project or global memories. Pairs already judged or already in an open conflict
are left out, so detection stays cheap however often it runs.
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
# "How we do things" is spread over three categories by the extractors: a switch is a
# decision ("we switched from tabs to spaces") that contradicts a convention ("always
# indent with tabs"). Other categories are only compared within themselves.
RELATED_CATEGORIES = (
    frozenset({"coding_preferences", "project_conventions", "architectural_decisions"}),
)


def related(category: str) -> list[str]:
    for group in RELATED_CATEGORIES:
        if category in group:
            return sorted(group)
    return [category]


def in_scope(project_a: str | None, project_b: str | None) -> bool:
    """Same project, or one of them applies everywhere."""
    return project_a is None or project_b is None or project_a == project_b


def same_scope(a: MemoryItemRow, b: MemoryItemRow) -> bool:
    return in_scope(a.project, b.project)


def related_ids(
    session: Session,
    dialect: Dialect,
    content: str,
    category: str,
    *,
    limit: int,
    skip: set[int] | frozenset[int] = frozenset(),
) -> list[int]:
    """Active memories of the related categories sharing `content`'s words, best first.

    Its rarer words only, once the common ones would match thousands of memories:
    ranking every match of a long statement's OR query cost 40 ms at 100k memories.
    """
    words = affordable_terms(query_terms(content), session.connection())
    if not words:
        return []
    hits: list[tuple[float, int]] = []
    for key in related(category):
        try:
            found = dialect.search_item_ids(
                session.connection(),
                " ".join(words),
                limit=min(limit + len(skip), 500),
                category=key,
                statuses=("active",),
                match_any=True,
            )
        except EmptyQueryError:
            return []
        hits += [(score, item_id) for item_id, score in found if item_id not in skip]
    hits.sort(key=lambda h: -h[0])
    return [item_id for _, item_id in hits]


def candidates(
    session: Session, dialect: Dialect, item: MemoryItemRow, limit: int = MAX_CANDIDATES
) -> list[MemoryItemRow]:
    """The active items most likely to contradict `item`, best first, at most `limit`."""
    if item.id is None:
        return []
    skip = {item.id} | conflict_store.judged_partners(session, item.id)
    skip |= conflict_store.open_partners(session, item.id)
    ids = related_ids(session, dialect, item.content, item.category, limit=limit, skip=skip)
    rows = repo.items_by_ids(session, ids[: limit * 2])
    out = [rows[i] for i in ids if i in rows and same_scope(item, rows[i])]
    return out[:limit]
