"""Plain, frozen values handed to front ends (GUI, CLI, hooks): never live ORM rows."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_app.domain.usage import UsageSummary

from memory_app.domain.usage import UsageSummary

# "held": kept back for a person to review (a possible secret, see possible_secrets.py):
# never in context or exports until kept.
ITEM_STATUSES = ("active", "held", "archived", "superseded", "deleted", "invalid")
# What "memories" counts wherever a number of memories is shown (dashboard card and
# charts, status bar, Memories view, CLI stats): the active ones, the memories search,
# context and exports use. The others are kept but not counted: held (waiting for a
# person's review), archived (put away by maintenance or a person), superseded
# (replaced by a newer memory, kept for its history), invalid (marked wrong) and
# deleted (forgotten, restorable). `Stats.items_by_status` has them all.
COUNTED_STATUSES = ("active",)
SCOPES = ("session", "project", "global")
ACTORS = ("user", "extractor", "maintenance", "system")


@dataclass(frozen=True)
class MemoryRecord:
    id: int
    category: str
    type: str
    content: str
    confidence: float
    importance: float
    scope: str
    status: str
    pinned: bool
    tags: tuple[str, ...]
    extracted_at: datetime
    updated_at: datetime
    access_count: int = 0
    reinforcement_count: int = 0
    project: str | None = None
    session_id: str | None = None
    branch: str | None = None  # the git branch it was learnt on (seed 001 branch memory)
    context: str | None = None
    source_resource_id: int | None = None
    turn_start: int | None = None
    turn_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    extractor: str | None = None
    last_accessed_at: datetime | None = None
    last_seen_at: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    superseded_by: int | None = None
    decay_factor: float = 1.0  # seed 003's decay since last use, as of the last nightly run
    injected_count: int = 0  # seed 004: times the hooks gave it to the assistant
    cited_count: int = 0  # ... and the answer used it
    ignored_count: int = 0  # ... and the answer did not
    score: float | None = None  # relevance, when the record came from a search
    # Open conflicts this memory is in; filled for search results (seed 000 §3.3).
    conflict_ids: tuple[int, ...] = ()
    # Personal or team (domain/sharing.py): its name across stores, its sharing, and the
    # sync state (the team store's sequence of the version it was based on; a change
    # not pushed yet).
    uid: str = ""
    sharing: str = "personal"
    team_seq: int | None = None
    team_dirty: bool = False

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class InjectedMemory:
    """One memory a recall hook gave the assistant, and whether the answer used it."""

    item_id: int
    content: str
    score: float | None  # the ranking score; None for standing context (session start)
    verdict: str  # domain/citation.py VERDICTS


@dataclass(frozen=True)
class InjectionRecord:
    """One answer of a recall hook: what the assistant saw for a prompt or a session."""

    id: int
    at: datetime
    event: str  # UserPromptSubmit | SessionStart
    session_id: str | None
    project: str | None
    outcome: str  # injected | reused | no_match | skipped
    prompt: str | None  # redacted, once the session's transcript was imported
    memories: tuple[InjectedMemory, ...] = ()
    reused_from: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class ResourceRecord:
    id: int
    source_kind: str
    source_path: str | None
    session_id: str | None
    branch: str | None
    project: str | None
    title: str | None
    started_at: datetime | None
    ended_at: datetime | None
    imported_at: datetime
    message_count: int
    turn_count: int
    redaction_count: int
    status: str  # memorized | pending (extraction failed; kept and retried)
    status_reason: str | None = None
    item_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class CategoryInfo:
    key: str
    name: str
    description: str
    default_type: str
    position: int
    item_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AuditRecord:
    id: int
    at: datetime
    actor: str
    action: str
    item_id: int | None
    group_id: str | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    note: str | None

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class Stats:
    items: int  # memories as counted everywhere: the active ones (COUNTED_STATUSES)
    items_by_status: dict[str, int]
    items_by_category: dict[str, int]
    resources: int
    categories: int
    conflicts_open: int
    last_memorized: datetime | None
    pinned: int = 0  # pinned among the counted memories

    @property
    def kept(self) -> int:
        """Every memory the store keeps except deleted ones (counted or not)."""
        return sum(n for status, n in self.items_by_status.items() if status != "deleted")

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class MemorizeResult:
    """What memorizing one conversation did (seed 001 statuses)."""

    # success | skipped | empty | error | pending (stored, extraction failed: retried later)
    status: str
    source: str
    reason: str | None = None
    resource_id: int | None = None
    items_added: tuple[int, ...] = ()
    items_reinforced: tuple[int, ...] = ()
    items_suppressed: int = 0  # matched something the user forgot: not re-learnt
    redactions: int = 0
    categories_updated: tuple[str, ...] = ()
    # What else a person should know: e.g. a summary that fell back to the deterministic
    # one because the model's evolution failed.
    notes: tuple[str, ...] = ()
    input_tokens: int = 0  # model usage of this conversation (0 for the offline extractor)
    output_tokens: int = 0
    cost_usd: float | None = None  # estimated; None when no model ran or its price is unknown
    conflicts_found: tuple[int, ...] = ()  # conflicts the new memories opened

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


@dataclass(frozen=True)
class ImportReport:
    files: int = 0
    results: tuple[MemorizeResult, ...] = ()
    problems: tuple[str, ...] = ()  # "path:line: message" for unreadable parts
    cancelled: bool = False
    notes: tuple[str, ...] = ()  # import-wide notes (summary evolution after the import)
    usage: UsageSummary | None = None  # model usage of the whole import, when a model ran

    @property
    def resources_added(self) -> int:
        return sum(1 for r in self.results if r.resource_id is not None and r.status != "skipped")

    @property
    def skipped(self) -> list[MemorizeResult]:
        return [r for r in self.results if r.status == "skipped"]

    @property
    def items_added(self) -> int:
        return sum(len(r.items_added) for r in self.results)

    @property
    def items_reinforced(self) -> int:
        return sum(len(r.items_reinforced) for r in self.results)

    @property
    def errors(self) -> list[MemorizeResult]:
        return [r for r in self.results if r.status == "error"]

    @property
    def pending(self) -> list[MemorizeResult]:
        """Stored, but their extraction failed: kept and retried later (not errors)."""
        return [r for r in self.results if r.status == "pending"]

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "resources_added": self.resources_added,
            "skipped": [{"source": r.source, "reason": r.reason} for r in self.skipped],
            "items_added": self.items_added,
            "duplicates_reinforced": self.items_reinforced,
            "errors": [{"source": r.source, "reason": r.reason} for r in self.errors],
            "pending": [
                {"source": r.source, "reason": r.reason, "resource_id": r.resource_id}
                for r in self.pending
            ],
            "problems": list(self.problems),
            "cancelled": self.cancelled,
            "notes": [*(n for r in self.results for n in r.notes), *self.notes],
            "usage": self.usage.to_json() if self.usage else None,
            "results": [r.to_json() for r in self.results],
        }


def _json_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """A dataclass's `asdict` with datetimes as ISO strings and tuples as lists."""
    return {k: _jsonable(v) for k, v in fields.items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


# Columns a person can sort the memory table by, in the words of the table's headers.
SORT_KEYS = (
    "content",
    "category",
    "confidence",
    "access_count",
    "last_accessed_at",
    "extracted_at",
    "status",
    "pinned",
)


# ItemQuery.branch for memories learnt on no branch (git allows no empty branch name).
NO_BRANCH = ""


@dataclass(frozen=True)
class ItemQuery:
    """What the memory table shows: filters, order and the page wanted."""

    text: str = ""  # full-text search; empty means no text filter
    category: str | None = None
    statuses: tuple[str, ...] = ("active",)
    pinned: bool | None = None
    min_confidence: float = 0.0
    max_confidence: float = 1.0
    since: datetime | None = None  # extracted at or after
    until: datetime | None = None  # extracted before
    source_resource_id: int | None = None
    # Learnt on this git branch; NO_BRANCH: on none; None: any branch.
    branch: str | None = None
    sharing: str | None = None  # "personal" or "team" (domain/sharing.py); None: both
    sort_key: str | None = None  # None: relevance when searching, else newest first
    descending: bool = True
    offset: int = 0
    limit: int = 200


@dataclass(frozen=True)
class ActivityEntry:
    """One line of "recent activity": an import, a person's change, a maintenance run."""

    at: datetime
    kind: str  # import | change | maintenance
    text: str
    item_id: int | None = None
    resource_id: int | None = None


@dataclass(frozen=True)
class DashboardData:
    stats: Stats
    weekly_added: tuple[tuple[datetime, int], ...]  # week start → memories extracted
    confidence_histogram: tuple[int, ...]  # counts in 10 bins of 0.1 from 0.0 to 1.0
    activity: tuple[ActivityEntry, ...]
    next_maintenance: datetime | None = None
    usage: UsageSummary | None = None  # model calls (Claude): tokens and estimated cost


@dataclass(frozen=True)
class TurnRecord:
    """Where a turn sits in its conversation's text, for the Sources reader."""

    position: int
    speaker: str
    kind: str
    start: int
    end: int
    source_line: int | None = None
    timestamp: datetime | None = None


@dataclass(frozen=True)
class ConflictRecord:
    id: int
    category: str
    status: str
    created_at: datetime
    item_ids: tuple[int, ...]
    reason: str | None = None
    decision: str | None = None
    notes: str | None = None
    resolved_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status in ("unresolved", "pending_user_review")

    def to_json(self) -> dict[str, Any]:
        return _json_fields(asdict(self))


CONFLICT_DECISIONS = (
    "keep_newer",
    "keep_older",
    "keep_both",
    "mark_outdated",
    "higher_confidence",
    "merge",
)
# Seed 000 §1.4, plus accepted_older and merged for the decisions it lacks a word for.
CONFLICT_STATUSES = (
    "unresolved",
    "pending_user_review",
    "accepted_newer",
    "accepted_older",
    "kept_both_with_context",
    "marked_outdated",
    "accepted_higher_confidence",
    "merged",
    "auto_resolved",
)


@dataclass(frozen=True)
class ConflictDetail:
    """One conflict side by side: its memories oldest first, with where each was said."""

    record: ConflictRecord
    items: tuple[MemoryRecord, ...]  # oldest → newest (valid_from, then extracted_at)
    excerpts: dict[int, str]  # item id → ~300 chars of its conversation ("" when unknown)

    def to_json(self) -> dict[str, Any]:
        return {
            **_json_fields(asdict(self.record)),
            "items": [i.to_json() for i in self.items],
            "excerpts": {str(k): v for k, v in self.excerpts.items()},
        }


@dataclass(frozen=True)
class MaintenanceRunRecord:
    id: int
    kind: str
    status: str
    dry_run: bool
    started_at: datetime
    finished_at: datetime | None
    result: dict[str, Any]
    error: str | None = None
    group_id: str | None = None  # the undo group of the changes it applied
