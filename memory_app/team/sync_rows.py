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
from memory_app.operations.team import _local
from memory_app.operations.team_project import team_project
from memory_app.privacy_gate import why_excluded
from memory_app.store.tables import MemoryItemRow
from memory_app.team.sync_schema import SHARED_COLUMNS

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
    """A conflict as the team store holds it (its members by uid)."""

    uid: str
    change_seq: int
    member_uids: tuple[str, ...]
    category: str
    reason: str | None
    status: str
    decision: str | None
    notes: str | None
    resolved_at: datetime | None


Change = TeamMemory | TeamConflict

_MEMORY_COLUMNS = ", ".join(f"m.{c}" for c in SHARED_COLUMNS)


def read_changes(conn: Connection, cursor: int, batch: int) -> list[Change]:
    """The first `batch` changes after `cursor`, in change order, from memories,
    tombstones and conflicts together. Each table gives its first `batch`; the merged
    first `batch` then holds every change up to the last one kept."""
    limit = {"cursor": cursor, "batch": batch}
    changes: list[Change] = []
    rows = conn.execute(
        text(
            f"SELECT m.uid, m.change_seq, {_MEMORY_COLUMNS}, m.extracted_at, c.name "
            "FROM memory_item AS m LEFT JOIN category AS c ON c.key = m.category "
            "WHERE m.change_seq > :cursor ORDER BY m.change_seq LIMIT :batch"
        ),
        limit,
    ).all()
    for row in rows:
        values = dict(zip(SHARED_COLUMNS, row[2 : 2 + len(SHARED_COLUMNS)], strict=True))
        values["tags"] = list(values["tags"] or [])
        changes.append(TeamMemory(row[0], int(row[1]), values, row[-2], row[-1]))
    gone = conn.execute(
        text(
            "SELECT uid, change_seq FROM team_tombstone WHERE change_seq > :cursor "
            "ORDER BY change_seq LIMIT :batch"
        ),
        limit,
    ).all()
    changes += [TeamMemory(uid, int(seq), None) for uid, seq in gone]
    conflicts = conn.execute(
        text(
            "SELECT uid, change_seq, member_uids, category, reason, status, decision, notes, "
            "resolved_at FROM team_conflict WHERE change_seq > :cursor "
            "ORDER BY change_seq LIMIT :batch"
        ),
        limit,
    ).all()
    changes += [
        TeamConflict(r[0], int(r[1]), tuple(r[2]), r[3], r[4], r[5], r[6], r[7], r[8])
        for r in conflicts
    ]
    changes.sort(key=lambda c: c.change_seq)
    return changes[:batch]


def team_version(conn: Connection, uid: str) -> TeamMemory | None:
    """The team store's current version of one memory (None: it has none)."""
    row = conn.execute(
        text(f"SELECT m.uid, m.change_seq, {_MEMORY_COLUMNS} FROM memory_item AS m WHERE uid = :u"),
        {"u": uid},
    ).first()
    if row is None:
        return None
    values = dict(zip(SHARED_COLUMNS, row[2:], strict=True))
    values["tags"] = list(values["tags"] or [])
    return TeamMemory(row[0], int(row[1]), values)


def what_leaves(row: MemoryItemRow, data_dir: Path | None) -> tuple[dict[str, Any] | None, str]:
    """(the shared fields as the team store would get them, "") or (None, why not).

    The publish preview's checks, run again now: the text may have been edited since
    it was published. A status other than held travels as it is (an archived or
    superseded team memory is news for the team too)."""
    if row.status in NEVER_SENT_STATUSES:
        return None, "held for review as a possible secret: keep or remove it first"
    project, _note = team_project(row.project)
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
