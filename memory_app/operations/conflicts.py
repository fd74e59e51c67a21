"""Contradictions: detection, conflict records, resolution and reopening."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from sqlmodel import Session

from memory_app.conflicts import detector
from memory_app.conflicts import resolution as resolving
from memory_app.conflicts.candidates import same_scope
from memory_app.domain.records import (
    CONFLICT_DECISIONS,
    ConflictDetail,
    ConflictRecord,
)
from memory_app.domain.validation import ValidationError
from memory_app.operations.common import (
    RECENT_SCAN,
    ServiceState,
    new_group,
)
from memory_app.store import conflicts as conflict_store
from memory_app.store import insights
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

log = logging.getLogger(__name__)


class ConflictOperations(ServiceState):
    def conflicts(self, statuses: Sequence[str] = ()) -> list[ConflictRecord]:
        with self.db.reading() as session:
            return insights.conflicts(session, tuple(statuses))

    # -- contradictions (seed 000 §1.4, §4.3; seed 004) -----------------------------------

    def detect_conflicts(self, item_ids: Sequence[int] | None = None) -> list[int]:
        """Look for contradictions of these items (None: the newest active ones) among
        their full-text candidates; returns the ids of the conflicts opened. A pair is
        judged once ever, so running this again is cheap and opens nothing twice."""
        if item_ids is None:
            with self.db.reading() as session:
                rows = repo.list_items(session, limit=RECENT_SCAN)
                item_ids = [r.id for r in rows if r.id is not None]
        return self._detect(item_ids)

    def _detect(self, item_ids: Sequence[int]) -> list[int]:
        if not item_ids:
            return []
        with self.db.reading() as session:
            pairs = detector.plan(session, self.db.dialect, item_ids)
        judged = detector.judge_pairs(pairs, self.conflict_judge)  # no lock held
        with self.db.writing() as session:
            opened = detector.record_verdicts(session, judged)
            for conflict_id, verdict in opened:
                if verdict.is_update:
                    self._supersede_update(session, conflict_id)
                elif self.auto_resolve == "newer_if_confident":
                    self._auto_resolve(session, conflict_id)
        return [conflict_id for conflict_id, _ in opened]

    def _record_stated_update(self, session: Session, older_id: int, newer_id: int) -> None:
        """The extractor said the new memory updates an existing one (seed 000 §2.4):
        the same as an update the judge found, if the older is still active and in the
        same scope."""
        rows = repo.items_by_ids(session, (older_id, newer_id))
        older, newer = rows.get(older_id), rows.get(newer_id)
        if older is None or newer is None or older.status != "active" or older_id == newer_id:
            return
        if not same_scope(older, newer):
            return
        judge = self.extractor.name
        if not conflict_store.save_verdict(
            session, older_id, newer_id, contradicts=True, reason="updated", judge=judge
        ):
            return
        row = conflict_store.create_conflict(
            session,
            newer.category,
            (older_id, newer_id),
            reason=f"updated by {judge}",
            detector=judge,
        )
        self._supersede_update(session, row.id or 0)

    def _supersede_update(self, session: Session, conflict_id: int) -> None:
        """The newer statement says it changes the rule ("from now on", "switched",
        "instead"): it supersedes the older one at once. Recorded as a conflict resolved
        automatically, so the inbox shows it and one Reopen (or undo) reverses it."""
        row = conflict_store.get_conflict(session, conflict_id)
        items = self._conflict_items(session, conflict_id)
        self._apply_resolution(
            session,
            row,
            items,
            "mark_outdated",
            "an update: the newer statement changes the rule",
            None,
            actor="system",
            status="auto_resolved",
        )

    def _detect_quietly(self, item_ids: Sequence[int]) -> list[int]:
        """Detection after memorizing: a failure there must never lose the import."""
        try:
            return self._detect(item_ids)
        except Exception:
            log.exception("contradiction detection failed; the memories were stored")
            return []

    def _auto_resolve(self, session: Session, conflict_id: int) -> None:
        row = conflict_store.get_conflict(session, conflict_id)
        items = self._conflict_items(session, conflict_id)
        if items[-1].confidence >= items[0].confidence:
            self._apply_resolution(
                session, row, items, "keep_newer", "", None, actor="system", status="auto_resolved"
            )

    def open_conflicts_for(self, item_ids: Iterable[int]) -> dict[int, list[int]]:
        """Item id → ids of the open conflicts it is in (items in none are left out)."""
        with self.db.reading() as session:
            return conflict_store.open_conflicts_for(session, item_ids)

    def get_conflict(self, conflict_id: int) -> ConflictRecord:
        with self.db.reading() as session:
            return conflict_store.to_record(
                session, conflict_store.get_conflict(session, conflict_id)
            )

    def conflict_detail(self, conflict_id: int) -> ConflictDetail:
        """A conflict side by side: its memories oldest first, each with an excerpt of
        the conversation it came from."""
        with self.db.reading() as session:
            row = conflict_store.get_conflict(session, conflict_id)
            items = self._conflict_items(session, conflict_id)
            return ConflictDetail(
                record=conflict_store.to_record(session, row),
                items=tuple(repo.to_record(i) for i in items),
                excerpts={i.id or 0: conflict_store.excerpt(session, i) for i in items},
            )

    def resolve_conflict(
        self,
        conflict_id: int,
        decision: str,
        *,
        note: str = "",
        merged_content: str | None = None,
    ) -> ConflictRecord:
        """Decide an open conflict (see conflicts/resolution.py for what each decision
        does). One undoable step: `undo()` restores the memories and reopens it."""
        known = CONFLICT_DECISIONS
        if decision not in known:
            raise ValidationError(
                {"decision": f"unknown decision {decision!r}; known: {', '.join(known)}"}
            )
        if decision != "merge" and merged_content is not None:
            raise ValidationError({"merged_content": "only a merge takes a new statement"})
        note = " ".join(note.split())
        with self.db.writing() as session:
            row = conflict_store.get_conflict(session, conflict_id)
            if row.status not in repo.OPEN_CONFLICT_STATUSES:
                raise ValidationError(
                    {
                        "conflict": f"conflict #{conflict_id} is already resolved "
                        f"({row.status}); undo that resolution to decide again"
                    }
                )
            items = self._conflict_items(session, conflict_id)
            self._apply_resolution(
                session,
                row,
                items,
                decision,
                note,
                merged_content,
                actor="user",
                status=resolving.DECISIONS[decision],
            )
            return conflict_store.to_record(session, row)

    def reopen_conflict(self, conflict_id: int) -> ConflictRecord:
        """Undo the latest resolution of this conflict (a person's or an automatic one)."""
        with self.db.writing() as session:
            row = conflict_store.get_conflict(session, conflict_id)
            group = conflict_store.last_resolution_group(session, conflict_id)
            if group is None or row.status in repo.OPEN_CONFLICT_STATUSES:
                raise ValidationError({"conflict": f"conflict #{conflict_id} is not resolved"})
            self._undo_group(session, group)
            session.refresh(row)
            return conflict_store.to_record(session, row)

    def _conflict_items(self, session: Session, conflict_id: int) -> list[MemoryItemRow]:
        rows = repo.items_by_ids(session, conflict_store.member_ids(session, conflict_id))
        return resolving.ordered(list(rows.values()))

    def _apply_resolution(
        self,
        session: Session,
        row: Any,
        items: list[MemoryItemRow],
        decision: str,
        note: str,
        merged_content: str | None,
        *,
        actor: str,
        status: str,
    ) -> None:
        if len(items) < 2:
            raise ValidationError({"conflict": f"conflict #{row.id} has fewer than two memories"})
        now = self.clock()
        group = new_group("auto_resolve" if actor == "system" else "resolve")
        merged = resolving.apply(
            resolving.Resolution(session, row, items, decision, note, actor, group, now),
            merged_content,
        )
        repo.change_conflict(
            session,
            row,
            {"status": status, "decision": decision, "notes": note or None, "resolved_at": now},
            actor=actor,
            action=resolving.ACTION,
            group_id=group,
        )
        cats = {i.category for i in items} | ({merged.category} if merged else set())
        self._refresh_summaries(session, cats)
