"""The schema: one coherent merge of seeds 000 (§1), 002 (§2.5), 003 and 004.

Integer primary keys keep FTS5's external-content rowids simple and give people short
ids to type (`memory-app show 42`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Column, Index, Table, UniqueConstraint
from sqlmodel import Field, SQLModel

from memory_app.domain.sharing import PERSONAL, new_uid
from memory_app.store.types import JSON_VALUE, UTCDateTime


def utc_now() -> datetime:
    return datetime.now(UTC)


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a table model, for queries that skip the ORM."""
    table: Table = model.__table__  # type: ignore[attr-defined]  # set by SQLModel, not declared
    return table


def _time(nullable: bool = True, index: bool = False) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable, index=index))


class CategoryRow(SQLModel, table=True):
    __tablename__ = "category"

    key: str = Field(primary_key=True)
    name: str
    description: str = ""
    default_type: str = "fact"
    position: int = 0


class ResourceRow(SQLModel, table=True):
    """An imported conversation: immutable once written (seed 000 §1.1)."""

    __tablename__ = "resource"

    id: int | None = Field(default=None, primary_key=True)
    content_hash: str = Field(unique=True)  # re-importing the same content is a no-op
    source_kind: str
    source_path: str | None = None
    session_id: str | None = Field(default=None, index=True)
    parent_session_id: str | None = None
    branch: str | None = None
    project: str | None = Field(default=None, index=True)
    title: str | None = None
    is_sidechain: bool = False
    started_at: datetime | None = _time()
    ended_at: datetime | None = _time()
    imported_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False, index=True)
    )
    message_count: int = 0
    turn_count: int = 0
    text: str  # the full normalized, redacted conversation
    redaction_count: int = 0
    extractor: str | None = None
    # memorized | pending (kept, its extraction failed: retried later) | skipped | error
    status: str = "memorized"
    status_reason: str | None = None  # why it is pending


class TurnRow(SQLModel, table=True):
    """Where each turn sits in its resource's text, for provenance highlighting."""

    __tablename__ = "resource_turn"
    __table_args__ = (UniqueConstraint("resource_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    resource_id: int = Field(foreign_key="resource.id", ondelete="CASCADE")
    position: int
    speaker: str
    kind: str
    start: int  # character offsets into ResourceRow.text
    end: int
    source_line: int | None = None
    timestamp: datetime | None = _time()


class MemoryItemRow(SQLModel, table=True):
    """A distilled memory (seed 000 §1.2, seed 002 §2.5, seed 003 types, seed 004 validity)."""

    __tablename__ = "memory_item"
    __table_args__ = (
        # The memory table's default orders: newest first within a status (and category).
        Index("ix_memory_item_status_extracted", "status", "extracted_at"),
        Index("ix_memory_item_category_status", "category", "status", "extracted_at"),
        Index("ix_memory_item_dedupe", "category", "content_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    category: str = Field(foreign_key="category.key")
    type: str = "fact"
    content: str
    content_key: str  # normalized content, for write-time deduplication
    context: str | None = None
    confidence: float
    importance: float = 0.5
    scope: str = "project"  # session | project | global
    project: str | None = Field(default=None, index=True)
    session_id: str | None = None
    # The git branch it was learnt on (seed 001's branch memory); None: on no branch, or
    # not known. A branch's CLAUDE.md holds its own memories plus the branchless ones.
    branch: str | None = Field(default=None, index=True)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON_VALUE, nullable=False))
    source_resource_id: int | None = Field(
        default=None, foreign_key="resource.id", index=True, ondelete="SET NULL"
    )
    turn_start: int | None = None
    turn_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    extractor: str | None = None
    extracted_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False, index=True)
    )
    updated_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )
    last_accessed_at: datetime | None = _time()
    last_seen_at: datetime | None = _time()
    access_count: int = 0
    reinforcement_count: int = 0
    pinned: bool = False
    # active | archived | superseded | deleted | invalid (broke the schema rules)
    status: str = Field(default="active", index=True)
    valid_from: datetime | None = _time()
    valid_until: datetime | None = _time()
    superseded_by: int | None = Field(default=None, foreign_key="memory_item.id")
    # Seed 003's decay since last use, refreshed by nightly maintenance (derived, so not
    # audited: it is recomputed from the timestamps and access count every night).
    decay_factor: float = 1.0
    # Seed 004's usage tracker: times the hooks injected it, and of those judged, the
    # times the assistant's next answer used it or did not (store/injections.py).
    injected_count: int = 0
    cited_count: int = 0
    ignored_count: int = 0
    # Personal or team (issue 20, domain/sharing.py, version 10): the memory's name in
    # every store (a UUID), personal | team, the team store's change sequence of the
    # version last pulled or pushed (the base of a local edit; None: never there) and
    # whether a local change waits to be pushed.
    uid: str = Field(default_factory=new_uid, index=True, unique=True)
    sharing: str = Field(default=PERSONAL, index=True)
    team_seq: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    team_dirty: bool = False


