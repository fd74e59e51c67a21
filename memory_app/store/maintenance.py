"""Maintenance in the store: runs, proposed changes, schedules, and applying changes.

Applying a change re-checks it against the store first: a memory a person edited,
pinned or deleted since the run looked at it is left alone and the change is marked
`stale`. Every applied change writes audit events in one group, so undo reverses all of
them at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from memory_app.domain.branches import seen_on
from memory_app.domain.maintenance import (
    JOB_KINDS,
    ProposedChange,
    Schedule,
    default_schedules,
)
from memory_app.domain.records import MaintenanceRunRecord
from memory_app.domain.scoring import DAY_SECONDS, usage_decay
from memory_app.domain.similarity import reinforced_confidence
from memory_app.store import repository as repo
from memory_app.store.dialects import dialect_of
from memory_app.store.tables import (
    CategorySummaryRow,
    MaintenanceChangeRow,
    MaintenanceRunRow,
    MaintenanceScheduleRow,
    MemoryItemRow,
    ResourceRow,
    utc_now,
)

# The fields a proposed change records per item, to show and to detect staleness.
WATCHED_FIELDS = ("content", "status", "pinned")
_ID_BATCH = 500


# -- runs ---------------------------------------------------------------------------------


def start_run(session: Session, kind: str, *, dry_run: bool) -> int:
    row = MaintenanceRunRow(kind=kind, dry_run=dry_run)
    session.add(row)
    session.flush()
    return row.id or 0


def finish_run(
    session: Session,
    run_id: int,
    status: str,
    result: dict[str, Any],
    *,
    error: str | None = None,
    group_id: str | None = None,
) -> None:
    row = session.get(MaintenanceRunRow, run_id)
    if row is None:
        return
    row.status = status
    row.result = result
    row.error = error
    row.finished_at = utc_now()
    if group_id is not None:
        row.group_id = group_id
    session.add(row)


def run_record(row: MaintenanceRunRow) -> MaintenanceRunRecord:
    return MaintenanceRunRecord(
        row.id or 0,
        row.kind,
        row.status,
        row.dry_run,
        row.started_at,
        row.finished_at,
        row.result,
        row.error,
        row.group_id,
    )


def get_run(session: Session, run_id: int) -> MaintenanceRunRow | None:
    return session.get(MaintenanceRunRow, run_id)


def last_runs(session: Session) -> dict[str, datetime]:
    """When each job last finished a real (not dry) run successfully: the log isDue reads.

    A full run counts for each of its jobs."""
    rows = session.exec(
        select(MaintenanceRunRow.kind, func.max(MaintenanceRunRow.started_at))
        .where(MaintenanceRunRow.status == "success", MaintenanceRunRow.dry_run == False)  # noqa: E712
        .group_by(col(MaintenanceRunRow.kind))
    ).all()
    found = {kind: repo.as_time(at) for kind, at in rows}
    out: dict[str, datetime] = {}
    for kind in JOB_KINDS:
        times = [t for t in (found.get(kind), found.get("full")) if t is not None]
        if times:
            out[kind] = max(times)
    return out


def interrupted_runs(session: Session) -> int:
    """Runs left "running" by a process that died: marked as errors so the log is true."""
    rows = session.exec(select(MaintenanceRunRow).where(MaintenanceRunRow.status == "running"))
    count = 0
    for row in rows:
        row.status = "error"
        row.error = "interrupted: the app closed while it ran"
        row.finished_at = utc_now()
        session.add(row)
        count += 1
    return count


def imported_paths(session: Session) -> dict[str, datetime]:
    """Each imported file's path and when it was last imported."""
    rows = session.exec(
        select(ResourceRow.source_path, func.max(ResourceRow.imported_at))
        .where(col(ResourceRow.source_path).is_not(None))
        .group_by(col(ResourceRow.source_path))
    ).all()
    out = {}
    for path, at in rows:
        when = repo.as_time(at)
        if path and when is not None:
            out[path] = when
    return out


# -- schedules ----------------------------------------------------------------------------


def schedules(session: Session) -> dict[str, Schedule]:
    out = default_schedules()
    for row in session.exec(select(MaintenanceScheduleRow)):
        if row.kind in out:
            out[row.kind] = Schedule(row.kind, row.enabled, row.every_days, row.auto_apply)
    return out


