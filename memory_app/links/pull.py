"""Retrieval pulls linked memories in (seeds 003 and 004's relationships): after the
context is packed, each memory placed brings its strongest linked memory not already
there (what it depends on first, then a related one) right after it, at the richest
compression level that fits what is left of the budget, marked "(linked to #N)".

Packing is not changed: the pulled memories only use what the plan left over, so the
budget still holds and no memory chosen on its own merit is displaced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sqlalchemy import Connection, select

from memory_app.domain.branches import BranchScope
from memory_app.domain.budget import ContextEntry, ContextPlan
from memory_app.links.model import MIN_STRENGTH, PULLED_KINDS
from memory_app.links.model import PULLED_PER_MEMORY as PER_MEMORY
from memory_app.store.tables import MemoryItemRow, MemoryLinkRow, table_of

LINK = table_of(MemoryLinkRow)
ITEM = table_of(MemoryItemRow)

EntryMaker = Callable[[int], ContextEntry | None]


def linked_targets(
    conn: Connection,
    item_ids: list[int],
    project: str | None = None,
    branch: BranchScope | None = None,
) -> dict[int, list[int]]:
    """For each memory, the active memories it is strongly linked to, best first:
    depends-on (its own) before related (either way), then by strength; only those the
    request may see (its project's or global ones, on its branches)."""
    if not item_ids:
        return {}
    wanted = set(item_ids)
    rows = conn.execute(
        select(LINK.c.source_id, LINK.c.target_id, LINK.c.kind, LINK.c.strength).where(
            LINK.c.kind.in_(PULLED_KINDS),
            LINK.c.origin != "rejected",
            LINK.c.strength >= MIN_STRENGTH,
            LINK.c.source_id.in_(wanted)
            | (LINK.c.target_id.in_(wanted) & (LINK.c.kind == "related")),
        )
    ).all()
    ranked: dict[int, list[tuple[int, float, int]]] = {}
    for source, target, kind, strength in rows:
        for here, other in ((source, target), (target, source)):
            if here in wanted and (kind == "related" or here == source):
                order = PULLED_KINDS.index(kind)
                ranked.setdefault(here, []).append((order, -strength, other))
    others = {other for entries in ranked.values() for _, _, other in entries}
    rows = conn.execute(
        select(ITEM.c.id, ITEM.c.project, ITEM.c.scope, ITEM.c.branch).where(
            ITEM.c.id.in_(others), ITEM.c.status == "active"
        )
    ).all()
    active = {
        r.id
        for r in rows
        if (project is None or r.project in (None, project) or r.scope == "global")
        and (branch is None or branch.sees(r.branch))
    }
    return {
        here: [other for _, _, other in sorted(entries) if other in active]
        for here, entries in ranked.items()
    }


def pull_in(
    conn: Connection,
    plan: ContextPlan,
    make_entry: EntryMaker,
    *,
    excluded: frozenset[int],
    project: str | None,
    branch: BranchScope | None,
) -> ContextPlan:
    """Add the placed memories' linked memories to `plan` (changed in place, returned)."""
    placed = plan.item_ids
    targets = linked_targets(conn, placed, project, branch)
    present = set(placed) | set(excluded)
    for tier in plan.tiers:
        position = 0
        while position < len(tier.entries):
            entry = tier.entries[position]
            position += 1
            if entry.item_id is None:
                continue
            brought = 0
            for other in targets.get(entry.item_id, ()):
                if brought >= PER_MEMORY:
                    break
                if other in present:
                    continue
                made = make_entry(other)
                if made is None:
                    continue
                form = _richest_fitting(_marked(made, entry.item_id), plan.remaining)
                if form is None:
                    continue
                tier.entries.insert(position, form)
                position += 1
                present.add(other)
                brought += 1
    return plan


def _marked(entry: ContextEntry, linked_to: int) -> ContextEntry:
    mark = f" (linked to #{linked_to})"
    shorter = tuple(replace(s, text=s.text + mark) for s in entry.shorter)
    return replace(entry, text=entry.text + mark, shorter=shorter)


def _richest_fitting(entry: ContextEntry, room: int) -> ContextEntry | None:
    for form in entry.forms:
        if form.tokens <= room:
            return replace(form, shorter=())
    return None
