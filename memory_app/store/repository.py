"""Reads and writes of memory items, resources, categories and their audit trail.

Functions take an open Session so the caller decides the unit of work; every change to
an item goes through `change_item`/`add_item`, which write the audit event that makes
history and undo possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from memory_app.domain.categories import Category
from memory_app.domain.records import (
    COUNTED_STATUSES,
    NO_BRANCH,
    AuditRecord,
    CategoryInfo,
    MemoryRecord,
    ResourceRecord,
    Stats,
)
from memory_app.domain.rendering import TurnSpan, turn_text
from memory_app.domain.sharing import marks_team_change
from memory_app.domain.similarity import NEAR_DUPLICATE, content_key, similarity
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.domain.validation import ValidationError
from memory_app.store import links
from memory_app.store.dialects import Dialect
from memory_app.store.errors import EmptyQueryError, NotFoundError
from memory_app.store.tables import (
    AuditEventRow,
    CategoryRow,
    CategorySummaryRow,
    ConflictRow,
    MemoryItemRow,
    ResourceRow,
    TurnRow,
    table_of,
    utc_now,
)
from memory_app.store.types import from_db_time

# The fields a person sees and can change; audit events snapshot exactly these.
TRACKED_FIELDS = (
    "content",
    "context",
    "category",
    "type",
    "confidence",
    "importance",
    "scope",
    "project",
    "branch",  # changes when the memory is learnt again on another branch
    "tags",
    "pinned",
    "status",
    "valid_from",
    "valid_until",
    "superseded_by",
    "reinforcement_count",
    "last_seen_at",
    "updated_at",  # kept so undo puts an item back exactly, timestamp included
    "sharing",  # publishing and unpublishing are undoable (domain/sharing.py)
)
OPEN_CONFLICT_STATUSES = ("unresolved", "pending_user_review")
_TIME_FIELDS = {"valid_from", "valid_until", "last_seen_at", "updated_at"}


# -- categories ---------------------------------------------------------------------------


def ensure_categories(session: Session, defaults: Sequence[Category]) -> None:
    """Seed the default categories into an empty store (categories are data, not code)."""
    if session.exec(select(func.count()).select_from(CategoryRow)).one() == 0:
        for cat in defaults:
            session.add(
                CategoryRow(
                    key=cat.key,
                    name=cat.name,
                    description=cat.description,
                    default_type=cat.default_type,
                    position=cat.position,
                )
            )


def categories(session: Session) -> list[Category]:
    rows = session.exec(select(CategoryRow).order_by(col(CategoryRow.position))).all()
    return [Category(r.key, r.name, r.description, r.default_type, r.position) for r in rows]


def category_infos(session: Session) -> list[CategoryInfo]:
    counts = dict(
        session.exec(
            select(MemoryItemRow.category, func.count())
            .where(col(MemoryItemRow.status).in_(COUNTED_STATUSES))
            .group_by(col(MemoryItemRow.category))
        ).all()
    )
    return [
        CategoryInfo(c.key, c.name, c.description, c.default_type, c.position, counts.get(c.key, 0))
        for c in categories(session)
    ]


def category_row(session: Session, key: str) -> CategoryRow | None:
    return session.get(CategoryRow, key)


def category_snapshot(session: Session, key: str) -> dict[str, Any]:
    """A category's state as its audit events record it: its row (None once merged
    away), where it was merged into, the conflicts filed under it and its digest."""
    row = session.get(CategoryRow, key)
    if row is None:
        return {"key": key, "category_row": None, "merged_into": _merged_into(session, key)}
    conflicts = session.exec(select(ConflictRow.id).where(ConflictRow.category == key)).all()
    summary_row = session.get(CategorySummaryRow, key)
    return {
        "key": key,
        "category_row": {
            "name": row.name,
            "description": row.description,
            "default_type": row.default_type,
            "position": row.position,
        },
        "merged_into": None,
        "conflicts": sorted(c for c in conflicts if c is not None),
        "digest": summary_row.digest if summary_row is not None else "",
    }


def _category_events(session: Session) -> list[AuditEventRow]:
    """Every audit event that changed a category row, oldest first (a handful)."""
    rows = session.exec(
        select(AuditEventRow)
        .where(col(AuditEventRow.item_id).is_(None), col(AuditEventRow.conflict_id).is_(None))
        .order_by(col(AuditEventRow.id))
    ).all()
    return [r for r in rows if _event_kind(r) == "category"]


def _merged_into(session: Session, key: str) -> str | None:
    last = None
    for event in _category_events(session):
        if event.after is not None and event.after.get("key") == key:
            last = event.after.get("merged_into")
    return last if isinstance(last, str) else None


def category_redirects(session: Session) -> dict[str, str]:
    """Categories merged away → the existing category their memories went to (chains
    followed), so an extractor that still names an old category is understood."""
    last: dict[str, Any] = {}
    for event in _category_events(session):
        if event.after is not None and isinstance(event.after.get("key"), str):
            last[event.after["key"]] = event.after
    existing = {c.key for c in categories(session)}
    out: dict[str, str] = {}
    for key, state in last.items():
        if key in existing or state.get("category_row") is not None:
            continue
        target, seen = state.get("merged_into"), {key}
        while isinstance(target, str) and target not in existing and target not in seen:
            seen.add(target)
            target = (last.get(target) or {}).get("merged_into")
        if isinstance(target, str) and target in existing:
            out[key] = target
    return out


def set_category(
    session: Session,
    key: str,
    state: dict[str, Any],
    *,
    actor: str,
    action: str,
    group_id: str | None,
    note: str | None = None,
) -> None:
    """Bring a category to `state` (a `category_snapshot`) with an audit event undo and
    redo can reverse: create or update its row, or remove it, moving the conflicts filed
    under it into `state["merged_into"]`. Removing a category that still has memories
    is refused: they must be moved first (a merge does)."""
    before = category_snapshot(session, key)
    values = state.get("category_row")
    row = session.get(CategoryRow, key)
    into = state.get("merged_into")
    if values is not None:
        if row is None:
            row = CategoryRow(key=key, name=str(values["name"]))
        row.name = str(values["name"])
        row.description = str(values.get("description", ""))
        row.default_type = str(values.get("default_type", "fact"))
        row.position = int(values.get("position", 0))
        session.add(row)
        session.flush()
        for conflict_id in state.get("conflicts", ()):
            conflict = session.get(ConflictRow, conflict_id)
            if conflict is not None:
                conflict.category = key
                session.add(conflict)
        digest = str(state.get("digest", ""))
        summary_row = session.get(CategorySummaryRow, key)
        if digest and summary_row is None:
            session.add(CategorySummaryRow(category=key, markdown="", digest=digest))
        elif summary_row is not None and digest != summary_row.digest:
            summary_row.digest = digest
            session.add(summary_row)
    elif row is not None:
        left = session.exec(
            select(func.count()).select_from(MemoryItemRow).where(MemoryItemRow.category == key)
        ).one()
        if left:
            raise ValidationError(
                {"category": f"{row.name} still has {left} memories: merge it instead"}
            )
        conflicts = session.exec(select(ConflictRow).where(ConflictRow.category == key)).all()
        if conflicts and (not isinstance(into, str) or session.get(CategoryRow, into) is None):
            raise ValidationError({"category": f"{row.name} has conflicts filed under it"})
        for conflict in conflicts:
            conflict.category = str(into)
            session.add(conflict)
        summary_row = session.get(CategorySummaryRow, key)
        if summary_row is not None:
            session.delete(summary_row)
        session.flush()
        session.delete(row)
    session.flush()
    after = category_snapshot(session, key)
    if after["category_row"] is None:
        after["merged_into"] = into if isinstance(into, str) else None
    audit(
        session,
        actor=actor,
        action=action,
        item_id=None,
        group_id=group_id,
        before=before,
        after=after,
        note=note,
    )


def _set_category_from(
    session: Session,
    event: AuditEventRow,
    state: dict[str, Any] | None,
    actor: str,
    action: str,
    group_id: str,
    note: str,
) -> None:
    """Undo or redo one category event: bring the category back to `state`.

    Undoing the addition of a category that memories were filed under since (by an
    extractor) keeps it, as undo keeps any later change: the event still records the
    step as undone, so the undo stack moves on past it."""
    snap = event.before or event.after or {}
    key = snap.get("key")
    if not isinstance(key, str) or state is None:
        return
    try:
        set_category(session, key, state, actor=actor, action=action, group_id=group_id, note=note)
    except ValidationError:
        current = category_snapshot(session, key)
        audit(
            session,
            actor=actor,
            action=action,
            item_id=None,
            group_id=group_id,
            before=current,
            after=current,
            note=note,
        )


# -- resources ----------------------------------------------------------------------------


def resource_by_hash(session: Session, digest: str) -> ResourceRow | None:
    return session.exec(select(ResourceRow).where(ResourceRow.content_hash == digest)).first()


def same_session(session: Session, transcript: Transcript) -> Sequence[ResourceRow]:
    """The stored copies of the transcript's session (from the same source), newest first."""
    if not transcript.session_id:
        return []
    return session.exec(
        select(ResourceRow)
        .where(
            ResourceRow.session_id == transcript.session_id,
            ResourceRow.source_kind == transcript.source_kind,
        )
        .order_by(col(ResourceRow.id).desc())
    ).all()


