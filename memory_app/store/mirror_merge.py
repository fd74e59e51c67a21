"""Bringing a read mirror (store/mirror_read.py) into a store, empty or not, in one
transaction, never duplicating anything.

The rules, which the README's "Git mirror" section states for people:

- A memory of the mirror is the same as a memory of the store when both were created at
  the same moment with the same words (its `extracted_at` and the content of its first
  history event, a secret in it replaced as the export replaces it: editing a memory
  does not change who it is), or else when they say the
  same thing, now or when created (the pipeline's duplicate rule on normalized text; a
  memory in the same category is preferred, as one may have moved since).
- A memory the store lacks is added with its whole history, keeping its id when the
  store has no memory with that id (so an import into an empty store keeps every id),
  else taking the next free one; references to it follow. So does a memory whose id
  another memory of the mirror has (two machines' new memories, merged by git:
  mirror_read.py tells them apart).
- A memory both have keeps the store's version unless the mirror's was changed later
  (`updated_at`): then the fields a person edits take the mirror's values, recorded as
  one "import" event in its history. Usage counters stay the store's own.
- Conflicts are the same when their memories are; a resolution in the mirror applies to
  a conflict still open in the store (or resolved earlier there). Verdicts and context
  exclusions are added when missing. Nothing in the store is ever deleted.
- A conversation the store lacks is recorded by reference: its description (source,
  session, project, branch, title, times, status) without its text, marked by its
  content hash ("reference:<hash>"), so every memory keeps its provenance and the next
  export writes it as it was; importing the conversation itself later stores it as
  usual, and `retry` leaves a pending one alone (its text is on the other machine).
- A category's summary is the mirror's when the store has none or an older one.
- A person's links (links.json) join the memories they join here; one the store lacks
  is added, and a person's word (a link made, or a discovered one removed) replaces
  what discovery found between the same two memories. The store's own person-made
  links are kept as they are.

A row the database still refuses (a rule the reader does not check) is a MirrorError
naming the file it came from; the transaction is rolled back, so nothing is written.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from memory_app.domain.sharing import new_uid
from memory_app.domain.similarity import content_key
from memory_app.links.model import link_key
from memory_app.store import mirror_files as layout
from memory_app.store import repository as repo
from memory_app.store.conflicts import pair_key
from memory_app.store.mirror_export import without_secrets
from memory_app.store.mirror_files import REFERENCE_PREFIX, MirrorError
from memory_app.store.mirror_read import Mirror, MirrorConflict, MirrorItem
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

IMPORT_ACTION = "import"


@dataclass
class MergeReport:
    memories_added: list[int] = field(default_factory=list)  # the store's ids
    memories_updated: list[int] = field(default_factory=list)
    memories_unchanged: int = 0
    ids_kept: bool = True  # every added memory kept the id its file gives
    conflicts_added: list[int] = field(default_factory=list)
    conflicts_updated: list[int] = field(default_factory=list)
    links_added: int = 0  # a person's links, new here or replacing a discovered one
    resources_added: int = 0
    categories_added: list[str] = field(default_factory=list)
    summaries_taken: list[str] = field(default_factory=list)
    events_added: int = 0
    # Categories whose summaries no longer describe their memories after the import.
    summaries_to_refresh: list[str] = field(default_factory=list)
    store_had_memories: bool = False
    group_id: str = ""  # the group of the "import" events (changes to existing rows)


def merge_mirror(session: Session, mirror: Mirror) -> MergeReport:
    """Add what the store lacks from the mirror and apply its later changes."""
    return _Merge(session, mirror).run()


class _Merge:
    def __init__(self, session: Session, mirror: Mirror) -> None:
        self.session = session
        self.conn: Connection = session.connection()
        self.mirror = mirror
        self.report = MergeReport(group_id=f"{IMPORT_ACTION}:{uuid.uuid4().hex[:12]}")
        self.items: dict[int, int] = {}  # mirror id → store id
        self.conflicts: dict[int, int] = {}
        self.resources: dict[int, int] = {}
        self.touched: set[str] = set()

    def run(self) -> MergeReport:
        before = _categories_with_items(self.conn)
        self.report.store_had_memories = bool(before)
        with self._from(layout.CATEGORY_INDEX):
            self._categories()
        with self._from(layout.RESOURCE_INDEX):
            self._resources()
        with self._from(layout.ITEMS):
            added = self._items()
        with self._from(layout.CONFLICTS):
            conflicts = self._conflicts()
        with self._from(layout.ITEMS, layout.CONFLICTS, layout.CATEGORY_HISTORY):
            self._events(added, conflicts)
            self._missing_creations(added)
        with self._from(layout.CONFLICTS):
            self._judgements()
        with self._from(layout.ITEMS):
            self._exclusions()
        with self._from(layout.LINKS):
            self._links()
        with self._from(layout.CATEGORY_INDEX):
            taken = self._summaries()
        self.report.summaries_to_refresh = sorted(
            key for key in self.touched if not (key in taken and key not in before)
        )
        with self._from(layout.ITEMS, layout.CONFLICTS):
            self.session.flush()
        return self.report

    @contextmanager
    def _from(self, *sources: str) -> Iterator[None]:
        """A row the database refuses, as a MirrorError naming where it came from."""
        try:
            yield
        except IntegrityError as exc:
            where: Path = self.mirror.folder / sources[0]
            others = ", ".join(sources[1:])
            also = f" (or {others})" if others else ""
            reason = str(exc.orig).strip() or type(exc.orig).__name__
            message = f"cannot be imported{also}: the store refuses a row of it ({reason})"
            raise MirrorError(where, message) from None

    # -- categories and conversations -------------------------------------------------------

    def _categories(self) -> None:
        present = set(self.conn.execute(select(table_of(CategoryRow).c.key)).scalars())
        for category in self.mirror.categories:
            if category.row["key"] not in present:
                self.conn.execute(table_of(CategoryRow).insert().values(**category.row))
                self.report.categories_added.append(category.row["key"])

    def _resources(self) -> None:
        table = table_of(ResourceRow)
        stored = list(self.conn.execute(select(table.c.id, table.c.content_hash)))
        known = {str(h).removeprefix(REFERENCE_PREFIX): i for i, h in stored}
        missing = []
        for resource in self.mirror.resources:
            found = known.get(resource["content_hash"])
            if found is None:
                missing.append(resource)
            else:
                self.resources[resource["id"]] = found
        numbers = _numbered([r["id"] for r in missing], {i for i, _ in stored})
        self.resources.update(numbers)
        rows = [
            {
                **resource,
                "id": numbers[resource["id"]],
                "content_hash": REFERENCE_PREFIX + resource["content_hash"],
                "text": "",
            }
            for resource in missing
        ]
        if rows:
            self.conn.execute(table.insert(), rows)
        self.report.resources_added = len(rows)

    # -- memories ---------------------------------------------------------------------------

    def _items(self) -> list[MirrorItem]:
        """Match every mirror memory to the store's or add it; returns the added ones."""
        table = table_of(MemoryItemRow)
        known = StoreMemories(self.conn)
        taken = set(known.category_of)
        claimed: set[int] = set()
        added: list[MirrorItem] = []
        matched: list[tuple[MirrorItem, int]] = []
        for item in sorted(self.mirror.items, key=lambda i: int(i.memory["id"])):
            memory = item.memory
            found = known.match(
                memory["extracted_at"],
                item.first_content,
                memory["content"],
                memory["category"],
                claimed,
                memory.get("uid"),
            )
            if found is None:
                added.append(item)
                continue
            claimed.add(found)
            self.items[memory["id"]] = found
            matched.append((item, found))
        numbers = _numbered([i.memory["id"] for i in added], taken)
        self.items.update(numbers)
        rows = [
            {
                **item.memory,
                "id": numbers[item.memory["id"]],
                "content_key": content_key(item.memory["content"]),
                "superseded_by": None,  # set below, once every memory has its id here
                "source_resource_id": self.resources.get(item.memory["source_resource_id"]),
                "uid": _free_uid(item.memory.get("uid"), known.by_uid),
            }
            for item in added
        ]
        if rows:
            self.conn.execute(table.insert(), rows)
        self.report.memories_added = [row["id"] for row in rows]
        self.report.ids_kept = all(numbers[i.memory["id"]] == i.file_id for i in added)
        self.touched |= {item.memory["category"] for item in added}
        successors = [
            {
                "row_id": self.items[i.memory["id"]],
                "successor": self.items[i.memory["superseded_by"]],
            }
            for i in added
            if i.memory["superseded_by"] is not None
        ]
        if successors:
            statement = (
                update(table)
                .where(table.c.id == bindparam("row_id"))
                .values(superseded_by=bindparam("successor"))
            )
            self.conn.execute(statement, successors)
        for item, local_id in matched:
            if item.memory["updated_at"] > known.updated_at[local_id]:
                self._update(item, local_id)
            else:
                self.report.memories_unchanged += 1
        return added

    def _update(self, item: MirrorItem, local_id: int) -> None:
        """The mirror's edits win when they are later than the store's."""
        row = repo.get_item(self.session, local_id)
        changes = {name: item.memory[name] for name in repo.TRACKED_FIELDS}
        successor = changes["superseded_by"]
        changes["superseded_by"] = self.items.get(successor) if successor is not None else None
        old_category = row.category
        repo.change_item(
            self.session,
            row,
            changes,
            actor="system",
            action=IMPORT_ACTION,
            group_id=self.report.group_id,
            note="newer in the file mirror",
        )
        if row.updated_at == item.memory["updated_at"]:
            self.report.memories_updated.append(local_id)
            self.touched |= {old_category, row.category}
        else:
            self.report.memories_unchanged += 1

    # -- conflicts --------------------------------------------------------------------------

    def _conflicts(self) -> list[MirrorConflict]:
        members: dict[int, set[int]] = defaultdict(set)
        for conflict_id, item_id in self.conn.execute(
            select(table_of(ConflictMemberRow).c.conflict_id, table_of(ConflictMemberRow).c.item_id)
        ):
            members[conflict_id].add(item_id)
        by_members = {frozenset(ids): c for c, ids in members.items()}
        taken = set(self.conn.execute(select(table_of(ConflictRow).c.id)).scalars())
        added: list[MirrorConflict] = []
        for entry in sorted(self.mirror.conflicts, key=lambda c: int(c.conflict["id"])):
            number = entry.conflict["id"]
            ours = frozenset(self.items[m["item_id"]] for m in entry.members)
            found = by_members.get(ours)
            if found is not None:
                self.conflicts[number] = found
                self._resolve(entry, found)
                continue
            new_id = _numbered([number], taken)[number]
            self.conn.execute(
                table_of(ConflictRow).insert().values(**{**entry.conflict, "id": new_id})
            )
            taken.add(new_id)
            by_members[ours] = new_id
            self.conflicts[number] = new_id
            for member in entry.members:
                values = {**member, "conflict_id": new_id, "item_id": self.items[member["item_id"]]}
                self.conn.execute(table_of(ConflictMemberRow).insert().values(**values))
            self.report.conflicts_added.append(new_id)
            added.append(entry)
        return added

    def _resolve(self, entry: MirrorConflict, local_id: int) -> None:
        """A resolution in the mirror wins over an open conflict or an earlier one."""
        row = self.session.get(ConflictRow, local_id)
        theirs = entry.conflict
        if row is None or theirs["resolved_at"] is None:
            return
        if row.resolved_at is not None and theirs["resolved_at"] <= row.resolved_at:
            return
        repo.change_conflict(
            self.session,
            row,
            {name: theirs[name] for name in repo.CONFLICT_FIELDS},
            actor="system",
            action=IMPORT_ACTION,
            group_id=self.report.group_id,
            note="resolved in the file mirror",
        )
        self.report.conflicts_updated.append(local_id)

    # -- links ------------------------------------------------------------------------------

    def _links(self) -> None:
        table = table_of(MemoryLinkRow)
        stored = {
            (r.source_id, r.target_id, r.kind): (r.id, r.origin)
            for r in self.conn.execute(
                select(
                    table.c.id, table.c.source_id, table.c.target_id, table.c.kind, table.c.origin
                )
            )
        }
        for link in self.mirror.links:
            key = link_key(
                self.items[link["source_id"]], self.items[link["target_id"]], link["kind"]
            )
            if key[0] == key[1]:
                continue  # two memories of the mirror are one memory here
            values = {**link, "source_id": key[0], "target_id": key[1]}
            found = stored.get(key)
            if found is None:
                self.conn.execute(table.insert().values(**values))
            elif found[1] == "discovered" and link["origin"] != "discovered":
                self.conn.execute(update(table).where(table.c.id == found[0]).values(**values))
            else:
                continue
            stored[key] = (found[0] if found else 0, link["origin"])
            self.report.links_added += 1

    # -- history ----------------------------------------------------------------------------

    def _events(self, items: list[MirrorItem], conflicts: list[MirrorConflict]) -> None:
        """The histories of the added memories and conflicts, and the store-wide events
        (categories, digests) the store lacks, in the mirror's order; their ids are kept
        unless one is taken, then all are renumbered after the store's (history is read
        in id order)."""
        events = [self._remapped(e) for i in items for e in i.history]
        events += [self._remapped(e) for c in conflicts for e in c.history]
        present = {_fingerprint(e) for e in _store_events(self.conn)}
        events += [
            e
            for e in map(self._remapped, self.mirror.store_events)
            if _fingerprint(e) not in present
        ]
        if not events:
            return
        events.sort(key=lambda e: int(e["id"]))
        table = table_of(AuditEventRow)
        ids = [e["id"] for e in events]
        clash = len(set(ids)) < len(ids) or any(
            self.conn.execute(select(table.c.id).where(table.c.id.in_(ids[n : n + 500]))).first()
            for n in range(0, len(ids), 500)
        )
        rows = [{k: v for k, v in e.items() if not (clash and k == "id")} for e in events]
        self.conn.execute(table.insert(), rows)
        self.report.events_added += len(rows)

    def _remapped(self, event: dict[str, Any]) -> dict[str, Any]:
        out = dict(event)
        if out["item_id"] is not None:
            out["item_id"] = self.items.get(out["item_id"], out["item_id"])
        if out["conflict_id"] is not None:
            out["conflict_id"] = self.conflicts.get(out["conflict_id"])
        out["before"] = self._snapshot(out["before"])
        out["after"] = self._snapshot(out["after"])
        return out

    def _snapshot(self, snap: Any) -> Any:
        """Ids inside an audit snapshot, as this store numbers them."""
        if not isinstance(snap, dict):
            return snap
        out = dict(snap)
        successor = out.get("superseded_by")
        if isinstance(successor, int):
            out["superseded_by"] = self.items.get(successor, successor)
        listed = out.get("conflicts")
        if isinstance(listed, list):
            out["conflicts"] = [self.conflicts.get(c, c) for c in listed]
        return out

    def _missing_creations(self, items: list[MirrorItem]) -> None:
        """An added memory whose history lacks its creation (a mirror made by hand) gets
        one, so it keeps its identity when edited here."""
        for item in items:
            if item.first_content != item.memory["content"] or any(
                e["action"] == "create" for e in item.history
            ):
                continue
            row = repo.get_item(self.session, self.items[item.memory["id"]])
            repo.audit(
                self.session,
                actor="system",
                action="create",
                item_id=row.id,
                group_id=None,
                before=None,
                after=repo.snapshot(row),
                note="imported from a file mirror that had no history of it",
            )
            self.report.events_added += 1

    # -- verdicts, exclusions, summaries --------------------------------------------------------

    def _judgements(self) -> None:
        table = table_of(ConflictJudgementRow)
        present = {(a, b) for a, b in self.conn.execute(select(table.c.item_a, table.c.item_b))}
        for verdict in self.mirror.judgements:
            pair = pair_key(self.items[verdict["item_a"]], self.items[verdict["item_b"]])
            if pair not in present:
                present.add(pair)
                values = {**verdict, "item_a": pair[0], "item_b": pair[1]}
                self.conn.execute(table.insert().values(**values))

    def _exclusions(self) -> None:
        table = table_of(ContextExclusionRow)
        present = {(i, p) for i, p in self.conn.execute(select(table.c.item_id, table.c.project))}
        for item in self.mirror.items:
            for exclusion in item.exclusions:
                key = (self.items[item.memory["id"]], exclusion["project"])
                if key not in present:
                    present.add(key)
                    values = {**exclusion, "item_id": key[0]}
                    self.conn.execute(table.insert().values(**values))

    def _summaries(self) -> set[str]:
        table = table_of(CategorySummaryRow)
        query = select(table.c.category, table.c.updated_at)
        present = {key: at for key, at in self.conn.execute(query)}
        taken = set()
        for category in self.mirror.categories:
            summary = category.summary
            if summary is None:
                continue
            key = summary["category"]
            if key not in present:
                self.conn.execute(table.insert().values(**summary))
            elif summary["updated_at"] > present[key]:
                self.conn.execute(update(table).where(table.c.category == key).values(**summary))
            else:
                continue
            taken.add(key)
            self.report.summaries_taken.append(key)
        return taken