def save_schedule(session: Session, schedule: Schedule) -> None:
    row = session.get(MaintenanceScheduleRow, schedule.kind) or MaintenanceScheduleRow(
        kind=schedule.kind
    )
    row.enabled = schedule.enabled
    row.every_days = schedule.every_days
    row.auto_apply = schedule.auto_apply
    session.add(row)


# -- proposed changes ---------------------------------------------------------------------


def save_changes(session: Session, run_id: int, changes: Sequence[ProposedChange]) -> list[int]:
    rows = [
        MaintenanceChangeRow(
            run_id=run_id,
            kind=c.kind,
            item_ids=list(c.item_ids),
            category=c.category,
            title=c.title,
            reason=c.reason,
            before=c.before,
            after=c.after,
        )
        for c in changes
    ]
    session.add_all(rows)
    session.flush()
    return [r.id or 0 for r in rows]


def change_record(row: MaintenanceChangeRow) -> ProposedChange:
    return ProposedChange(
        kind=row.kind,
        item_ids=tuple(row.item_ids),
        title=row.title,
        reason=row.reason,
        category=row.category,
        before=row.before,
        after=row.after,
        id=row.id or 0,
        run_id=row.run_id,
        decision=row.decision,
        group_id=row.group_id,
    )


def changes(
    session: Session,
    *,
    run_id: int | None = None,
    decisions: Sequence[str] = (),
    limit: int | None = None,
) -> list[ProposedChange]:
    query = select(MaintenanceChangeRow)
    if run_id is not None:
        query = query.where(MaintenanceChangeRow.run_id == run_id)
    if decisions:
        query = query.where(col(MaintenanceChangeRow.decision).in_(decisions))
    query = query.order_by(col(MaintenanceChangeRow.id))
    if limit is not None:
        query = query.limit(limit)
    return [change_record(r) for r in session.exec(query)]


def count_changes(session: Session, decisions: Sequence[str]) -> int:
    return int(
        session.exec(
            select(func.count())
            .select_from(MaintenanceChangeRow)
            .where(col(MaintenanceChangeRow.decision).in_(decisions))
        ).one()
    )


def change_rows(session: Session, ids: Iterable[int]) -> list[MaintenanceChangeRow]:
    wanted = list(dict.fromkeys(ids))
    out: list[MaintenanceChangeRow] = []
    for start in range(0, len(wanted), _ID_BATCH):
        part = wanted[start : start + _ID_BATCH]
        out += session.exec(
            select(MaintenanceChangeRow).where(col(MaintenanceChangeRow.id).in_(part))
        ).all()
    return sorted(out, key=lambda r: r.id or 0)


def set_decision(session: Session, rows: Iterable[MaintenanceChangeRow], decision: str) -> None:
    for row in rows:
        row.decision = decision
        session.add(row)


def supersede_pending(session: Session, kinds: Sequence[str]) -> None:
    """A new run of a job replaces its older proposals still waiting for review."""
    runs = select(MaintenanceRunRow.id).where(col(MaintenanceRunRow.kind).in_(kinds))
    session.exec(
        update(MaintenanceChangeRow)
        .where(
            col(MaintenanceChangeRow.decision).in_(("pending", "accepted")),
            col(MaintenanceChangeRow.run_id).in_(runs),
        )
        .values(decision="stale")
    )


# -- applying -----------------------------------------------------------------------------


def item_state(row: MemoryItemRow) -> dict[str, Any]:
    """What a change remembers of an item, to show it and to notice later edits."""
    return {
        "content": row.content,
        "status": row.status,
        "pinned": row.pinned,
        "confidence": row.confidence,
        "importance": row.importance,
        "reinforcement_count": row.reinforcement_count,
        "tags": list(row.tags),
    }


def _unchanged(row: MemoryItemRow | None, before: dict[str, Any] | None) -> bool:
    if row is None or before is None or row.pinned:
        return False
    return all(getattr(row, name) == before.get(name) for name in WATCHED_FIELDS)


