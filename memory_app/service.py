"""The façade every front end uses (GUI, CLI, later hooks and MCP): seed 000 §5.1.

It owns the memorize pipeline (redact → gate → store resource → extract → deduplicate →
summarize) and item curation (edit, pin, forget, restore, undo). It returns plain
records, never ORM rows, and each operation is one unit of work. With a model-backed
extractor, category summaries are evolved by the model between units of work (never
while the write lock is held), and every model call's tokens and cost are recorded.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from memory_app.config import Settings
from memory_app.conflicts import detector
from memory_app.conflicts import resolution as resolving
from memory_app.conflicts.judge import judge as judge_rules
from memory_app.domain.categories import DEFAULT_CATEGORIES, Category, default_importance
from memory_app.domain.gates import MAX_TOTAL_CHARS, skip_reason, truncate_for_extraction
from memory_app.domain.jobs import JobCancelled, JobState
from memory_app.domain.records import (
    CONFLICT_DECISIONS,
    AuditRecord,
    CategoryInfo,
    ConflictDetail,
    ConflictRecord,
    DashboardData,
    ImportReport,
    ItemQuery,
    MaintenanceRunRecord,
    MemorizeResult,
    MemoryRecord,
    ResourceRecord,
    Stats,
    TurnRecord,
)
from memory_app.domain.redaction import redact, redact_transcript
from memory_app.domain.rendering import render_transcript
from memory_app.domain.similarity import content_key, reinforced_confidence
from memory_app.domain.summary import MAX_FACTS, EvolvedSummary
from memory_app.domain.transcripts import Transcript
from memory_app.domain.usage import CallUsage, ExtractionRunRecord, UsageSummary
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.extract.base import (
    CONFIDENCE_THRESHOLD,
    ExtractedItem,
    Extractor,
    SummaryEvolver,
    UsageReporter,
)
from memory_app.ingest import UnsupportedFormat, discover, parse_source
from memory_app.store import conflicts as conflict_store
from memory_app.store import insights, item_queries
from memory_app.store import repository as repo
from memory_app.store import summaries as summary_store
from memory_app.store import usage as usage_store
from memory_app.store.database import Database
from memory_app.store.errors import NotFoundError
from memory_app.store.tables import CategorySummaryRow, MemoryItemRow, ResourceRow

log = logging.getLogger(__name__)

# Auto-resolve policies a person can turn on (default: none, every conflict waits).
AUTO_RESOLVE_POLICIES = ("newer_if_confident",)
RECENT_SCAN = 200  # items `detect_conflicts()` looks at without ids: the newest ones

EDITABLE_FIELDS = (
    "content",
    "category",
    "type",
    "confidence",
    "importance",
    "scope",
    "project",
    "tags",
    "pinned",
    "valid_from",
    "valid_until",
)


@dataclass(frozen=True)
class CategoryView:
    """A category as the browser shows it: its summary and its strongest items."""

    info: CategoryInfo
    summary_markdown: str
    items: tuple[MemoryRecord, ...]


def claude_judge_for(extractor: Extractor) -> detector.Judge | None:
    """A Claude contradiction judge sharing the Claude extractor's client (key and
    settings); None for any other extractor."""
    client = getattr(extractor, "client", None)
    if getattr(extractor, "name", "") != "claude" or client is None:
        return None
    from memory_app.conflicts.claude_judge import ClaudeJudge

    return ClaudeJudge(client, getattr(extractor, "settings", None))


def _opposite(known: str, new: str) -> bool:
    """A near match on word sets that says the opposite ("prefer tabs over spaces" vs
    "prefer spaces over tabs"): the rules judge tells them apart."""
    return content_key(known) != content_key(new) and judge_rules(known, new).contradicts


def _new_group(kind: str) -> str:
    return f"{kind}:{uuid.uuid4().hex[:12]}"


def _usage_fields(spent: Sequence[CallUsage]) -> dict[str, Any]:
    """MemorizeResult's token and cost fields for the calls one conversation made."""
    if not spent:
        return {}
    costs = [c.cost_usd for c in spent]
    known = [c for c in costs if c is not None]
    return {
        "input_tokens": sum(c.input_tokens for c in spent),
        "output_tokens": sum(c.output_tokens for c in spent),
        "cost_usd": round(sum(known), 6) if len(known) == len(costs) else None,
    }