def growing_resource(
    session: Session, copies: Sequence[ResourceRow], text: str, spans: Sequence[TurnSpan]
) -> ResourceRow | None:
    """The stored conversation this one continues: the same session of the same source,
    memorized, whose every turn this one has unchanged, followed by new turns (a
    transcript captured at PreCompact and again, grown, at SessionEnd). A turn that
    itself grew (a message continued on a later line) is not a continuation. `copies`:
    `same_session`'s rows."""
    for row in copies:
        if row.status != "memorized" or not text.startswith(row.text + "\n\n"):
            continue
        stored = {
            t.position: (t.start, t.end)
            for t in session.exec(select(TurnRow).where(TurnRow.resource_id == row.id)).all()
        }
        new = {s.position: (s.start, s.end) for s in spans}
        if all(new.get(p) == place for p, place in stored.items()) and any(
            s.start == len(row.text) + 2 for s in spans
        ):
            return row
    return None


def longer_resource(copies: Sequence[ResourceRow], text: str) -> ResourceRow | None:
    """A stored copy of the same session that already holds all of this text (an older
    capture imported after a newer one)."""
    for row in copies:
        if len(row.text) > len(text) and row.text.startswith(text + "\n\n"):
            return row
    return None


def turn_positions(session: Session, resource_id: int) -> list[int]:
    return list(
        session.exec(select(TurnRow.position).where(TurnRow.resource_id == resource_id)).all()
    )


