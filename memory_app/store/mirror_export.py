"""The store as the files of a mirror (layout in store/mirror_files.py).

Rows are written column by column (store/row_json.py), so a column a later schema adds is
in the mirror without a change here. Left out on purpose: columns derived from others
(`content_key`, and `decay_factor`, which nightly maintenance recomputes for every memory:
written, it would change every file every night), a conversation's text (resources are
kept by reference), and memories held for review as possible secrets (never exported
until a person keeps them), with their conflicts. Usage logs, model-call costs and
maintenance runs are the machine's own and stay out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlmodel import Session, SQLModel

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
    ResourceRow,
    table_of,
)

DERIVED_ITEM_COLUMNS = ("content_key", "decay_factor")
RESOURCE_LEFT_OUT = ("text",)
SUMMARY_TEXTS = ("markdown", "digest")  # written as markdown files of their own
HELD = "held"


@dataclass(frozen=True)
class MirrorContent:
    """What an export writes: relative path → bytes, and what it holds."""

    files: dict[str, bytes]
    memories: int
    conflicts: int
    resources: int
    categories: int
    held: int  # memories held for review, left out
    conflicts_left_out: int  # conflicts with a held memory


def mirror_content(session: Session, schema_version: int) -> MirrorContent:
    """Every file of the mirror of the store, built in one read transaction."""
    conn = session.connection()
    all_items = _rows(conn, MemoryItemRow)
    items = [i for i in all_items if i["status"] != HELD]
    kept = {i["id"] for i in items}
    events = _rows(conn, AuditEventRow)
    conflicts = _rows(conn, ConflictRow)
    members: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for member in _rows(conn, ConflictMemberRow, ("conflict_id", "position")):
        members[member["conflict_id"]].append(member)
    shown = [c for c in conflicts if all(m["item_id"] in kept for m in members[c["id"]])]
    shown_ids = {c["id"] for c in shown}

    by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
    by_conflict: dict[int, list[dict[str, Any]]] = defaultdict(list)
    store_events = []
    for event in events:
        if event["item_id"] is not None:
            if event["item_id"] in kept:
                by_item[event["item_id"]].append(row_json(AuditEventRow, event))
        elif event["conflict_id"] is not None:
            if event["conflict_id"] in shown_ids:
                by_conflict[event["conflict_id"]].append(row_json(AuditEventRow, event))
        else:
            store_events.append(row_json(AuditEventRow, event))

    stored = _rows(conn, ResourceRow, skip=RESOURCE_LEFT_OUT)
    resources, aliases = _resources(stored)
    files: dict[str, bytes] = {}
    exclusions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(conn, ContextExclusionRow, ("item_id", "project")):
        exclusions[row["item_id"]].append(row_json(ContextExclusionRow, row))
    for item in items:
        history = by_item[item["id"]]
        path = layout.item_path(item["id"], item["category"], first_content(item, history))
        memory = row_json(MemoryItemRow, item, DERIVED_ITEM_COLUMNS)
        source = memory.get("source_resource_id")
        if isinstance(source, int):
            memory["source_resource_id"] = aliases.get(source, source)
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
    categories = _category_files(conn, files)
    files[layout.CATEGORY_HISTORY] = layout.dumps({"events": store_events})
    files[layout.RESOURCE_INDEX] = layout.dumps({"resources": resources})
    counts = {
        "categories": categories,
        "conflicts": len(shown),
        "memories": len(items),
        "resources": len(resources),
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
    )


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
