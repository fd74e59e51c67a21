"""Curation by a person: edit, pin, archive, forget, restore, bulk changes, categories,
undo and redo."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from sqlmodel import Session

from memory_app.domain.categories import MEMORY_TYPES, Category
from memory_app.domain.records import (
    CategoryInfo,
    MemoryRecord,
)
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.operations.common import (
    EDITABLE_FIELDS,
    ServiceState,
    new_group,
)
from memory_app.store import repository as repo

MAX_CATEGORY_NAME = 60


class CurationOperations(ServiceState):
    def edit_item(self, item_id: int, **changes: Any) -> MemoryRecord:
        """Change what a person may change; every field is validated first."""
        unknown = set(changes) - set(EDITABLE_FIELDS)
        if unknown:
            raise ValidationError({name: "this field cannot be edited" for name in unknown})
        if "tags" in changes:
            changes["tags"] = sorted({t.strip().lower() for t in changes["tags"] if t.strip()})
        if "content" in changes and isinstance(changes["content"], str):
            changes["content"] = changes["content"].strip()
        with self.db.writing() as session:
            row = repo.get_item(session, item_id)
            cats = {c.key for c in repo.categories(session)}
            merged = {"valid_from": row.valid_from, "valid_until": row.valid_until, **changes}
            validate_item_fields(merged, cats, self.clock())
            old_category = row.category
            repo.change_item(
                session, row, changes, actor="user", action="update", group_id=new_group("edit")
            )
            self._refresh_summaries(session, {old_category, row.category})
            return repo.to_record(row)

    def set_pinned(self, item_id: int, pinned: bool) -> MemoryRecord:
        return self._set(item_id, {"pinned": pinned}, "pin" if pinned else "unpin")

    def forget(self, item_id: int) -> MemoryRecord:
        """Soft delete: the item leaves search and context but can be restored."""
        return self._set(item_id, {"status": "deleted"}, "delete")

    def restore(self, item_id: int) -> MemoryRecord:
        with self.db.reading() as session:
            if repo.get_item(session, item_id).status != "deleted":
                raise ValidationError({"status": f"memory {item_id} is not deleted"})
        return self._set(item_id, {"status": "active"}, "restore")

    def archive(self, item_id: int) -> MemoryRecord:
        """Put an active memory away by hand: kept, out of search and context, and
        counted no more (seed 003's archive, done by a person). Undoable."""
        with self.db.reading() as session:
            if repo.get_item(session, item_id).status != "active":
                raise ValidationError({"status": f"memory {item_id} is not active"})
        return self._set(item_id, {"status": "archived"}, "archive")

    def unarchive(self, item_id: int) -> MemoryRecord:
        """Bring an archived memory back into use. Undoable."""
        with self.db.reading() as session:
            if repo.get_item(session, item_id).status != "archived":
                raise ValidationError({"status": f"memory {item_id} is not archived"})
        return self._set(item_id, {"status": "active"}, "unarchive")

    def set_archived(self, item_ids: Sequence[int], archived: bool) -> list[int]:
        """Archive (or unarchive) many memories as one undoable step; only the active
        (or archived) ones among them change. Returns the ids that changed."""
        wanted, status = ("active", "archived") if archived else ("archived", "active")
        with self.db.reading() as session:
            rows = repo.items_by_ids(session, item_ids)
            ids = [i for i in item_ids if i in rows and rows[i].status == wanted]
        if not ids:
            raise ValidationError({"status": f"none of these memories is {wanted}"})
        return self.bulk_set(ids, "archive" if archived else "unarchive", status=status)

    def keep(self, item_id: int) -> MemoryRecord:
        """Release a memory held for review (a possible secret): a person looked at it."""
        with self.db.reading() as session:
            if repo.get_item(session, item_id).status != "held":
                raise ValidationError({"status": f"memory {item_id} is not held for review"})
        return self._set(item_id, {"status": "active"}, "keep")

    def bulk_set(self, item_ids: Sequence[int], action: str, **changes: Any) -> list[int]:
        """One undoable step over many items (bulk delete, pin, re-categorize)."""
        group = new_group(action)
        with self.db.writing() as session:
            cats = {c.key for c in repo.categories(session)}
            validate_item_fields(changes, cats, self.clock())
            touched: set[str] = set()
            for item_id in item_ids:
                row = repo.get_item(session, item_id)
                touched.add(row.category)  # before: a re-categorized item leaves it
                repo.change_item(session, row, changes, actor="user", action=action, group_id=group)
                touched.add(row.category)
            self._refresh_summaries(session, touched)
        return list(item_ids)

    def clear_category(self, key: str) -> int:
        """Forget every active item of a category, as one undoable step."""
        with self.db.reading() as session:
            self._require_category(session, key)
            ids = [r.id for r in repo.list_items(session, category=key, limit=10**9) if r.id]
        self.bulk_set(ids, "delete", status="deleted")
        return len(ids)

    def undo(self, actor: str = "user") -> list[int]:
        """Undo the last change by `actor` (a person's edit, delete, bulk action or
        conflict resolution; "system" for an auto-resolution); returns item ids."""
        with self.db.writing() as session:
            group = repo.last_undoable_group(session, actor=actor)
            if group is None:
                return []
            return self._undo_group(session, group)

    def redo(self, actor: str = "user") -> list[int]:
        """Redo the last change `actor` undid (returns item ids; [] with nothing to
        redo). Undos form a stack that redo walks back, newest first; any new change by
        the actor empties it. A redo is itself undoable."""
        with self.db.writing() as session:
            undone = repo.last_redoable_group(session, actor=actor)
            if undone is None:
                return []
            cats = repo.group_categories(session, undone)
            touched = repo.redo_group(session, undone, actor="user")
            cats |= {repo.get_item(session, i).category for i in touched}
            self._refresh_summaries(session, cats)
            return touched

    def can_undo(self, actor: str = "user") -> bool:
        """Whether `undo()` has a change to take back (it may touch no memory: a
        category's name, say)."""
        with self.db.reading() as session:
            return repo.last_undoable_group(session, actor=actor) is not None

    def can_redo(self, actor: str = "user") -> bool:
        with self.db.reading() as session:
            return repo.last_redoable_group(session, actor=actor) is not None

    def undo_group(self, group_id: str) -> list[int]:
        """Undo one group of changes by its id, whoever made it; returns item ids."""
        with self.db.writing() as session:
            return self._undo_group(session, group_id)

    def _undo_group(self, session: Session, group_id: str) -> list[int]:
        # Both sides of an undone move: the category an item leaves must stop citing it.
        cats = repo.group_categories(session, group_id)
        touched = repo.undo_group(session, group_id, actor="user")
        cats |= {repo.get_item(session, i).category for i in touched}
        self._refresh_summaries(session, cats)
        return touched

    # -- categories (seed 000 keeps them as data) -------------------------------------

    def add_category(
        self, name: str, description: str = "", *, default_type: str = "fact"
    ) -> CategoryInfo:
        """A new, empty category after the others; its key is made from the name.
        Undoable (while it is still empty)."""
        name, description = _clean_name(name), " ".join(description.split())
        if default_type not in MEMORY_TYPES:
            raise ValidationError(
                {"default_type": f"unknown type {default_type!r}; known: {', '.join(MEMORY_TYPES)}"}
            )
        with self.db.writing() as session:
            known = repo.categories(session)
            _check_name_free(name, known)
            key = category_key(name, {c.key for c in known} | set(repo.category_redirects(session)))
            state = {
                "category_row": {
                    "name": name,
                    "description": description,
                    "default_type": default_type,
                    "position": max((c.position for c in known), default=-1) + 1,
                }
            }
            repo.set_category(
                session,
                key,
                state,
                actor="user",
                action="add_category",
                group_id=new_group("add_category"),
            )
            self._refresh_summaries(session, {key})
            return next(c for c in repo.category_infos(session) if c.key == key)

    def rename_category(
        self, key: str, name: str | None = None, description: str | None = None
    ) -> CategoryInfo:
        """Change a category's display name and/or description (its key, which memories
        refer to, stays). Undoable."""
        with self.db.writing() as session:
            self._require_category(session, key)
            state = repo.category_snapshot(session, key)
            row = dict(state["category_row"])
            if name is not None:
                row["name"] = _clean_name(name)
                _check_name_free(row["name"], [c for c in repo.categories(session) if c.key != key])
            if description is not None:
                row["description"] = " ".join(description.split())
            if row != state["category_row"]:
                repo.set_category(
                    session,
                    key,
                    {**state, "category_row": row},
                    actor="user",
                    action="rename_category",
                    group_id=new_group("rename_category"),
                )
                self._refresh_summaries(session, {key})  # the summary's title is its name
            return next(c for c in repo.category_infos(session) if c.key == key)

    def merge_category(self, source: str, target: str) -> int:
        """Move every memory of `source` (whatever its status) into `target` and remove
        the emptied `source`, as one undoable step; both summaries are refreshed, and an
        extractor that still names `source` is understood as `target`. Returns how many
        memories moved."""
        if source == target:
            raise ValidationError({"category": "a category cannot be merged into itself"})
        group = new_group("merge_category")
        with self.db.writing() as session:
            self._require_category(session, source)
            self._require_category(session, target)
            rows = repo.list_items(session, category=source, statuses=(), limit=10**9)
            for row in rows:
                repo.change_item(
                    session,
                    row,
                    {"category": target},
                    actor="user",
                    action="merge_category",
                    group_id=group,
                )
            repo.set_category(
                session,
                source,
                {"category_row": None, "merged_into": target},
                actor="user",
                action="merge_category",
                group_id=group,
            )
            self._refresh_summaries(session, {target})
            return len(rows)

    def _set(self, item_id: int, changes: dict[str, Any], action: str) -> MemoryRecord:
        with self.db.writing() as session:
            row = repo.get_item(session, item_id)
            repo.change_item(
                session, row, changes, actor="user", action=action, group_id=new_group(action)
            )
            self._refresh_summaries(session, {row.category})
            return repo.to_record(row)

    def _refresh_summaries(self, session: Session, keys: Iterable[str]) -> None:
        cats = {c.key: c for c in repo.categories(session)}
        for key in sorted(set(keys)):
            if key in cats:
                self._write_summary(session, cats[key])

    @staticmethod
    def _require_category(session: Session, key: str) -> None:
        known = [c.key for c in repo.categories(session)]
        if key not in known:
            raise ValidationError(
                {"category": f"unknown category {key!r}; known: {', '.join(known)}"}
            )


def _clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ValidationError({"name": "a category needs a name"})
    if len(name) > MAX_CATEGORY_NAME:
        raise ValidationError({"name": f"at most {MAX_CATEGORY_NAME} characters"})
    return name


def _check_name_free(name: str, others: Iterable[Category]) -> None:
    if any(c.name.casefold() == name.casefold() for c in others):
        raise ValidationError({"name": f"there is already a category called {name!r}"})


def category_key(name: str, taken: Collection[str]) -> str:
    """A stable key for a new category: its name in lower-case words joined by "_"
    ("Testing notes" → "testing_notes"), numbered when taken (merged-away keys count
    as taken, so old extractions are not mistaken for the new category)."""
    words = re.findall(r"[0-9a-z]+", unicodedata.normalize("NFKD", name).lower())
    base = "_".join(words)[:40].strip("_") or "category"
    key, number = base, 2
    while key in taken:
        key, number = f"{base}_{number}", number + 1
    return key