def grow_resource(
    session: Session,
    row: ResourceRow,
    transcript: Transcript,
    text: str,
    spans: Sequence[TurnSpan],
    digest: str,
    *,
    redactions: int,
) -> list[int]:
    """Extend a stored conversation with the turns it gained (its earlier text is kept
    byte for byte, so every memory's provenance still points at the right lines);
    returns the new turns' positions."""
    known = set(turn_positions(session, row.id or 0))
    row.text = text
    row.content_hash = digest
    row.title = transcript.title or row.title
    row.ended_at = transcript.ended_at or row.ended_at
    row.message_count = transcript.message_count
    row.turn_count = len(transcript.turns)
    row.redaction_count = redactions
    row.imported_at = utc_now()  # the startup check compares it with the file's change
    session.add(row)  # the store's update trigger re-indexes its text
    fresh = [span for span in spans if span.position not in known]
    _add_turns(session, row.id or 0, transcript, fresh)
    return [span.position for span in fresh]


def _add_turns(
    session: Session, resource_id: int, transcript: Transcript, spans: Sequence[TurnSpan]
) -> None:
    """Where each turn sits in the resource's text, for provenance highlighting."""
    turns = {t.position: t for t in transcript.turns}
    for span in spans:
        turn = turns[span.position]
        session.add(
            TurnRow(
                resource_id=resource_id,
                position=span.position,
                speaker=turn.speaker,
                kind=turn.kind,
                start=span.start,
                end=span.end,
                source_line=turn.source_line,
                timestamp=turn.timestamp,
            )
        )


def add_resource(
    session: Session,
    transcript: Transcript,
    text: str,
    spans: Sequence[TurnSpan],
    digest: str,
    *,
    redactions: int,
    extractor: str | None,
) -> ResourceRow:
    row = ResourceRow(
        content_hash=digest,
        source_kind=transcript.source_kind,
        source_path=transcript.source_path,
        session_id=transcript.session_id,
        parent_session_id=transcript.parent_session_id,
        branch=transcript.branch,
        project=transcript.project,
        title=transcript.title,
        is_sidechain=transcript.is_sidechain,
        started_at=transcript.started_at,
        ended_at=transcript.ended_at,
        message_count=transcript.message_count,
        turn_count=len(transcript.turns),
        text=text,
        redaction_count=redactions,
        extractor=extractor,
    )
    session.add(row)
    session.flush()
    assert row.id is not None  # the flush gave the row its id
    _add_turns(session, row.id, transcript, spans)
    return row


def resource_record(session: Session, row: ResourceRow) -> ResourceRecord:
    items = session.exec(
        select(func.count())
        .select_from(MemoryItemRow)
        .where(MemoryItemRow.source_resource_id == row.id)
    ).one()
    return ResourceRecord(
        id=row.id or 0,
        source_kind=row.source_kind,
        source_path=row.source_path,
        session_id=row.session_id,
        branch=row.branch,
        project=row.project,
        title=row.title,
        started_at=row.started_at,
        ended_at=row.ended_at,
        imported_at=row.imported_at,
        message_count=row.message_count,
        turn_count=row.turn_count,
        redaction_count=row.redaction_count,
        status=row.status,
        status_reason=row.status_reason,
        item_count=items,
    )


