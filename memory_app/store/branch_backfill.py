"""The branch of each memory stored before branch memory (schema version 5).

A memory keeps a branch only while every conversation it was seen in ran on that branch
(domain/branches.py `seen_on`): said on two branches, or once on none, it holds beyond
one branch and is base. So a memory stored earlier is given the branch of all its
conversations: the one it was learnt in, those that reinforced it since (the audit's
`reinforce` events, "seen again in conversation #N", unless undone) and those of the
duplicates merged into it. A conversation no longer stored has no known branch: base.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import Connection

from memory_app.domain.branches import learnt_branch, seen_on

# The note memorize writes on a reinforcement by a conversation (since the first version).
_SEEN_AGAIN = re.compile(r"seen again in conversation #(\d+)")
_UNKNOWN = object()


def backfill_branches(conn: Connection) -> int:
    """Set the branch of every memory with a conversation and no branch yet; how many
    got one."""
    branch_of = {
        int(rid): learnt_branch(branch)
        for rid, branch in conn.exec_driver_sql("SELECT id, branch FROM resource")
    }
    seen: defaultdict[int, list[int]] = defaultdict(list)
    learnt: list[int] = []
    for item_id, resource_id in conn.exec_driver_sql(
        "SELECT id, source_resource_id FROM memory_item WHERE source_resource_id IS NOT NULL"
    ):
        seen[int(item_id)].append(int(resource_id))
        learnt.append(int(item_id))
    undone = {
        str(note)
        for (note,) in conn.exec_driver_sql(
            "SELECT note FROM audit_event WHERE action = 'undo' AND note IS NOT NULL"
        )
    }
    for item_id, note, group in conn.exec_driver_sql(
        "SELECT item_id, note, group_id FROM audit_event "
        "WHERE action = 'reinforce' AND item_id IS NOT NULL "
        "AND note LIKE 'seen again in conversation #%'"
    ):
        found = _SEEN_AGAIN.fullmatch(str(note))
        if found is not None and group not in undone:
            seen[int(item_id)].append(int(found.group(1)))
    merged: defaultdict[int, list[int]] = defaultdict(list)
    for dup, survivor in conn.exec_driver_sql(
        "SELECT id, superseded_by FROM memory_item WHERE status = 'superseded' "
        "AND superseded_by IS NOT NULL AND id IN "
        "(SELECT item_id FROM audit_event WHERE action = 'merge')"
    ):
        merged[int(survivor)].append(int(dup))
    changes = []
    for item_id in learnt:
        branch = _common_branch(
            branch_of.get(rid, _UNKNOWN) for rid in _conversations(item_id, seen, merged)
        )
        if branch is not None:
            changes.append({"branch": branch, "id": item_id})
    if changes:
        conn.exec_driver_sql(
            "UPDATE memory_item SET branch = :branch WHERE id = :id AND branch IS NULL",
            changes,
        )
    return len(changes)


def _conversations(
    item_id: int, seen: dict[int, list[int]], merged: dict[int, list[int]]
) -> list[int]:
    """The conversations a memory and the duplicates merged into it were seen in."""
    found: list[int] = []
    todo, done = [item_id], set()
    while todo:
        member = todo.pop()
        if member in done:
            continue
        done.add(member)
        found += seen.get(member, [])
        todo += merged.get(member, [])
    return found


def _common_branch(branches: Iterable[object]) -> str | None:
    """The one branch all conversations ran on; None (base) when they differ, one ran on
    no branch or on one not known."""
    kept: str | None = None
    for n, branch in enumerate(branches):
        if branch is _UNKNOWN:
            return None
        again = branch if isinstance(branch, str) else None
        kept = again if n == 0 else seen_on(kept, again)
        if kept is None:
            return None
    return kept
