"""Schedules (isDue), the archive rule and the deterministic digest, by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_app.domain.digest import compress
from memory_app.domain.maintenance import (
    Schedule,
    decay_factor,
    default_schedules,
    is_due,
    next_due,
    should_archive,
)
from memory_app.domain.records import MemoryRecord

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_default_schedules_are_nightly_weekly_monthly() -> None:
    assert {k: s.every_days for k, s in default_schedules().items()} == {
        "nightly": 1,
        "weekly": 7,
        "monthly": 30,
    }


def test_a_job_is_due_when_it_never_ran_or_its_interval_passed() -> None:
    weekly = Schedule("weekly", every_days=7)
    assert is_due(weekly, None, NOW)
    assert not is_due(weekly, NOW - timedelta(days=6, hours=23), NOW)
    assert is_due(weekly, NOW - timedelta(days=7), NOW)
    assert next_due(weekly, NOW - timedelta(days=2), NOW) == NOW + timedelta(days=5)


def test_a_switched_off_job_is_never_due() -> None:
    off = Schedule("nightly", enabled=False)
    assert not is_due(off, None, NOW) and next_due(off, None, NOW) is None


def test_schedules_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown maintenance job 'hourly'"):
        Schedule("hourly")
    with pytest.raises(ValueError, match="every_days must be between 1 and 365"):
        Schedule("nightly", every_days=0)


def test_decay_halves_every_30_days_plus_a_boost_per_use() -> None:
    assert decay_factor(NOW, 0, NOW) == 1.0
    assert decay_factor(NOW - timedelta(days=30), 0, NOW) == pytest.approx(0.5)
    assert decay_factor(NOW - timedelta(days=60), 2, NOW) == pytest.approx(0.25 + 0.2)


def test_the_archive_rule_of_seed_003() -> None:
    long_ago = NOW - timedelta(days=120)
    decay = decay_factor(long_ago, 0, NOW)  # about 0.06
    assert should_archive(importance=0.4, decay=decay, last_used=long_ago, pinned=False, now=NOW)
    # Used recently, important, used often (decay boosted), or pinned: kept.
    recent = NOW - timedelta(days=10)
    assert not should_archive(importance=0.1, decay=0.1, last_used=recent, pinned=False, now=NOW)
    assert not should_archive(importance=0.5, decay=0.0, last_used=long_ago, pinned=False, now=NOW)
    assert not should_archive(importance=0.4, decay=0.8, last_used=long_ago, pinned=False, now=NOW)
    assert not should_archive(importance=0.1, decay=0.0, last_used=long_ago, pinned=True, now=NOW)


def record(ident: int, content: str, tags: tuple[str, ...], strength: float = 0.5) -> MemoryRecord:
    return MemoryRecord(
        id=ident,
        category="coding_preferences",
        type="preference",
        content=content,
        confidence=strength,
        importance=1.0,
        scope="project",
        status="active",
        pinned=False,
        tags=tags,
        extracted_at=NOW - timedelta(days=40 + ident),
        updated_at=NOW,
    )


def test_the_digest_groups_by_topic_and_keeps_every_id() -> None:
    items = [
        record(1, "Use pytest fixtures for database tests.", ("testing", "pytest"), 0.9),
        record(2, "Run the tests with -x while debugging", ("testing",), 0.5),
        record(3, "Prefer pathlib over os.path", ("python",), 0.7),
        record(4, "Name branches after the ticket", ()),
    ]
    text = compress(items)
    assert text.splitlines()[0] == "4 memories learnt up to 2026-10-12, by topic:"
    assert (
        "- **testing** (2): Use pytest fixtures for database tests; "
        "Run the tests with -x while debugging. (#1, #2)" in text
    )
    assert "- **python** (1): Prefer pathlib over os.path. (#3)" in text
    assert text.rstrip().endswith("- **other** (1): Name branches after the ticket. (#4)")
    assert compress(list(reversed(items))) == text  # the same memories, the same digest
    assert compress([]) == ""
