"""Monthly re-index (seed 000 §6.4): every memory checked against the schema rules, the
search index checked and rebuilt, the database's integrity reported.

A memory that breaks the rules (written by an older version, another tool, or a hand
edit of the database) is proposed for "invalid": it leaves retrieval and context but
stays visible, with the reason, until a person fixes or restores it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from memory_app.domain.maintenance import CHANGE_TITLES, ProposedChange
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.store import maintenance as store
from memory_app.store import repository as repo
from memory_app.store.dialects import Dialect
from memory_app.store.tables import MemoryItemRow

_BATCH = 2_000
_CHECKED = ("content", "category", "type", "confidence", "importance", "scope", "tags")


def item_problems(row: MemoryItemRow, categories: set[str], now: datetime) -> str | None:
    """Why a stored memory breaks the rules, or None when it is fine."""
    values: dict[str, Any] = {name: getattr(row, name) for name in _CHECKED}
    values.update(extracted_at=row.extracted_at, valid_from=row.valid_from)
    values["valid_until"] = row.valid_until
    try:
        validate_item_fields(values, categories, now)
    except ValidationError as exc:
        return str(exc)
    return None


def plan_invalid(
    session: Session,
    now: datetime,
    *,
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[], None] | None = None,
) -> tuple[list[ProposedChange], int]:
    """Proposals to mark broken memories invalid, and how many memories were checked."""
    categories = {c.key for c in repo.categories(session)}
    checked = 0
    changes = []
    last_id = 0
    while True:
        rows = session.exec(_page(last_id)).all()
        if not rows:
            break
        for row in rows:
            checked += 1
            if row.status in ("deleted", "invalid"):
                continue
            problem = item_problems(row, categories, now)
            if problem is None or row.pinned:
                continue
            changes.append(
                ProposedChange(
                    kind="mark_invalid",
                    item_ids=(row.id or 0,),
                    title=f"{CHANGE_TITLES['mark_invalid']}: {(row.content or '(empty)')[:80]}",
                    reason=problem,
                    category=row.category,
                    before={str(row.id): store.item_state(row)},
                    after={str(row.id): {"status": "invalid"}},
                )
            )
        last_id = rows[-1].id or 0
        session.expunge_all()  # a page at a time, however big the store
        if progress is not None:
            progress(checked, 0)
        if check is not None:
            check()
    return changes, checked


def _page(after_id: int) -> SelectOfScalar[MemoryItemRow]:
    return (
        select(MemoryItemRow)
        .where(col(MemoryItemRow.id) > after_id)
        .order_by(col(MemoryItemRow.id))
        .limit(_BATCH)
    )


def check_index(session: Session, dialect: Dialect) -> dict[str, Any]:
    """The database's and the search index's integrity, read only."""
    conn = session.connection()
    integrity = dialect.database_problems(conn)
    problems = dialect.check_search_index(conn)
    return {
        "database_ok": not integrity,
        "database_problems": integrity[:20],
        "index_ok": not problems,
        "index_problems": problems[:20],
    }
