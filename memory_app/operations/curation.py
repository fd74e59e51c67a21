"""Curation by a person: edit, pin, forget, restore, bulk changes, undo."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlmodel import Session

from memory_app.domain.records import (
    MemoryRecord,
)
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.operations.common import (
    EDITABLE_FIELDS,
    ServiceState,
    new_group,
)
from memory_app.store import repository as repo


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