class StoreMemories:
    """The store's memories as the mirror's are matched to them (the rule above): by
    origin (created when, with which words), else by what they say."""

    def __init__(self, conn: Connection) -> None:
        table = table_of(MemoryItemRow)
        query = select(
            table.c.id, table.c.category, table.c.content, table.c.content_key,
            table.c.extracted_at, table.c.updated_at, table.c.uid,
        )  # fmt: skip
        local = list(conn.execute(query).mappings())
        firsts = _first_contents(conn)
        # A memory's uid names it in every store (domain/sharing.py): the surest match.
        self.by_uid: dict[str, int] = {row["uid"]: row["id"] for row in local if row["uid"]}
        self.by_origin: dict[tuple[datetime, str], int] = {}
        self.by_content: dict[str, list[int]] = defaultdict(list)
        for row in sorted(local, key=lambda r: (r["category"], r["id"])):
            first = without_secrets(firsts.get(row["id"], row["content"]))
            self.by_origin.setdefault((row["extracted_at"], content_key(first)), row["id"])
            self.by_content[row["content_key"]].append(row["id"])
        self.category_of: dict[int, str] = {row["id"]: row["category"] for row in local}
        self.updated_at: dict[int, datetime] = {row["id"]: row["updated_at"] for row in local}

    def match(
        self,
        extracted_at: datetime | None,
        first: str,
        content: str,
        category: str,
        claimed: Collection[int] = (),
        uid: str | None = None,
    ) -> int | None:
        """The store's id of the memory that is this one, not claimed yet, or None."""
        found = self.by_uid.get(uid) if uid else None
        if found is not None and found not in claimed:
            return found
        found = None
        if extracted_at is not None:
            found = self.by_origin.get((extracted_at, content_key(without_secrets(first))))
        if found is not None and found not in claimed:
            return found
        return self._same_words(first, content, category, claimed)

    def _same_words(
        self, first: str, content: str, category: str, claimed: Collection[int]
    ) -> int | None:
        """A memory that says what the mirror's says now or said when created, not
        matched yet; one in the same category first (a memory may have moved since)."""
        keys = dict.fromkeys((content_key(content), content_key(first)))
        candidates = [i for key in keys for i in self.by_content.get(key, ()) if i not in claimed]
        same = [i for i in candidates if self.category_of[i] == category]
        if same:
            return same[0]
        return candidates[0] if candidates else None


