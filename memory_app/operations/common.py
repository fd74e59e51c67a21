"""Shared pieces of the MemoryService façade: constants, small helpers, its state."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_app.conflicts import detector
from memory_app.conflicts.judge import judge as judge_rules
from memory_app.domain.records import (
    CategoryInfo,
    MemoryRecord,
)
from memory_app.domain.similarity import content_key
from memory_app.domain.usage import CallUsage
from memory_app.extract.base import (
    Extractor,
)
from memory_app.store.database import Database

if TYPE_CHECKING:
    from sqlmodel import Session

    from memory_app.domain.categories import Category

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


def is_opposite(known: str, new: str) -> bool:
    """A near match on word sets that says the opposite ("prefer tabs over spaces" vs
    "prefer spaces over tabs"): the rules judge tells them apart."""
    return content_key(known) != content_key(new) and judge_rules(known, new).contradicts


def new_group(kind: str) -> str:
    return f"{kind}:{uuid.uuid4().hex[:12]}"


def usage_fields(spent: Sequence[CallUsage]) -> dict[str, Any]:
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
class Learnt:
    """What storing one conversation's extracted items did."""

    added: list[int] = field(default_factory=list)
    reinforced: list[int] = field(default_factory=list)
    suppressed: int = 0
    touched: set[str] = field(default_factory=set)
    conflicts: list[int] = field(default_factory=list)


class ServiceState:
    """What every part of the façade works on; MemoryService sets these in __init__."""

    db: Database
    extractor: Extractor
    clock: Callable[[], datetime]
    auto_resolve: str | None
    conflict_judge: Any

    if TYPE_CHECKING:
        # What one part calls on another (MemoryService has them all): declared for mypy,
        # which checks each part on its own.
        def _detect(self, item_ids: Sequence[int]) -> list[int]: ...
        def _detect_quietly(self, item_ids: Sequence[int]) -> list[int]: ...
        def _record_stated_update(self, session: Session, older_id: int, newer_id: int) -> None: ...
        def _undo_group(self, session: Session, group_id: str) -> list[int]: ...
        def _refresh_summaries(self, session: Session, keys: Iterable[str]) -> None: ...
        def _write_summary(self, session: Session, category: Category) -> None: ...
        def _take_usage(self) -> list[CallUsage]: ...
        def _record_usage(
            self,
            session: Session,
            spent: Sequence[CallUsage],
            resource_id: int | None,
            source: str | None,
            batch: str | None,
        ) -> None: ...
        def undo_group(self, group_id: str) -> list[int]: ...
        def _take_log_quietly(self) -> None: ...
        def _judge_quietly(self, resource_id: int | None) -> None: ...
