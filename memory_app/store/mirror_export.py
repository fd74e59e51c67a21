"""The store as the files of a mirror (layout in store/mirror_files.py).

Rows are written column by column (store/row_json.py), so a column a later schema adds is
in the mirror without a change here. Left out on purpose: columns derived from others
(`content_key`, and `decay_factor`, which nightly maintenance recomputes for every memory:
written, it would change every file every night), this store's sync state with a team
store (`team_seq`, `team_dirty`), a conversation's text (resources are
kept by reference), and what may be a secret a person has not released:

- a memory held for review as a possible secret (never exported until a person keeps
  it), one whose history shows it held and not kept since, and a forgotten (deleted)
  one that was ever held, with their conflicts and verdicts;
- in every history exported, a secret in an earlier value: what the redaction rules or
  the possible-secret check flag (domain/redaction.py, domain/possible_secrets.py) is
  replaced by a placeholder, unless the memory says it now (then a person kept it, and
  it is in the file anyway). Undo in the store that imports it gives back the text with
  the placeholder. A memory's file name and its identity across stores are taken from
  its first words with that same replacement, so they do not change when its history
  is cleaned.

Usage logs, model-call costs and maintenance runs are the machine's own and stay out.

Links between memories: only a person's (made by hand, or a discovered one they removed,
kept as "rejected" so discovery leaves it away), and only between memories the mirror
holds. Discovered links are derived from the memories: the import runs discovery, as
every night does, so writing them would only churn the files. Episodes are derived from
their conversations' text, which the mirror does not carry: they stay out too, and the
import rebuilds them for every conversation whose text the store has.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection
from sqlmodel import Session, SQLModel

from memory_app.domain.possible_secrets import possible_secret
from memory_app.domain.redaction import placeholder, redact
from memory_app.store import mirror_files as layout
from memory_app.store.mirror_files import REFERENCE_PREFIX
from memory_app.store.row_json import columns, row_json
from memory_app.store.tables import (
    AuditEventRow,
    CategoryRow,
    CategorySummaryRow,
    ConflictJudgementRow,
    ConflictMemberRow,
    ConflictRow,
    ContextExclusionRow,
    MemoryItemRow,
    MemoryLinkRow,
    ResourceRow,
    table_of,
)

DERIVED_ITEM_COLUMNS = ("content_key", "decay_factor")
# This store's sync state with a team store (domain/sharing.py): another store that
# imports the mirror has its own. The memory's `uid` and `sharing` travel with it.
TEAM_SYNC_COLUMNS = ("team_seq", "team_dirty")
ITEM_LEFT_OUT = DERIVED_ITEM_COLUMNS + TEAM_SYNC_COLUMNS
RESOURCE_LEFT_OUT = ("text",)
LINK_LEFT_OUT = ("id",)  # a link is known by its ends and kind
MIRRORED_LINK_ORIGINS = ("person", "rejected")
EPISODE_KIND = "part-of"  # its target is an episode, not a memory
SUMMARY_TEXTS = ("markdown", "digest")  # written as markdown files of their own
HELD = "held"
RELEASED = "active"  # what `keep` makes a held memory
DELETED = "deleted"
POSSIBLE_SECRET = "possible-secret"  # the placeholder's kind, for a token no rule names


@dataclass(frozen=True)
class MirrorContent:
    """What an export writes: relative path → bytes, and what it holds."""

    files: dict[str, bytes]
    memories: int
    conflicts: int
    resources: int
    categories: int
    held: int  # memories held for review (or with a held past), left out
    conflicts_left_out: int  # conflicts with such a memory
    history_withheld: int  # history values whose secrets were replaced by placeholders
    links: int = 0  # a person's links between the mirror's memories


def mirror_content(session: Session, schema_version: int) -> MirrorContent:
    """Every file of the mirror of the store, built in one read transaction."""
    conn = session.connection()
    all_items = _rows(conn, MemoryItemRow)
    events = _rows(conn, AuditEventRow)
    histories: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event["item_id"] is not None:
            histories[event["item_id"]].append(event)
    items = [i for i in all_items if not held_back(i, histories[i["id"]])]
    kept = {i["id"] for i in items}
    conflicts = _rows(conn, ConflictRow)
    members: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for member in _rows(conn, ConflictMemberRow, ("conflict_id", "position")):
        members[member["conflict_id"]].append(member)
    shown = [c for c in conflicts if all(m["item_id"] in kept for m in members[c["id"]])]
    shown_ids = {c["id"]: c for c in shown}
    rows_of = {i["id"]: row_json(MemoryItemRow, i, ITEM_LEFT_OUT) for i in items}

    scrub = _Scrubber()
    by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
    by_conflict: dict[int, list[dict[str, Any]]] = defaultdict(list)
    store_events = []
    for event in events:
        if event["item_id"] is not None:
            if event["item_id"] in kept:
                written = scrub(row_json(AuditEventRow, event), rows_of[event["item_id"]])
                by_item[event["item_id"]].append(written)
        elif event["conflict_id"] is not None:
            if event["conflict_id"] in shown_ids:
                now = row_json(ConflictRow, shown_ids[event["conflict_id"]])
                by_conflict[event["conflict_id"]].append(scrub(row_json(AuditEventRow, event), now))
        else:
            store_events.append(scrub(row_json(AuditEventRow, event), {}))

    stored = _rows(conn, ResourceRow, skip=RESOURCE_LEFT_OUT)
    resources, aliases = _resources(stored)
    files: dict[str, bytes] = {}
    exclusions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(conn, ContextExclusionRow, ("item_id", "project")):
        exclusions[row["item_id"]].append(row_json(ContextExclusionRow, row))
    for item in items:
        history = by_item[item["id"]]
        first = without_secrets(first_content(item, history))
        path = layout.item_path(item["id"], item["category"], first)
        memory = rows_of[item["id"]]
        source = memory.get("source_resource_id")
        if isinstance(source, int):
            memory["source_resource_id"] = aliases.get(source, source)
        successor = memory.get("superseded_by")
        if successor is not None and successor not in kept:
            memory["superseded_by"] = None  # its successor is held back: not in the mirror
        files[path] = layout.dumps(
            {
                "memory": memory,
                "history": history,
                "context_exclusions": exclusions[item["id"]],
            }
        )

    contents = {i["id"]: i["content"] for i in items}
    files[layout.CONFLICTS] = layout.dumps(
        {
            "conflicts": [
                {
                    **row_json(ConflictRow, c),
                    "members": [
                        {**row_json(ConflictMemberRow, m), "content": contents[m["item_id"]]}
                        for m in members[c["id"]]
                    ],
                    "history": by_conflict[c["id"]],
                }
                for c in shown
            ],
            "judgements": [
                row_json(ConflictJudgementRow, j)
                for j in _rows(conn, ConflictJudgementRow, ("item_a", "item_b"))
                if j["item_a"] in kept and j["item_b"] in kept
            ],
        }
    )
    links = mirrored_links(conn, kept)
    files[layout.LINKS] = layout.dumps({"links": links})
    categories = _category_files(conn, files)
    files[layout.CATEGORY_HISTORY] = layout.dumps({"events": store_events})
    files[layout.RESOURCE_INDEX] = layout.dumps({"resources": resources})
    counts = {
        "categories": categories,
        "conflicts": len(shown),
        "memories": len(items),
        "resources": len(resources),
        "links": len(links),
    }
    files[layout.MANIFEST] = layout.dumps(
        {
            "format": layout.FORMAT,
            "version": layout.VERSION,
            "schema_version": schema_version,
            "counts": counts,
            "about": "A Memory Curator store as files: `memory-app export files DIR` "
            "writes it, `memory-app import files DIR` reads it back.",
        }
    )
    return MirrorContent(
        files=files,
        memories=len(items),
        conflicts=len(shown),
        resources=len(resources),
        categories=categories,
        held=len(all_items) - len(items),
        conflicts_left_out=len(conflicts) - len(shown),
        history_withheld=scrub.withheld,
        links=len(links),
    )


def mirrored_links(conn: Connection, kept: set[int]) -> list[dict[str, Any]]:
    """The links the mirror carries: a person's, between memories it holds."""
    return [
        row_json(MemoryLinkRow, row, LINK_LEFT_OUT)
        for row in _rows(conn, MemoryLinkRow, ("source_id", "target_id", "kind"))
        if row["origin"] in MIRRORED_LINK_ORIGINS
        and row["kind"] != EPISODE_KIND
        and row["source_id"] in kept
        and row["target_id"] in kept
    ]