def stored_transcript(session: Session, row: ResourceRow) -> Transcript:
    """A stored conversation as a Transcript again (already redacted), to extract from it
    a second time; turn positions are the stored ones, so provenance still lines up."""
    turns = session.exec(
        select(TurnRow).where(TurnRow.resource_id == row.id).order_by(col(TurnRow.position))
    ).all()
    return Transcript(
        source_kind=row.source_kind,
        turns=tuple(
            Turn(
                position=t.position,
                speaker=t.speaker,
                text=turn_text(row.text[t.start : t.end]),
                kind=t.kind,
                timestamp=t.timestamp,
                source_line=t.source_line,
            )
            for t in turns
        ),
        source_path=row.source_path,
        session_id=row.session_id,
        branch=row.branch,
        project=row.project,
        title=row.title,
        parent_session_id=row.parent_session_id,
        is_sidechain=row.is_sidechain,
        started_at=row.started_at,
        ended_at=row.ended_at,
    )


def source_lines(
    session: Session, resource_id: int, start: int, end: int
) -> tuple[int | None, int | None]:
    """The source-file lines that turns `start`..`end` came from, when known."""
    rows = session.exec(
        select(TurnRow.source_line).where(
            TurnRow.resource_id == resource_id,
            col(TurnRow.position) >= start,
            col(TurnRow.position) <= end,
            col(TurnRow.source_line).is_not(None),
        )
    ).all()
    lines = [line for line in rows if line is not None]
    return (min(lines), max(lines)) if lines else (None, None)


# -- items --------------------------------------------------------------------------------


def get_item(session: Session, item_id: int) -> MemoryItemRow:
    row = session.get(MemoryItemRow, item_id)
    if row is None:
        raise NotFoundError("memory", item_id)
    return row


def to_record(row: MemoryItemRow, score: float | None = None) -> MemoryRecord:
    return MemoryRecord(
        id=row.id or 0,
        category=row.category,
        type=row.type,
        content=row.content,
        confidence=row.confidence,
        importance=row.importance,
        scope=row.scope,
        status=row.status,
        pinned=row.pinned,
        tags=tuple(row.tags),
        extracted_at=row.extracted_at,
        updated_at=row.updated_at,
        access_count=row.access_count,
        reinforcement_count=row.reinforcement_count,
        project=row.project,
        session_id=row.session_id,
        branch=row.branch,
        context=row.context,
        source_resource_id=row.source_resource_id,
        turn_start=row.turn_start,
        turn_end=row.turn_end,
        line_start=row.line_start,
        line_end=row.line_end,
        extractor=row.extractor,
        last_accessed_at=row.last_accessed_at,
        last_seen_at=row.last_seen_at,
        valid_from=row.valid_from,
        valid_until=row.valid_until,
        superseded_by=row.superseded_by,
        decay_factor=row.decay_factor,
        injected_count=row.injected_count,
        cited_count=row.cited_count,
        ignored_count=row.ignored_count,
        score=score,
        uid=row.uid,
        sharing=row.sharing,
        team_seq=row.team_seq,
        team_dirty=row.team_dirty,
    )


def snapshot(row: MemoryItemRow) -> dict[str, Any]:
    """The tracked fields as JSON-ready values, for audit events."""
    out: dict[str, Any] = {}
    for name in TRACKED_FIELDS:
        value = getattr(row, name)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, list | tuple):
            value = list(value)
        out[name] = value
    return out


def _restore_value(name: str, value: Any) -> Any:
    if name in _TIME_FIELDS and isinstance(value, str):
        return datetime.fromisoformat(value)
    return value


def audit(
    session: Session,
    *,
    actor: str,
    action: str,
    item_id: int | None,
    group_id: str | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    note: str | None = None,
    conflict_id: int | None = None,
) -> None:
    session.add(
        AuditEventRow(
            actor=actor,
            action=action,
            item_id=item_id,
            conflict_id=conflict_id,
            group_id=group_id,
            before=before,
            after=after,
            note=note,
        )
    )


def add_item(
    session: Session, row: MemoryItemRow, *, actor: str, group_id: str | None
) -> MemoryItemRow:
    row.content_key = content_key(row.content)
    session.add(row)
    session.flush()
    audit(
        session,
        actor=actor,
        action="create",
        item_id=row.id,
        group_id=group_id,
        before=None,
        after=snapshot(row),
    )
    return row


