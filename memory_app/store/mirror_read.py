"""Reading a mirror folder (store/mirror_files.py) into checked values, before anything is
written: every file is parsed and every row checked against its table's columns and the
seed 000 rules, so a bad file stops the import with its name and line and the store is
left as it was.

Two machines that each learnt a new memory give them the same id in different files
(`items/…/245-….json` twice once git merges their mirrors). Two files with one id are the
same memory written twice, refused, when they were created at the same moment with the
same words; otherwise the later file's memory is given a new number here. A reference to
such an id is then told apart where it can be: a conflict member by the content written
with it, a successor by the conflict it shares with the memory it replaced; a verdict
that cannot be told apart is left out (the pair is judged again if it matters), any
other reference is refused with its file and line.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlmodel import SQLModel

from memory_app.domain.records import CONFLICT_STATUSES
from memory_app.domain.similarity import content_key
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.links.model import KINDS, ORIGINS
from memory_app.store import mirror_files as layout
from memory_app.store.mirror_export import (
    EPISODE_KIND,
    ITEM_LEFT_OUT,
    LINK_LEFT_OUT,
    RESOURCE_LEFT_OUT,
    SUMMARY_TEXTS,
    first_content,
    without_secrets,
)
from memory_app.store.mirror_files import Located, MirrorError
from memory_app.store.row_json import FieldProblem, decode_row, unknown_keys
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
)

# The rules a person's edit must meet, checked on a memory read from a file too.
_CHECKED_FIELDS = (
    "content",
    "category",
    "confidence",
    "importance",
    "type",
    "scope",
    "status",
    "tags",
    "extracted_at",
    "valid_from",
    "valid_until",
    "last_accessed_at",
)


@dataclass
class MirrorItem:
    path: Path
    memory: dict[str, Any]  # column values, typed
    history: list[dict[str, Any]]  # its audit events, oldest first
    exclusions: list[dict[str, Any]]  # projects it is never injected into
    first_content: str  # what it said when created: part of its identity
    file_id: int = 0  # the id its file gives; memory["id"] differs when it was taken

    @property
    def origin(self) -> tuple[datetime, str]:
        """Who it is across stores: when it was created, with which words."""
        return self.memory["extracted_at"], content_key(without_secrets(self.first_content))


@dataclass
class MirrorConflict:
    conflict: dict[str, Any]
    members: list[dict[str, Any]]
    history: list[dict[str, Any]]


@dataclass
class MirrorCategory:
    row: dict[str, Any]
    summary: dict[str, Any] | None  # with its markdown and digest


@dataclass
class Mirror:
    folder: Path
    schema_version: int
    categories: list[MirrorCategory] = field(default_factory=list)
    store_events: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    items: list[MirrorItem] = field(default_factory=list)
    conflicts: list[MirrorConflict] = field(default_factory=list)
    judgements: list[dict[str, Any]] = field(default_factory=list)
    # "memory.foo" → files: fields written by a store with columns this one lacks.
    unknown_fields: Counter[str] = field(default_factory=Counter)
    verdicts_left_out: int = 0  # about an id two memories share: cannot tell which
    links: list[dict[str, Any]] = field(default_factory=list)  # a person's, by mirror ids
    links_left_out: int = 0  # about an id two memories share, as verdicts


@dataclass(frozen=True)
class ItemIdentity:
    """What tells a memory file's memory apart, read leniently (an export deciding
    whether a file it would remove is of a memory its store has)."""

    path: Path
    item_id: int | None
    extracted_at: datetime | None
    content: str
    first_content: str
    category: str


def read_mirror(folder: Path) -> Mirror:
    """The whole mirror, checked; raises MirrorError naming the file (and line)."""
    manifest = read_manifest(folder)
    mirror = Mirror(folder, int(manifest.get("schema_version") or 0))
    reader = _Reader(folder, mirror)
    reader.categories()
    reader.store_events()
    reader.resources()
    reader.items()
    reader.conflicts()
    reader.successors()
    reader.links()
    return mirror


def read_manifest(folder: Path) -> Located:
    """The manifest, once the folder is known to be a mirror this version can read."""
    if not folder.exists():
        raise MirrorError(folder, "no such folder")
    if not folder.is_dir():
        raise MirrorError(folder, "is a file, not a mirror folder")
    if not (folder / layout.MANIFEST).is_file():
        raise MirrorError(
            folder,
            f"is not a memory mirror: it has no {layout.MANIFEST} "
            "(`memory-app export files DIR` writes one)",
        )
    path = folder / layout.MANIFEST
    manifest: Located = layout.require(
        layout.load_json(folder, layout.MANIFEST), dict, path, "the file"
    )
    if manifest.get("format") != layout.FORMAT:
        raise MirrorError(
            path,
            f"is not a Memory Curator mirror (format {manifest.get('format')!r}, "
            f"expected {layout.FORMAT!r})",
            manifest.line_of("format"),
        )
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise MirrorError(path, f"version must be a whole number, got {version!r}")
    if version > layout.VERSION:
        raise MirrorError(
            path,
            f"was written by a newer Memory Curator (mirror format {version}; this one "
            f"reads up to {layout.VERSION}): update memory-app to import it",
            manifest.line_of("version"),
        )
    for relative in layout.REQUIRED:
        if not (folder / relative).is_file():
            raise MirrorError(folder / relative, "is missing: the mirror is incomplete")
    return manifest


class _Reader:
    """One pass over the files; ids and keys seen so far check the references."""

    def __init__(self, folder: Path, mirror: Mirror) -> None:
        self.folder = folder
        self.mirror = mirror
        self.category_keys: set[str] = set()
        self.resource_ids: set[int] = set()
        self.by_file_id: dict[int, list[MirrorItem]] = defaultdict(list)  # its file's id
        self.pairs: set[frozenset[int]] = set()  # members of one conflict, two by two

    # -- one file each --------------------------------------------------------------------

    def categories(self) -> None:
        path, entries = self._list(layout.CATEGORY_INDEX, "categories")
        for entry in entries:
            row = self._row(CategoryRow, entry, path, "a category", extra=("summary",))
            key = row["key"]
            if key in self.category_keys:
                raise MirrorError(path, f"category {key!r} is listed twice", entry.line)
            self.category_keys.add(key)
            summary = entry.get("summary")
            if summary is None:
                self.mirror.categories.append(MirrorCategory(row, None))
                continue
            where = f"the summary of {key!r}"
            summary = layout.require(summary, dict, path, where, entry, "summary")
            values = self._row(CategorySummaryRow, summary, path, where, skip=SUMMARY_TEXTS)
            if values["category"] != key:
                raise MirrorError(
                    path, f"{where} names category {values['category']!r}", summary.line
                )
            markdown = layout.summary_path(key)
            if not (self.folder / markdown).is_file():
                raise MirrorError(self.folder / markdown, f"is missing ({where})")
            values["markdown"] = layout.read_markdown(self.folder, markdown)
            digest = layout.digest_path(key)
            has_digest = (self.folder / digest).is_file()
            values["digest"] = layout.read_markdown(self.folder, digest) if has_digest else ""
            self.mirror.categories.append(MirrorCategory(row, values))

    def store_events(self) -> None:
        path, entries = self._list(layout.CATEGORY_HISTORY, "events")
        for entry in entries:
            event = self._row(AuditEventRow, entry, path, "an event", required=("id",))
            if event["item_id"] is not None or event["conflict_id"] is not None:
                raise MirrorError(
                    path, "an event of a memory or a conflict belongs in its file", entry.line
                )
            self.mirror.store_events.append(event)

    def resources(self) -> None:
        path, entries = self._list(layout.RESOURCE_INDEX, "resources")
        hashes: set[str] = set()
        for entry in entries:
            row = self._row(
                ResourceRow, entry, path, "a conversation", skip=RESOURCE_LEFT_OUT, required=("id",)
            )
            if row["id"] in self.resource_ids or row["content_hash"] in hashes:
                raise MirrorError(path, f"conversation #{row['id']} is listed twice", entry.line)
            self.resource_ids.add(row["id"])
            hashes.add(row["content_hash"])
            self.mirror.resources.append(row)

    def items(self) -> None:
        for relative in layout.files_under(self.folder, layout.ITEMS, ".json"):
            item = self._item(relative)
            self.by_file_id[item.file_id].append(item)
            self.mirror.items.append(item)
        following = max(self.by_file_id, default=0) + 1
        for file_id, items in sorted(self.by_file_id.items()):
            for n, item in enumerate(items[1:], start=1):
                same = next((o for o in items[:n] if o.origin == item.origin), None)
                if same is not None:
                    raise MirrorError(
                        item.path,
                        f"memory #{file_id} is also in {same.path}",
                        _line(item.path, "id"),
                    )
                _renumber(item, following)
                following += 1

    def successors(self) -> None:
        """Every `superseded_by` names a memory of the mirror (told apart when two
        memories share its id); run once the conflicts are read."""
        for item in self.mirror.items:
            successor = item.memory["superseded_by"]
            if successor is None:
                continue
            candidates = self.by_file_id.get(successor, [])
            if len(candidates) > 1:
                candidates = [
                    c
                    for c in candidates
                    if frozenset((c.memory["id"], item.memory["id"])) in self.pairs
                ]
                if len(candidates) != 1:
                    raise MirrorError(
                        item.path,
                        f"superseded_by names memory #{successor}, which two memories of "
                        f"the mirror have as their id ({self._files(successor)}): give one "
                        "of them another id",
                        _line(item.path, "superseded_by"),
                    )
            if not candidates:
                raise MirrorError(
                    item.path,
                    f"superseded_by names memory #{successor}, which the mirror does not hold",
                    _line(item.path, "superseded_by"),
                )
            item.memory["superseded_by"] = candidates[0].memory["id"]

    def conflicts(self) -> None:
        path = self.folder / layout.CONFLICTS
        top = layout.require(layout.load_json(self.folder, layout.CONFLICTS), dict, path, "file")
        entries = layout.require(top.get("conflicts", []), list, path, "conflicts")
        seen: set[int] = set()
        for entry in entries:
            self.mirror.conflicts.append(self._conflict(path, entry, seen))
        judged = layout.require(top.get("judgements", []), list, path, "judgements")
        for entry in judged:
            row = self._row(ConflictJudgementRow, entry, path, "a verdict")
            for name in ("item_a", "item_b"):
                self._known_item(row[name], path, entry, name)
            if any(len(self.by_file_id[row[n]]) > 1 for n in ("item_a", "item_b")):
                self.mirror.verdicts_left_out += 1  # about which of the two? Unknown
                continue
            self.mirror.judgements.append(row)

    def links(self) -> None:
        """links.json, when there is one (a mirror written before links has none)."""
        if not (self.folder / layout.LINKS).is_file():
            return
        path, entries = self._list(layout.LINKS, "links")
        for entry in entries:
            row = self._row(MemoryLinkRow, entry, path, "a link", skip=LINK_LEFT_OUT)
            for name, known in (("kind", KINDS), ("origin", ORIGINS)):
                if row[name] not in known or row[name] == EPISODE_KIND:
                    choices = ", ".join(k for k in known if k != EPISODE_KIND)
                    raise MirrorError(
                        path,
                        f"a link has {name} {row[name]!r}; known: {choices}",
                        entry.line_of(name),
                    )
            for name in ("source_id", "target_id"):
                self._known_item(row[name], path, entry, name)
            if any(len(self.by_file_id[row[n]]) > 1 for n in ("source_id", "target_id")):
                self.mirror.links_left_out += 1  # between which of the two? Unknown
                continue
            self.mirror.links.append(row)

    # -- parts ------------------------------------------------------------------------------

    def _item(self, relative: str) -> MirrorItem:
        path = self.folder / relative
        top = layout.require(layout.load_json(self.folder, relative), dict, path, "the file")
        data = layout.require(top.get("memory"), dict, path, '"memory"', top, "memory")
        memory = self._row(
            MemoryItemRow, data, path, "the memory", skip=ITEM_LEFT_OUT, required=("id",)
        )
        item_id = memory["id"]
        try:
            checked = {k: memory[k] for k in _CHECKED_FIELDS if k in memory}
            validate_item_fields(checked, self.category_keys)
        except ValidationError as exc:
            name, message = next(iter(exc.errors.items()))
            raise MirrorError(path, f"{name}: {message}", data.line_of(name)) from None
        resource = memory["source_resource_id"]
        if resource is not None and resource not in self.resource_ids:
            raise MirrorError(
                path,
                f"source_resource_id names conversation #{resource}, which "
                f"{layout.RESOURCE_INDEX} does not list",
                data.line_of("source_resource_id"),
            )
        history = self._events(top, path, "item_id", item_id)
        exclusions = []
        listed = layout.require(top.get("context_exclusions", []), list, path, "exclusions")
        for entry in listed:
            row = self._row(ContextExclusionRow, entry, path, "a context exclusion")
            if row["item_id"] != item_id:
                raise MirrorError(path, f"an exclusion of memory #{row['item_id']}", entry.line)
            exclusions.append(row)
        first = first_content(memory, history)
        return MirrorItem(path, memory, history, exclusions, first, item_id)

    def _conflict(self, path: Path, entry: Any, seen: set[int]) -> MirrorConflict:
        conflict = self._row(
            ConflictRow, entry, path, "a conflict", required=("id",), extra=("members", "history")
        )
        number = conflict["id"]
        if number in seen:
            raise MirrorError(path, f"conflict #{number} is listed twice", entry.line)
        seen.add(number)
        if conflict["category"] not in self.category_keys:
            raise MirrorError(
                path,
                f"conflict #{number} is filed under category {conflict['category']!r}, "
                f"which {layout.CATEGORY_INDEX} does not list",
                entry.line_of("category"),
            )
        if conflict["status"] not in CONFLICT_STATUSES:
            raise MirrorError(
                path,
                f"conflict #{number} has status {conflict['status']!r}; "
                f"known: {', '.join(CONFLICT_STATUSES)}",
                entry.line_of("status"),
            )
        members: list[dict[str, Any]] = []
        listed = layout.require(entry.get("members"), list, path, "members", entry, "members")
        for member in listed:
            row = self._row(ConflictMemberRow, member, path, "a member", extra=("content",))
            row["item_id"] = self._member(row["item_id"], path, member)
            if row["conflict_id"] != number:
                raise MirrorError(path, f"a member of conflict #{row['conflict_id']}", member.line)
            if any(m["item_id"] == row["item_id"] for m in members):
                raise MirrorError(
                    path,
                    f"memory #{row['item_id']} is listed twice among the members of "
                    f"conflict #{number}",
                    member.line_of("item_id"),
                )
            members.append(row)
        if len(members) < 2:
            raise MirrorError(path, f"conflict #{number} has fewer than two members", entry.line)
        ids = [m["item_id"] for m in members]
        self.pairs |= {frozenset((a, b)) for a in ids for b in ids if a != b}
        history = self._events(entry, path, "conflict_id", number)
        return MirrorConflict(conflict, sorted(members, key=lambda m: m["position"]), history)

    def _events(self, owner: Located, path: Path, key: str, owner_id: int) -> list[dict[str, Any]]:
        """The history list of a memory or conflict: events naming it, by id."""
        listed = layout.require(owner.get("history", []), list, path, "history")
        events = []
        for entry in listed:
            event = self._row(AuditEventRow, entry, path, "a history event", required=("id",))
            if event[key] != owner_id:
                raise MirrorError(path, f"a history event of #{event[key]}", entry.line)
            events.append(event)
        return sorted(events, key=lambda e: int(e["id"]))

    def _known_item(self, item_id: int, path: Path, owner: Located, key: str) -> None:
        if not self.by_file_id.get(item_id):
            message = f"memory #{item_id} is not in the mirror"
            raise MirrorError(path, message, owner.line_of(key))

    def _member(self, item_id: int, path: Path, member: Located) -> int:
        """The memory a conflict member names: by its id, or when two memories have
        that id, by the content written with the member."""
        self._known_item(item_id, path, member, "item_id")
        candidates = self.by_file_id[item_id]
        if len(candidates) > 1:
            content = member.get("content")
            candidates = [c for c in candidates if c.memory["content"] == content]
            if len(candidates) != 1:
                raise MirrorError(
                    path,
                    f"memory #{item_id} is the id of two memories of the mirror "
                    f"({self._files(item_id)}) and this member's content tells neither "
                    "apart: give one of them another id",
                    member.line_of("item_id"),
                )
        return int(candidates[0].memory["id"])

    def _files(self, file_id: int) -> str:
        return ", ".join(str(c.path.relative_to(self.folder)) for c in self.by_file_id[file_id])

    def _list(self, relative: str, key: str) -> tuple[Path, list[Any]]:
        path = self.folder / relative
        top = layout.require(layout.load_json(self.folder, relative), dict, path, "the file")
        return path, layout.require(top.get(key, []), list, path, f'"{key}"', top, key)

    def _row(
        self,
        model: type[SQLModel],
        entry: Any,
        path: Path,
        what: str,
        *,
        skip: Collection[str] = (),
        required: Collection[str] = (),
        extra: Iterable[str] = (),
    ) -> dict[str, Any]:
        """One row's columns from a JSON object, or a MirrorError at the field's line."""
        data: Located = layout.require(entry, dict, path, what)
        try:
            values = decode_row(model, data, skip=skip, required=required)
        except FieldProblem as problem:
            raise MirrorError(
                path, f"{what}: {problem.field} {problem.message}", data.line_of(problem.field)
            ) from None
        for name in unknown_keys(model, data, extra=(*skip, *extra)):
            table = model.__tablename__
            self.mirror.unknown_fields[f"{table}.{name}"] += 1
        return values


def _renumber(item: MirrorItem, new_id: int) -> None:
    """Give a memory whose id another memory of the mirror has a number of its own
    (its history and exclusions follow); the store gives it its final id."""
    item.memory["id"] = new_id
    for event in item.history:
        event["item_id"] = new_id
    for exclusion in item.exclusions:
        exclusion["item_id"] = new_id


def item_identity(folder: Path, relative: str) -> ItemIdentity | None:
    """A memory file's identity, or None when the file cannot be read as one."""
    try:
        top = layout.load_json(folder, relative)
    except MirrorError:
        return None
    memory = top.get("memory") if isinstance(top, dict) else None
    if not isinstance(memory, dict) or not isinstance(memory.get("content"), str):
        return None
    item_id = memory.get("id")
    try:
        created = datetime.fromisoformat(str(memory.get("extracted_at")))
    except ValueError:
        created = None
    history = top.get("history")
    events = [e for e in history if isinstance(e, dict)] if isinstance(history, list) else []
    return ItemIdentity(
        path=folder / relative,
        item_id=item_id if isinstance(item_id, int) and not isinstance(item_id, bool) else None,
        extracted_at=created if created is not None and created.tzinfo is not None else None,
        content=memory["content"],
        first_content=first_content(memory, events),
        category=str(memory.get("category", "")),
    )


def _line(path: Path, key: str) -> int | None:
    """The line of a memory's field in its file (re-read; for errors found later)."""
    try:
        top = layout.load_json(path.parent, path.name)
    except MirrorError:
        return None
    memory = top.get("memory") if isinstance(top, dict) else None
    return memory.line_of(key) if isinstance(memory, Located) else None
