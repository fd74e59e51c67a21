"""Memorizing: importing conversations, extracting, deduplicating, summarizing, usage."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from sqlmodel import Session

from memory_app.chunks.extraction import fit_for_extraction
from memory_app.chunks.store import record_chunks
from memory_app.conflicts.restatements import find_restated
from memory_app.domain.branches import learnt_branch, seen_on
from memory_app.domain.categories import Category, default_importance
from memory_app.domain.gates import MAX_TOTAL_CHARS, MAX_TURN_CHARS, skip_reason
from memory_app.domain.jobs import JobCancelled, JobState
from memory_app.domain.possible_secrets import masked, possible_secret
from memory_app.domain.private_spans import MARK as PRIVATE_MARK
from memory_app.domain.private_spans import without_private
from memory_app.domain.records import (
    ImportReport,
    MemorizeResult,
    MemoryRecord,
)
from memory_app.domain.redaction import redact, redact_transcript
from memory_app.domain.rendering import TurnSpan, render_transcript
from memory_app.domain.similarity import reinforced_confidence
from memory_app.domain.summary import MAX_FACTS, EvolvedSummary
from memory_app.domain.transcripts import Transcript
from memory_app.domain.usage import CallUsage, ExtractionRunRecord, UsageSummary
from memory_app.domain.validation import ValidationError, validate_item_fields
from memory_app.domain.workflows import tidy_content
from memory_app.episodes.store import record_episode
from memory_app.extract.base import (
    CONFIDENCE_THRESHOLD,
    ExtractedItem,
    KnownMemory,
    SummaryEvolver,
    UsageReporter,
)
from memory_app.extract.listed import listed_extractor
from memory_app.extract.repeated_workflows import workflows_across_sessions
from memory_app.ingest import UnsupportedFormat, discover, parse_source
from memory_app.ingest.files import shown_path
from memory_app.operations.common import (
    Learnt,
    ServiceState,
    is_opposite,
    new_group,
    usage_fields,
)
from memory_app.privacy_gate import why_excluded
from memory_app.store import pending
from memory_app.store import repository as repo
from memory_app.store import summaries as summary_store
from memory_app.store import usage as usage_store
from memory_app.store.errors import NotFoundError, StoreError
from memory_app.store.tables import CategorySummaryRow, MemoryItemRow, ResourceRow

log = logging.getLogger(__name__)

KNOWN_MEMORIES = 60  # existing memories shown to a model extractor, for updates
# A statement given by hand was said on purpose: as sure as a clear rule in a conversation.
REMEMBERED_CONFIDENCE = 0.9
REMEMBERED_CATEGORY = "implementation_notes"  # when the caller names none


def _add_or_hold(session: Session, row: MemoryItemRow, *, actor: str, group_id: str) -> None:
    """Add a new memory; one holding a possible secret is held for a person to keep or
    remove (possible_secrets.py), never active unseen."""
    suspect = possible_secret(row.content)
    if suspect is not None:
        row.status = "held"
    repo.add_item(session, row, actor=actor, group_id=group_id)
    if suspect is not None:
        log.warning("memory #%s held for review: possible secret %s", row.id, masked(suspect))


def _named(path: Path) -> str:
    """A file as a report names it: valid text, with any token in its path redacted."""
    return redact(shown_path(path)).text


def _source_name(clean: Transcript) -> str:
    """A conversation as results name it: its file or title, and its session."""
    source = clean.source_path or clean.title or "conversation"
    return f"{source} [{clean.session_id}]" if clean.session_id else source


# Paid, unusable answers for one pending conversation after which the background stops
# retrying it (each costs tokens); a person's Retry or a re-import still tries.
MAX_PAID_FAILURES = 3


class MemorizeOperations(ServiceState):
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
        batch = new_group("import")
        self._ask_again()
        self._take_log_quietly()  # once: the hooks' answers up to now, for every session
        try:
            for index, path in enumerate(files):
                job.check()
                job.report(index, len(files), f"Importing {path.name}")
                try:
                    parsed = parse_source(path, fmt)
                except (UnsupportedFormat, OSError, UnicodeError, ValueError) as exc:
                    results.append(MemorizeResult("error", _named(path), reason=str(exc)))
                    continue
                problems.extend(str(p) for p in parsed.problems)
                for transcript in parsed.transcripts:
                    try:
                        result = self._memorize(transcript, update_summaries=False, batch=batch)
                        if transcript.session_id:
                            self._judge_quietly(result.resource_id)
                    except StoreError:
                        raise  # the store itself failed: every other file would fail too
                    except Exception as exc:  # one odd file never stops the rest
                        log.exception("importing %s failed", _named(path))
                        reason = f"could not be imported ({type(exc).__name__}: {exc})"
                        results.append(MemorizeResult("error", _named(path), reason=reason))
                        continue
                    learnt += [*result.items_added, *result.items_reinforced]
                    results.append(result)
            job.report(len(files), len(files), "Import finished")
        except JobCancelled:
            cancelled = True
        return self._batch_report(len(files), results, problems, learnt, batch, cancelled, job)

    def _batch_report(
        self,
        files: int,
        results: list[MemorizeResult],
        problems: list[str],
        learnt: list[int],
        batch: str,
        cancelled: bool,
        job: JobState,
    ) -> ImportReport:
        """Bring the summaries up to date once for a whole batch, then report on it."""
        notes: list[str] = []
        if learnt:
            # A cancelled batch still gets truthful summaries, just not the model's.
            evolve = isinstance(self.extractor, SummaryEvolver) and not cancelled
            if evolve:
                job.report(files, files, "Updating category summaries")
            notes, _ = self._update_summaries(self._by_category(learnt), batch=batch, evolve=evolve)
        usage = None
        if isinstance(self.extractor, UsageReporter):
            with self.db.reading() as session:
                usage = usage_store.summary(session, batch=batch)
        return ImportReport(
            files=files,
            results=tuple(results),
            problems=tuple(problems),
            cancelled=cancelled,
            notes=tuple(notes),
            usage=usage if usage is not None and usage.runs else None,
        )

    def memorize(self, transcript: Transcript, *, update_summaries: bool = True) -> MemorizeResult:
        """Store one conversation as an immutable resource and learn from it.

        When the extractor fails (for Claude: an invalid answer after its retries, a
        rejected key, the API unreachable) the conversation is stored all the same, with
        status "pending" and the reason, and no memories: failing open never loses it.
        `retry_pending`, the GUI's Retry and importing it again extract it later.
        """
        result = self._memorize(transcript, update_summaries=update_summaries, batch=None)
        if transcript.session_id:
            self._take_log_quietly()
            self._judge_quietly(result.resource_id)
        return result

    def _memorize(
        self, transcript: Transcript, *, update_summaries: bool, batch: str | None
    ) -> MemorizeResult:
        clean, findings = redact_transcript(transcript)
        source = _source_name(clean)
        folder = self.db.path.parent if self.db.path is not None else None
        excluded = why_excluded(folder, transcript.project)
        if excluded is not None:  # paused or denied: nothing of it is stored
            return MemorizeResult("skipped", source, reason=excluded)
        listed = listed_extractor(clean)  # its turns are memories: only an empty file waits
        reason = skip_reason(clean) if listed is None else (None if clean.turns else "empty")
        if reason is not None:
            why = {"empty": "empty conversation", "trivial": "trivial conversation"}[reason]
            return MemorizeResult("skipped", source, reason=why, redactions=len(findings))
        text, spans = render_transcript(clean)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self.db.reading() as session:
            existing = repo.resource_by_hash(session, digest)
        if existing is not None and existing.id is not None and existing.status == pending.PENDING:
            # Kept when its extraction failed: importing it again is a retry, not a copy.
            return self._extract_stored(
                existing.id, update_summaries=update_summaries, batch=batch, source=source
            )
        if existing is not None:
            return MemorizeResult(
                "skipped",
                source,
                reason=f"already imported as conversation #{existing.id}",
                resource_id=existing.id,
            )
        with self.db.reading() as session:
            known = repo.categories(session)
            copies = repo.same_session(session, clean)
            earlier = repo.growing_resource(session, copies, text, spans)
            longer = repo.longer_resource(copies, text)
        if longer is not None:
            return MemorizeResult(
                "skipped",
                source,
                reason=f"already imported, with more of it, as conversation #{longer.id}",
                resource_id=longer.id,
            )
        if earlier is not None and earlier.id is not None:
            grown = self._grow(
                (earlier.id, earlier.content_hash),
                clean,
                (text, spans, digest),
                len(findings),
                update_summaries,
                batch,
            )
            # None: another import changed it meanwhile; look again, as an import of it.
            return grown or self._memorize(
                transcript, update_summaries=update_summaries, batch=batch
            )
        extracted, failure, spent = self._run_extractor(clean, known)
        if failure is None:
            extracted = [*extracted, *self._workflows_quietly(clean)]
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
                extractor=None if failure is not None else (listed or self.extractor).name,
            )
            self._record_usage(session, spent, resource.id, source, batch)  # spent either way
            record_episode(session, resource.id, clean)
            record_chunks(session, resource.id, clean)
            if failure is not None:
                return self._keep_pending(
                    session, resource, failure, source, spent, redactions=len(findings)
                )
            learnt = self._learn(session, extracted, clean, resource, known, "memorize")
            deferred = self._write_summaries(session, learnt.touched, known, update_summaries)
        learnt.conflicts = self._detect_quietly(learnt.added)
        return self._result(source, resource.id, learnt, deferred, spent, batch, len(findings))

    def remember(
        self,
        content: str,
        *,
        category: str | None = None,
        project: str | None = None,
        confidence: float = REMEMBERED_CONFIDENCE,
    ) -> tuple[str, MemoryRecord]:
        """Store one statement given by hand (an assistant's `remember` tool): through the
        same gates as an import (project pause and deny lists, `<private>` spans,
        redaction, validation, the possible-secret hold) and the same dedupe, so saying it
        twice reinforces it. Returns ("added" | "reinforced", the memory); raises
        ValueError when a gate refuses it, ValidationError when a field is invalid."""
        from memory_app.extract.offline import extract_tags  # its rules load on first use

        folder = self.db.path.parent if self.db.path is not None else None
        excluded = why_excluded(folder, project)
        if excluded is not None:
            raise ValueError(f"not remembered: {excluded}")
        shown, hidden = without_private(content)
        if hidden and not shown.replace(PRIVATE_MARK, "").strip():
            raise ValueError("not remembered: the whole content is marked <private>")
        text = redact(" ".join(shown.split())).text
        now = self.clock()
        with self.db.writing() as session:
            known = {c.key: c for c in repo.categories(session)}
            key = category or REMEMBERED_CATEGORY
            memory_type = known[key].default_type if key in known else "fact"
            importance = default_importance(memory_type)
            validate_item_fields(
                {
                    "content": text,
                    "category": key,
                    "confidence": confidence,
                    "importance": importance,
                    "type": memory_type,
                },
                known,
                now,
            )
            group = new_group("remember")
            duplicate = repo.find_duplicate(session, self.db.dialect, key, text)
            if duplicate is not None and is_opposite(duplicate.content, text):
                duplicate = None
            if duplicate is None:
                duplicate = find_restated(session, self.db.dialect, project, text)
            if duplicate is not None and duplicate.id is not None:
                if duplicate.status in ("deleted", "superseded"):
                    # A person forgot it: saying it again must not bring it back unasked.
                    raise ValueError(
                        f"not remembered: it repeats memory #{duplicate.id}, which is "
                        f"{duplicate.status} (memory-app restore {duplicate.id} brings it back)"
                    )
                repo.change_item(
                    session,
                    duplicate,
                    {
                        "reinforcement_count": duplicate.reinforcement_count + 1,
                        "confidence": reinforced_confidence(duplicate.confidence, confidence),
                        "last_seen_at": now,
                    },
                    actor="user",
                    action="reinforce",
                    group_id=group,
                    note="remembered again by hand",
                )
                return "reinforced", repo.to_record(duplicate)
            row = MemoryItemRow(
                category=key,
                type=memory_type,
                content=text,
                content_key="",
                confidence=confidence,
                importance=importance,
                scope="project" if project else "global",
                project=project,
                tags=sorted(extract_tags(text)),
                extracted_at=now,
                updated_at=now,
                last_seen_at=now,
                valid_from=now,
            )
            _add_or_hold(session, row, actor="user", group_id=group)
            self._refresh_summaries(session, {key})
            added = repo.to_record(row)
        self._detect_quietly([added.id])
        return "added", added

    def reextract(self, resource_id: int) -> MemorizeResult:
        """Run the current extractor again over a stored conversation (the GUI's "Extract
        with Claude" on a conversation the offline rules already read, and its Retry on a
        pending one).

        The conversation itself is not changed: new memories are added with it as their
        source, ones already known are reinforced, forgotten ones stay forgotten, and the
        touched summaries are updated (evolved, with a model). A pending conversation
        becomes memorized; on failure it stays pending with the new reason, and any other
        conversation is left as it was.
        """
        self._ask_again()
        return self._extract_stored(resource_id, update_summaries=True, batch=None)

    def _ask_again(self) -> None:
        """A new import or a person's retry: an API an earlier request found unreachable
        is asked again (the extractor's circuit breaker is reset)."""
        begin = getattr(self.extractor, "begin_import", None)
        if begin is not None:
            begin()

    def pending_ids(self, *, automatic: bool = False) -> list[int]:
        """The conversations kept while their extraction failed, oldest first. With
        `automatic`, those whose answers were paid for and unusable MAX_PAID_FAILURES
        times are left out: the background must not pay for them again and again."""
        with self.db.reading() as session:
            ids = pending.pending_ids(session)
            if automatic:
                ids = [i for i in ids if pending.paid_failures(session, i) < MAX_PAID_FAILURES]
            return ids

    def retry_pending(
        self, *, automatic: bool = False, job: JobState | None = None
    ) -> ImportReport:
        """Extract every pending conversation again with the current extractor (the
        scheduler's hourly retry with `automatic`, `memory-app retry`). Each one that
        works becomes memorized with its memories; one that fails again stays pending
        with the new reason. Summaries are updated once at the end, as after an import."""
        job = job or JobState()
        self._ask_again()
        ids = self.pending_ids(automatic=automatic)
        batch = new_group("retry")
        results: list[MemorizeResult] = []
        learnt: list[int] = []
        cancelled = False
        try:
            for index, ident in enumerate(ids):
                job.check()
                job.report(index, len(ids), f"Extracting conversation #{ident} again")
                try:
                    result = self._extract_stored(ident, update_summaries=False, batch=batch)
                except NotFoundError:
                    continue  # deleted meanwhile
                learnt += [*result.items_added, *result.items_reinforced]
                results.append(result)
            job.report(len(ids), len(ids), "Retry finished")
        except JobCancelled:
            cancelled = True
        return self._batch_report(len(ids), results, [], learnt, batch, cancelled, job)

    def _extract_stored(
        self,
        resource_id: int,
        *,
        update_summaries: bool,
        batch: str | None,
        source: str | None = None,
    ) -> MemorizeResult:
        with self.db.reading() as session:
            row = session.get(ResourceRow, resource_id)
            if row is None:
                raise NotFoundError("conversation", resource_id)
            transcript = repo.stored_transcript(session, row)
            known = repo.categories(session)
            redactions = row.redaction_count
            kind = "memorize" if row.status == pending.PENDING else "reextract"
            if source is None:
                named = row.source_path or row.title
                source = f"conversation #{resource_id}" + (f" ({named})" if named else "")
        if transcript.is_sidechain:
            return MemorizeResult(
                "skipped",
                source,
                reason="sub-agent conversations are kept for provenance, not learnt from",
                resource_id=resource_id,
            )
        extracted, failure, spent = self._run_extractor(transcript, known)
        if failure is None:
            extracted += self._workflows_quietly(transcript, stored_as=resource_id)
        with self.db.writing() as session:
            resource = session.get(ResourceRow, resource_id)
            if resource is None:  # deleted meanwhile
                raise NotFoundError("conversation", resource_id)
            self._record_usage(session, spent, resource_id, source, batch)
            was_pending = resource.status == pending.PENDING
            if failure is not None and was_pending:
                return self._keep_pending(
                    session, resource, failure, source, spent, redactions=redactions
                )
            if failure is not None:
                return MemorizeResult(
                    "error",
                    source,
                    reason=failure,
                    resource_id=resource_id,
                    **usage_fields(spent),
                )
            record_chunks(session, resource_id, transcript)  # the builder may have improved
            learnt = self._learn(session, extracted, transcript, resource, known, kind)
            if was_pending:
                pending.mark_memorized(session, resource, self.extractor.name)
            deferred = self._write_summaries(session, learnt.touched, known, update_summaries)
        learnt.conflicts = self._detect_quietly(learnt.added)
        return self._result(
            source, resource_id, learnt, deferred, spent, batch, redactions if was_pending else 0
        )

    def _grow(
        self,
        stored: tuple[int, str],
        clean: Transcript,
        rendered: tuple[str, list[TurnSpan], str],
        redactions: int,
        update_summaries: bool,
        batch: str | None,
    ) -> MemorizeResult | None:
        """The same session stored earlier, shorter (captured at PreCompact, now whole
        at SessionEnd or found by the startup check): one conversation, grown, and only
        the turns it gained are read by the extractor. `stored`: the conversation's id
        and content hash as found; `rendered`: the new text, turn spans and hash.

        None when another import changed the conversation meanwhile (the caller looks
        again). When the extractor fails, nothing grows: the conversation keeps its
        earlier text, memorized, and the next import of the file tries again."""
        resource_id, seen_hash = stored
        text, spans, digest = rendered
        source = _source_name(clean)
        with self.db.reading() as session:
            old = set(repo.turn_positions(session, resource_id))
            known = repo.categories(session)
        fresh = replace(clean, turns=tuple(t for t in clean.turns if t.position not in old))
        if skip_reason(fresh) is None:
            extracted, failure, spent = self._run_extractor(fresh, known)
        else:
            extracted, failure, spent = [], None, []
        if failure is None:
            extracted += self._workflows_quietly(clean, old)
        with self.db.writing() as session:
            resource = session.get(ResourceRow, resource_id)
            self._record_usage(session, spent, resource_id, source, batch)
            if resource is None or resource.content_hash != seen_hash:
                return None  # deleted or grown by another import meanwhile
            if failure is not None:
                reason = f"its new turns could not be read ({failure}); the next import retries"
                return MemorizeResult(
                    "error", source, reason=reason, resource_id=resource_id, **usage_fields(spent)
                )
            repo.grow_resource(session, resource, clean, text, spans, digest, redactions=redactions)
            record_episode(session, resource_id, clean)
            record_chunks(session, resource_id, clean)
            learnt = self._learn(session, extracted, clean, resource, known, "memorize")
            deferred = self._write_summaries(session, learnt.touched, known, update_summaries)
        learnt.conflicts = self._detect_quietly(learnt.added)
        result = self._result(source, resource_id, learnt, deferred, spent, batch, redactions)
        grown = f"conversation #{resource_id} grew by {len(fresh.turns)} turns"
        return replace(result, notes=(grown, *result.notes))

    def _workflows_quietly(
        self, clean: Transcript, already: Collection[int] = (), *, stored_as: int | None = None
    ) -> list[ExtractedItem]:
        """The routines the conversation's project's other sessions ran too
        (extract/repeated_workflows.py); a failure there must never lose the import."""
        try:
            with self.db.reading() as session:
                connection = session.connection()
                return workflows_across_sessions(connection, clean, already, stored_as=stored_as)
        except Exception:
            log.exception("workflows across sessions skipped for %s", _source_name(clean))
            return []

    def _keep_pending(
        self,
        session: Session,
        resource: ResourceRow,
        failure: str,
        source: str,
        spent: list[CallUsage],
        *,
        redactions: int,
    ) -> MemorizeResult:
        """Mark a stored conversation pending with why its extraction failed (inside the
        caller's transaction, after its usage was recorded)."""
        reason = failure
        paid = pending.paid_failures(session, resource.id or 0)
        if paid >= MAX_PAID_FAILURES:
            reason += (
                f"; {paid} answers were paid for and unusable, so it is no longer retried "
                "automatically (Retry in Sources, or `memory-app retry`)"
            )
        pending.mark_pending(session, resource, reason)
        return MemorizeResult(
            "pending",
            source,
            reason=reason,
            resource_id=resource.id,
            redactions=redactions,
            **usage_fields(spent),
        )

    def _run_extractor(
        self, clean: Transcript, known: list[Category]
    ) -> tuple[list[ExtractedItem], str | None, list[CallUsage]]:
        """The extractor's items for a (redacted) conversation, or the reason it failed;
        with the model usage either way."""
        if clean.is_sidechain:
            return [], None, []
        listed = listed_extractor(clean)
        if listed is not None:  # a source that lists its memories: each one, as it is
            return listed.extract(clean, known), None, []
        # The caps bound a model's cost; the offline rules read the whole conversation.
        # What does not fit verbatim is sent as chunk summaries, never dropped.
        limit = getattr(self.extractor, "max_input_chars", MAX_TOTAL_CHARS)
        per_turn = getattr(self.extractor, "max_turn_chars", MAX_TURN_CHARS)
        cut, _ = fit_for_extraction(clean, max_turn_chars=per_turn, max_total_chars=limit)
        try:
            memories = self._known_memories(clean)
            if memories:
                extracted = self.extractor.extract(cut, known, known=memories)
            else:
                extracted = self.extractor.extract(cut, known)
        except Exception as exc:  # an extractor failure must never lose the import
            reason = f"{self.extractor.name} extractor failed: {exc}"
            return [], reason, self._take_usage()
        return extracted, None, self._take_usage()

    def _known_memories(self, transcript: Transcript) -> list[KnownMemory]:
        """The active memories an extractor may say a new statement updates: of the
        newest few hundred, the conversation's project's and the global ones, pinned and
        most confident first. Only a model extractor reads them; the offline path pays
        nothing."""
        if not getattr(self.extractor, "reads_known_memories", False):
            return []
        with self.db.reading() as session:
            rows = repo.list_items(session, limit=KNOWN_MEMORIES * 3)
        rows = [r for r in rows if r.project in (None, transcript.project)]
        rows.sort(key=lambda r: (-(r.pinned or 0), -r.confidence, -(r.id or 0)))
        return [
            KnownMemory(id=r.id or 0, category=r.category, content=r.content)
            for r in rows[:KNOWN_MEMORIES]
        ]

    def _learn(
        self,
        session: Session,
        extracted: Sequence[ExtractedItem],
        transcript: Transcript,
        resource: ResourceRow,
        known: Sequence[Category],
        kind: str,
    ) -> Learnt:
        """Store what was extracted: new items added, duplicates reinforced."""
        group = new_group(kind)
        by_key = {c.key: c for c in known}
        # A category a person merged away: what the extractor files there goes where
        # its memories went.
        for old, new in repo.category_redirects(session).items():
            if old not in by_key and new in by_key:
                by_key[old] = by_key[new]
        learnt = Learnt()
        for item in extracted:
            outcome, item_id, category = self._store_extracted(
                session, item, transcript, resource, by_key, group
            )
            if outcome == "added":
                learnt.added.append(item_id)
                if item.updates is not None:
                    self._record_stated_update(session, item.updates, item_id)
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
        learnt: Learnt,
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
            **usage_fields(spent),
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
        memory_type = item.type or category.default_type
        content = redact(tidy_content(item.content, memory_type)).text
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
        if duplicate is not None and is_opposite(duplicate.content, content):
            duplicate = None  # same words, opposite meaning: a contradiction, not a repeat
        if duplicate is None:  # the same rule in other words, perhaps in another category
            duplicate = find_restated(session, self.db.dialect, transcript.project, content)
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
                    "branch": seen_on(duplicate.branch, learnt_branch(resource.branch)),
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
            branch=learnt_branch(resource.branch),
            tags=sorted(set(item.tags)),
            source_resource_id=resource.id,
            turn_start=item.turn_start,
            turn_end=item.turn_end,
            line_start=line_start,
            line_end=line_end,
            extractor=(listed_extractor(transcript) or self.extractor).name,
            extracted_at=now,
            updated_at=now,
            last_seen_at=now,
            valid_from=valid_from,
        )
        _add_or_hold(session, row, actor="extractor", group_id=group)
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
        group = new_group("evolve")
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
