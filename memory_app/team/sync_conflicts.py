"""Conflicting edits of one team memory, opened, shared and closed by sync (issue 20).

When this machine edited a team memory that someone else changed on the team store
since, neither edit wins: the team's version comes in as the memory (its uid), this
machine's edit becomes a team memory of its own (a new uid, pushed like any other), and
a conflict with both opens in the local inbox, detector `team_sync`. The side-by-side
Conflicts view shows and resolves it like any contradiction (conflicts/resolution.py).

A conflict is named on the team store by its members' uids (`conflict_uid`), so every
machine finds the same one without a new local column. The first resolution to reach
the team store is the team's: a resolution made here goes in one team transaction with
its members' new versions, and only if the conditional UPDATE of `team_conflict` finds
it still open (`push_resolutions`). Otherwise none of its statuses leave: the team's
decision is taken here, conflict and members, and the person is told which decision
stands (`adopt`). A pulled resolution carries its members' versions, so a machine that
decided otherwise offline gets the team's statuses even for a member the winner never
changed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text
from sqlmodel import Session, col, select

from memory_app.domain.sharing import PERSONAL, TEAM, pending_action
from memory_app.operations.common import new_group
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store.database import Database
from memory_app.store.tables import ConflictRow, MemoryItemRow
from memory_app.team.sync_push import Outcome, PushReport, record, send
from memory_app.team.sync_rows import TeamConflict, TeamMemory, team_conflict

# Takes the team's version of a memory here: (session, row, version, group, note).
Take = Callable[[Session, MemoryItemRow, TeamMemory, str, str | None], None]

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


def apply_pulled(
    session: Session, change: TeamConflict, group: str, take: Take, notes: list[str]
) -> bool:
    """Bring a team conflict into this store, or its resolution; True when it changed
    something here. A conflict whose members this store lacks is skipped. A resolution
    made here that never reached the team store gives way to the team's (`adopt`)."""
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
            _close(session, row, list(rows), change, group, take)
        return True
    row, members = mine
    if change.status in repo.OPEN_CONFLICT_STATUSES:
        return False
    if row.status in repo.OPEN_CONFLICT_STATUSES:
        _close(session, row, members, change, group, take)
        return True
    if decided_here_unsent(members, change.change_seq):
        notes.append(adopt(session, row, members, change, group, take))
        return True
    return False


def decided_here_unsent(members: Sequence[MemoryItemRow], team_seq: int) -> bool:
    """Whether this store's resolution of a conflict the team resolved at `team_seq`
    never reached the team: a member still waits to be sent, and none holds a version
    from after the team's decision (sending a resolution gives its members one)."""
    return any(m.team_dirty for m in members) and all((m.team_seq or 0) < team_seq for m in members)


def _close(
    session: Session,
    row: ConflictRow,
    members: Sequence[MemoryItemRow],
    change: TeamConflict,
    group: str,
    take: Take,
) -> None:
    """The decision made on another machine, with the statuses it gave (a member
    edited here since keeps its edit: the pull of that member deals with it)."""
    repo.change_conflict(
        session,
        row,
        _resolution(change),
        actor="team",
        action=ACTION,
        group_id=group,
        note="resolved on another machine",
    )
    versions = {v.uid: v for v in change.members}
    for member in members:
        version = versions.get(member.uid)
        stale_here = version is not None and (member.team_seq or 0) < version.change_seq
        if version is not None and stale_here and not member.team_dirty:
            take(session, member, version, group, None)
    _link(session, members, group)


def adopt(
    session: Session,
    row: ConflictRow,
    members: Sequence[MemoryItemRow],
    change: TeamConflict,
    group: str,
    take: Take,
) -> str:
    """The team resolved this conflict before the resolution made here reached it: its
    decision stands. The conflict and its members take the team's; a memory merged
    here stays here, personal and superseded. Returns what to tell the person."""
    merged_ids = {m.superseded_by for m in members} - {None} - {m.id for m in members}
    was = row.decision
    repo.change_conflict(
        session,
        row,
        _resolution(change),
        actor="team",
        action=ACTION,
        group_id=group,
        note="resolved on another machine first: its decision stands",
    )
    versions = {v.uid: v for v in change.members}
    for member in members:
        version = versions.get(member.uid)
        if version is not None:
            take(session, member, version, group, "the team's resolution of a conflict")
        elif member.team_dirty:  # gone from the team store: nothing of it to send
            repo.change_item(
                session, member, {"team_dirty": False}, actor="team", action=ACTION,
                group_id=group,
            )  # fmt: skip
    winner = _link(session, members, group)
    for merged in repo.items_by_ids(session, [i for i in merged_ids if i]).values():
        if merged.team_seq is None:
            repo.change_item(
                session, merged,
                {"sharing": PERSONAL, "team_dirty": False, "status": "superseded",
                 "superseded_by": winner.id if winner is not None else None},
                actor="team", action=ACTION, group_id=group,
                note="the team resolved the conflict it was merged for otherwise",
            )  # fmt: skip
    kept = winner.content if winner is not None else None
    stands = f"{change.decision}" + (f", keeping “{_short(kept)}”" if kept else "")
    return (
        f"conflict #{row.id}: resolved on another machine first ({stands}); that decision "
        f"stands here too, the one made here ({was}) was not sent"
    )


def _resolution(change: TeamConflict) -> dict[str, Any]:
    return {
        "status": change.status,
        "decision": change.decision,
        "notes": change.notes,
        "resolved_at": change.resolved_at,
    }


