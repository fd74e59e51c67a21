"""What each decision on a conflict does to its memories (seed 000 §1.4, seed 004
supersession). Nothing is deleted: a loser becomes `superseded`, with `valid_until`
and `superseded_by` the winner, and stays in history; every change is audited in the
caller's group, so one undo reverts items and conflict together.

Choices worth knowing:
- keep_newer / keep_older / higher_confidence: the loser is valid until now (the
  moment a person decided).
- mark_outdated: the older item was true once and stopped being true when the newer
  statement was made, so its `valid_until` is the newer one's `valid_from` (now when
  unknown); it is superseded by the newer item like keep_newer.
- keep_both: both stay active; the note (or a default) goes in each item's context.
- merge: a new item with the person's text, in the newer item's category and scope,
  with the higher confidence; both originals are superseded by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from memory_app.conflicts.detector import said_at
from memory_app.domain.validation import ValidationError
from memory_app.store import repository as repo
from memory_app.store.tables import ConflictRow, MemoryItemRow

DECISIONS = {
    "keep_newer": "accepted_newer",
    "keep_older": "accepted_older",
    "keep_both": "kept_both_with_context",
    "mark_outdated": "marked_outdated",
    "higher_confidence": "accepted_higher_confidence",
    "merge": "merged",
}
ACTION = "resolve_conflict"


@dataclass(frozen=True)
class Resolution:
    session: Session
    conflict: ConflictRow
    items: list[MemoryItemRow]  # oldest first
    decision: str
    note: str
    actor: str
    group: str
    now: datetime

    def change(self, row: MemoryItemRow, changes: dict[str, object]) -> None:
        text = f"conflict #{self.conflict.id}: {self.decision}"
        repo.change_item(
            self.session,
            row,
            changes,
            actor=self.actor,
            action=ACTION,
            group_id=self.group,
            note=text + (f" ({self.note})" if self.note else ""),
        )

    def supersede(self, loser: MemoryItemRow, winner: MemoryItemRow, until: datetime) -> None:
        start = loser.valid_from
        if start is not None and until < start:  # never end before it began
            until = start
        self.change(
            loser, {"status": "superseded", "valid_until": until, "superseded_by": winner.id}
        )


def winner_of(decision: str, items: list[MemoryItemRow]) -> MemoryItemRow:
    if decision == "keep_older":
        return items[0]
    if decision == "higher_confidence":
        # Ties go to the newer statement: same certainty, more recent knowledge.
        return max(reversed(items), key=lambda r: r.confidence)
    return items[-1]


def apply(r: Resolution, merged_content: str | None = None) -> MemoryItemRow | None:
    """Change the items for the decision; returns the merged item when one was made."""
    if r.decision == "keep_both":
        context = r.note or (
            f"kept both after conflict #{r.conflict.id}: each applies in its own situation"
        )
        for row in r.items:
            r.change(row, {"context": context})
        return None
    if r.decision == "merge":
        return _merge(r, merged_content)
    winner = winner_of(r.decision, r.items)
    for loser in r.items:
        if loser is winner:
            continue
        until = r.now
        if r.decision == "mark_outdated":
            until = min(winner.valid_from or r.now, r.now)
        r.supersede(loser, winner, until)
    return None


def _merge(r: Resolution, merged_content: str | None) -> MemoryItemRow:
    content = " ".join((merged_content or "").split())
    if not content:
        raise ValidationError({"merged_content": "merging needs the new statement's text"})
    newest = r.items[-1]
    row = MemoryItemRow(
        category=newest.category,
        type=newest.type,
        content=content,
        content_key="",
        context=r.note or f"merged from memories {', '.join(f'#{i.id}' for i in r.items)}",
        confidence=max(i.confidence for i in r.items),
        importance=max(i.importance for i in r.items),
        scope=newest.scope,
        project=newest.project,
        # One branch's memories merged stay that branch's; across branches, base.
        branch=newest.branch if len({i.branch for i in r.items}) == 1 else None,
        tags=sorted({t for i in r.items for t in i.tags}),
        source_resource_id=newest.source_resource_id,
        extractor="user",
        extracted_at=r.now,
        updated_at=r.now,
        valid_from=r.now,
    )
    repo.add_item(r.session, row, actor=r.actor, group_id=r.group)
    for original in r.items:
        r.supersede(original, row, r.now)
    return row


def ordered(items: list[MemoryItemRow]) -> list[MemoryItemRow]:
    return sorted(items, key=said_at)