@dataclass
class _Learnt:
    """What storing one conversation's extracted items did."""

    added: list[int] = field(default_factory=list)
    reinforced: list[int] = field(default_factory=list)
    suppressed: int = 0
    touched: set[str] = field(default_factory=set)
    conflicts: list[int] = field(default_factory=list)


class MemoryService:
    """Memory operations over one database with one extractor."""

    def __init__(
        self,
        db: Database,
        extractor: Extractor,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        auto_resolve: str | None = None,
        conflict_judge: detector.Judge | None = None,
    ) -> None:
        """`auto_resolve`: None (every conflict waits for a person) or
        "newer_if_confident" (the newer memory wins when its confidence is at least as
        high; recorded as auto_resolved by "system" and undoable). `conflict_judge`:
        a model judge for contradiction candidates (it fails open to the rules); the
        rules judge alone by default; `claude_judge_for(extractor)` makes Claude's (opt-in,
        like the Claude extractor: model calls cost money only when asked for)."""
        if auto_resolve is not None and auto_resolve not in AUTO_RESOLVE_POLICIES:
            raise ValueError(
                f"unknown auto-resolve policy {auto_resolve!r}; "
                f"known: {', '.join(AUTO_RESOLVE_POLICIES)}"
            )
        self.db = db
        self.extractor = extractor
        self.clock = clock
        self.auto_resolve = auto_resolve
        self.conflict_judge = conflict_judge
        with db.writing() as session:
            repo.ensure_categories(session, DEFAULT_CATEGORIES)

    @classmethod
    def open(
        cls,
        settings: Settings,
        extractor: Extractor | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        auto_resolve: str | None = None,
    ) -> MemoryService:
        """Open (creating and migrating as needed) the store the settings point at."""
        if settings.db_url.startswith("sqlite:///"):
            Path(settings.db_url.removeprefix("sqlite:///")).parent.mkdir(
                parents=True, exist_ok=True
            )
        db = Database(settings.db_url, backup_dir=settings.backup_dir)
        if extractor is None:
            from memory_app.extract.offline import OfflineExtractor

            extractor = OfflineExtractor()
        if clock is None:
            return cls(db, extractor, auto_resolve=auto_resolve)
        return cls(db, extractor, clock=clock, auto_resolve=auto_resolve)

    def close(self) -> None:
        self.db.close()

    # -- memorize ---------------------------------------------------------------------

    def import_paths(
        self,
        paths: Sequence[Path],
        *,
        fmt: str | None = None,
        job: JobState | None = None,
    ) -> ImportReport:
        """Import files or folders (format auto-detected); never stops at one bad file."""
        job = job or JobState()
        files = discover(paths)
        results: list[MemorizeResult] = []
        problems: list[str] = []
        learnt: list[int] = []
        cancelled = False
        batch = _new_group("import")
        try:
            for index, path in enumerate(files):
                job.check()
                job.report(index, len(files), f"Importing {path.name}")
                try:
                    parsed = parse_source(path, fmt)
                except (UnsupportedFormat, OSError, UnicodeError) as exc:
                    results.append(MemorizeResult("error", str(path), reason=str(exc)))
                    continue
                problems.extend(str(p) for p in parsed.problems)
                for transcript in parsed.transcripts:
                    result = self._memorize(transcript, update_summaries=False, batch=batch)
                    learnt += [*result.items_added, *result.items_reinforced]
                    results.append(result)
            job.report(len(files), len(files), "Import finished")
        except JobCancelled:
            cancelled = True
        notes: list[str] = []
        if learnt:
            # A cancelled import still gets truthful summaries, just not the model's.
            evolve = isinstance(self.extractor, SummaryEvolver) and not cancelled
            if evolve:
                job.report(len(files), len(files), "Updating category summaries")
            notes, _ = self._update_summaries(self._by_category(learnt), batch=batch, evolve=evolve)
        usage = None
        if isinstance(self.extractor, UsageReporter):
            with self.db.reading() as session:
                usage = usage_store.summary(session, batch=batch)
        return ImportReport(
            files=len(files),
            results=tuple(results),
            problems=tuple(problems),
            cancelled=cancelled,
            notes=tuple(notes),
            usage=usage if usage is not None and usage.runs else None,
        )

    def memorize(self, transcript: Transcript, *, update_summaries: bool = True) -> MemorizeResult:
        """Store one conversation as an immutable resource and learn from it.

        When the extractor fails (for Claude: an invalid answer after its retries, a
        rejected key, the API unreachable) the result has status "error" and nothing of
        the conversation is stored, so importing it again later tries again.
        """
        return self._memorize(transcript, update_summaries=update_summaries, batch=None)

    def _memorize(
        self, transcript: Transcript, *, update_summaries: bool, batch: str | None
    ) -> MemorizeResult:
        source = transcript.source_path or transcript.title or "conversation"
        if transcript.session_id:
            source = f"{source} [{transcript.session_id}]"
        clean, findings = redact_transcript(transcript)
        reason = skip_reason(clean)
        if reason is not None:
            why = {"empty": "empty conversation", "trivial": "trivial conversation"}[reason]
            return MemorizeResult("skipped", source, reason=why, redactions=len(findings))
        text, spans = render_transcript(clean)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self.db.reading() as session:
            existing = repo.resource_by_hash(session, digest)
        if existing is not None:
            return MemorizeResult(
                "skipped",
                source,
                reason=f"already imported as conversation #{existing.id}",
                resource_id=existing.id,
            )
        with self.db.reading() as session:
            known = repo.categories(session)
        extracted, failure, spent = self._run_extractor(clean, known)
        if failure is not None:
            with self.db.writing() as session:  # the tokens were spent all the same
                self._record_usage(session, spent, None, source, batch)
            return MemorizeResult("error", source, reason=failure, **_usage_fields(spent))
        with self.db.writing() as session:
            if repo.resource_by_hash(session, digest) is not None:  # imported meanwhile
                self._record_usage(session, spent, None, source, batch)
                return MemorizeResult("skipped", source, reason="already imported")
            resource = repo.add_resource(
                session,
                clean,
                text,
                spans,
                digest,
                redactions=len(findings),
                extractor=self.extractor.name,
            )
            learnt = self._learn(session, extracted, clean, resource, known, "memorize")
            self._record_usage(session, spent, resource.id, source, batch)
            deferred = self._write_summaries(session, learnt.touched, known, update_summaries)
        learnt.conflicts = self._detect_quietly(learnt.added)
        return self._result(source, resource.id, learnt, deferred, spent, batch, len(findings))

    def reextract(self, resource_id: int) -> MemorizeResult:
        """Run the current extractor again over a stored conversation (the GUI's "Extract
        with Claude" on a conversation the offline rules already read).

        The conversation itself is not changed: new memories are added with it as their
        source, ones already known are reinforced, forgotten ones stay forgotten, and the
        touched summaries are updated (evolved, with a model). On failure nothing changes.
        """
        with self.db.reading() as session:
            row = session.get(ResourceRow, resource_id)
            if row is None:
                raise NotFoundError("conversation", resource_id)
            transcript = repo.stored_transcript(session, row)
            known = repo.categories(session)
        source = f"conversation #{resource_id}"
        if transcript.is_sidechain:
            return MemorizeResult(
                "skipped",
                source,
                reason="sub-agent conversations are kept for provenance, not learnt from",
                resource_id=resource_id,
            )
        extracted, failure, spent = self._run_extractor(transcript, known)
        with self.db.writing() as session:
            if failure is not None:
                self._record_usage(session, spent, resource_id, source, None)
                return MemorizeResult(
                    "error",
                    source,
                    reason=failure,
                    resource_id=resource_id,
                    **_usage_fields(spent),
                )
            resource = session.get(ResourceRow, resource_id)
            if resource is None:  # deleted meanwhile
                raise NotFoundError("conversation", resource_id)
            learnt = self._learn(session, extracted, transcript, resource, known, "reextract")
            self._record_usage(session, spent, resource_id, source, None)
            deferred = self._write_summaries(session, learnt.touched, known, True)
        learnt.conflicts = self._detect_quietly(learnt.added)
        return self._result(source, resource_id, learnt, deferred, spent, None, 0)

    def _run_extractor(
        self, clean: Transcript, known: list[Category]
    ) -> tuple[list[ExtractedItem], str | None, list[CallUsage]]:
        """The extractor's items for a (redacted) conversation, or the reason it failed;
        with the model usage either way."""
        if clean.is_sidechain:
            return [], None, []
        limit = getattr(self.extractor, "max_input_chars", MAX_TOTAL_CHARS)
        cut, _ = truncate_for_extraction(clean, max_total_chars=limit)
        try:
            extracted = self.extractor.extract(cut, known)
        except Exception as exc:  # an extractor failure must never lose the import
            reason = f"{self.extractor.name} extractor failed: {exc}"
            return [], reason, self._take_usage()
        return extracted, None, self._take_usage()

    def _learn(
        self,
        session: Session,
        extracted: Sequence[ExtractedItem],
        transcript: Transcript,
        resource: ResourceRow,
        known: Sequence[Category],
        kind: str,
    ) -> _Learnt:
        """Store what was extracted: new items added, duplicates reinforced."""
        group = _new_group(kind)
        by_key = {c.key: c for c in known}
        learnt = _Learnt()
        for item in extracted:
            outcome, item_id, category = self._store_extracted(
                session, item, transcript, resource, by_key, group
            )
            if outcome == "added":
                learnt.added.append(item_id)
            elif outcome == "reinforced":
                learnt.reinforced.append(item_id)
            elif outcome == "suppressed":
                learnt.suppressed += 1
            if outcome in ("added", "reinforced"):
                learnt.touched.add(category)
        return learnt

    def _write_summaries(
        self, session: Session, touched: set[str], known: Sequence[Category], now: bool
    ) -> set[str]:
        """Write the deterministic summaries that need no model, inside the caller's
        transaction; returns the categories to evolve after it (never hold the write lock
        across a network call). With `now` False the caller updates summaries later."""
        if not now:
            return set()
        by_key = {c.key: c for c in known}
        deferred: set[str] = set()
        for key in sorted(touched):
            if self._evolvable(session, key):
                deferred.add(key)
            else:
                self._write_summary(session, by_key[key])
        return deferred

    def _result(
        self,
        source: str,
        resource_id: int | None,
        learnt: _Learnt,
        deferred: set[str],
        spent: list[CallUsage],
        batch: str | None,
        redactions: int,
    ) -> MemorizeResult:
        """Evolve the deferred summaries, then say what memorizing did."""
        notes: list[str] = []
        if deferred:
            ids = [*learnt.added, *learnt.reinforced]
            by_category = {k: v for k, v in self._by_category(ids).items() if k in deferred}
            notes, evolution = self._update_summaries(by_category, batch=batch)
            spent = [*spent, *evolution]
        found = bool(learnt.added or learnt.reinforced)
        return MemorizeResult(
            "success" if found else "empty",
            source,
            reason=None if found else "nothing worth remembering was found",
            resource_id=resource_id,
            items_added=tuple(learnt.added),
            items_reinforced=tuple(learnt.reinforced),
            items_suppressed=learnt.suppressed,
            redactions=redactions,
            categories_updated=tuple(sorted(learnt.touched)),
            notes=tuple(notes),
            conflicts_found=tuple(learnt.conflicts),
            **_usage_fields(spent),
        )

    def _store_extracted(
        self,
        session: Session,
        item: ExtractedItem,
        transcript: Transcript,
        resource: ResourceRow,
        categories: dict[str, Category],
        group: str,
    ) -> tuple[str, int, str]:
        """Insert a new item, or reinforce the one it duplicates; returns what happened."""
        category = categories.get(item.category)
        if category is None or item.confidence < CONFIDENCE_THRESHOLD:
            return "dropped", 0, item.category
        content = redact(" ".join(item.content.split())).text
        memory_type = item.type or category.default_type
        importance = (
            item.importance if item.importance is not None else default_importance(memory_type)
        )
        now = self.clock()
        try:
            validate_item_fields(
                {
                    "content": content,
                    "category": category.key,
                    "confidence": item.confidence,
                    "importance": importance,
                    "type": memory_type,
                    "tags": list(item.tags),
                },
                categories,
                now,
            )
        except ValidationError:
            return "dropped", 0, category.key
        duplicate = repo.find_duplicate(session, self.db.dialect, category.key, content)
        if duplicate is not None and _opposite(duplicate.content, content):
            duplicate = None  # same words, opposite meaning: a contradiction, not a repeat
        if duplicate is not None and duplicate.id is not None:
            if duplicate.status in ("deleted", "superseded"):
                return "suppressed", duplicate.id, category.key
            repo.change_item(
                session,
                duplicate,
                {
                    "reinforcement_count": duplicate.reinforcement_count + 1,
                    "confidence": reinforced_confidence(duplicate.confidence, item.confidence),
                    "last_seen_at": now,
                },
                actor="extractor",
                action="reinforce",
                group_id=group,
                note=f"seen again in conversation #{resource.id}",
            )
            return "reinforced", duplicate.id, category.key
        turn_time = None
        if item.turn_start is not None:
            turn_time = next(
                (t.timestamp for t in transcript.turns if t.position == item.turn_start), None
            )
        valid_from = min(turn_time or transcript.started_at or now, now)
        line_start, line_end = (None, None)
        if item.turn_start is not None and resource.id is not None:
            session.flush()
            line_start, line_end = repo.source_lines(
                session, resource.id, item.turn_start, item.turn_end or item.turn_start
            )
        row = MemoryItemRow(
            category=category.key,
            type=memory_type,
            content=content,
            content_key="",
            context=item.context,
            confidence=item.confidence,
            importance=importance,
            scope="project" if transcript.project else "global",
            project=transcript.project,
            session_id=transcript.session_id,
            tags=sorted(set(item.tags)),
            source_resource_id=resource.id,
            turn_start=item.turn_start,
            turn_end=item.turn_end,
            line_start=line_start,
            line_end=line_end,
            extractor=self.extractor.name,
            extracted_at=now,
            updated_at=now,
            last_seen_at=now,
            valid_from=valid_from,
        )
        repo.add_item(session, row, actor="extractor", group_id=group)
        return "added", row.id or 0, category.key

    # -- category summaries -----------------------------------------------------------

    def regenerate_summaries(self, keys: Iterable[str] | None = None) -> list[str]:
        """Rebuild category summaries deterministically from their items."""
        with self.db.writing() as session:
            cats = {c.key: c for c in repo.categories(session)}
            wanted = sorted(cats) if keys is None else sorted(set(keys) & set(cats))
            for key in wanted:
                self._write_summary(session, cats[key])
        return wanted

    def _evolvable(self, session: Session, key: str) -> bool:
        return isinstance(self.extractor, SummaryEvolver) and summary_store.has_summary_with_items(
            session, key
        )

    def _by_category(self, item_ids: Sequence[int]) -> dict[str, list[int]]:
        with self.db.reading() as session:
            return summary_store.by_category(session, item_ids)

    def _update_summaries(
        self, new_by_category: dict[str, list[int]], *, batch: str | None, evolve: bool = True
    ) -> tuple[list[str], list[CallUsage]]:
        """Bring the summaries of these categories up to date with their new items.

        With an extractor that can evolve summaries, a category that already has one is
        merged by the model (seed 001 §5) and its change log kept as audit events;
        anything else (the offline extractor, a first summary, an evolution that failed)
        gets the deterministic summary. Model calls happen between units of work, never
        inside one. Returns notes for the person (one per fallback) and the model usage,
        which is recorded here already.
        """
        notes: list[str] = []
        spent: list[CallUsage] = []
        for key in sorted(new_by_category):
            with self.db.reading() as session:
                category = next((c for c in repo.categories(session) if c.key == key), None)
                if category is None:
                    continue
                current: CategorySummaryRow | None = None
                new_items: list[MemoryRecord] = []
                known: set[int] = set()
                if evolve and self._evolvable(session, key):
                    current = repo.summary(session, key)
                    new_items = summary_store.strongest_new(
                        session, new_by_category[key], MAX_FACTS
                    )
                    known = summary_store.citable_ids(session, key)
            if current is None or not new_items:
                with self.db.writing() as session:
                    summary_store.write_deterministic(session, category, self.clock())
                continue
            note, used = self._evolve_one(category, current, new_items, known, batch)
            spent += used
            if note:
                notes.append(note)
        return notes, spent

    def _evolve_one(
        self,
        category: Category,
        current: CategorySummaryRow,
        new_items: list[MemoryRecord],
        known: set[int],
        batch: str | None,
    ) -> tuple[str | None, list[CallUsage]]:
        """Merge one category's summary with the model; on failure fall back to the
        deterministic summary, say so in an audit event, and return the note."""
        evolver = self.extractor
        assert isinstance(evolver, SummaryEvolver)
        evolved: EvolvedSummary | None = None
        failure = ""
        try:
            evolved = evolver.evolve_summary(category, current.markdown, new_items, known)
        except Exception as exc:  # evolution is a nicety: the items are stored already
            failure = str(exc)
        spent = self._take_usage()
        group = _new_group("evolve")
        with self.db.writing() as session:
            self._record_usage(session, spent, None, None, batch)
            if evolved is not None:
                summary_store.save_evolved(
                    session,
                    category,
                    evolved,
                    self.clock(),
                    generator=self.extractor.name,
                    group_id=group,
                )
                return None, spent
            summary_store.write_deterministic(session, category, self.clock())
            note = (
                f"{category.name}: the summary could not be merged by {self.extractor.name} "
                f"({failure}); the deterministic summary was written instead"
            )
            summary_store.record_fallback(session, category, note, group)
        log.warning("%s", note)
        return note, spent

    def _take_usage(self) -> list[CallUsage]:
        if isinstance(self.extractor, UsageReporter):
            return self.extractor.take_usage()
        return []

    def _record_usage(
        self,
        session: Session,
        spent: Sequence[CallUsage],
        resource_id: int | None,
        source: str | None,
        batch: str | None,
    ) -> None:
        for call in spent:
            usage_store.record_run(
                session,
                call,
                extractor=self.extractor.name,
                resource_id=resource_id,
                source=source,
                batch=batch,
            )

    def _write_summary(self, session: Session, category: Category) -> None:
        summary_store.write_deterministic(session, category, self.clock())

    # -- model usage --------------------------------------------------------------------

    def usage(self, *, since: datetime | None = None) -> UsageSummary:
        """Tokens and estimated cost of every model call recorded (or those since a time):
        totals and per model, for the dashboard."""
        with self.db.reading() as session:
            return usage_store.summary(session, since=since)

    def extraction_runs(self, limit: int = 50) -> list[ExtractionRunRecord]:
        """The latest recorded model calls (extract / evolve), newest first."""
        with self.db.reading() as session:
            return usage_store.recent_runs(session, limit)

    # -- reading ----------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        category: str | None = None,
        statuses: Sequence[str] = ("active",),
    ) -> list[MemoryRecord]:
        """Full-text search, best first; all words must match, else any word may."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self.db.reading() as session:
            if category is not None:
                self._require_category(session, category)
            conn = session.connection()
            hits = self.db.dialect.search_item_ids(
                conn, query, limit=limit, category=category, statuses=tuple(statuses)
            )
            if not hits:
                hits = self.db.dialect.search_item_ids(
                    conn,
                    query,
                    limit=limit,
                    category=category,
                    statuses=tuple(statuses),
                    match_any=True,
                )
            found = repo.records_by_ids(session, [i for i, _ in hits])
            open_ = conflict_store.open_conflicts_for(session, found)
            return [
                replace(found[i], score=score, conflict_ids=tuple(open_.get(i, ())))
                for i, score in hits
                if i in found
            ]

    def list_items(
        self,
        *,
        category: str | None = None,
        status: str | None = "active",
        pinned: bool | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        with self.db.reading() as session:
            if category is not None:
                self._require_category(session, category)
            if status is not None:
                validate_item_fields({"status": status}, ())
            statuses = (status,) if status else ()
            rows = repo.list_items(
                session,
                category=category,
                statuses=statuses,
                pinned=pinned,
                limit=limit,
                offset=offset,
            )
            return [repo.to_record(r) for r in rows]

    def get_item(self, item_id: int) -> MemoryRecord:
        with self.db.reading() as session:
            return repo.to_record(repo.get_item(session, item_id))

    def item_history(self, item_id: int) -> list[AuditRecord]:
        with self.db.reading() as session:
            repo.get_item(session, item_id)
            return repo.history(session, item_id)

    def categories(self) -> list[CategoryInfo]:
        with self.db.reading() as session:
            return repo.category_infos(session)

    def get_category(self, key: str, *, limit: int = 100) -> CategoryView:
        with self.db.reading() as session:
            self._require_category(session, key)
            info = next(c for c in repo.category_infos(session) if c.key == key)
            summary = repo.summary(session, key)
            rows = repo.list_items(session, category=key, limit=limit)
            markdown = summary.markdown if summary else ""
            return CategoryView(info, markdown, tuple(repo.to_record(r) for r in rows))

    def query_items(self, query: ItemQuery) -> list[MemoryRecord]:
        """One page of the memory table (filters, sort, paging done in SQL)."""
        with self.db.reading() as session:
            return item_queries.query_items(session, query)

    def count_items(self, query: ItemQuery) -> int:
        with self.db.reading() as session:
            return item_queries.count_items(session, query)

    def dashboard(self) -> DashboardData:
        """Everything the dashboard shows, read in one unit of work."""
        with self.db.reading() as session:
            return DashboardData(
                stats=repo.stats(session),
                weekly_added=tuple(insights.weekly_added(session, self.clock())),
                confidence_histogram=insights.confidence_histogram(session),
                activity=tuple(insights.recent_activity(session)),
                usage=usage_store.summary(session),
            )

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
            new = detector.record(session, judged)
            if self.auto_resolve == "newer_if_confident":
                for conflict_id in new:
                    self._auto_resolve(session, conflict_id)
        return new

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
        group = _new_group("auto_resolve" if actor == "system" else "resolve")
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

    def maintenance_runs(self, limit: int = 50) -> list[MaintenanceRunRecord]:
        with self.db.reading() as session:
            return insights.maintenance_runs(session, limit)

    def resource_turns(self, resource_id: int) -> list[TurnRecord]:
        with self.db.reading() as session:
            if session.get(ResourceRow, resource_id) is None:
                raise NotFoundError("conversation", resource_id)
            return insights.resource_turns(session, resource_id)

    def get_stats(self) -> Stats:
        with self.db.reading() as session:
            return repo.stats(session)

    def get_status(self) -> dict[str, Any]:
        """A cheap health check: the store opens and answers."""
        stats = self.get_stats()
        return {
            "state": "ready",
            "items": stats.items,
            "last_memorized": stats.last_memorized,
            "database": str(self.db.path or self.db.url),
        }

    def resources(self, *, limit: int = 100, offset: int = 0) -> list[ResourceRecord]:
        with self.db.reading() as session:
            rows = session.exec(
                select(ResourceRow)
                .order_by(col(ResourceRow.imported_at).desc(), col(ResourceRow.id).desc())
                .offset(offset)
                .limit(limit)
            ).all()
            return [repo.resource_record(session, r) for r in rows]

    def get_resource(self, resource_id: int) -> tuple[ResourceRecord, str]:
        """A conversation's record and its full normalized text."""
        with self.db.reading() as session:
            row = session.get(ResourceRow, resource_id)
            if row is None:
                raise NotFoundError("conversation", resource_id)
            return repo.resource_record(session, row), row.text

    # -- curation ---------------------------------------------------------------------

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
                session, row, changes, actor="user", action="update", group_id=_new_group("edit")
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

    def bulk_set(self, item_ids: Sequence[int], action: str, **changes: Any) -> list[int]:
        """One undoable step over many items (bulk delete, pin, re-categorize)."""
        group = _new_group(action)
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
        touched = repo.undo_group(session, group_id, actor="user")
        cats = {repo.get_item(session, i).category for i in touched}
        self._refresh_summaries(session, cats)
        return touched

    def _set(self, item_id: int, changes: dict[str, Any], action: str) -> MemoryRecord:
        with self.db.writing() as session:
            row = repo.get_item(session, item_id)
            repo.change_item(
                session, row, changes, actor="user", action=action, group_id=_new_group(action)
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