def held_back(item: Mapping[str, Any], history: Sequence[Mapping[str, Any]]) -> bool:
    """A memory the mirror leaves out as a possible secret: held for review now, held
    and not kept since (its history, oldest first), or forgotten after being held."""
    if item["status"] == HELD:
        return True
    held = ever = False
    for event in history:
        before, after = _status(event.get("before")), _status(event.get("after"))
        if after == HELD:
            held = ever = True
        elif before == HELD and after == RELEASED:
            held = False  # kept: a person looked at it
    return held or (ever and item["status"] == DELETED)


def _status(snapshot: Any) -> Any:
    return snapshot.get("status") if isinstance(snapshot, dict) else None


class _Scrubber:
    """Replaces in an event's snapshots each text that holds a secret by its
    `without_secrets` form, unless the owner says the same now (written in its own file
    anyway); counts the fields changed."""

    def __init__(self) -> None:
        self.withheld = 0

    def __call__(self, event: dict[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
        for side in ("before", "after"):
            snapshot = event.get(side)
            if not isinstance(snapshot, dict):
                continue
            for name, value in snapshot.items():
                if name in now and now[name] == value:
                    continue
                clean = _cleaned(value)
                if clean != value:
                    snapshot[name] = clean
                    self.withheld += 1
        return event


def _cleaned(value: Any) -> Any:
    """A JSON value with every string in it `without_secrets`."""
    if isinstance(value, str):
        return without_secrets(value)
    if isinstance(value, dict):
        return {k: _cleaned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    return value


@lru_cache(maxsize=8192)
def without_secrets(text: str) -> str:
    """`text` with what redaction removes, and every possible secret, replaced by a
    placeholder ("token is [REDACTED:possible-secret]"): the same text for the same
    input, so a memory's first words name its file and tell who it is across stores
    whether or not its history had to be cleaned."""
    out = redact(text).text
    while (token := possible_secret(out)) is not None:
        shorter = out.replace(token, placeholder(POSSIBLE_SECRET))
        if shorter == out:
            break
        out = shorter
    return out


def first_content(item: dict[str, Any], history: Sequence[dict[str, Any]]) -> str:
    """What a memory said when it was created (its first create event), else what it
    says now: the words of its file name, and part of its identity across stores."""
    for event in history:
        after = event.get("after")
        if event.get("action") == "create" and isinstance(after, dict):
            content = after.get("content")
            if isinstance(content, str):
                return content
    return str(item["content"])


def _category_files(conn: Connection, files: dict[str, bytes]) -> int:
    summaries = {s["category"]: s for s in _rows(conn, CategorySummaryRow, ("category",))}
    entries = []
    for row in _rows(conn, CategoryRow, ("position", "key")):
        summary = summaries.get(row["key"])
        entry = row_json(CategoryRow, row)
        entry["summary"] = (
            None if summary is None else row_json(CategorySummaryRow, summary, SUMMARY_TEXTS)
        )
        entries.append(entry)
        if summary is not None:
            files[layout.summary_path(row["key"])] = summary["markdown"].encode("utf-8")
            if summary["digest"]:
                files[layout.digest_path(row["key"])] = summary["digest"].encode("utf-8")
    files[layout.CATEGORY_INDEX] = layout.dumps({"categories": entries})
    return len(entries)


def _resources(rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The conversations as the index lists them, and placeholder id → the real
    conversation's id where one known by reference was later imported for real (the
    index lists it once; memories point at the real one)."""
    real = {
        r["content_hash"]: r["id"]
        for r in rows
        if not str(r["content_hash"]).startswith(REFERENCE_PREFIX)
    }
    listed, aliases = [], {}
    for row in rows:
        values = row_json(ResourceRow, row, RESOURCE_LEFT_OUT)
        digest = str(values["content_hash"])
        if digest.startswith(REFERENCE_PREFIX):
            digest = digest.removeprefix(REFERENCE_PREFIX)
            if digest in real:
                aliases[row["id"]] = real[digest]
                continue
        values["content_hash"] = digest
        listed.append(values)
    return listed, aliases


def _rows(
    conn: Connection,
    model: type[SQLModel],
    order: Sequence[str] = ("id",),
    skip: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Every row of a table as a dict of its (typed) column values, in a stable order."""
    table = table_of(model)
    wanted = columns(model, skip)
    query = table.select().with_only_columns(*wanted).order_by(*(table.c[n] for n in order))
    return [dict(r) for r in conn.execute(query).mappings()]