class CategorySummaryRow(SQLModel, table=True):
    """The markdown summary of a category (seed 000 §1.3 template)."""

    __tablename__ = "category_summary"

    category: str = Field(primary_key=True, foreign_key="category.key")
    markdown: str
    item_count: int = 0
    generator: str = "deterministic"
    # Weekly maintenance's compression of the category's older memories (markdown);
    # kept apart from the summary, which is rebuilt whenever the category changes.
    digest: str = ""
    updated_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )


class ConflictRow(SQLModel, table=True):
    """Contradicting memories awaiting a person's decision (seed 000 §1.4)."""

    __tablename__ = "conflict"

    id: int | None = Field(default=None, primary_key=True)
    category: str = Field(foreign_key="category.key")
    status: str = Field(default="unresolved", index=True)
    detector: str | None = None
    reason: str | None = None
    decision: str | None = None
    notes: str | None = None
    created_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )
    resolved_at: datetime | None = _time()


class ConflictMemberRow(SQLModel, table=True):
    __tablename__ = "conflict_member"

    conflict_id: int = Field(foreign_key="conflict.id", primary_key=True, ondelete="CASCADE")
    item_id: int = Field(foreign_key="memory_item.id", primary_key=True, index=True)
    position: int = 0


class ConflictJudgementRow(SQLModel, table=True):
    """Every verdict on a pair of items, so no pair is judged twice (seed 004 §4 cache).

    Keyed by the unordered pair, smaller id first; a model verdict costs money and a
    rule verdict must not re-raise a conflict a person already resolved.
    """

    __tablename__ = "conflict_judgement"

    item_a: int = Field(foreign_key="memory_item.id", primary_key=True)
    item_b: int = Field(foreign_key="memory_item.id", primary_key=True)
    contradicts: bool
    reason: str = ""
    judge: str = "rules"  # rules | claude
    judged_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )


class MaintenanceRunRow(SQLModel, table=True):
    __tablename__ = "maintenance_run"

    id: int | None = Field(default=None, primary_key=True)
    kind: str
    status: str = "running"  # running | success | error | cancelled
    dry_run: bool = False
    started_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )
    finished_at: datetime | None = _time()
    result: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False)
    )
    error: str | None = None
    group_id: str | None = None  # the audit group its applied changes belong to (undo)


class MaintenanceChangeRow(SQLModel, table=True):
    """One change a maintenance run proposed, waiting for (or past) a person's review."""

    __tablename__ = "maintenance_change"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="maintenance_run.id", index=True, ondelete="CASCADE")
    kind: str  # merge | archive | compress | mark_invalid
    item_ids: list[int] = Field(default_factory=list, sa_column=Column(JSON_VALUE, nullable=False))
    category: str | None = None
    title: str
    reason: str = ""
    before: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False)
    )
    after: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False)
    )
    decision: str = Field(default="pending", index=True)  # see domain.maintenance.DECISIONS
    group_id: str | None = None


class MaintenanceScheduleRow(SQLModel, table=True):
    """How often each job runs (seed 000 §6.1); the store's, so the CLI and app agree."""

    __tablename__ = "maintenance_schedule"

    kind: str = Field(primary_key=True)
    enabled: bool = True
    every_days: int = 1
    auto_apply: bool = False


class AuditEventRow(SQLModel, table=True):
    """One change to one item (or one conflict): who, what, before and after. Undo and
    history read it."""

    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False, index=True)
    )
    actor: str  # user | extractor | maintenance | system
    action: str  # create | update | reinforce | delete | restore | ...
    item_id: int | None = Field(default=None, index=True)
    # Set (with item_id None) when the event changed a conflict's status: undo reopens it.
    conflict_id: int | None = Field(default=None, index=True)
    group_id: str | None = Field(default=None, index=True)  # one undoable step
    before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON_VALUE))
    after: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON_VALUE))
    note: str | None = None


class ExtractionRunRow(SQLModel, table=True):
    """One extractor step that called a model (extract or evolve): tokens and cost.

    Written even when the step failed and nothing else was stored, because the tokens
    were spent all the same. The cost is the estimate at the time of the run.
    """

    __tablename__ = "extraction_run"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False, index=True)
    )
    kind: str  # extract | evolve
    extractor: str
    model: str | None = None
    status: str = "success"  # success | error
    requests: int = 0  # API requests made, retries of invalid answers included
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    duration_ms: int = 0
    resource_id: int | None = Field(default=None, foreign_key="resource.id", ondelete="SET NULL")
    source: str | None = None  # the conversation's file or title, also when it was not stored
    category: str | None = None  # for evolve: the category whose summary was merged
    batch: str | None = Field(default=None, index=True)  # the import it belonged to
    error: str | None = None


class ContextExclusionRow(SQLModel, table=True):
    """A memory a person chose never to inject into a project's context (or any, with
    project ""), though it stays in the store and in search."""

    __tablename__ = "context_exclusion"

    item_id: int = Field(foreign_key="memory_item.id", primary_key=True, ondelete="CASCADE")
    project: str = Field(default="", primary_key=True)
    created_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )


