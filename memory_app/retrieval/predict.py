"""Predictive context (seed 004): the memories likely needed before any prompt is typed,
ranked from what is known of the moment: the project folder, the git branch, the files
open or recently edited, the last error, the time of day.

A memory is about a file when its text names it (domain/file_signals.py) or when the
conversation it was learnt from read or edited it (the tool-call turns of its source
resource); it belongs to the moment when it was learnt on this branch; it answers the
error when it shares the error's distinctive words (the full-text index's bm25). The
usual standing (confidence, importance, use, recency: domain/scoring.py) and pinning
only break ties. Every result says why it was predicted.

As context assembly does (links/pull.py), a predicted memory brings its strongest linked
memory along (what it depends on, else a related one), right after it and marked
"linked to #N"; the list still holds `limit` memories at most, each once, so the last
predictions make room for what the first ones need.

Standard library only (sqlite3 and the pure domain code): the SessionStart hook runs it
on its own read-only connection, and the app passes its store's driver connection.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from memory_app.domain.file_signals import (
    FileSignal,
    ToolTouch,
    file_signal,
    mention,
    provenance,
    tool_touch,
)
from memory_app.domain.scoring import RankingWeights, ScoringFacts, normalised_relevance, score
from memory_app.links.model import MIN_STRENGTH, PULLED_KINDS, PULLED_PER_MEMORY
from memory_app.store.fts_query import MEMORY_RANK, STOP_WORDS, query_terms, terms_expression
from memory_app.store.project_match import folder_in_project

DEFAULT_LIMIT = 10
# How much each signal counts; a memory needs a file, error or branch match to be
# predicted at all, and the standing only orders memories the signals tie.
FILE_WEIGHT = 0.5
ERROR_WEIGHT = 0.3
BRANCH_WEIGHT = 0.15
TIME_WEIGHT = 0.05
STANDING_WEIGHT = 0.1
PINNED_BONUS = 0.05
MORE_FILES_BONUS = 0.1  # a memory about two of the open files beats one about one
MENTION_POOL = 300  # full-text candidates per file
BRANCH_POOL = 200
ERROR_POOL = 100
RESOURCE_POOL = 40  # conversations read for tool calls per file
ERROR_TERMS = 16
MIN_ERROR_RELEVANCE = 0.3
TIME_WINDOW_HOURS = 1
BRANCH_VERSION = 5  # memory_item.branch exists from schema version 5
LINK_VERSION = 7  # memory_link exists from schema version 7
# Words every error message has: they say nothing about which error it is.
ERROR_NOISE = frozenset(
    """error errors exception traceback recent call last line file failed failure fatal
    warning warn raised raise thrown uncaught unhandled most module see above below got
    expected cannot could not found invalid undefined null none true false""".split()
)
_SAID = "COALESCE(m.valid_from, m.extracted_at)"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Signals:
    """What is known of the moment; every field may be missing."""

    project: str | None = None  # the working folder: its memories and global ones
    branch: str | None = None
    files: tuple[str, ...] = ()  # open or recently edited, relative or absolute
    error: str = ""  # the last error message
    at: datetime | None = None  # the time of day to match; None: not a signal

    def is_empty(self) -> bool:
        return not (self.branch or any(f.strip() for f in self.files) or self.error.strip())


@dataclass(frozen=True)
class Prediction:
    id: int
    content: str
    category: str
    branch: str | None
    pinned: bool
    score: float
    reasons: tuple[str, ...]
    parts: dict[str, float] = field(default_factory=dict)
    linked_to: int | None = None  # brought along by this predicted memory's link

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "category": self.category,
            "branch": self.branch,
            "pinned": self.pinned,
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "parts": {k: round(v, 4) for k, v in self.parts.items()},
            "linked_to": self.linked_to,
        }


if TYPE_CHECKING:  # annotations only: the hook imports this module on its clock

    class _Database(Protocol):
        def reading(self) -> Any: ...

    class _HasStore(Protocol):
        @property
        def db(self) -> _Database: ...


def predict(
    source: sqlite3.Connection | _HasStore,
    signals: Signals,
    limit: int = DEFAULT_LIMIT,
    now: datetime | None = None,
) -> list[Prediction]:
    """The `limit` memories the signals predict, best first, each with its reasons.

    `source`: a MemoryService (or anything with its `db`), or an open sqlite3
    connection to a store (the hook's read-only one)."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    now = now or datetime.now(UTC)
    with _connection(source) as conn:
        return _Predictor(conn, signals, now).ranked(limit)


@contextmanager
def _connection(source: sqlite3.Connection | _HasStore) -> Iterator[sqlite3.Connection]:
    if isinstance(source, sqlite3.Connection):
        yield source
        return
    with source.db.reading() as session:
        # The ORM session's own connection, as the driver's: the queries are plain SQL.
        raw = session.connection().connection.driver_connection
        if not isinstance(raw, sqlite3.Connection):
            raise ValueError("predictive context needs a SQLite store")
        yield raw


def db_time(value: datetime) -> str:
    """store/types.py's to_db_time: sortable UTC text, for comparisons in SQL."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Predictor:
    def __init__(self, conn: sqlite3.Connection, signals: Signals, now: datetime) -> None:
        self.conn = conn
        self.signals = signals
        self.now = now
        self.params: dict[str, Any] = {"at": db_time(now), "project": signals.project or ""}
        self.visible = self._visible()
        self.files = [
            s for s in (file_signal(f, signals.project) for f in signals.files) if s is not None
        ]
        # memory id -> file -> the strongest tie and every reason for it
        self.file_parts: dict[int, dict[str, tuple[float, list[str]]]] = {}
        self.error_parts: dict[int, tuple[float, str]] = {}
        self.on_branch: set[int] = set()

    def _visible(self) -> str:
        """Active, valid now, the project's or global, not kept out of its context."""
        clauses = [
            "m.status = 'active'",
            f"{_SAID} <= :at AND (m.valid_until IS NULL OR m.valid_until > :at)",
        ]
        if self.signals.project:
            clauses.append(f"({folder_in_project('m.project')} OR m.scope = 'global')")
            clauses.append(
                "m.id NOT IN (SELECT item_id FROM context_exclusion "
                f"WHERE project = '' OR {folder_in_project('project')})"
            )
        else:
            clauses.append("m.id NOT IN (SELECT item_id FROM context_exclusion WHERE project = '')")
        return " AND ".join(clauses)

    def ranked(self, limit: int) -> list[Prediction]:
        if self.signals.is_empty():
            return []
        for signal in self.files:
            self._mentions(signal)
            self._learnt_with(signal)
        self._error()
        self._branch()
        ids = set(self.file_parts) | set(self.error_parts) | self.on_branch
        if not ids:
            return []
        rows = self._rows(ids)
        found = [self._prediction(row) for row in rows]
        found.sort(key=lambda p: (-p.score, p.id))
        return self._with_linked(found[:limit], limit)

    # -- linked memories -----------------------------------------------------------------

    def _with_linked(self, top: list[Prediction], limit: int) -> list[Prediction]:
        """Each prediction followed by the memories it is strongly linked to (not already
        listed), cut back to `limit`."""
        targets = self._linked_targets([p.id for p in top])
        if not targets:
            return top
        wanted = {t for linked in targets.values() for t, _ in linked} - {p.id for p in top}
        rows = {row[0]: row for row in self._rows(wanted)} if wanted else {}
        out: list[Prediction] = []
        listed = {p.id for p in top}
        for prediction in top:
            out.append(prediction)
            brought = 0
            for other, kind in targets.get(prediction.id, []):
                if brought >= PULLED_PER_MEMORY:
                    break
                if other in listed or other not in rows:
                    continue
                out.append(self._linked(rows[other], prediction, kind))
                listed.add(other)
                brought += 1
        return out[:limit]

    def _linked_targets(self, ids: list[int]) -> dict[int, list[tuple[int, str]]]:
        """For each memory, the visible memories it is strongly linked to, best first:
        depends-on (its own) before related (either way), then by strength."""
        if not ids or _schema_version(self.conn) < LINK_VERSION:
            return {}
        listed = ", ".join(str(int(i)) for i in ids)
        kinds = ", ".join(f"'{k}'" for k in PULLED_KINDS)
        rows = self.conn.execute(
            "SELECT source_id, target_id, kind, strength FROM memory_link "
            f"WHERE kind IN ({kinds}) AND origin != 'rejected' AND strength >= :least "
            f"AND (source_id IN ({listed}) OR (target_id IN ({listed}) AND kind = 'related'))",
            {"least": MIN_STRENGTH},
        ).fetchall()
        wanted = set(ids)
        ranked: dict[int, list[tuple[int, float, int, str]]] = {}
        for source, target, kind, strength in rows:
            for here, other in ((source, target), (target, source)):
                if here in wanted and (kind == "related" or here == source):
                    entry = (PULLED_KINDS.index(kind), -strength, other, kind)
                    ranked.setdefault(here, []).append(entry)
        others = {other for entries in ranked.values() for _, _, other, _ in entries}
        if not others:
            return {}
        listed = ", ".join(str(int(i)) for i in others)
        visible = {
            row[0]
            for row in self.conn.execute(
                f"SELECT m.id FROM memory_item AS m WHERE m.id IN ({listed}) AND {self.visible}",
                self.params,
            )
        }
        return {
            here: [(other, kind) for _, _, other, kind in sorted(entries) if other in visible]
            for here, entries in ranked.items()
        }

    def _linked(self, row: tuple[Any, ...], by: Prediction, kind: str) -> Prediction:
        """A memory brought along by `by`: listed just below it, saying why."""
        own = self._prediction(row)
        how = "needed by" if kind == "depends-on" else "related to"
        reasons = (f"linked to #{by.id} ({how} it)", *own.reasons)
        return replace(own, reasons=reasons, linked_to=by.id)

    # -- the signals ---------------------------------------------------------------------

    def _note_file(self, item_id: int, signal: FileSignal, strength: float, why: str) -> None:
        kept = self.file_parts.setdefault(item_id, {})
        best, reasons = kept.get(signal.path, (0.0, []))
        kept[signal.path] = (max(best, strength), [*reasons, why])

    def _mentions(self, signal: FileSignal) -> None:
        """Memories whose text names the file: full-text candidates, checked exactly."""
        words = signal.search_words()
        if not words:
            return
        sql = (
            "SELECT m.id, m.content, COALESCE(m.context, ''), m.tags "
            "FROM memory_fts JOIN memory_item AS m ON m.id = memory_fts.rowid "
            f"WHERE memory_fts MATCH :q AND {self.visible} "
            f"ORDER BY {MEMORY_RANK} LIMIT {MENTION_POOL}"
        )
        params = {**self.params, "q": '"' + " ".join(words) + '"'}
        for item_id, content, context, tags in self.conn.execute(sql, params):
            found = mention(signal, f"{content}\n{context}\n{tags}")
            if found is not None:
                self._note_file(item_id, signal, *found)

    def _learnt_with(self, signal: FileSignal) -> None:
        """Memories learnt in conversations whose tool calls read or edited the file:
        the conversations that name it (full text), then their tool-call turns."""
        words = [w.lower() for w in _WORD.findall(signal.name)]
        if not words:
            return
        sources = (
            f"SELECT DISTINCT m.source_resource_id FROM memory_item AS m WHERE {self.visible} "
            "AND m.source_resource_id IS NOT NULL"
        )
        sql = (
            "SELECT rowid FROM resource_fts WHERE resource_fts MATCH :q "
            f"AND rowid IN ({sources}) ORDER BY bm25(resource_fts) LIMIT {RESOURCE_POOL}"
        )
        params = {**self.params, "q": '"' + " ".join(words) + '"'}
        resources = [row[0] for row in self.conn.execute(sql, params)]
        if not resources:
            return
        listed = ", ".join(str(int(r)) for r in resources)
        touched: dict[int, list[ToolTouch]] = {}
        texts: dict[int, str] = {}
        turns = self.conn.execute(
            'SELECT resource_id, position, start, "end" FROM resource_turn '
            f"WHERE kind = 'tool_use' AND resource_id IN ({listed}) ORDER BY resource_id"
        ).fetchall()
        for resource_id, position, start, end in turns:
            if resource_id not in texts:
                (texts[resource_id],) = self.conn.execute(
                    "SELECT text FROM resource WHERE id = ?", (resource_id,)
                ).fetchone()
            touch = tool_touch(position, texts[resource_id][start:end])
            if touch is not None:
                touched.setdefault(resource_id, []).append(touch)
        if not touched:
            return
        listed = ", ".join(str(int(r)) for r in touched)
        memories = self.conn.execute(
            "SELECT m.id, m.source_resource_id, m.turn_start, m.turn_end FROM memory_item AS m "
            f"WHERE m.source_resource_id IN ({listed}) AND {self.visible}",
            self.params,
        )
        for item_id, resource_id, turn_start, turn_end in memories:
            found = provenance(signal, touched[resource_id], turn_start, turn_end)
            if found is not None:
                self._note_file(item_id, signal, *found)

    def _error(self) -> None:
        """Memories sharing the error's distinctive words, by bm25 against the best."""
        terms = error_terms(self.signals.error)
        if not terms:
            return
        sql = (
            f"SELECT m.id, m.content, COALESCE(m.context, ''), {MEMORY_RANK} AS rank "
            "FROM memory_fts JOIN memory_item AS m ON m.id = memory_fts.rowid "
            f"WHERE memory_fts MATCH :q AND {self.visible} ORDER BY rank LIMIT {ERROR_POOL}"
        )
        params = {**self.params, "q": terms_expression(terms, match_any=True)}
        rows = self.conn.execute(sql, params).fetchall()
        if not rows:
            return
        best = -rows[0][3]
        for item_id, content, context, rank in rows:
            share = normalised_relevance(-rank, best)
            if share < MIN_ERROR_RELEVANCE:
                continue
            said = {w.lower() for w in _WORD.findall(f"{content} {context}")}
            shared = [t for t in terms if t in said]
            why = (
                "shares " + ", ".join(shared[:3]) + " with the error"
                if shared
                else "matches the error"
            )
            self.error_parts[item_id] = (share, why)

    def _branch(self) -> None:
        branch = (self.signals.branch or "").strip()
        if not branch or _schema_version(self.conn) < BRANCH_VERSION:
            return
        sql = (
            f"SELECT m.id FROM memory_item AS m WHERE m.branch = :branch AND {self.visible} "
            f"ORDER BY m.pinned DESC, m.confidence + m.importance DESC, m.id LIMIT {BRANCH_POOL}"
        )
        rows = self.conn.execute(sql, {**self.params, "branch": branch})
        self.on_branch = {row[0] for row in rows}

    # -- the ranking ---------------------------------------------------------------------

    def _rows(self, ids: set[int]) -> list[tuple[Any, ...]]:
        feedback = "m.cited_count, m.ignored_count" if _schema_version(self.conn) >= 4 else "0, 0"
        branch = "m.branch" if _schema_version(self.conn) >= BRANCH_VERSION else "NULL"
        listed = ", ".join(str(int(i)) for i in sorted(ids))
        return self.conn.execute(
            f"SELECT m.id, m.content, m.category, {branch}, m.pinned, m.confidence, "
            f"m.importance, m.access_count, "
            f"COALESCE(m.last_accessed_at, m.last_seen_at, {_SAID}), {feedback}, {_SAID} "
            f"FROM memory_item AS m WHERE m.id IN ({listed})"
        ).fetchall()

    def _prediction(self, row: tuple[Any, ...]) -> Prediction:
        item_id, content, category, branch, pinned, confidence, importance, uses = row[:8]
        last_used, cited, ignored, said = row[8:]
        reasons: list[str] = []
        parts: dict[str, float] = {}
        by_file = sorted(self.file_parts.get(item_id, {}).values(), reverse=True)
        if by_file:
            parts["file"] = min(1.0, by_file[0][0] + MORE_FILES_BONUS * (len(by_file) - 1))
            reasons += [why for _, whys in by_file for why in whys]
        if item_id in self.error_parts:
            parts["error"], why = self.error_parts[item_id]
            reasons.append(why)
        if item_id in self.on_branch:
            parts["branch"] = 1.0
            reasons.append(f"learnt on this branch ({branch})")
        if self.signals.at is not None and _near_hour(said, self.signals.at):
            parts["time"] = 1.0
            reasons.append("usually comes up at this time of day")
        facts = ScoringFacts(
            0.0, confidence, importance, uses, datetime.fromisoformat(last_used), cited, ignored
        )
        parts["standing"] = score(facts, RankingWeights().without_relevance(), self.now).total
        total = (
            FILE_WEIGHT * parts.get("file", 0.0)
            + ERROR_WEIGHT * parts.get("error", 0.0)
            + BRANCH_WEIGHT * parts.get("branch", 0.0)
            + TIME_WEIGHT * parts.get("time", 0.0)
            + STANDING_WEIGHT * parts["standing"]
            + (PINNED_BONUS if pinned else 0.0)
        )
        if pinned:
            reasons.append("pinned")
        return Prediction(
            item_id, content, category, branch, bool(pinned), total, tuple(reasons), parts
        )


def error_terms(error: str) -> list[str]:
    """The error's words that say which error it is: identifiers and rare words first
    (a word with a digit, an underscore or inner capitals), the boilerplate left out."""
    raw = {w.lower(): w for w in _WORD.findall(error)}
    words = [
        w
        for w in query_terms(error)
        if w not in STOP_WORDS and w not in ERROR_NOISE and len(w) > 2 and not w.isdigit()
    ]

    def distinctive(word: str) -> bool:
        original = raw.get(word, word)
        return "_" in original or any(c.isdigit() for c in original) or _inner_capital(original)

    words.sort(key=lambda w: not distinctive(w))  # stable: identifiers first, then in order
    return words[:ERROR_TERMS]


def _inner_capital(word: str) -> bool:
    return any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)


def _near_hour(said: str, at: datetime) -> bool:
    hour = datetime.fromisoformat(said).astimezone(UTC).hour
    wanted = at.astimezone(UTC).hour
    apart = abs(hour - wanted) % 24
    return min(apart, 24 - apart) <= TIME_WINDOW_HOURS


def _schema_version(conn: sqlite3.Connection) -> int:
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    return int(version)


def signals_from(
    project: str | None,
    branch: str | None,
    files: Sequence[str],
    error: str | None,
    at: datetime | None = None,
) -> Signals:
    """Signals from loose values (a CLI's or an API's), blanks dropped."""
    return Signals(
        project=project or None,
        branch=(branch or "").strip() or None,
        files=tuple(f for f in files if f.strip()),
        error=error or "",
        at=at,
    )
