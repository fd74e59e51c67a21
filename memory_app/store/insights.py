"""Aggregates for the dashboard and the lists beside the memories: activity, charts,
conflicts, maintenance runs, conversation turns."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, text
from sqlmodel import Session, col, select

from memory_app.domain.records import (
    COUNTED_STATUSES,
    ActivityEntry,
    ConflictRecord,
    MaintenanceRunRecord,
    TurnRecord,
)
from memory_app.store.dialects import dialect_of
from memory_app.store.tables import (
    AuditEventRow,
    ConflictMemberRow,
    ConflictRow,
    MaintenanceRunRow,
    ResourceRow,
    TurnRow,
)
from memory_app.store.types import to_db_time

_ACTION_WORDS = {
    "update": "Edited",
    "delete": "Deleted",
    "restore": "Restored",
    "pin": "Pinned",
    "unpin": "Unpinned",
    "undo": "Undid a change to",
    "redo": "Redid a change to",
    "resolve_conflict": "Resolved a conflict over",
    "archive": "Archived",
    "unarchive": "Unarchived",
    "keep": "Kept",
    "recategorize": "Moved",
    "merge_category": "Moved",
}
_CATEGORY_WORDS = {
    "add_category": "Added category",
    "rename_category": "Changed category",
    "merge_category": "Merged category",
    "undo": "Undid a change to category",
    "redo": "Redid a change to category",
}


def weekly_added(session: Session, now: datetime, weeks: int = 12) -> list[tuple[datetime, int]]:
    """The memories counted today (COUNTED_STATUSES) by the week they were extracted
    (weeks start on Monday), oldest first, zeros included."""
    this_monday = (now - timedelta(days=now.weekday())).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    first = this_monday - timedelta(weeks=weeks - 1)
    conn = session.connection()
    rows = conn.execute(
        text(
            f"SELECT {dialect_of(conn).day_of('extracted_at')} AS day, count(*) FROM memory_item "
            "WHERE extracted_at >= :first AND status IN :counted GROUP BY day"
        ).bindparams(bindparam("counted", expanding=True)),
        {"first": to_db_time(first), "counted": list(COUNTED_STATUSES)},
    )
    counts = [0] * weeks
    for day, count in rows:
        when = datetime.fromisoformat(day).replace(tzinfo=now.tzinfo)
        index = (when - first).days // 7
        if 0 <= index < weeks:
            counts[index] += count
    return [(first + timedelta(weeks=i), counts[i]) for i in range(weeks)]


# The bin of a confidence: 0 for [0.0, 0.1) … 9 for [0.9, 1.0], as plain comparisons (the
# same on every engine: SQLite's CAST truncates where PostgreSQL's rounds).
_CONFIDENCE_BIN = (
    "CASE " + " ".join(f"WHEN confidence * 10 < {n + 1} THEN {n}" for n in range(9)) + " ELSE 9 END"
)


def confidence_histogram(session: Session) -> tuple[int, ...]:
    """The counted memories (COUNTED_STATUSES) in ten confidence bins: [0.0, 0.1) …
    [0.9, 1.0]."""
    rows = session.connection().execute(
        text(
            f"SELECT {_CONFIDENCE_BIN} AS bin, count(*) FROM memory_item "
            "WHERE status IN :counted GROUP BY bin"
        ).bindparams(bindparam("counted", expanding=True)),
        {"counted": list(COUNTED_STATUSES)},
    )
    bins = [0] * 10
    for index, count in rows:
        bins[int(index)] = count
    return tuple(bins)


def recent_activity(session: Session, limit: int = 12) -> list[ActivityEntry]:
    """The latest imports, changes people made, and maintenance runs, newest first."""
    entries: list[ActivityEntry] = []
    for row in session.exec(
        select(ResourceRow).order_by(col(ResourceRow.imported_at).desc()).limit(limit)
    ):
        name = row.title or (row.source_path or "conversation").rsplit("/", 1)[-1]
        entries.append(
            ActivityEntry(row.imported_at, "import", f"Imported “{name}”", resource_id=row.id)
        )
    for event in session.exec(
        select(AuditEventRow)
        .where(AuditEventRow.actor == "user")
        .order_by(col(AuditEventRow.id).desc())
        .limit(limit)
    ):
        if event.item_id is None and event.conflict_id is not None:
            done = {"undo": "Reopened", "redo": "Resolved again"}.get(event.action, "Resolved")
            entries.append(
                ActivityEntry(event.at, "change", f"{done} conflict #{event.conflict_id}")
            )
            continue
        if event.item_id is None:
            snap = event.after or event.before or {}
            if "category_row" not in snap:
                continue  # a digest's undo: its category's summary shows it
            values = snap.get("category_row") or (event.before or {}).get("category_row") or {}
            label = values.get("name") or snap.get("key")
            words = _CATEGORY_WORDS.get(event.action, "Changed category")
            entries.append(ActivityEntry(event.at, "change", f"{words} “{label}”"))
            continue
        word = _ACTION_WORDS.get(event.action, event.action.capitalize())
        entries.append(
            ActivityEntry(event.at, "change", f"{word} memory #{event.item_id}", event.item_id)
        )
    for run in session.exec(
        select(MaintenanceRunRow).order_by(col(MaintenanceRunRow.id).desc()).limit(limit)
    ):
        entries.append(
            ActivityEntry(run.started_at, "maintenance", f"Maintenance ({run.kind}): {run.status}")
        )
    entries.sort(key=lambda e: e.at, reverse=True)
    return entries[:limit]


def conflicts(session: Session, statuses: tuple[str, ...] = ()) -> list[ConflictRecord]:
    query = select(ConflictRow).order_by(col(ConflictRow.created_at).desc())
    if statuses:
        query = query.where(col(ConflictRow.status).in_(statuses))
    rows = session.exec(query).all()
    members: dict[int, list[int]] = {}
    for member in session.exec(select(ConflictMemberRow).order_by(col(ConflictMemberRow.position))):
        members.setdefault(member.conflict_id, []).append(member.item_id)
    return [
        ConflictRecord(
            id=r.id or 0,
            category=r.category,
            status=r.status,
            created_at=r.created_at,
            item_ids=tuple(members.get(r.id or 0, ())),
            reason=r.reason,
            decision=r.decision,
            notes=r.notes,
            resolved_at=r.resolved_at,
        )
        for r in rows
    ]


def maintenance_runs(session: Session, limit: int = 50) -> list[MaintenanceRunRecord]:
    rows = session.exec(
        select(MaintenanceRunRow).order_by(col(MaintenanceRunRow.id).desc()).limit(limit)
    )
    return [
        MaintenanceRunRecord(
            r.id or 0,
            r.kind,
            r.status,
            r.dry_run,
            r.started_at,
            r.finished_at,
            r.result,
            r.error,
            r.group_id,
        )
        for r in rows
    ]


def resource_turns(session: Session, resource_id: int) -> list[TurnRecord]:
    rows = session.exec(
        select(TurnRow).where(TurnRow.resource_id == resource_id).order_by(col(TurnRow.position))
    )
    return [
        TurnRecord(r.position, r.speaker, r.kind, r.start, r.end, r.source_line, r.timestamp)
        for r in rows
    ]


def count_resources(session: Session) -> int:
    return int(session.exec(select(func.count()).select_from(ResourceRow)).one())