def _link(session: Session, members: Sequence[MemoryItemRow], group: str) -> MemoryItemRow | None:
    """Superseded members point at the one that stayed (local ids, which never travel);
    returns that one, if exactly one stayed."""
    winners = [m for m in members if m.status == "active"]
    if len(winners) != 1:
        return None
    for loser in members:
        if loser.status == "superseded" and loser.superseded_by != winners[0].id:
            repo.change_item(
                session, loser, {"superseded_by": winners[0].id},
                actor="team", action=ACTION, group_id=group,
            )  # fmt: skip
    return winners[0]


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


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


class _Rollback(Exception):
    """A member of a resolution could not be sent: nothing of it goes this time."""


def push_resolutions(
    db: Database,
    connect: Callable[[], Any],
    data_dir: Path | None,
    take: Take,
    report: PushReport,
    notes: list[str],
) -> tuple[int, set[int]]:
    """Send the resolutions made here of conflicts still open on the team store, each
    in one team transaction: the conditional UPDATE of the conflict first, and only when
    it wins, its members' new versions. A conflict the team resolved meanwhile sends
    nothing and takes the team's decision (`adopt`). Returns (resolutions sent, ids of
    members that must not go as ordinary edits this time)."""
    with db.reading() as session:
        waiting = {
            uid: row.id
            for uid, (row, members) in local_sync_conflicts(session).items()
            if row.status not in repo.OPEN_CONFLICT_STATUSES
            and all(m.team_seq is not None for m in members)
        }
    if not waiting:
        return 0, set()
    with connect() as conn:
        found = conn.execute(
            text("SELECT uid, status, change_seq FROM team_conflict WHERE uid = ANY(:uids)"),
            {"uids": list(waiting)},
        ).all()
    sent, held = 0, set[int]()
    for uid, status, seq in found:
        with db.reading() as session:
            here = local_sync_conflicts(session).get(uid)
        if here is None:
            continue  # undone meanwhile
        row, members = here
        if status not in repo.OPEN_CONFLICT_STATUSES:
            if not decided_here_unsent(members, int(seq)):
                continue  # sent already (or the same decision arrived): nothing to do
            team = _read(connect, uid)
        else:
            try:
                team, outcomes = _send_resolution(connect, uid, row, members, data_dir, report)
            except _Rollback:
                held.update(m.id or 0 for m in members)
                continue
            if team is None:
                with db.writing() as session:
                    for outcome in outcomes:
                        record(session, outcome)
                sent += 1
                continue
        if team is not None:
            with db.writing() as session:
                here = local_sync_conflicts(session).get(uid)
                if here is None:
                    continue
                row, members = here
                notes.append(adopt(session, row, members, team, new_group("team_sync"), take))
    return sent, held


def _read(connect: Callable[[], Any], uid: str) -> TeamConflict | None:
    with connect() as conn:
        return team_conflict(conn, uid)


def _send_resolution(
    connect: Callable[[], Any],
    uid: str,
    row: ConflictRow,
    members: Sequence[MemoryItemRow],
    data_dir: Path | None,
    report: PushReport,
) -> tuple[TeamConflict | None, list[Outcome]]:
    """(None, the members' outcomes) when this resolution became the team's; (the
    team's conflict, []) when the team had resolved it already."""
    with connect() as conn:
        won = conn.execute(
            text(
                "UPDATE team_conflict SET status = :status, decision = :decision, "
                "notes = :notes, resolved_at = :resolved_at "
                "WHERE uid = :uid AND status IN ('unresolved', 'pending_user_review') "
                "RETURNING uid"
            ),
            {
                "uid": uid,
                "status": row.status,
                "decision": row.decision,
                "notes": row.notes,
                "resolved_at": row.resolved_at,
            },
        ).first()
        if won is None:
            return team_conflict(conn, uid), []
        outcomes = [
            send(conn, m, data_dir, report)
            for m in members
            if pending_action(m.sharing, m.team_seq, m.team_dirty) is not None
        ]
        if not all(o.done for o in outcomes):
            raise _Rollback  # the conflict stays open there; the pull brings why
    return None, outcomes


def push(conn: Connection, session: Session) -> int:
    """Send this store's sync conflicts the team store lacks (with their resolution,
    when made here already: no other machine can know a conflict before it is sent);
    returns how many were sent. Only conflicts whose members all reached the team
    store go (the others wait for the next sync)."""
    local = local_sync_conflicts(session)
    if not local:
        return 0
    found = conn.execute(
        text("SELECT uid FROM team_conflict WHERE uid = ANY(:uids)"),
        {"uids": list(local)},
    ).all()
    there = {uid for (uid,) in found}
    sent = 0
    for uid, (row, members) in local.items():
        if uid in there or any(m.team_seq is None or m.sharing != TEAM for m in members):
            continue
        conn.execute(
            text(
                "INSERT INTO team_conflict (uid, member_uids, category, reason, status, "
                "decision, notes, resolved_at) VALUES (:uid, CAST(:members AS jsonb), "
                ":category, :reason, :status, :decision, :notes, :resolved_at) "
                "ON CONFLICT DO NOTHING"
            ),
            {
                "uid": uid,
                "status": row.status,
                "decision": row.decision,
                "notes": row.notes,
                "resolved_at": row.resolved_at,
                "members": _json([m.uid for m in members]),
                "category": row.category,
                "reason": row.reason,
            },
        )
        sent += 1
    return sent


def _json(values: list[str]) -> str:
    import json

    return json.dumps(sorted(values))
