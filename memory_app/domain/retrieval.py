"""What a retrieval asks for and what it returns (seed 003 "Retrieval Query")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory_app.domain.branches import BranchScope
from memory_app.domain.records import ITEM_STATUSES, MemoryRecord
from memory_app.domain.scoring import (
    DEFAULT_HALF_LIFE_DAYS,
    MAX_TEAM_WEIGHT,
    TEAM_WEIGHT,
    RankingWeights,
    ScoreBreakdown,
)

MAX_LIMIT = 200
MAX_QUERY_CHARS = 20_000
# Statuses a time-travel query may see: what was valid then may have been superseded or
# archived since; deleted memories never come back.
HISTORICAL_STATUSES = ("active", "superseded", "archived")


class RetrievalError(ValueError):
    """A retrieval that cannot be answered as asked."""


@dataclass(frozen=True)
class RetrievalFilters:
    """Which memories may be returned. Empty tuples mean "any".

    `project`: memories of that project (or of a project holding that folder) plus
    global ones. `branch`: only the memories that git branch sees (its own and the base
    ones, domain/branches.py); None: every branch's. `since`/`until`: when the
    memory was said. `valid_at`: time travel, what was valid at that moment (validity
    is always applied; without it, validity now).
    """

    categories: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    project: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    min_importance: float | None = None
    statuses: tuple[str, ...] | None = None
    valid_at: datetime | None = None
    exclude_ids: frozenset[int] = frozenset()
    pinned_only: bool = False
    branch: BranchScope | None = None

    def __post_init__(self) -> None:
        unknown = [s for s in self.statuses or () if s not in ITEM_STATUSES]
        if unknown:
            raise RetrievalError(
                f"unknown status {unknown[0]!r}; known: {', '.join(ITEM_STATUSES)}"
            )
        if self.min_importance is not None and not 0 <= self.min_importance <= 1:
            raise RetrievalError("minimum importance must be between 0 and 1")
        if self.since and self.until and self.since > self.until:
            raise RetrievalError("the date range ends before it starts")
        for moment in (self.since, self.until, self.valid_at):
            if moment is not None and moment.tzinfo is None:
                raise RetrievalError("dates must carry a time zone")

    @property
    def effective_statuses(self) -> tuple[str, ...]:
        if self.statuses is not None:
            return self.statuses
        return HISTORICAL_STATUSES if self.valid_at is not None else ("active",)


@dataclass(frozen=True)
class RetrievalQuery:
    """A task text (may be empty: then memories rank on what is known of them alone)."""

    text: str = ""
    filters: RetrievalFilters = field(default_factory=RetrievalFilters)
    limit: int = 10
    min_score: float = 0.0
    weights: RankingWeights = field(default_factory=RankingWeights)
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    team_weight: float = TEAM_WEIGHT  # a team memory's score is multiplied by it

    def __post_init__(self) -> None:
        if not 0 <= self.team_weight <= MAX_TEAM_WEIGHT:
            raise RetrievalError(f"the team weight must be between 0 and {MAX_TEAM_WEIGHT}")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise RetrievalError(f"limit must be between 1 and {MAX_LIMIT}, got {self.limit}")
        if not 0 <= self.min_score <= 1:
            raise RetrievalError("minimum score must be between 0 and 1")
        if not self.half_life_days > 0:
            raise RetrievalError("half-life must be a positive number of days")
        if len(self.text) > MAX_QUERY_CHARS:
            raise RetrievalError(
                f"the task text is {len(self.text):,} characters; at most "
                f"{MAX_QUERY_CHARS:,} are searched: shorten it"
            )


@dataclass(frozen=True)
class RetrievedMemory:
    """One result with the reason it ranked where it did."""

    record: MemoryRecord
    breakdown: ScoreBreakdown

    @property
    def score(self) -> float:
        return self.breakdown.total