def apply_change(session: Session, change: MaintenanceChangeRow, *, group_id: str) -> bool:
    """Apply one proposed change unless the store moved on; True when applied."""
    if change.kind == "compress":
        return _apply_compress(session, change, group_id)
    rows = repo.items_by_ids(session, change.item_ids)
    if not all(_unchanged(rows.get(i), change.before.get(str(i))) for i in change.item_ids):
        return False
    note = f"maintenance: {change.title}"
    if change.kind == "merge":
        survivor, *duplicates = (rows[i] for i in change.item_ids)
        _merge(session, survivor, duplicates, group_id=group_id, note=note)
    elif change.kind == "archive":
        for row in rows.values():
            repo.change_item(
                session,
                row,
                {"status": "archived"},
                actor="maintenance",
                action="archive",
                group_id=group_id,
                note=change.reason,
            )
    elif change.kind == "mark_invalid":
        for row in rows.values():
            repo.change_item(
                session,
                row,
                {"status": "invalid"},
                actor="maintenance",
                action="mark_invalid",
                group_id=group_id,
                note=change.reason,
            )
    else:
        return False
    return True


def merged_fields(survivor: MemoryItemRow, duplicates: Sequence[MemoryItemRow]) -> dict[str, Any]:
    """The survivor after a merge: reinforced once per duplicate and per time each was
    seen, the most important of them, every tag, the latest time it was seen, and base
    (no branch) when they were learnt on different branches."""
    confidence = survivor.confidence
    seen = survivor.reinforcement_count
    tags = set(survivor.tags)
    last_seen = [t for t in (survivor.last_seen_at, survivor.extracted_at) if t is not None]
    for dup in duplicates:
        for _ in range(dup.reinforcement_count + 1):
            confidence = reinforced_confidence(confidence, dup.confidence)
        seen += dup.reinforcement_count + 1
        tags.update(dup.tags)
        last_seen += [t for t in (dup.last_seen_at, dup.extracted_at) if t is not None]
    branch = survivor.branch
    for dup in duplicates:
        branch = seen_on(branch, dup.branch)
    return {
        "confidence": confidence,
        "reinforcement_count": seen,
        "importance": max([survivor.importance, *(d.importance for d in duplicates)]),
        "tags": sorted(tags),
        "last_seen_at": max(last_seen),
        "branch": branch,  # learnt on several branches: base (domain/branches.py)
    }


def _merge(
    session: Session,
    survivor: MemoryItemRow,
    duplicates: Sequence[MemoryItemRow],
    *,
    group_id: str,
    note: str,
) -> None:
    """The duplicates stay, superseded by the survivor, so their provenance remains one
    click away."""
    repo.change_item(
        session,
        survivor,
        merged_fields(survivor, duplicates),
        actor="maintenance",
        action="reinforce",
        group_id=group_id,
        note=note,
    )
    for dup in duplicates:
        repo.change_item(
            session,
            dup,
            {"status": "superseded", "superseded_by": survivor.id},
            actor="maintenance",
            action="merge",
            group_id=group_id,
            note=f"merged into memory {survivor.id}",
        )


def _apply_compress(session: Session, change: MaintenanceChangeRow, group_id: str) -> bool:
    row = session.get(CategorySummaryRow, change.category or "")
    if row is None or row.digest != change.before.get("digest", ""):
        return False
    repo.change_digest(
        session,
        row.category,
        str(change.after.get("digest", "")),
        actor="maintenance",
        action="compress",
        group_id=group_id,
        note=change.reason,
    )
    return True


# -- decay ----------------------------------------------------------------------------------


def refresh_decay(session: Session, now: datetime, half_life_days: float = 30.0) -> int:
    """Recompute every live, unpinned memory's decay factor; returns how many changed
    (pinned memories do not fade). The formula is seed 003's (scoring.usage_decay); the
    dialect runs it (on SQLite inside one UPDATE, as a function on the connection)."""
    stamp = now.timestamp()

    def decay(last_used: datetime | None, extracted: datetime, uses: int) -> float:
        when = last_used or extracted
        days = (stamp - when.timestamp()) / DAY_SECONDS if when else 0.0
        return round(usage_decay(days, uses or 0, half_life_days), 4)

    conn = session.connection()
    return dialect_of(conn).refresh_decay(conn, decay)
