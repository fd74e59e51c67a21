"""Maintenance in plain values: which jobs exist, when they are due, what they propose.

Seed 000 §6 names three jobs (nightly consolidation, weekly summarization, monthly
re-index); seed 001 §5 keeps a log and runs what is due (`isDue`) at startup; seed 003
archives old memories whose importance × decay fell below 0.3. Every change a job
proposes is a `ProposedChange` a person can accept or reject before it is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memory_app.domain.scoring import DAY_SECONDS, usage_decay

JOB_KINDS = ("nightly", "weekly", "monthly")
RUN_KINDS = (*JOB_KINDS, "full")  # full: the three jobs in that order
JOB_TITLES = {
    "nightly": "Nightly consolidation",
    "weekly": "Weekly summarization",
    "monthly": "Monthly re-index",
    "full": "Full maintenance",
}
JOB_DESCRIPTIONS = {
    "nightly": "Merges near-duplicates, looks for contradictions, refreshes decay.",
    "weekly": "Compresses memories older than 30 days into their category summary and "
    "archives old, unused, unimportant ones.",
    "monthly": "Checks every memory against the rules and the search index for damage.",
}
# Seed 000 §6.1: nightly / weekly / monthly.
DEFAULT_INTERVAL_DAYS = {"nightly": 1, "weekly": 7, "monthly": 30}
RUN_STATUSES = ("running", "success", "error", "cancelled")

CHANGE_KINDS = ("merge", "archive", "compress", "mark_invalid")
CHANGE_TITLES = {
    "merge": "Merge duplicates",
    "archive": "Archive",
    "compress": "Compress into summary",
    "mark_invalid": "Mark invalid",
}
DECISIONS = ("pending", "accepted", "rejected", "applied", "stale", "undone")

# Seed 000 §6.3 and seed 003: compress after 30 days; archive after 90 days unused when
# importance × decay is under 0.3.
COMPRESS_AFTER_DAYS = 30
ARCHIVE_UNUSED_DAYS = 90
ARCHIVE_SCORE = 0.3
# After 90 days unused, seed 003's decay is at most 0.125, so importance × decay is under
# 0.3 for every memory; the "with low importance" keeps the important ones.
LOW_IMPORTANCE = 0.5


@dataclass(frozen=True)
class Schedule:
    """How often a job runs; `auto_apply` applies its changes without a review."""

    kind: str
    enabled: bool = True
    every_days: int = 1
    auto_apply: bool = False

    def __post_init__(self) -> None:
        if self.kind not in JOB_KINDS:
            raise ValueError(
                f"unknown maintenance job {self.kind!r}; known: {', '.join(JOB_KINDS)}"
            )
        if not 1 <= self.every_days <= 365:
            raise ValueError(f"every_days must be between 1 and 365, got {self.every_days}")


def default_schedules() -> dict[str, Schedule]:
    return {k: Schedule(k, every_days=DEFAULT_INTERVAL_DAYS[k]) for k in JOB_KINDS}


def next_due(schedule: Schedule, last_run: datetime | None, now: datetime) -> datetime | None:
    """When the job is next due: now when it never ran, None when it is switched off."""
    if not schedule.enabled:
        return None
    if last_run is None:
        return now
    return last_run + timedelta(days=schedule.every_days)


def is_due(schedule: Schedule, last_run: datetime | None, now: datetime) -> bool:
    """Seed 001's isDue: enabled, and never run or its interval has passed."""
    due = next_due(schedule, last_run, now)
    return due is not None and due <= now


def decay_factor(last_used: datetime, access_count: int, now: datetime) -> float:
    """Seed 003's decay since a memory was last used (or learnt), in [0, 1]."""
    return usage_decay((now - last_used).total_seconds() / DAY_SECONDS, access_count)


def should_archive(
    *, importance: float, decay: float, last_used: datetime, pinned: bool, now: datetime
) -> bool:
    """Seed 003: unused for 90 days, of low importance, and importance × decay under 0.3;
    never a pinned memory."""
    if pinned or importance >= LOW_IMPORTANCE:
        return False
    unused = now - last_used >= timedelta(days=ARCHIVE_UNUSED_DAYS)
    return unused and importance * decay < ARCHIVE_SCORE


@dataclass(frozen=True)
class ProposedChange:
    """One change a job proposes: what, to which memories, why, and before → after.

    `before`/`after` map an item id (as text) to the fields that change, or for a
    compression the category's digest, so a person sees exactly what would happen.
    """

    kind: str
    item_ids: tuple[int, ...]
    title: str
    reason: str
    category: str | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    id: int = 0
    run_id: int = 0
    decision: str = "pending"
    group_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "run_id": self.run_id,
            "kind": self.kind,
            "item_ids": list(self.item_ids),
            "title": self.title,
            "reason": self.reason,
            "category": self.category,
            "decision": self.decision,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class JobReport:
    """What one job found or did: figures for the log, changes for the review."""

    kind: str
    figures: dict[str, Any] = field(default_factory=dict)
    changes: tuple[ProposedChange, ...] = ()
    problems: tuple[str, ...] = ()
