"""Push: this store's waiting team changes to the team store (issue 20).

What a memory needs is `pending_action` (domain/sharing.py):

- first publish: INSERT; a uid the team store already has is a match when it says the
  same (a push whose answer was lost), never a second copy;
- an edit: `UPDATE … WHERE uid = :uid AND change_seq = :base`; no row means someone
  changed it since, so nothing is overwritten: the memory stays waiting and the pull
  that follows brings that version and opens the conflict;
- a withdrawal: DELETE on the same condition, which leaves a tombstone.

Only what the publish preview's checks let out is written (sync_rows.what_leaves). Each
batch is one team transaction, then one local one that records the change numbers: a
push cut between the two is sent again and matches, so pushing is idempotent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, and_, delete, literal_column, or_, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlmodel import Session, col, select

from memory_app.domain.sharing import PUSH, TEAM, WITHDRAW, pending_action
from memory_app.domain.similarity import content_key
from memory_app.store.database import Database
from memory_app.store.tables import CategoryRow, MemoryItemRow, utc_now
from memory_app.team.sync_rows import same_fields, team_version, what_leaves

_TABLE: Any = MemoryItemRow.__table__  # type: ignore[attr-defined]  # set by SQLModel
_SEQ: Any = literal_column("change_seq")


@dataclass
class PushReport:
    published: int = 0
    updated: int = 0
    withdrawn: int = 0
    matched: int = 0  # already on the team store as this store would send it
    stale: list[int] = field(default_factory=list)  # changed on the team since: pull again
    not_sent: dict[int, str] = field(default_factory=dict)  # id → why it cannot leave
    batch_seconds: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    item_id: int
    updated_at: datetime
    team_seq: int | None  # the version the team store now has (None: withdrawn)
    done: bool  # False: still waiting (stale or not sendable)


def waiting(session: Session, after_id: int, limit: int) -> list[MemoryItemRow]:
    """Memories with a change for the team store, by id."""
    return list(
        session.exec(
            select(MemoryItemRow)
            .where(
                col(MemoryItemRow.id) > after_id,
                or_(
                    col(MemoryItemRow.team_dirty),
                    and_(col(MemoryItemRow.sharing) == TEAM, col(MemoryItemRow.team_seq).is_(None)),
                ),
            )
            .order_by(col(MemoryItemRow.id))
            .limit(limit)
        ).all()
    )


def push(
    db: Database,
    connect: Callable[[], Any],
    *,
    batch: int,
    report: PushReport,
    skip: frozenset[int] | set[int] = frozenset(),
) -> None:
    """Send every waiting change, `batch` memories per team transaction; the ids in
    `skip` stay waiting (members of a resolution that could not go whole)."""
    data_dir = db.backup_dir.parent if db.backup_dir is not None else None
    after = 0
    while True:
        started = time.perf_counter()
        with db.reading() as session:
            rows = waiting(session, after, batch)
            categories = {c.key: c for c in session.exec(select(CategoryRow)).all()}
        if not rows:
            return
        after = rows[-1].id or 0
        with connect() as conn:
            _categories(conn, {r.category for r in rows}, categories)
            outcomes = [send(conn, row, data_dir, report) for row in rows if row.id not in skip]
        with db.writing() as session:
            for outcome in outcomes:
                record(session, outcome)
        report.batch_seconds.append(time.perf_counter() - started)


def _categories(conn: Connection, keys: set[str], local: dict[str, CategoryRow]) -> None:
    """The team store's memories name their category: make sure it has these."""
    for key in sorted(keys):
        cat = local.get(key)
        conn.execute(
            text(
                "INSERT INTO category (key, name, description, default_type, position) "
                "VALUES (:key, :name, :description, :default_type, :position) "
                "ON CONFLICT DO NOTHING"
            ),
            {
                "key": key,
                "name": cat.name if cat else key,
                "description": cat.description if cat else "",
                "default_type": cat.default_type if cat else "fact",
                "position": cat.position if cat else 1000,
            },
        )


def send(
    conn: Connection, row: MemoryItemRow, data_dir: Path | None, report: PushReport
) -> Outcome:
    item_id = row.id or 0
    action = pending_action(row.sharing, row.team_seq, row.team_dirty)

    def outcome(seq: int | None, done: bool = True) -> Outcome:
        return Outcome(item_id, row.updated_at, seq, done)

    if action == WITHDRAW:
        gone = conn.execute(
            delete(_TABLE).where(_TABLE.c.uid == row.uid, row.team_seq == _SEQ)
        ).rowcount
        if gone or team_version(conn, row.uid) is None:
            report.withdrawn += 1
            return outcome(None)
        report.stale.append(item_id)
        return outcome(row.team_seq, done=False)
    if action != PUSH:
        return outcome(row.team_seq)  # nothing to send (a sync flag left on a personal one)
    fields, why = what_leaves(row, data_dir)
    if fields is None:
        report.not_sent[item_id] = why
        return outcome(row.team_seq, done=False)
    values = {**fields, "content_key": content_key(fields["content"]), "updated_at": utc_now()}
    if row.team_seq is None:
        seq = conn.execute(
            insert(_TABLE)
            .values(
                **values,
                uid=row.uid,
                sharing=TEAM,
                extractor=row.extractor,
                extracted_at=row.extracted_at,
            )
            .on_conflict_do_nothing()
            .returning(_SEQ)
        ).scalar()
        if seq is not None:
            report.published += 1
            return outcome(int(seq))
    else:
        seq = conn.execute(
            update(_TABLE)
            .where(_TABLE.c.uid == row.uid, row.team_seq == _SEQ)
            .values(**values)
            .returning(_SEQ)
        ).scalar()
        if seq is not None:
            report.updated += 1
            return outcome(int(seq))
    there = team_version(conn, row.uid)
    if there is not None and there.fields is not None and same_fields(fields, there.fields):
        report.matched += 1
        return outcome(there.change_seq)
    report.stale.append(item_id)  # someone changed it since: never overwrite
    return outcome(row.team_seq, done=False)


def record(session: Session, outcome: Outcome) -> None:
    """The change numbers the team store gave; a memory edited here while it was being
    sent keeps waiting (on the new base), so that edit is not lost either."""
    if not outcome.done:
        return
    row = session.get(MemoryItemRow, outcome.item_id)
    if row is None:
        return
    row.team_seq = outcome.team_seq
    row.team_dirty = row.updated_at != outcome.updated_at
    session.add(row)