def change_item(
    session: Session,
    row: MemoryItemRow,
    changes: dict[str, Any],
    *,
    actor: str,
    action: str,
    group_id: str | None,
    note: str | None = None,
) -> MemoryItemRow:
    """Apply field changes to an item and record them; unchanged values are ignored.

    `updated_at` becomes now, unless the changes set it (undo restores the old one)."""
    real = {k: v for k, v in changes.items() if getattr(row, k) != v}
    if not real or set(real) == {"updated_at"}:
        return row
    before = snapshot(row)
    for name, value in real.items():
        setattr(row, name, list(value) if name == "tags" else value)
    if "content" in real:
        row.content_key = content_key(row.content)
    if "team_dirty" not in changes and marks_team_change(row.sharing, before, real):
        row.team_dirty = True  # the next sync pushes (or withdraws) it
    if "updated_at" not in changes:
        row.updated_at = utc_now()
    session.add(row)
    session.flush()
    audit(
        session,
        actor=actor,
        action=action,
        item_id=row.id,
        group_id=group_id,
        before=before,
        after=snapshot(row),
        note=note,
    )
    return row


def find_duplicate(
    session: Session, dialect: Dialect, category: str, content: str
) -> MemoryItemRow | None:
    """An existing item in the category that says the same thing, if any.

    Exact match on the normalized text first (indexed), then near matches among the
    top full-text candidates: never a scan of the whole category.
    """
    key = content_key(content)
    exact = session.exec(
        select(MemoryItemRow).where(
            MemoryItemRow.category == category, MemoryItemRow.content_key == key
        )
    ).first()
    if exact is not None:
        return exact
    try:
        candidates = dialect.search_item_ids(
            session.connection(),
            content,
            limit=10,
            category=category,
            statuses=("active", "archived", "deleted", "superseded"),
            match_any=True,
        )
    except EmptyQueryError:
        return None
    best: tuple[float, int] | None = None
    for item_id, _ in candidates:
        row = session.get(MemoryItemRow, item_id)
        if row is None:
            continue
        score = similarity(content, row.content)
        if score >= NEAR_DUPLICATE and (best is None or score > best[0]):
            best = (score, item_id)
    return session.get(MemoryItemRow, best[1]) if best else None


