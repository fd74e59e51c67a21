"""Plain, frozen values handed to front ends (GUI, CLI, hooks): never live ORM rows."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

ITEM_STATUSES = ("active", "archived", "superseded", "deleted")
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
    score: float | None = None  # relevance, when the record came from a search

    def to_json(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


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
    status: str
    item_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


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
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class Stats:
    items: int  # memories that are not deleted
    items_by_status: dict[str, int]
    items_by_category: dict[str, int]
    resources: int
    categories: int
    conflicts_open: int
    last_memorized: datetime | None
    pinned: int = 0

    def to_json(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class MemorizeResult:
    """What memorizing one conversation did (seed 001 statuses)."""

    status: str  # success | skipped | empty | error
    source: str
    reason: str | None = None
    resource_id: int | None = None
    items_added: tuple[int, ...] = ()
    items_reinforced: tuple[int, ...] = ()
    items_suppressed: int = 0  # matched something the user forgot: not re-learnt
    redactions: int = 0
    categories_updated: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class ImportReport:
    files: int = 0
    results: tuple[MemorizeResult, ...] = ()
    problems: tuple[str, ...] = ()  # "path:line: message" for unreadable parts
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

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

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "resources_added": self.resources_added,
            "skipped": [{"source": r.source, "reason": r.reason} for r in self.skipped],
            "items_added": self.items_added,
            "duplicates_reinforced": self.items_reinforced,
            "errors": [{"source": r.source, "reason": r.reason} for r in self.errors],
            "problems": list(self.problems),
            "cancelled": self.cancelled,
            "results": [r.to_json() for r in self.results],
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value
