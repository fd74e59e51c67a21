"""Conversations kept while their extraction failed (status "pending").

Failing open: an API that is down, overloaded or answering nonsense must not lose the
conversation, so it is stored (redacted, like any other) and extracted again later. Its
text and turns never change; only the status and the reason do.
"""

from __future__ import annotations

from sqlmodel import Session, col, func, select

from memory_app.store.mirror_files import REFERENCE_PREFIX
from memory_app.store.tables import ExtractionRunRow, ResourceRow

PENDING = "pending"
MEMORIZED = "memorized"


def pending_ids(session: Session) -> list[int]:
    """The pending conversations, oldest first (they have waited longest); not those
    known only by reference (from a file mirror): their text is on another machine."""
    rows = session.exec(
        select(ResourceRow.id)
        .where(
            ResourceRow.status == PENDING,
            col(ResourceRow.content_hash).not_like(f"{REFERENCE_PREFIX}%"),
        )
        .order_by(col(ResourceRow.id))
    ).all()
    return [i for i in rows if i is not None]


def paid_failures(session: Session, resource_id: int) -> int:
    """Failed extractions of this conversation the model was paid for (it read the
    prompt, then its answer was unusable). An API that was down costs nothing and does
    not count: only these make retrying it again and again expensive."""
    return int(
        session.exec(
            select(func.count())
            .select_from(ExtractionRunRow)
            .where(
                ExtractionRunRow.resource_id == resource_id,
                ExtractionRunRow.kind == "extract",
                ExtractionRunRow.status == "error",
                col(ExtractionRunRow.input_tokens) > 0,
            )
        ).one()
    )


def mark_pending(session: Session, row: ResourceRow, reason: str) -> None:
    row.status = PENDING
    row.status_reason = reason
    session.add(row)


def mark_memorized(session: Session, row: ResourceRow, extractor: str) -> None:
    row.status = MEMORIZED
    row.status_reason = None
    row.extractor = extractor
    session.add(row)