class InjectionRow(SQLModel, table=True):
    """One answer of a recall hook (hooks/injections.py's log line, taken into the store):
    what the assistant was given for a prompt or at a session's start."""

    __tablename__ = "injection"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False, index=True))
    event: str  # UserPromptSubmit | SessionStart
    session_id: str | None = Field(default=None, index=True)
    project: str | None = None
    outcome: str  # hooks/injections.py OUTCOMES
    prompt: str | None = None  # the prompt, redacted, once its transcript was imported
    transcript_path: str | None = None
    budget: int | None = None
    reused_from: datetime | None = _time()


class InjectionMemoryRow(SQLModel, table=True):
    """A memory one injection gave, its score, and whether the answer used it."""

    __tablename__ = "injection_memory"

    injection_id: int = Field(foreign_key="injection.id", primary_key=True, ondelete="CASCADE")
    item_id: int = Field(
        foreign_key="memory_item.id", primary_key=True, index=True, ondelete="CASCADE"
    )
    position: int
    score: float | None = None
    verdict: str = "pending"  # domain/citation.py VERDICTS


class EpisodeRow(SQLModel, table=True):
    """A conversation told as an episode (seeds 003 and 004; memory_app/episodes): goal,
    milestones, problems, outcome, files, duration. Derived from its conversation, so it
    is rebuilt rather than edited; its memories are the conversation's
    (memory_item.source_resource_id), found by query, so a re-extraction needs no link."""

    __tablename__ = "episode"

    id: int | None = Field(default=None, primary_key=True)
    resource_id: int = Field(foreign_key="resource.id", unique=True, ondelete="CASCADE")
    title: str
    goal: str
    goal_turn: int | None = None
    outcome: str = Field(index=True)  # episodes/model.py OUTCOMES
    outcome_reason: str = ""
    outcome_turn: int | None = None
    summary: str = ""
    started_at: datetime | None = _time(index=True)
    ended_at: datetime | None = _time()
    duration_seconds: int | None = None
    turn_count: int = 0
    # Lists of episodes/model.py Milestone, Problem and FileTouch as JSON.
    milestones: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON_VALUE, nullable=False)
    )
    problems: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON_VALUE, nullable=False)
    )
    files: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON_VALUE, nullable=False)
    )
    builder: str = "offline"
    built_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )
    # A run of sessions on one task (episodes/runs.py, version 9): the run's first
    # episode (None when the episode stands alone), why it continues the session before,
    # and the first turn of its own (earlier ones were copied in by a resume).
    run_id: int | None = Field(default=None, index=True)
    run_reason: str | None = None
    run_from_turn: int | None = None
    # Claude's reading of the episode (episodes/enrich.py): title, narrative, lessons,
    # outcome and why, with the model and when; None until `episodes enrich`.
    enrichment: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON_VALUE))


class ConversationChunkRow(SQLModel, table=True):
    """A run of about ten messages of a conversation with its extractive summary (seed
    003's short-term memory; memory_app/chunks). Derived from the conversation, so it is
    rebuilt on import and re-extraction rather than edited."""

    __tablename__ = "conversation_chunk"
    __table_args__ = (UniqueConstraint("resource_id", "chunk_number"),)

    id: int | None = Field(default=None, primary_key=True)
    resource_id: int = Field(foreign_key="resource.id", ondelete="CASCADE")
    chunk_number: int  # 1-based, in conversation order
    turn_start: int
    turn_end: int
    summary: str
    key_topics: list[str] = Field(
        default_factory=list, sa_column=Column(JSON_VALUE, nullable=False)
    )
    token_count: int = 0  # of the chunk's turns verbatim (what the summary stands for)


class MemoryLinkRow(SQLModel, table=True):
    """A link from a memory to another memory, or to an episode for part-of (seeds 000,
    003 and 004's relationships; memory_app/links). Discovery rewrites its own links
    (origin "discovered") every night; a person's (origin "person") it never removes.
    The target has no foreign key: it names a memory or, for part-of, an episode, and a
    link whose target is gone is skipped when read and dropped by the next discovery."""

    __tablename__ = "memory_link"
    __table_args__ = (UniqueConstraint("source_id", "target_id", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="memory_item.id", ondelete="CASCADE")
    target_id: int = Field(index=True)
    kind: str  # links/model.py KINDS
    origin: str = "discovered"  # discovered | person
    strength: float = 1.0  # 0-1
    created_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )


class TeamLinkRow(SQLModel, table=True):
    """This store's connection to a team store (issue 20; one row, id 1, or none).

    In the store, not in the settings: the pull cursor describes what this store has
    pulled, so it must travel with the store (a backup restored, another data folder
    opened) and change in the same transaction as the memories a pull writes. The URL is
    kept without its password (the keyring or a .pgpass holds that)."""

    __tablename__ = "team_link"

    id: int = Field(default=1, primary_key=True)
    url: str  # postgresql://user@host:port/db, never with a password
    team_id: str | None = None
    team_name: str | None = None
    user_name: str | None = None
    # The team store's change sequence up to which this store has pulled.
    pull_cursor: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    connected_at: datetime = Field(
        default_factory=utc_now, sa_column=Column(UTCDateTime(), nullable=False)
    )
    last_sync_at: datetime | None = _time()
    last_error: str | None = None
