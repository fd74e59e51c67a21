"""Conflict rows, their members and the per-pair verdict cache.

Kept apart from `repository` so the contradiction feature reads as one place; changes
to a conflict's resolution go through `repository.change_conflict`, which audits them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlmodel import Session, col, select

from memory_app.domain.records import ConflictRecord
from memory_app.store.errors import NotFoundError
from memory_app.store.repository import OPEN_CONFLICT_STATUSES
from memory_app.store.tables import (
    AuditEventRow,
    ConflictJudgementRow,
    ConflictMemberRow,
    ConflictRow,
    MemoryItemRow,
    ResourceRow,
    TurnRow,
)


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The cache key of an unordered pair: smaller id first."""
    return (a, b) if a < b else (b, a)


def cached_verdict(session: Session, a: int, b: int) -> ConflictJudgementRow | None:
    return session.get(ConflictJudgementRow, pair_key(a, b))


def judged_partners(session: Session, item_id: int) -> set[int]:
    """Every item already judged against this one (either side of the pair)."""
    rows = session.exec(
        select(ConflictJudgementRow.item_a, ConflictJudgementRow.item_b).where(
            (ConflictJudgementRow.item_a == item_id) | (ConflictJudgementRow.item_b == item_id)
        )
    ).all()
    return {b if a == item_id else a for a, b in rows}


def save_verdict(
    session: Session, a: int, b: int, *, contradicts: bool, reason: str, judge: str
) -> bool:
    """Store a verdict unless the pair was judged meanwhile; True when stored."""
    first, second = pair_key(a, b)
    if session.get(ConflictJudgementRow, (first, second)) is not None:
        return False
    session.add(
        ConflictJudgementRow(
            item_a=first, item_b=second, contradicts=contradicts, reason=reason, judge=judge
        )
    )
    session.flush()
    return True


def create_conflict(
    session: Session, category: str, item_ids: Sequence[int], *, reason: str, detector: str
) -> ConflictRow:
    """A new unresolved conflict; `item_ids` oldest first."""
    row = ConflictRow(category=category, reason=reason, detector=detector)
    session.add(row)
    session.flush()
    for position, item_id in enumerate(item_ids):
        session.add(ConflictMemberRow(conflict_id=row.id or 0, item_id=item_id, position=position))
    session.flush()
    return row


def get_conflict(session: Session, conflict_id: int) -> ConflictRow:
    row = session.get(ConflictRow, conflict_id)
    if row is None:
        raise NotFoundError("conflict", conflict_id)
    return row


def member_ids(session: Session, conflict_id: int) -> list[int]:
    return list(
        session.exec(
            select(ConflictMemberRow.item_id)
            .where(ConflictMemberRow.conflict_id == conflict_id)
            .order_by(col(ConflictMemberRow.position))
        ).all()
    )


def to_record(session: Session, row: ConflictRow) -> ConflictRecord:
    return ConflictRecord(
        id=row.id or 0,
        category=row.category,
        status=row.status,
        created_at=row.created_at,
        item_ids=tuple(member_ids(session, row.id or 0)),
        reason=row.reason,
        decision=row.decision,
        notes=row.notes,
        resolved_at=row.resolved_at,
    )


def open_conflicts_for(session: Session, item_ids: Iterable[int]) -> dict[int, list[int]]:
    """Item id → the ids of the open conflicts it is in (items in none are left out)."""
    wanted = list(item_ids)
    if not wanted:
        return {}
    rows = session.exec(
        select(ConflictMemberRow.item_id, ConflictMemberRow.conflict_id)
        .join(ConflictRow, col(ConflictRow.id) == col(ConflictMemberRow.conflict_id))
        .where(
            col(ConflictMemberRow.item_id).in_(wanted),
            col(ConflictRow.status).in_(OPEN_CONFLICT_STATUSES),
        )
        .order_by(col(ConflictMemberRow.conflict_id))
    ).all()
    out: dict[int, list[int]] = {}
    for item_id, conflict_id in rows:
        out.setdefault(item_id, []).append(conflict_id)
    return out


def open_partners(session: Session, item_id: int) -> set[int]:
    """Items already in an open conflict together with this one."""
    mine = open_conflicts_for(session, [item_id]).get(item_id, [])
    if not mine:
        return set()
    rows = session.exec(
        select(ConflictMemberRow.item_id).where(col(ConflictMemberRow.conflict_id).in_(mine))
    ).all()
    return set(rows) - {item_id}


def excerpt(session: Session, item: MemoryItemRow, width: int = 300) -> str:
    """About `width` characters of the conversation where an item was said: its turns,
    centred on the item's own words when they appear there; "" when unknown."""
    if item.source_resource_id is None or item.turn_start is None:
        return ""
    resource = session.get(ResourceRow, item.source_resource_id)
    if resource is None:
        return ""
    last = item.turn_end if item.turn_end is not None else item.turn_start
    spans = session.exec(
        select(TurnRow.start, TurnRow.end).where(
            TurnRow.resource_id == resource.id,
            col(TurnRow.position) >= item.turn_start,
            col(TurnRow.position) <= last,
        )
    ).all()
    if not spans:
        return ""
    text = " ".join(resource.text[min(s for s, _ in spans) : max(e for _, e in spans)].split())
    if len(text) <= width:
        return text
    probe = " ".join(item.content.split())[:40].lower()
    at = text.lower().find(probe) if probe else -1
    start = max(0, min(at - width // 3, len(text) - width)) if at >= 0 else 0
    cut = text[start : start + width].strip()
    return ("…" if start > 0 else "") + cut + ("…" if start + width < len(text) else "")


def last_resolution_group(session: Session, conflict_id: int) -> str | None:
    """The newest group that changed this conflict and was not undone yet."""
    undone = select(AuditEventRow.note).where(
        AuditEventRow.action == "undo", col(AuditEventRow.note).is_not(None)
    )
    return session.exec(
        select(AuditEventRow.group_id)
        .where(
            AuditEventRow.conflict_id == conflict_id,
            AuditEventRow.action != "undo",
            col(AuditEventRow.group_id).is_not(None),
            col(AuditEventRow.group_id).not_in(undone),
        )
        .order_by(col(AuditEventRow.id).desc())
    ).first()
