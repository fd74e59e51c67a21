"""Nightly consolidation's proposals: near-duplicates to merge (seed 000 §6.2, seed 004 §3).

Candidates come from MinHash over every live memory (maintenance/duplicates.py), never
from comparing all pairs or asking a model about each pair. Pinned memories are left out
entirely: maintenance never touches them.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy
from sqlmodel import Session, col, select

from memory_app.domain.maintenance import CHANGE_TITLES, ProposedChange
from memory_app.maintenance.duplicates import DedupeItem, find_duplicates
from memory_app.store import maintenance as store
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow, table_of

Progress = Callable[[int, int], None]


def dedupe_items(session: Session) -> list[DedupeItem]:
    """Every active, unpinned memory as the duplicate finder sees it (read through Core:
    a hundred thousand ORM objects would cost seconds for nothing)."""
    table = table_of(MemoryItemRow)
    query = sqlalchemy.select(  # Core's select: sqlmodel's is typed for four columns at most
        table.c.id,
        table.c.category,
        table.c.project,
        table.c.content,
        table.c.confidence,
        table.c.reinforcement_count,
    ).where(table.c.status == "active", table.c.pinned == False)  # noqa: E712
    return [
        DedupeItem(
            id=row.id,
            scope=(row.category, row.project or ""),
            content=row.content,
            # The survivor: most confident, then most often seen, then the oldest.
            rank=(row.confidence, row.reinforcement_count, -row.id),
        )
        for row in session.connection().execute(query)
    ]


def plan_merges(
    session: Session, *, progress: Progress | None = None, check: Callable[[], None] | None = None
) -> list[ProposedChange]:
    groups = find_duplicates(dedupe_items(session), progress=progress, check=check)
    wanted = [i for g in groups for i in (g.survivor, *g.duplicates)]
    rows: dict[int, MemoryItemRow] = {}
    for start in range(0, len(wanted), 500):
        rows.update(repo.items_by_ids(session, wanted[start : start + 500]))
    changes = []
    for group in groups:
        survivor = rows[group.survivor]
        duplicates = [rows[i] for i in group.duplicates]
        after: dict[str, object] = {
            str(survivor.id): _jsonable(store.merged_fields(survivor, duplicates))
        }
        for dup in duplicates:
            after[str(dup.id)] = {"status": "superseded", "superseded_by": survivor.id}
        count = len(duplicates)
        similarity = min(group.similarity)
        changes.append(
            ProposedChange(
                kind="merge",
                item_ids=(group.survivor, *group.duplicates),
                title=f"{CHANGE_TITLES['merge']}: {count + 1} memories say the same thing",
                reason=f"{count} near-{'duplicate' if count == 1 else 'duplicates'} of memory "
                f"{survivor.id} (similarity {'' if count == 1 else 'at least '}{similarity:.2f}); "
                f"it is kept and "
                f"reinforced, the {'other is' if count == 1 else 'others are'} superseded",
                category=survivor.category,
                before={str(r.id): store.item_state(r) for r in (survivor, *duplicates)},
                after=after,
            )
        )
    return changes


def _jsonable(values: dict[str, object]) -> dict[str, object]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in values.items()}


def recent_item_ids(session: Session, since: object, limit: int) -> list[int]:
    """Memories learnt since the last nightly run, newest first: the contradiction scan."""
    query = select(MemoryItemRow.id).where(MemoryItemRow.status == "active")
    if since is not None:
        query = query.where(col(MemoryItemRow.extracted_at) >= since)
    query = query.order_by(col(MemoryItemRow.extracted_at).desc()).limit(limit)
    return [i for i in session.exec(query).all() if i is not None]
