"""Weekly summarization's proposals (seed 000 §6.3, seed 003 consolidation).

- Compress: each category's memories older than 30 days become a digest beside its
  summary (deterministic by default; a model's compression when one is configured).
- Archive: memories unused for 90 days whose importance × decay fell under 0.3 leave
  retrieval; they stay browsable and can be restored.
Pinned memories are never proposed for archiving.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from memory_app.domain import digest
from memory_app.domain.categories import Category
from memory_app.domain.maintenance import (
    ARCHIVE_UNUSED_DAYS,
    CHANGE_TITLES,
    COMPRESS_AFTER_DAYS,
    ProposedChange,
    decay_factor,
    should_archive,
)
from memory_app.domain.records import MemoryRecord
from memory_app.store import maintenance as store
from memory_app.store import repository as repo
from memory_app.store.tables import CategorySummaryRow, MemoryItemRow

# How a category's older memories become text: the deterministic digest, or a model's.
Compressor = Callable[[Category, Sequence[MemoryRecord]], str]
MAX_COMPRESSED = 2_000  # the strongest older memories per category a digest is built from


def deterministic(_category: Category, items: Sequence[MemoryRecord]) -> str:
    return digest.compress(items)


@dataclass(frozen=True)
class OlderMemories:
    """A category's memories past the compression age, and its digest so far."""

    category: Category
    digest: str
    items: tuple[MemoryRecord, ...]


def older_memories(session: Session, now: datetime) -> list[OlderMemories]:
    """What compression reads (in a read transaction; the compressing happens after)."""
    cutoff = now - timedelta(days=COMPRESS_AFTER_DAYS)
    found = []
    for category in repo.categories(session):
        summary = session.get(CategorySummaryRow, category.key)
        if summary is None:
            continue
        rows = session.exec(
            select(MemoryItemRow)
            .where(
                MemoryItemRow.category == category.key,
                # Archived ones too: the digest is where what they said lives on.
                col(MemoryItemRow.status).in_(("active", "archived")),
                MemoryItemRow.pinned == False,  # noqa: E712
                col(MemoryItemRow.extracted_at) < cutoff,
            )
            .order_by(
                (col(MemoryItemRow.confidence) * col(MemoryItemRow.importance)).desc(),
                col(MemoryItemRow.id),
            )
            .limit(MAX_COMPRESSED)
        ).all()
        if rows:
            records = tuple(repo.to_record(r) for r in rows)
            found.append(OlderMemories(category, summary.digest, records))
    return found


def plan_compress(
    groups: Sequence[OlderMemories], compressor: Compressor = deterministic
) -> list[ProposedChange]:
    """One proposal per category whose digest would change; no database needed, so a
    model can take its time."""
    changes = []
    for group in groups:
        text = compressor(group.category, group.items)
        if not text or text == group.digest:
            continue
        changes.append(
            ProposedChange(
                kind="compress",
                item_ids=tuple(i.id for i in group.items),
                title=f"{CHANGE_TITLES['compress']}: {group.category.name}",
                reason=f"{len(group.items)} memories older than {COMPRESS_AFTER_DAYS} days are "
                "summarized beside the category summary; the memories themselves stay",
                category=group.category.key,
                before={"digest": group.digest},
                after={"digest": text},
            )
        )
    return changes


def plan_archive(session: Session, now: datetime) -> list[ProposedChange]:
    cutoff = now - timedelta(days=ARCHIVE_UNUSED_DAYS)
    # Only memories learnt and last used before the cutoff can qualify: the index on
    # extracted_at keeps this a small read however big the store.
    rows = session.exec(
        select(MemoryItemRow).where(
            MemoryItemRow.status == "active",
            MemoryItemRow.pinned == False,  # noqa: E712
            col(MemoryItemRow.extracted_at) < cutoff,
        )
    ).all()
    changes = []
    for row in rows:
        # Used: retrieved into a context, or said again in a conversation.
        times = (row.last_accessed_at, row.last_seen_at, row.extracted_at)
        last_used = max(t for t in times if t is not None)
        decay = decay_factor(last_used, row.access_count, now)
        if not should_archive(
            importance=row.importance, decay=decay, last_used=last_used, pinned=row.pinned, now=now
        ):
            continue
        changes.append(
            ProposedChange(
                kind="archive",
                item_ids=(row.id or 0,),
                title=f"{CHANGE_TITLES['archive']}: {row.content[:80]}",
                reason=f"unused for {(now - last_used).days} days; low importance "
                f"{row.importance:.2f} × decay {decay:.2f} = {row.importance * decay:.2f}, "
                "under 0.3",
                category=row.category,
                before={str(row.id): store.item_state(row)},
                after={str(row.id): {"status": "archived"}},
            )
        )
    return changes