def _free_uid(uid: str | None, taken: dict[str, int]) -> str:
    """The mirror memory's uid, or a new one when the store's memory of that uid is
    another (claimed by a memory the mirror has twice) or the mirror had none."""
    if not uid or uid in taken:
        return new_uid()
    taken[uid] = 0  # the next memory of the mirror with it gets a new one
    return uid


def _numbered(ids: Iterable[int], taken: set[int]) -> dict[int, int]:
    """Mirror id → the id it gets here: its own when free, else the next after every id
    taken or kept (a row is written with its id, so many go in one statement)."""
    wanted = list(ids)
    kept = {i for i in wanted if i not in taken}
    following = max(taken | kept, default=0) + 1
    out = {}
    for mirror_id in wanted:
        if mirror_id in kept:
            out[mirror_id] = mirror_id
        else:
            out[mirror_id], following = following, following + 1
    return out


def _categories_with_items(conn: Connection) -> set[str]:
    table = table_of(MemoryItemRow)
    return set(conn.execute(select(table.c.category).distinct()).scalars())


def _first_contents(conn: Connection) -> dict[int, str]:
    """Memory id → what it said when created (the content of its first create event)."""
    table = table_of(AuditEventRow)
    query = (
        select(table.c.item_id, table.c.after)
        .where(table.c.action == "create", table.c.item_id.is_not(None))
        .order_by(table.c.id)
    )
    out: dict[int, str] = {}
    for item_id, after in conn.execute(query):
        content = after.get("content") if isinstance(after, dict) else None
        if item_id not in out and isinstance(content, str):
            out[item_id] = content
    return out


def _store_events(conn: Connection) -> Iterable[dict[str, Any]]:
    table = table_of(AuditEventRow)
    query = select(table).where(table.c.item_id.is_(None), table.c.conflict_id.is_(None))
    return (dict(r) for r in conn.execute(query).mappings())


def _fingerprint(event: Mapping[str, Any]) -> str:
    """An event's identity apart from its id: when, who, what, and the change itself."""
    fields = {k: v for k, v in event.items() if k != "id"}
    at = fields.get("at")
    if isinstance(at, datetime):
        fields["at"] = at.isoformat()
    return json.dumps(fields, sort_keys=True, default=str)
