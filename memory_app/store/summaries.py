"""Writing category summaries: the deterministic one, a model's evolved one with its
change log as audit events, and the note when evolution fell back (seed 001 §5, §8).

Functions take an open Session; the service decides the units of work and makes sure no
model call happens while one is open.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from memory_app.domain.categories import Category
from memory_app.domain.records import MemoryRecord
from memory_app.domain.summary import (
    MAX_FACTS,
    EvolvedSummary,
    render_category_summary,
    render_evolved_summary,
)
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

_ID_BATCH = 500  # SQLite caps bound parameters per statement


def figures(session: Session, key: str) -> tuple[int, float | None, float | None]:
    """Active item count and confidence range of a category."""
    count, low, high = session.exec(
        select(
            func.count(), func.min(MemoryItemRow.confidence), func.max(MemoryItemRow.confidence)
        ).where(MemoryItemRow.category == key, MemoryItemRow.status == "active")
    ).one()
    return count, low, high


def _range(count: int, low: float | None, high: float | None) -> tuple[float, float] | None:
    return (low, high) if count and low is not None and high is not None else None


def write_deterministic(session: Session, category: Category, now: datetime) -> None:
    """The summary built only from the category's strongest items (no model)."""
    count, low, high = figures(session, category.key)
    top = session.exec(
        select(MemoryItemRow)
        .where(MemoryItemRow.category == category.key, MemoryItemRow.status == "active")
        .order_by(
            col(MemoryItemRow.pinned).desc(),
            (col(MemoryItemRow.confidence) * col(MemoryItemRow.importance)).desc(),
            col(MemoryItemRow.reinforcement_count).desc(),
        )
        .limit(MAX_FACTS)
    ).all()
    markdown = render_category_summary(
        category,
        [repo.to_record(r) for r in top],
        now,
        item_count=count,
        confidence_range=_range(count, low, high),
    )
    repo.save_summary(session, category.key, markdown, count, "deterministic")


def has_summary_with_items(session: Session, key: str) -> bool:
    """Seed 001 §2 step 5: there is something to evolve (else the "create" path)."""
    current = repo.summary(session, key)
    return current is not None and current.item_count > 0


def save_evolved(
    session: Session,
    category: Category,
    evolved: EvolvedSummary,
    now: datetime,
    *,
    generator: str,
    group_id: str,
) -> None:
    """Store a model's merged summary and one audit event per entry of its change log:
    actor "extractor", action "evolve", the item it concerns (if any), the reason as the
    note and the change itself as `after`."""
    count, low, high = figures(session, category.key)
    markdown = render_evolved_summary(
        category, evolved, now, item_count=count, confidence_range=_range(count, low, high)
    )
    repo.save_summary(session, category.key, markdown, count, generator)
    for change in evolved.changes:
        repo.audit(
            session,
            actor="extractor",
            action="evolve",
            item_id=change.item_id,
            group_id=group_id,
            before=None,
            after={
                "category": category.key,
                "action": change.action,
                "statement": change.statement,
                "item_id": change.item_id,
            },
            note=change.reason,
        )


def record_fallback(session: Session, category: Category, note: str, group_id: str) -> None:
    """Say in the audit trail that a model's evolution failed and why."""
    repo.audit(
        session,
        actor="extractor",
        action="evolve_fallback",
        item_id=None,
        group_id=group_id,
        before=None,
        after={"category": category.key, "generator": "deterministic"},
        note=note,
    )


def citable_ids(session: Session, key: str) -> set[int]:
    """Items a summary fact may cite: the category's items a person has not deleted."""
    ids = session.exec(
        select(MemoryItemRow.id).where(
            MemoryItemRow.category == key, MemoryItemRow.status != "deleted"
        )
    ).all()
    return {i for i in ids if i is not None}


def by_category(session: Session, item_ids: Sequence[int]) -> dict[str, list[int]]:
    """Item ids grouped by their category, in the order given."""
    wanted = list(dict.fromkeys(item_ids))
    categories: dict[int, str] = {}
    for start in range(0, len(wanted), _ID_BATCH):
        part = wanted[start : start + _ID_BATCH]
        rows = session.exec(
            select(MemoryItemRow.id, MemoryItemRow.category).where(col(MemoryItemRow.id).in_(part))
        ).all()
        categories.update((i, c) for i, c in rows if i is not None)
    grouped: dict[str, list[int]] = {}
    for item_id in wanted:
        if item_id in categories:
            grouped.setdefault(categories[item_id], []).append(item_id)
    return grouped


def strongest_new(session: Session, item_ids: Sequence[int], limit: int) -> list[MemoryRecord]:
    """The new items a model should read when merging: active, strongest first."""
    rows = repo.items_by_ids(session, list(item_ids)[:_ID_BATCH])
    records = [repo.to_record(r) for r in rows.values() if r.status == "active"]
    records.sort(
        key=lambda r: (r.pinned, r.confidence * r.importance, r.reinforcement_count),
        reverse=True,
    )
    return records[:limit]


def stale_categories(session: Session) -> list[str]:
    """Categories whose summary is missing though they hold active memories, or older
    than their newest memory change: what a process killed between storing memories and
    writing summaries leaves behind, for maintenance to rebuild."""
    newest = dict(
        session.exec(
            select(MemoryItemRow.category, func.max(MemoryItemRow.updated_at)).group_by(
                col(MemoryItemRow.category)
            )
        ).all()
    )
    active = set(
        session.exec(
            select(MemoryItemRow.category).where(MemoryItemRow.status == "active").distinct()
        ).all()
    )
    stale = []
    for category in repo.categories(session):
        current = repo.summary(session, category.key)
        changed = repo.as_time(newest.get(category.key))
        if current is None:
            if category.key in active:
                stale.append(category.key)
        elif changed is not None and changed > current.updated_at:
            stale.append(category.key)
    return stale