def list_items(
    session: Session,
    *,
    category: str | None = None,
    statuses: Sequence[str] = ("active",),
    pinned: bool | None = None,
    branch: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[MemoryItemRow]:
    """Items newest first; `branch`: learnt on that git branch (NO_BRANCH: on none)."""
    query = select(MemoryItemRow)
    if category is not None:
        query = query.where(MemoryItemRow.category == category)
    if branch == NO_BRANCH:
        query = query.where(col(MemoryItemRow.branch).is_(None))
    elif branch is not None:
        query = query.where(MemoryItemRow.branch == branch)
    if statuses:
        query = query.where(col(MemoryItemRow.status).in_(statuses))
    if pinned is not None:
        query = query.where(MemoryItemRow.pinned == pinned)
    query = query.order_by(col(MemoryItemRow.extracted_at).desc(), col(MemoryItemRow.id).desc())
    return list(session.exec(query.offset(offset).limit(limit)).all())


def items_by_ids(session: Session, ids: Iterable[int]) -> dict[int, MemoryItemRow]:
    wanted = list(ids)
    if not wanted:
        return {}
    rows = session.exec(select(MemoryItemRow).where(col(MemoryItemRow.id).in_(wanted))).all()
    return {r.id: r for r in rows if r.id is not None}


def records_by_ids(session: Session, ids: Sequence[int]) -> dict[int, MemoryRecord]:
    """Records for ids through Core, skipping ORM identity bookkeeping: this is the
    search hot path, where it halves the time spent outside SQLite."""
    if not ids:
        return {}
    table = table_of(MemoryItemRow)
    rows = session.connection().execute(table.select().where(table.c.id.in_(list(ids))))
    out = {}
    for row in rows:
        values = row._asdict()
        values.pop("content_key")
        values["tags"] = tuple(values["tags"])
        out[values["id"]] = MemoryRecord(**values)
    return out


def history(session: Session, item_id: int) -> list[AuditRecord]:
    rows = session.exec(
        select(AuditEventRow)
        .where(AuditEventRow.item_id == item_id)
        .order_by(col(AuditEventRow.id))
    ).all()
    return [
        AuditRecord(
            r.id or 0, r.at, r.actor, r.action, r.item_id, r.group_id, r.before, r.after, r.note
        )
        for r in rows
    ]


def undo_group(session: Session, group_id: str, *, actor: str) -> list[int]:
    """Put every item a group of changes touched back as it was before; returns their ids."""
    events = session.exec(
        select(AuditEventRow)
        .where(AuditEventRow.group_id == group_id, AuditEventRow.action != "undo")
        .order_by(col(AuditEventRow.id).desc())
    ).all()
    touched: list[int] = []
    undo_id = f"undo:{group_id}"
    for event in events:
        kind = _event_kind(event)
        if kind == "category":
            _set_category_from(session, event, event.before, actor, "undo", undo_id, group_id)
            continue
        if kind == "conflict":
            _undo_conflict_event(session, event, actor=actor, undo_id=undo_id, note=group_id)
            continue
        if kind == "digest":
            _undo_digest(session, event, actor=actor, undo_id=undo_id, note=group_id)
            continue
        if kind == "link":
            links.undo_link_event(
                session, event, actor=actor, action="undo", group_id=undo_id, note=group_id
            )
            continue
        if event.item_id is None:
            continue
        row = get_item(session, event.item_id)
        if event.before is None:  # the change created the item: undoing it forgets it
            restored: dict[str, Any] = {"status": "deleted"}
        else:
            restored = reverted(event.before, event.after or {}, snapshot(row))
        change_item(
            session, row, restored, actor=actor, action="undo", group_id=undo_id, note=group_id
        )
        touched.append(event.item_id)
    return touched


def _event_kind(event: AuditEventRow) -> str | None:
    """What an audit event changed: "item", "conflict", "category", "digest", "link", or None
    for events undo and redo pass over (a summary's evolution notes)."""
    if event.item_id is not None:
        return "item"
    if event.conflict_id is not None:
        return "conflict"
    if links.is_link_event(event):
        return "link"
    snap = event.before or event.after or {}
    if "category_row" in snap:
        return "category"
    if event.before is not None and "digest" in event.before and "category" in event.before:
        return "digest"
    return None


def redo_group(session: Session, undo_id: str, *, actor: str) -> list[int]:
    """Apply again what the undo `undo_id` took back: each of its events is reversed
    with the same three-way merge undo uses, so nothing changed since is lost. The redo
    is a group of its own ("redo:…"), which undo can take back like any change; returns
    the item ids it touched."""
    events = session.exec(
        select(AuditEventRow)
        .where(AuditEventRow.group_id == undo_id, AuditEventRow.action == "undo")
        .order_by(col(AuditEventRow.id).desc())
    ).all()
    redo_id = "redo:" + undo_id.removeprefix("undo:")
    touched: list[int] = []
    for event in events:
        kind = _event_kind(event)
        if kind == "category":
            _set_category_from(session, event, event.before, actor, "redo", redo_id, undo_id)
        elif kind == "conflict":
            conflict = session.get(ConflictRow, event.conflict_id)
            if conflict is not None and event.before is not None:
                change_conflict(
                    session,
                    conflict,
                    _conflict_values(event.before),
                    actor=actor,
                    action="redo",
                    group_id=redo_id,
                    note=undo_id,
                )
        elif kind == "digest" and event.before is not None:
            category = event.before.get("category")
            if isinstance(category, str) and session.get(CategorySummaryRow, category) is not None:
                change_digest(
                    session,
                    category,
                    str(event.before.get("digest", "")),
                    actor=actor,
                    action="redo",
                    group_id=redo_id,
                    note=undo_id,
                )
        elif kind == "link":
            links.undo_link_event(
                session, event, actor=actor, action="redo", group_id=redo_id, note=undo_id
            )
        elif kind == "item" and event.item_id is not None and event.before is not None:
            row = get_item(session, event.item_id)
            restored = reverted(event.before, event.after or {}, snapshot(row))
            change_item(
                session, row, restored, actor=actor, action="redo", group_id=redo_id, note=undo_id
            )
            touched.append(event.item_id)
    return touched


def last_redoable_group(session: Session, actor: str = "user") -> str | None:
    """The newest undo by `actor` that can be redone: not redone yet, and made after
    the actor's last new change (a new change empties the redo stack, as in any
    editor). Undo and redo themselves are not new changes."""
    barrier = session.exec(
        select(func.max(AuditEventRow.id)).where(
            AuditEventRow.actor == actor,
            col(AuditEventRow.action).not_in(("undo", "redo")),
            col(AuditEventRow.group_id).is_not(None),
        )
    ).one()
    redone = select(AuditEventRow.note).where(
        AuditEventRow.action == "redo", col(AuditEventRow.note).is_not(None)
    )
    return session.exec(
        select(AuditEventRow.group_id)
        .where(
            AuditEventRow.actor == actor,
            AuditEventRow.action == "undo",
            col(AuditEventRow.id) > (barrier or 0),
            col(AuditEventRow.group_id).is_not(None),
            col(AuditEventRow.group_id).not_in(redone),
        )
        .order_by(col(AuditEventRow.id).desc())
    ).first()


def group_categories(session: Session, group_id: str) -> set[str]:
    """Every category a group's item changes moved items out of or into, so undoing it
    can refresh the summaries of both sides of a move."""
    events = session.exec(
        select(AuditEventRow).where(
            AuditEventRow.group_id == group_id, col(AuditEventRow.item_id).is_not(None)
        )
    ).all()
    return {
        snap["category"]
        for e in events
        for snap in (e.before, e.after)
        if snap and isinstance(snap.get("category"), str)
    }


def reverted(
    before: dict[str, Any], after: dict[str, Any], current: dict[str, Any]
) -> dict[str, Any]:
    """The values that undo one change without losing later ones (a three-way merge).

    A field still as the change left it goes back to its old value; a field changed
    since keeps today's value, since that later change (an edit after a merge, say) was
    made by someone on purpose. Two fields combine instead: a counter drops only what
    the change added, and tags lose only the ones it added. With nothing changed since,
    the item comes back exactly, `updated_at` included; otherwise `updated_at` is now.
    """
    out: dict[str, Any] = {}
    later = False
    for name, old in before.items():
        if name == "updated_at" or name not in current:
            continue
        new, now = after.get(name), current[name]
        if _same(name, now, new):
            out[name] = _restore_value(name, old)
            continue
        later = True
        if name == "reinforcement_count" and (
            isinstance(old, int) and isinstance(new, int) and isinstance(now, int)
        ):
            out[name] = max(0, now - (new - old))
        elif name == "tags" and (
            isinstance(old, list) and isinstance(new, list) and isinstance(now, list)
        ):
            out[name] = sorted((set(now) - (set(new) - set(old))) | (set(old) - set(new)))
        else:
            out[name] = _restore_value(name, now)
    if not later and "updated_at" in before:
        out["updated_at"] = _restore_value("updated_at", before["updated_at"])
    return out


def _same(name: str, a: Any, b: Any) -> bool:
    """Equal as values: the same moment written in another zone is the same time."""
    return bool(_restore_value(name, a) == _restore_value(name, b))


# A conflict's fields that a resolution changes; its audit events snapshot these.
CONFLICT_FIELDS = ("status", "decision", "notes", "resolved_at")


def conflict_snapshot(row: ConflictRow) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in CONFLICT_FIELDS:
        value = getattr(row, name)
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def change_conflict(
    session: Session,
    row: ConflictRow,
    changes: dict[str, Any],
    *,
    actor: str,
    action: str,
    group_id: str | None,
    note: str | None = None,
) -> ConflictRow:
    """Change a conflict's resolution fields with an audit event (item_id None,
    conflict_id set), so undoing the group reopens the conflict exactly."""
    before = conflict_snapshot(row)
    for name, value in changes.items():
        setattr(row, name, value)
    session.add(row)
    session.flush()
    audit(
        session,
        actor=actor,
        action=action,
        item_id=None,
        conflict_id=row.id,
        group_id=group_id,
        before=before,
        after=conflict_snapshot(row),
        note=note,
    )
    return row


def _undo_conflict_event(
    session: Session, event: AuditEventRow, *, actor: str, undo_id: str, note: str
) -> None:
    row = session.get(ConflictRow, event.conflict_id)
    if row is None or event.before is None:
        return
    restored = _conflict_values(event.before)
    change_conflict(session, row, restored, actor=actor, action="undo", group_id=undo_id, note=note)


def _conflict_values(snap: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (datetime.fromisoformat(v) if k == "resolved_at" and isinstance(v, str) else v)
        for k, v in snap.items()
    }


def change_digest(
    session: Session,
    category: str,
    digest: str,
    *,
    actor: str,
    action: str,
    group_id: str | None,
    note: str | None = None,
) -> None:
    """Replace a category's compressed digest, with an audit event undo can reverse."""
    row = session.get(CategorySummaryRow, category)
    if row is None:
        raise NotFoundError("category summary", category)
    before = {"category": category, "digest": row.digest}
    row.digest = digest
    session.add(row)
    audit(
        session,
        actor=actor,
        action=action,
        item_id=None,
        group_id=group_id,
        before=before,
        after={"category": category, "digest": digest},
        note=note,
    )


def _undo_digest(
    session: Session, event: AuditEventRow, *, actor: str, undo_id: str, note: str
) -> None:
    assert event.before is not None
    category = event.before.get("category")
    if isinstance(category, str) and session.get(CategorySummaryRow, category) is not None:
        change_digest(
            session,
            category,
            str(event.before.get("digest", "")),
            actor=actor,
            action="undo",
            group_id=undo_id,
            note=note,
        )


def last_undoable_group(session: Session, actor: str = "user") -> str | None:
    """The newest group of changes by `actor` that has not been undone yet."""
    undone = select(AuditEventRow.note).where(AuditEventRow.action == "undo")
    row = session.exec(
        select(AuditEventRow.group_id)
        .where(
            AuditEventRow.actor == actor,
            AuditEventRow.action != "undo",
            col(AuditEventRow.group_id).is_not(None),
            col(AuditEventRow.group_id).not_in(undone.where(col(AuditEventRow.note).is_not(None))),
        )
        .order_by(col(AuditEventRow.id).desc())
    ).first()
    return row


# -- summaries and stats --------------------------------------------------------------------


def save_summary(
    session: Session, category: str, markdown: str, item_count: int, generator: str
) -> None:
    row = session.get(CategorySummaryRow, category)
    if row is None:
        row = CategorySummaryRow(category=category, markdown=markdown)
    row.markdown = markdown
    row.item_count = item_count
    row.generator = generator
    row.updated_at = utc_now()
    session.add(row)


def summary(session: Session, category: str) -> CategorySummaryRow | None:
    return session.get(CategorySummaryRow, category)


def stats(session: Session) -> Stats:
    by_status = dict(
        session.exec(
            select(MemoryItemRow.status, func.count()).group_by(col(MemoryItemRow.status))
        ).all()
    )
    by_category = dict(
        session.exec(
            select(MemoryItemRow.category, func.count())
            .where(col(MemoryItemRow.status).in_(COUNTED_STATUSES))
            .group_by(col(MemoryItemRow.category))
        ).all()
    )
    resources = session.exec(select(func.count()).select_from(ResourceRow)).one()
    cats = session.exec(select(func.count()).select_from(CategoryRow)).one()
    conflicts = session.exec(
        select(func.count())
        .select_from(ConflictRow)
        .where(col(ConflictRow.status).in_(OPEN_CONFLICT_STATUSES))
    ).one()
    last = session.exec(select(func.max(ResourceRow.imported_at))).one()
    pinned = session.exec(
        select(func.count())
        .select_from(MemoryItemRow)
        .where(
            MemoryItemRow.pinned == True,  # noqa: E712
            col(MemoryItemRow.status).in_(COUNTED_STATUSES),
        )
    ).one()
    return Stats(
        items=sum(n for s, n in by_status.items() if s in COUNTED_STATUSES),
        items_by_status=by_status,
        items_by_category=by_category,
        resources=resources,
        categories=cats,
        conflicts_open=conflicts,
        last_memorized=as_time(last),
        pinned=pinned,
    )


def as_time(value: Any) -> datetime | None:
    # Aggregates bypass the column type: SQLite's stored text comes back raw, and
    # PostgreSQL's timestamp in the session's zone.
    if value is None:
        return None
    return from_db_time(value)


# -- bulk loading ---------------------------------------------------------------------------


def bulk_add_items(
    session: Session, dialect: Dialect, rows: Sequence[MemoryItemRow], *, actor: str, group_id: str
) -> list[int]:
    """Insert many items at once (big imports, demo stores, benchmarks).

    Goes through Core with the search index rebuilt once at the end, which is five times
    faster than row-by-row inserts with triggers; each item still gets its audit event.
    """
    if not rows:
        return []
    conn = session.connection()
    start = (session.exec(select(func.max(MemoryItemRow.id))).one() or 0) + 1
    ids = list(range(start, start + len(rows)))
    values = []
    events = []
    now = utc_now()
    for item_id, row in zip(ids, rows, strict=True):
        row.id = item_id
        row.content_key = content_key(row.content)
        values.append(row.model_dump())
        events.append(
            {
                "at": now,
                "actor": actor,
                "action": "create",
                "item_id": item_id,
                "group_id": group_id,
                "before": None,
                "after": snapshot(row),
                "note": None,
            }
        )
    with dialect.bulk_loading(conn):
        conn.execute(table_of(MemoryItemRow).insert(), values)
    conn.execute(table_of(AuditEventRow).insert(), events)
    return ids
