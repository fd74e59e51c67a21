"""A memory as the team store holds it, read by change number, and what of a local
memory may be written there (issue 20, sync).

What leaves the machine is decided by the publish preview's own code
(domain/publishing.py `outgoing`): redaction re-checked on every push, not only at
publishing, the possible-secret check on what would be sent, the project under its git
remote's name, nothing of a project kept out of memory. A memory the check blocks is
not sent and stays waiting, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text

from memory_app.domain.publishing import outgoing
from memory_app.domain.sharing import SHARED_COLUMNS
from memory_app.operations.team import _local, shared_project
from memory_app.privacy_gate import why_excluded
from memory_app.store.tables import MemoryItemRow

# Statuses a team memory can have on the team store: a held memory (a possible secret)
# never goes there.
NEVER_SENT_STATUSES = ("held",)


@dataclass(frozen=True)
class TeamMemory:
    """One memory of the team store at one change number; `fields` None: a tombstone
    (it left the team store)."""

    uid: str
    change_seq: int
    fields: dict[str, Any] | None
    extracted_at: datetime | None = None
    category_name: str | None = None


@dataclass(frozen=True)
class TeamConflict:
    """A conflict as the team store holds it (its members by uid). A resolved one
    carries its members' versions read in the same snapshot (`members`): the decision
    and the statuses it gave, which a machine that decided otherwise takes."""

    uid: str
    change_seq: int
    member_uids: tuple[str, ...]
    category: str
    reason: str | None
    status: str
    decision: str | None
    notes: str | None
    resolved_at: datetime | None
    members: tuple[TeamMemory, ...] = ()


Change = TeamMemory | TeamConflict

_MEMORY_COLUMNS = ", ".join(f"m.{c}" for c in SHARED_COLUMNS)
_MEMORY_SELECT = (
    f"SELECT m.uid, m.change_seq, {_MEMORY_COLUMNS}, m.extracted_at, c.name "
    "FROM memory_item AS m LEFT JOIN category AS c ON c.key = m.category "
)
_CONFLICT_SELECT = (
    "SELECT uid, change_seq, member_uids, category, reason, status, decision, notes, "
    "resolved_at FROM team_conflict "
)
OPEN_STATUSES = ("unresolved", "pending_user_review")  # repository.OPEN_CONFLICT_STATUSES


def read_changes(conn: Connection, cursor: int, batch: int) -> list[Change]:
    """The first `batch` changes after `cursor`, in change order, from memories,
    tombstones and conflicts together. Each table gives its first `batch`; the merged
    first `batch` then holds every change up to the last one kept.

    The reads share one snapshot (REPEATABLE READ, the transaction's first query):
    under READ COMMITTED a commit landing between them is half seen, and the cursor
    could move past the half not seen ("edit m1 at 3, delete m2 at 4": only the
    tombstone read, the edit skipped for good)."""
    conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    limit = {"cursor": cursor, "batch": batch}
    changes: list[Change] = []
    rows = conn.execute(
        text(_MEMORY_SELECT + "WHERE m.change_seq > :cursor ORDER BY m.change_seq LIMIT :batch"),
        limit,
    ).all()
    changes += [_memory(row) for row in rows]
    gone = conn.execute(
        text(
            "SELECT uid, change_seq FROM team_tombstone WHERE change_seq > :cursor "
            "ORDER BY change_seq LIMIT :batch"
        ),
        limit,
    ).all()
    changes += [TeamMemory(uid, int(seq), None) for uid, seq in gone]
    conflicts = conn.execute(
        text(_CONFLICT_SELECT + "WHERE change_seq > :cursor ORDER BY change_seq LIMIT :batch"),
        limit,
    ).all()
    resolved = [u for r in conflicts if r[5] not in OPEN_STATUSES for u in r[2]]
    versions = team_versions(conn, resolved)
    changes += [_conflict(r, versions) for r in conflicts]
    changes.sort(key=lambda c: c.change_seq)
    return changes[:batch]


def team_conflict(conn: Connection, uid: str) -> TeamConflict | None:
    """The team store's conflict `uid` now, with its members' versions."""
    row = conn.execute(text(_CONFLICT_SELECT + "WHERE uid = :u"), {"u": uid}).first()
    if row is None:
        return None
    return _conflict(row, team_versions(conn, list(row[2])))


def team_version(conn: Connection, uid: str) -> TeamMemory | None:
    """The team store's current version of one memory (None: it has none)."""
    return team_versions(conn, [uid]).get(uid)


def team_versions(conn: Connection, uids: list[str]) -> dict[str, TeamMemory]:
    """The team store's current versions of these memories, by uid."""
    if not uids:
        return {}
    rows = conn.execute(text(_MEMORY_SELECT + "WHERE m.uid = ANY(:u)"), {"u": uids}).all()
    return {row[0]: _memory(row) for row in rows}


def _memory(row: Any) -> TeamMemory:
    values = dict(zip(SHARED_COLUMNS, row[2 : 2 + len(SHARED_COLUMNS)], strict=True))
    values["tags"] = list(values["tags"] or [])
    return TeamMemory(row[0], int(row[1]), values, row[-2], row[-1])


def _conflict(r: Any, versions: dict[str, TeamMemory]) -> TeamConflict:
    members = tuple(versions[u] for u in r[2] if u in versions) if r[5] not in OPEN_STATUSES else ()
    return TeamConflict(r[0], int(r[1]), tuple(r[2]), r[3], r[4], r[5], r[6], r[7], r[8], members)


def what_leaves(row: MemoryItemRow, data_dir: Path | None) -> tuple[dict[str, Any] | None, str]:
    """(the shared fields as the team store would get them, "") or (None, why not).

    The publish preview's checks, run again now: the text may have been edited since
    it was published. A status other than held travels as it is (an archived or
    superseded team memory is news for the team too)."""
    if row.status in NEVER_SENT_STATUSES:
        return None, "held for review as a possible secret: keep or remove it first"
    project, _note = shared_project(row.project)
    memory = outgoing(
        replace(_local(row), status="active"),
        project=project,
        project_note=None,
        excluded=why_excluded(data_dir, row.project),
    )
    if memory.blocked is not None:
        return None, memory.blocked
    return {
        "content": memory.content,
        "context": memory.context,
        "category": memory.category,
        "type": memory.type,
        "confidence": memory.confidence,
        "importance": memory.importance,
        "scope": memory.scope,
        "project": memory.project,
        "branch": memory.branch,
        "tags": list(memory.tags),
        "status": row.status,
        "valid_from": memory.valid_from,
        "valid_until": memory.valid_until,
    }, ""


def same_fields(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two versions say the same (a push already made, or the same edit made on
    two machines): then there is nothing to push and no conflict."""
    return all(_norm(a.get(k)) == _norm(b.get(k)) for k in SHARED_COLUMNS)


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, list | tuple):
        return list(value)
    return value
