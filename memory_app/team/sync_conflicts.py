"""Conflicting edits of one team memory, opened, shared and closed by sync (issue 20).

When this machine edited a team memory that someone else changed on the team store
since, neither edit wins: the team's version comes in as the memory (its uid), this
machine's edit becomes a team memory of its own (a new uid, pushed like any other), and
a conflict with both opens in the local inbox, detector `team_sync`. The side-by-side
Conflicts view shows and resolves it like any contradiction (conflicts/resolution.py).

A conflict is named on the team store by its members' uids (`conflict_uid`), so every
machine finds the same one without a new local column. Its resolution travels twice:
the members' new statuses as ordinary memory changes, and the conflict's status and
decision in `team_conflict`, which closes it on the other machines.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, text
from sqlmodel import Session, col, select

from memory_app.domain.sharing import TEAM
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store.tables import ConflictRow, MemoryItemRow
from memory_app.team.sync_rows import TeamConflict

DETECTOR = "team_sync"
ACTION = "team_sync"
_NAMESPACE = uuid.UUID("6f1c1f0e-8a54-4f0e-9b7e-2a8f3c7d9e11")


def conflict_uid(member_uids: Iterable[str]) -> str:
    """The same name for the same members on every machine."""
    return str(uuid.uuid5(_NAMESPACE, "|".join(sorted(member_uids))))


def local_sync_conflicts(session: Session) -> dict[str, tuple[ConflictRow, list[MemoryItemRow]]]:
    """This store's sync conflicts by their team name, with their members."""
    rows = session.exec(select(ConflictRow).where(ConflictRow.detector == DETECTOR)).all()
    out: dict[str, tuple[ConflictRow, list[MemoryItemRow]]] = {}
    for row in rows:
        ids = conflict_store.member_ids(session, row.id or 0)
        members = list(repo.items_by_ids(session, ids).values())
        out[conflict_uid(m.uid for m in members)] = (row, members)
    return out


def open_conflict(
    session: Session, team_copy: MemoryItemRow, mine: MemoryItemRow, group: str
) -> ConflictRow:
    """A conflict between the team's version and this machine's edit, in the inbox."""
    return conflict_store.create_conflict(
        session,
        mine.category,
        [r.id or 0 for r in sorted((team_copy, mine), key=lambda r: r.id or 0)],
        reason="edited here and on the team since the last sync: choose which stays",
        detector=DETECTOR,
    )


def apply_pulled(session: Session, change: TeamConflict, group: str) -> bool:
    """Bring a team conflict into this store, or its resolution; True when it changed
    something here. A conflict whose members this store lacks is skipped."""
    mine = local_sync_conflicts(session).get(change.uid)
    if mine is None:
        rows = session.exec(
            select(MemoryItemRow).where(col(MemoryItemRow.uid).in_(change.member_uids))
        ).all()
        if len(rows) != len(change.member_uids):
            return False
        row = conflict_store.create_conflict(
            session,
            change.category,
            [r.id or 0 for r in sorted(rows, key=lambda r: r.id or 0)],
            reason=change.reason or "",
            detector=DETECTOR,
        )
        if change.status not in repo.OPEN_CONFLICT_STATUSES:
            _close(session, row, list(rows), change, group)
        return True
    row, members = mine
    if row.status in repo.OPEN_CONFLICT_STATUSES and change.status not in (
        repo.OPEN_CONFLICT_STATUSES
    ):
        _close(session, row, members, change, group)
        return True
    return False


def _close(
    session: Session,
    row: ConflictRow,
    members: Sequence[MemoryItemRow],
    change: TeamConflict,
    group: str,
) -> None:
    """The decision made on another machine; the members' statuses arrive as memory
    changes, so only the link from a superseded member to the one that stayed is made
    here (it names local ids, which never travel)."""
    repo.change_conflict(
        session,
        row,
        {
            "status": change.status,
            "decision": change.decision,
            "notes": change.notes,
            "resolved_at": change.resolved_at,
        },
        actor="team",
        action=ACTION,
        group_id=group,
        note="resolved on another machine",
    )
    winners = [m for m in members if m.status == "active"]
    if len(winners) == 1:
        for loser in members:
            if loser.status == "superseded" and loser.superseded_by is None:
                repo.change_item(
                    session, loser, {"superseded_by": winners[0].id, "team_dirty": False},
                    actor="team", action=ACTION, group_id=group,
                )  # fmt: skip


def publish_merged(session: Session, group: str) -> int:
    """A sync conflict resolved by a merge made a new, personal memory: it replaces two
    team memories, so it is a team memory too. Returns how many were published."""
    published = 0
    for row, members in local_sync_conflicts(session).values():
        if row.decision != "merge":
            continue
        merged_ids = {m.superseded_by for m in members} - {None}
        for merged in repo.items_by_ids(session, [i for i in merged_ids if i]).values():
            if merged.sharing != TEAM:
                repo.change_item(
                    session, merged, {"sharing": TEAM}, actor="team", action=ACTION,
                    group_id=group, note="merged from a team conflict",
                )  # fmt: skip
                published += 1
    return published


def push(conn: Connection, session: Session) -> int:
    """Send this store's sync conflicts the team store lacks, and resolutions made here
    of ones still open there; returns how many were sent. Only conflicts whose members
    all reached the team store go (the others wait for the next sync)."""
    local = local_sync_conflicts(session)
    if not local:
        return 0
    found = conn.execute(
        text("SELECT uid, status FROM team_conflict WHERE uid = ANY(:uids)"),
        {"uids": list(local)},
    ).all()
    team_status = {uid: status for uid, status in found}
    sent = 0
    for uid, (row, members) in local.items():
        if any(m.team_seq is None or m.sharing != TEAM for m in members):
            continue
        values: dict[str, Any] = {
            "uid": uid,
            "status": row.status,
            "decision": row.decision,
            "notes": row.notes,
            "resolved_at": row.resolved_at,
        }
        if uid not in team_status:
            conn.execute(
                text(
                    "INSERT INTO team_conflict (uid, member_uids, category, reason, status, "
                    "decision, notes, resolved_at) VALUES (:uid, CAST(:members AS jsonb), "
                    ":category, :reason, :status, :decision, :notes, :resolved_at) "
                    "ON CONFLICT DO NOTHING"
                ),
                {
                    **values,
                    "members": _json([m.uid for m in members]),
                    "category": row.category,
                    "reason": row.reason,
                },
            )
            sent += 1
        elif team_status[uid] in repo.OPEN_CONFLICT_STATUSES and row.status not in (
            repo.OPEN_CONFLICT_STATUSES
        ):
            conn.execute(
                text(
                    "UPDATE team_conflict SET status = :status, decision = :decision, "
                    "notes = :notes, resolved_at = :resolved_at "
                    "WHERE uid = :uid AND status IN ('unresolved', 'pending_user_review')"
                ),
                values,
            )
            sent += 1
    return sent


def _json(values: list[str]) -> str:
    import json

    return json.dumps(sorted(values))
