"""Maintenance for every front end: run a job, review and apply what it proposes, undo,
schedules and what is due (seed 000 §6, seed 001 §5, seed 003, seed 004 §3).

A run reads the store, proposes changes and records them with the run. A dry run stops
there and changes nothing else. A real run also does the parts nobody needs to review
(the contradiction scan, decay factors, missing or outdated category summaries,
rebuilding the search index) and, with `apply`, applies every proposal as one undoable
group; without it the proposals wait for a person in the Maintenance view. Model calls
never happen while the write lock is held.

Maintenance rewrites many memories at once, so before it writes it runs the store's
bounded integrity check: a damaged store is refused (DatabaseDamagedError) rather than
made worse, and the message offers the latest backup.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_app.chunks.store import build_all_chunks
from memory_app.conflicts import detector
from memory_app.domain.categories import Category
from memory_app.domain.jobs import JobCancelled, JobState
from memory_app.domain.maintenance import (
    CHANGE_KINDS,
    DECISIONS,
    JOB_KINDS,
    RUN_KINDS,
    ProposedChange,
    Schedule,
    is_due,
    next_due,
)
from memory_app.domain.records import MaintenanceRunRecord, MemoryRecord
from memory_app.links.discover import rebuild_links
from memory_app.maintenance import consolidation, reindex, summarization
from memory_app.operations.common import ServiceState, new_group
from memory_app.store import maintenance as store
from memory_app.store import summaries as summary_store
from memory_app.store.errors import DatabaseDamagedError

log = logging.getLogger(__name__)

# The newest memories the nightly contradiction scan looks at: every memory was already
# checked when it was learnt, so this catches what changed or was missed since.
CONTRADICTION_SCAN = 200
REVIEW_DECISIONS = ("pending", "accepted", "rejected")


@dataclass(frozen=True)
class JobStatus:
    """One job as the schedule shows it: how often, when it last ran, when it is due."""

    schedule: Schedule
    last_run: datetime | None
    next_run: datetime | None
    due: bool


@dataclass(frozen=True)
class ApplyResult:
    applied: int
    stale: int
    group_id: str | None
    run_id: int


class MaintenanceOperations(ServiceState):
    # -- running -----------------------------------------------------------------------

    def run_maintenance(
        self,
        kind: str,
        *,
        dry_run: bool = False,
        apply: bool = True,
        job: JobState | None = None,
    ) -> MaintenanceRunRecord:
        """Run one job ("nightly", "weekly", "monthly") or all three ("full").

        Never raises for a failing job: the run is logged as an error (or cancelled)
        with the store as it was, and the record says so. A damaged store raises
        DatabaseDamagedError instead: nothing is written to it, not even the log."""
        if kind not in RUN_KINDS:
            raise ValueError(f"unknown maintenance job {kind!r}; known: {', '.join(RUN_KINDS)}")
        job = job or JobState()
        kinds = JOB_KINDS if kind == "full" else (kind,)
        self.db.check_integrity()
        with self.db.writing() as session:
            store.interrupted_runs(session)
            run_id = store.start_run(session, kind, dry_run=dry_run)
        figures: dict[str, Any] = {}
        proposals: list[ProposedChange] = []
        try:
            for step, name in enumerate(kinds):
                job.check()
                job.report(step, len(kinds), f"Running {name} maintenance")
                found, changes = getattr(self, f"_{name}")(dry_run=dry_run, job=job)
                figures.update(found)
                proposals += changes
            job.check()
            job.report(len(kinds), len(kinds), "Saving the proposed changes")
            self.db.check_integrity()
            result = self._record_proposals(run_id, kinds, proposals, figures, dry_run, apply)
        except DatabaseDamagedError:
            raise  # logging the run would be a write too
        except JobCancelled:
            return self._end_run(run_id, "cancelled", figures, "cancelled by the user")
        except Exception as exc:
            log.exception("maintenance %s failed", kind)
            return self._end_run(run_id, "error", figures, f"{type(exc).__name__}: {exc}")
        return result

    def _record_proposals(
        self,
        run_id: int,
        kinds: tuple[str, ...],
        proposals: list[ProposedChange],
        figures: dict[str, Any],
        dry_run: bool,
        apply: bool,
    ) -> MaintenanceRunRecord:
        """Save the proposals with the run, replacing older unreviewed ones; with `apply`
        (and not a dry run) apply them all in the same transaction."""
        counts = {f"proposed_{k}": sum(c.kind == k for c in proposals) for k in CHANGE_KINDS}
        figures = {**figures, **{k: v for k, v in counts.items() if v}}
        group_id: str | None = None
        with self.db.writing() as session:
            store.supersede_pending(session, kinds)
            ids = store.save_changes(session, run_id, proposals)
            if apply and not dry_run and ids:
                group_id = new_group("maintenance")
                applied, stale = self._apply_rows(
                    session, store.change_rows(session, ids), group_id
                )
                figures.update(applied=applied, stale=stale)
            elif ids:
                figures["pending"] = len(ids)
            store.finish_run(session, run_id, "success", figures, group_id=group_id)
            row = store.get_run(session, run_id)
            assert row is not None
            return store.run_record(row)

    def _end_run(
        self, run_id: int, status: str, figures: dict[str, Any], error: str
    ) -> MaintenanceRunRecord:
        with self.db.writing() as session:
            store.finish_run(session, run_id, status, figures, error=error)
            row = store.get_run(session, run_id)
            assert row is not None
            return store.run_record(row)

    # -- the jobs ------------------------------------------------------------------------

    def _nightly(self, *, dry_run: bool, job: JobState) -> tuple[dict[str, Any], list]:
        def progress(done: int, total: int) -> None:
            job.report(done, total, f"Looking for near-duplicates ({done:,} of {total:,})")

        with self.db.reading() as session:
            merges = consolidation.plan_merges(session, progress=progress, check=job.check)
            last = store.last_runs(session).get("nightly")
            recent = consolidation.recent_item_ids(session, last, CONTRADICTION_SCAN)
        job.check()
        job.report(0, 0, "Looking for contradictions")
        figures: dict[str, Any] = {
            "duplicate_groups": len(merges),
            "duplicates": sum(len(c.item_ids) - 1 for c in merges),
            "scanned_for_contradictions": len(recent),
        }
        if dry_run:
            with self.db.reading() as session:
                pairs = detector.plan(session, self.db.dialect, recent)
            judged = detector.judge_pairs(pairs)  # the rules only: a dry run costs nothing
            figures["contradictions"] = sum(v.contradicts for _, v in judged)
        else:
            figures["contradictions"] = len(self._detect(recent))
            job.check()
            job.report(0, 0, "Refreshing decay factors")
            with self.db.writing() as session:
                figures["decay_refreshed"] = store.refresh_decay(session, self.clock())
            job.check()
            job.report(0, 0, "Discovering links between memories")
            with self.db.writing() as session:
                links = rebuild_links(session.connection())
            figures["links_discovered"] = links.total
        figures.update(self._rebuild_summaries(dry_run=dry_run, job=job))
        return figures, merges

    def _rebuild_summaries(self, *, dry_run: bool, job: JobState) -> dict[str, int]:
        """Write the summaries an import never got to (killed after its last transcript
        committed, before the summaries) or that fell behind their memories: only
        changes refresh summaries otherwise, so nothing else would ever write them."""
        job.check()
        job.report(0, 0, "Checking the category summaries")
        if dry_run:
            with self.db.reading() as session:
                return {"summaries_to_rebuild": len(summary_store.stale_categories(session))}
        with self.db.writing() as session:
            keys = summary_store.stale_categories(session)
            self._refresh_summaries(session, keys)
        return {"summaries_rebuilt": len(keys)}

    def _weekly(self, *, dry_run: bool, job: JobState) -> tuple[dict[str, Any], list]:
        now = self.clock()
        job.report(0, 0, "Compressing older memories")
        with self.db.reading() as session:
            older = summarization.older_memories(session, now)
        notes: list[str] = []
        compress = summarization.plan_compress(older, self._compressor(dry_run, notes))
        job.check()
        job.report(0, 0, "Looking for memories to archive")
        with self.db.reading() as session:
            archive = summarization.plan_archive(session, now)
        figures: dict[str, Any] = {
            "categories_to_compress": len(compress),
            "compressed_memories": sum(len(c.item_ids) for c in compress),
            "to_archive": len(archive),
        }
        if notes:
            figures["notes"] = notes
        return figures, [*compress, *archive]

    def _compressor(self, dry_run: bool, notes: list[str]) -> summarization.Compressor:
        """The model's compression when the extractor offers one (not for a dry run:
        a preview costs nothing), else the deterministic digest. A failing model call
        falls back to the digest with a note; its tokens are recorded either way."""
        model = getattr(self.extractor, "compress_memories", None)
        if model is None or dry_run:
            return summarization.deterministic

        def compress(category: Category, items: Sequence[MemoryRecord]) -> str:
            try:
                return str(model(category, items))
            except Exception as exc:  # the digest is a nicety: never lose the run to it
                notes.append(
                    f"{category.name}: {self.extractor.name} could not compress ({exc}); "
                    "the deterministic digest was used"
                )
                return summarization.deterministic(category, items)
            finally:
                spent = self._take_usage()
                if spent:
                    with self.db.writing() as session:
                        self._record_usage(session, spent, None, None, None)

        return compress

    def _monthly(self, *, dry_run: bool, job: JobState) -> tuple[dict[str, Any], list]:
        def progress(done: int, _total: int) -> None:
            job.report(0, 0, f"Checking memories against the rules ({done:,})")

        with self.db.reading() as session:
            invalid, checked = reindex.plan_invalid(
                session, self.clock(), progress=progress, check=job.check
            )
            health = reindex.check_index(session, self.db.dialect)
        figures: dict[str, Any] = {"checked": checked, "invalid": len(invalid), **health}
        if not dry_run:
            job.check()
            job.report(0, 0, "Rebuilding the search index")
            with self.db.writing() as session:
                self.db.dialect.rebuild_search_index(session.connection())
            with self.db.reading() as session:
                after = reindex.check_index(session, self.db.dialect)
            figures.update(index_rebuilt=True, index_ok_after=after["index_ok"])
            # Conversations stored before chunks existed get theirs (derived, like the index).
            job.check()
            job.report(0, 0, "Summarizing conversations stored without chunks")
            with self.db.writing() as session:
                figures["chunks_built"] = build_all_chunks(session.connection())
        return figures, invalid

    # -- review --------------------------------------------------------------------------

    def maintenance_changes(
        self, *, decisions: tuple[str, ...] = REVIEW_DECISIONS, run_id: int | None = None
    ) -> list[ProposedChange]:
        """Proposed changes (by default those still under review), oldest first."""
        unknown = [d for d in decisions if d not in DECISIONS]
        if unknown:
            raise ValueError(f"unknown decision {unknown[0]!r}; known: {', '.join(DECISIONS)}")
        with self.db.reading() as session:
            return store.changes(session, run_id=run_id, decisions=decisions)

    def decide_changes(self, change_ids: list[int], decision: str) -> int:
        """Accept, reject (or put back to pending) proposals still under review."""
        if decision not in REVIEW_DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(REVIEW_DECISIONS)}")
        with self.db.writing() as session:
            rows = [
                r for r in store.change_rows(session, change_ids) if r.decision in REVIEW_DECISIONS
            ]
            store.set_decision(session, rows, decision)
            return len(rows)

    def apply_changes(self, change_ids: list[int] | None = None) -> ApplyResult:
        """Apply the accepted proposals (or these ones) as one undoable group, logged as
        an "apply" run. A proposal the store has moved past is marked stale instead."""
        self.db.check_integrity()
        with self.db.writing() as session:
            if change_ids is None:
                rows = store.change_rows(
                    session, [c.id for c in store.changes(session, decisions=("accepted",))]
                )
            else:
                rows = [
                    r
                    for r in store.change_rows(session, change_ids)
                    if r.decision in ("pending", "accepted")
                ]
            run_id = store.start_run(session, "apply", dry_run=False)
            group_id = new_group("maintenance") if rows else None
            applied, stale = self._apply_rows(session, rows, group_id or "")
            figures = {"applied": applied, "stale": stale}
            store.finish_run(
                session, run_id, "success", figures, group_id=group_id if applied else None
            )
        return ApplyResult(applied, stale, group_id if applied else None, run_id)

    def _apply_rows(self, session: Any, rows: list, group_id: str) -> tuple[int, int]:
        applied = stale = 0
        touched: set[str] = set()
        for row in rows:
            if store.apply_change(session, row, group_id=group_id):
                row.decision, row.group_id = "applied", group_id
                applied += 1
                if row.kind != "compress" and row.category:
                    touched.add(row.category)
            else:
                row.decision = "stale"
                stale += 1
            session.add(row)
        self._refresh_summaries(session, touched)
        return applied, stale

    def undo_maintenance(self, group_id: str) -> list[int]:
        """Undo every change one apply made; its proposals are marked undone."""
        if not group_id.startswith("maintenance:"):
            raise ValueError(f"{group_id!r} is not a maintenance change group")
        self.db.check_integrity()
        touched = self.undo_group(group_id)
        with self.db.writing() as session:
            rows = [
                r
                for r in store.change_rows(
                    session,
                    [c.id for c in store.changes(session, decisions=("applied",))],
                )
                if r.group_id == group_id
            ]
            store.set_decision(session, rows, "undone")
        return touched

    # -- schedule ------------------------------------------------------------------------

    def maintenance_schedule(self) -> list[JobStatus]:
        now = self.clock()
        with self.db.reading() as session:
            schedules = store.schedules(session)
            last = store.last_runs(session)
        return [
            JobStatus(
                schedules[k],
                last.get(k),
                next_due(schedules[k], last.get(k), now),
                is_due(schedules[k], last.get(k), now),
            )
            for k in JOB_KINDS
        ]

    def set_schedule(self, schedule: Schedule) -> None:
        with self.db.writing() as session:
            store.save_schedule(session, schedule)

    def due_jobs(self) -> list[Schedule]:
        """Seed 001's startup check: the jobs whose interval has passed, in job order."""
        return [s.schedule for s in self.maintenance_schedule() if s.due]

    def next_maintenance(self) -> datetime | None:
        times = [s.next_run for s in self.maintenance_schedule() if s.next_run is not None]
        return min(times) if times else None

    # -- new Claude Code and Codex sessions (seed 001 §2) ----------------------------------

    def new_sessions(
        self, root: Path | Sequence[Path], *, settle_seconds: float = 300
    ) -> list[Path]:
        """Session files under `root` (or each of several folders: Claude Code's projects,
        Codex's sessions) not imported since they last changed, oldest first; files
        written in the last `settle_seconds` wait (still in use)."""
        from memory_app.ingest import discover

        roots = [f for f in ([root] if isinstance(root, Path) else root) if f.is_dir()]
        if not roots:
            return []
        with self.db.reading() as session:
            imported = store.imported_paths(session)
        now = self.clock().timestamp()
        found = []
        for path in discover(roots):
            try:
                changed = path.stat().st_mtime
            except OSError:
                continue
            if now - changed < settle_seconds:
                continue
            seen = imported.get(str(path))
            if seen is None or seen.timestamp() < changed:
                found.append((changed, path))
        return [p for _, p in sorted(found)]

    def log_startup_import(
        self, found: int, imported: int, deferred: int, error: str | None = None
    ) -> None:
        """Record what the startup check imported, so the log shows it."""
        with self.db.writing() as session:
            run_id = store.start_run(session, "startup", dry_run=False)
            figures = {"new_sessions": found, "imported": imported, "deferred": deferred}
            store.finish_run(session, run_id, "error" if error else "success", figures, error=error)
