"""The memory_link table: reading a memory's links and changing one with an audit event
that undo and redo reverse (store/repository.py `undo_group`).

A link's audit event has no item_id (it would read as an item change); its before and
after are {"link": state or None, "key": {source_id, target_id, kind}}.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, or_, select, update
from sqlmodel import Session

from memory_app.links.model import INVERSE, LinkInfo
from memory_app.store.tables import (
    AuditEventRow,
    EpisodeRow,
    MemoryItemRow,
    MemoryLinkRow,
    table_of,
)

LINK = table_of(MemoryLinkRow)
ITEM = table_of(MemoryItemRow)
EPISODE = table_of(EpisodeRow)
STATE_FIELDS = ("origin", "strength", "created_at")
# The memories a link may show: any not deleted (a superseded one is worth seeing).
SHOWN_STATUSES = ("active", "archived", "superseded", "held")


def link_state(conn: Connection, key: tuple[int, int, str]) -> dict[str, Any] | None:
    source, target, kind = key
    row = conn.execute(
        select(LINK.c.origin, LINK.c.strength, LINK.c.created_at).where(
            LINK.c.source_id == source, LINK.c.target_id == target, LINK.c.kind == kind
        )
    ).first()
    if row is None:
        return None
    return {"origin": row.origin, "strength": row.strength, "created_at": row.created_at}


def _snapshot(key: tuple[int, int, str], state: dict[str, Any] | None) -> dict[str, Any]:
    source, target, kind = key
    link = None
    if state is not None:
        created = state.get("created_at")
        link = {
            **state,
            "created_at": created.isoformat() if isinstance(created, datetime) else created,
        }
    return {"link": link, "key": {"source_id": source, "target_id": target, "kind": kind}}


def set_link(
    session: Session,
    key: tuple[int, int, str],
    state: dict[str, Any] | None,
    *,
    actor: str,
    action: str,
    group_id: str | None,
    note: str | None = None,
) -> None:
    """Bring one link to `state` (None: no link) with an audit event."""
    conn = session.connection()
    before = link_state(conn, key)
    source, target, kind = key
    where = (LINK.c.source_id == source, LINK.c.target_id == target, LINK.c.kind == kind)
    if state is None:
        conn.execute(delete(LINK).where(*where))
    else:
        values = {name: state[name] for name in STATE_FIELDS if name in state}
        created = values.get("created_at")
        if isinstance(created, str):
            values["created_at"] = datetime.fromisoformat(created)
        if before is None:
            conn.execute(
                insert(LINK).values(source_id=source, target_id=target, kind=kind, **values)
            )
        else:
            conn.execute(update(LINK).where(*where).values(**values))
    session.add(
        AuditEventRow(
            actor=actor,
            action=action,
            item_id=None,
            group_id=group_id,
            before=_snapshot(key, before),
            after=_snapshot(key, link_state(conn, key)),
            note=note,
        )
    )


def undo_link_event(
    session: Session, event: AuditEventRow, *, actor: str, action: str, group_id: str, note: str
) -> None:
    """Put a link back as an event found it (its `before`): undo of a change, or redo
    of an undo."""
    snap = event.before or {}
    key_values = snap.get("key") or {}
    key = (int(key_values["source_id"]), int(key_values["target_id"]), str(key_values["kind"]))
    set_link(
        session, key, snap.get("link"), actor=actor, action=action, group_id=group_id, note=note
    )


def is_link_event(event: AuditEventRow) -> bool:
    snap = event.before or event.after or {}
    return "link" in snap and "key" in snap


def links_of(conn: Connection, item_id: int) -> list[LinkInfo]:
    """A memory's links from its side, strongest first within each kind: its own
    (source) and those pointing at it (a part-of target is an episode, never it).
    Rejected links and links to deleted or missing memories are left out."""
    out: list[LinkInfo] = []
    rows = conn.execute(
        select(LINK).where(
            LINK.c.origin != "rejected",
            or_(
                LINK.c.source_id == item_id,
                (LINK.c.target_id == item_id) & (LINK.c.kind != "part-of"),
            ),
        )
    ).all()
    memory_ids = {
        r.target_id if r.source_id == item_id else r.source_id for r in rows if r.kind != "part-of"
    }
    texts = dict(
        conn.execute(
            select(ITEM.c.id, ITEM.c.content).where(
                ITEM.c.id.in_(memory_ids), ITEM.c.status.in_(SHOWN_STATUSES)
            )
        ).all()
    )
    episode_ids = {r.target_id for r in rows if r.kind == "part-of"}
    titles = dict(
        conn.execute(
            select(EPISODE.c.id, EPISODE.c.title).where(EPISODE.c.id.in_(episode_ids))
        ).all()
    )
    for r in rows:
        outgoing = r.source_id == item_id
        other = r.target_id if outgoing else r.source_id
        episode = r.kind == "part-of"
        text = titles.get(other) if episode else texts.get(other)
        if text is None or (other == item_id and not episode):
            continue
        label = r.kind if outgoing else INVERSE.get(r.kind, r.kind)
        out.append(LinkInfo(r.kind, label, other, episode, text, r.origin, r.strength, outgoing))
    order = {"depends-on": 0, "needed by": 1, "supersedes": 2, "superseded by": 3}
    out.sort(key=lambda link: (order.get(link.label, 4), link.kind, -link.strength, link.other_id))
    return out
