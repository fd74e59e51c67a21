"""Decay and scoring formulas against values worked out by hand."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from memory_app.domain.scoring import (
    RankingWeights,
    ScoringError,
    ScoringFacts,
    frequency,
    hyperbolic_decay,
    normalised_relevance,
    score,
    usage_decay,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_hyperbolic_decay_follows_seed_000() -> None:
    assert hyperbolic_decay(0) == 1.0
    assert hyperbolic_decay(30) == 0.5  # 1 / (1 + 30/30)
    assert hyperbolic_decay(90) == 0.25  # 1 / (1 + 3)
    assert hyperbolic_decay(15, half_life_days=10) == pytest.approx(0.4)  # 1 / 2.5
    assert hyperbolic_decay(-5) == 1.0  # a clock skew never scores above 1


def test_usage_decay_halves_per_half_life_plus_an_access_boost() -> None:
    assert usage_decay(0, 0) == 1.0
    assert usage_decay(30, 0) == pytest.approx(0.5)
    assert usage_decay(60, 0) == pytest.approx(0.25)
    assert usage_decay(60, 2) == pytest.approx(0.45)  # 0.25 + 2 * 0.1
    assert usage_decay(300, 9) == pytest.approx(0.5**10 + 0.5)  # boost capped at 0.5
    assert usage_decay(10, 20) == 1.0  # capped at 1


def test_frequency_saturates_at_one_hundred_uses() -> None:
    assert frequency(0) == 0.0
    assert frequency(25) == 0.25
    assert frequency(250) == 1.0


def test_a_full_score_by_hand() -> None:
    facts = ScoringFacts(
        relevance=0.8,
        confidence=0.9,
        importance=0.6,
        access_count=10,
        last_used=NOW - timedelta(days=30),
    )
    breakdown = score(facts, RankingWeights(), NOW)
    recency = 0.5 + 0.5  # one half-life, plus ten uses' boost (capped at 0.5)
    expected = 0.5 * 0.8 + 0.2 * 0.9 + 0.1 * 0.6 + 0.1 * 0.1 + 0.1 * min(recency, 1.0)
    assert breakdown.recency == pytest.approx(1.0)
    assert breakdown.frequency == pytest.approx(0.1)
    assert breakdown.total == pytest.approx(expected)  # 0.40 + 0.18 + 0.06 + 0.01 + 0.10
    assert breakdown.total == pytest.approx(0.75)
    assert "relevance 0.80" in breakdown.describe()


def test_an_old_unused_memory_loses_only_its_recency_share() -> None:
    facts = ScoringFacts(0.5, 0.8, 0.5, 0, NOW - timedelta(days=60))
    weights = RankingWeights(
        relevance=0.4, confidence=0.3, importance=0.1, frequency=0.0, recency=0.2
    )
    breakdown = score(facts, weights, NOW, half_life_days=30)
    assert breakdown.total == pytest.approx(0.4 * 0.5 + 0.3 * 0.8 + 0.1 * 0.5 + 0.2 * 0.25)


def test_weights_must_sum_to_one_and_stay_in_range() -> None:
    with pytest.raises(ScoringError, match="sum to 1"):
        RankingWeights(relevance=0.6)
    with pytest.raises(ScoringError, match="between 0 and 1"):
        RankingWeights(relevance=1.2, confidence=-0.2, importance=0.0, frequency=0.0, recency=0.0)
    with pytest.raises(ScoringError, match="between 0 and 1"):
        RankingWeights(relevance=math.nan)
    with pytest.raises(ScoringError, match="half-life"):
        hyperbolic_decay(1, half_life_days=0)


def test_without_relevance_spreads_its_share() -> None:
    rest = RankingWeights().without_relevance()
    assert rest.relevance == 0.0
    assert sum(rest.as_dict().values()) == pytest.approx(1.0)
    assert rest.confidence == pytest.approx(0.4)  # 0.2 / 0.5
    assert rest.importance == pytest.approx(0.2)


def test_relevance_is_relative_to_the_best_match() -> None:
    assert normalised_relevance(6.0, 8.0) == 0.75
    assert normalised_relevance(8.0, 8.0) == 1.0
    assert normalised_relevance(3.0, 0.0) == 0.0
