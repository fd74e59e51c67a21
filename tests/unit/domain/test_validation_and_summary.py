"""Seed 000 §1 validation rules and the §1.3 summary template."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.records import MemoryRecord
from memory_app.domain.similarity import content_key, reinforced_confidence, similarity
from memory_app.domain.summary import render_category_summary
from memory_app.domain.validation import ValidationError, parse_timestamp, validate_item_fields

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
KNOWN = {c.key for c in DEFAULT_CATEGORIES}


@pytest.mark.parametrize(
    ("values", "field", "reason"),
    [
        ({"confidence": 1.01}, "confidence", "between 0 and 1"),
        ({"confidence": -0.1}, "confidence", "between 0 and 1"),
        ({"confidence": float("nan")}, "confidence", "between 0 and 1"),
        ({"confidence": True}, "confidence", "between 0 and 1"),
        ({"importance": "high"}, "importance", "between 0 and 1"),
        ({"content": ""}, "content", "must not be empty"),
        ({"content": "   \n"}, "content", "must not be empty"),
        ({"content": "x" * 4001}, "content", "at most 4000"),
        ({"category": "misc"}, "category", "unknown category 'misc'"),
        ({"type": "opinion"}, "type", "unknown type"),
        ({"scope": "team"}, "scope", "one of session, project, global"),
        ({"tags": ["ok", ""]}, "tags", "non-empty words"),
        ({"extracted_at": NOW + timedelta(days=1)}, "extracted_at", "in the future"),
        ({"extracted_at": datetime(2026, 1, 1)}, "extracted_at", "timezone-aware"),
        ({"valid_from": NOW, "valid_until": NOW - timedelta(days=1)}, "valid_until", "before"),
    ],
)
def test_invalid_fields_are_named_with_a_reason(values: dict, field: str, reason: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate_item_fields(values, KNOWN, NOW)
    assert reason in caught.value.errors[field]


def test_valid_fields_pass_and_small_clock_skew_is_tolerated() -> None:
    validate_item_fields(
        {
            "content": "Use ruff",
            "confidence": 0.0,
            "importance": 1,
            "category": "project_conventions",
            "tags": ["python"],
            "extracted_at": NOW + timedelta(minutes=2),
        },
        KNOWN,
        NOW,
    )


def test_timestamps_must_be_iso_with_a_zone() -> None:
    assert parse_timestamp("2026-01-31T12:00:00Z") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    with pytest.raises(ValidationError, match="not an ISO-8601"):
        parse_timestamp("yesterday")
    with pytest.raises(ValidationError, match="needs a time zone"):
        parse_timestamp("2026-01-31T12:00:00")


def test_similarity_and_reinforcement() -> None:
    assert content_key("Use  Tabs, not spaces!") == "use tabs not spaces"
    assert similarity("Always use tabs", "always use TABS.") == 1.0
    assert similarity("use tabs", "never use tabs") < 0.85
    assert similarity("Prefer pathlib", "Prefer Celery for jobs") < 0.5
    assert reinforced_confidence(0.8, 0.9) == pytest.approx(0.925)
    assert reinforced_confidence(1.0, 0.8) == 1.0


def record(n: int, content: str, confidence: float, **extra: object) -> MemoryRecord:
    values: dict = {
        "id": n,
        "category": "coding_preferences",
        "type": "preference",
        "content": content,
        "confidence": confidence,
        "importance": 0.6,
        "scope": "global",
        "status": "active",
        "pinned": False,
        "tags": (),
        "extracted_at": NOW,
        "updated_at": NOW,
    }
    values.update(extra)
    return MemoryRecord(**values)


def test_summary_follows_the_seed_template() -> None:
    category = DEFAULT_CATEGORIES[0]
    items = [
        record(1, "Prefer pathlib over os.path.", 0.8, tags=("python",)),
        record(
            2,
            "Always use async/await, never .then() chains.",
            0.95,
            source_resource_id=7,
            reinforcement_count=2,
            tags=("javascript", "async"),
        ),
    ]
    text = render_category_summary(category, items, NOW)
    for heading in (
        "# Coding preferences",
        "## Summary",
        "## Key Facts",
        "## Contradictions and Conflicts",
        "## Usage Notes",
    ):
        assert heading in text
    assert "**Item Count:** 2" in text
    assert "**Confidence Range:** 0.80-0.95" in text
    assert "**Last Updated:** 2026-06-01T12:00:00Z" in text
    first_fact = text.index("### Fact 1: Always use async/await")
    assert first_fact < text.index("### Fact 2: Prefer pathlib over os.path")
    assert "**Source:** item #2 (conversation #7)" in text
    assert "**Evidence:** seen 3 times" in text
    assert "_None open._" in text


def test_summary_of_an_empty_category_says_so() -> None:
    text = render_category_summary(DEFAULT_CATEGORIES[3], [], NOW)
    assert "No bug patterns have been learnt yet." in text
    assert "_No entries yet._" in text
    assert "**Confidence Range:** —" in text


def test_summary_counts_the_whole_category_not_just_the_listed_facts() -> None:
    text = render_category_summary(
        DEFAULT_CATEGORIES[0],
        [record(1, "Use tabs", 0.9)],
        NOW,
        item_count=120,
        confidence_range=(0.75, 0.99),
    )
    assert "**Item Count:** 120" in text
    assert "_…and 119 more items in this category._" in text
