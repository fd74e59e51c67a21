"""How a memory is ranked for a task: relevance mixed with what we know about the memory.

The formulas are the seeds': seed 000 §4.1 (time decay `1 / (1 + age / half_life)`),
seed 003 (decay since last use, halving every half-life, plus an access boost of 0.1 per
use up to 0.5), seed 000 §4.2 (frequency `min(uses / 100, 1)` and a weighted sum of
components, every component and the total in [0, 1]). Seed 003's importance joins seed
000's four components. Recency uses seed 003's decay because it rewards memories that
keep being used, which is what a person expects of "recent"; seed 000's hyperbolic decay
is kept for callers that want age alone.

Seed 004's usage tracker joins as a factor on the total: a memory the assistant's
answers kept citing after it was injected ranks up to a quarter higher, one it kept
ignoring up to a quarter lower (`usefulness`); with no record the factor is 1.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from datetime import datetime

DAY_SECONDS = 86_400.0
DEFAULT_HALF_LIFE_DAYS = 30.0
MAX_ACCESS_COUNT = 100  # seed 000 §4.2: frequency saturates here
ACCESS_BOOST_PER_USE = 0.1  # seed 003
MAX_ACCESS_BOOST = 0.5
_TOLERANCE = 1e-6
# How far usage feedback moves a score: the factor spans 1 -/+ FEEDBACK_SPAN / 2.
FEEDBACK_SPAN = 0.5
# The team tier's weight (issue 20): a team memory's score is multiplied by it. Below 1
# so that, on the same matter and at a near tie, a person's own memory (learnt from their
# own work, on this machine) comes before a teammate's; a team memory that matches the
# task clearly better still wins. A factor, not a RankingWeights component: those must
# sum to 1 and describe the memory, where this describes where it came from.
TEAM_WEIGHT = 0.9
MAX_TEAM_WEIGHT = 2.0


class ScoringError(ValueError):
    """Weights or thresholds that cannot rank anything sensibly."""


def hyperbolic_decay(age_days: float, half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> float:
    """Seed 000 §4.1: 1.0 at age 0, 0.5 at one half-life, never reaching 0."""
    _require_positive(half_life_days)
    return 1.0 / (1.0 + max(age_days, 0.0) / half_life_days)


def usage_decay(
    days_since_use: float, access_count: int, half_life_days: float = DEFAULT_HALF_LIFE_DAYS
) -> float:
    """Seed 003: halves every half-life since last use; each use adds 0.1 (at most 0.5)."""
    _require_positive(half_life_days)
    # float ** float is typed Any (a negative base gives a complex); the base here is 0.5.
    base: float = 0.5 ** (max(days_since_use, 0.0) / half_life_days)
    boost = min(max(access_count, 0) * ACCESS_BOOST_PER_USE, MAX_ACCESS_BOOST)
    return min(1.0, base + boost)


def frequency(access_count: int, saturation: int = MAX_ACCESS_COUNT) -> float:
    """Seed 000 §4.2: uses normalised to [0, 1]."""
    return min(max(access_count, 0) / saturation, 1.0)


def usefulness(cited: int, ignored: int) -> float:
    """Seed 004: the share of injections the assistant used, with one imagined use and
    one imagined miss (so a single ignore does not sink a memory), as a factor in
    [0.75, 1.25] around 1 (no record)."""
    cited, ignored = max(cited, 0), max(ignored, 0)
    share = (cited + 1) / (cited + ignored + 2)
    return 1.0 + FEEDBACK_SPAN * (share - 0.5)


def days_between(earlier: datetime, later: datetime) -> float:
    return (later - earlier).total_seconds() / DAY_SECONDS


@dataclass(frozen=True)
class RankingWeights:
    """How much each component counts; they must sum to 1 so scores stay in [0, 1].

    Defaults follow seed 000 §4.2 (relevance 0.5, frequency 0.1, recency 0.1) with its
    confidence 0.3 shared with seed 003's importance.
    """

    relevance: float = 0.5
    confidence: float = 0.2
    importance: float = 0.1
    frequency: float = 0.1
    recency: float = 0.1

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int | float) or math.isnan(value) or not 0 <= value <= 1:
                raise ScoringError(f"weight {f.name} must be between 0 and 1, got {value!r}")
        total = sum(self.as_dict().values())
        if abs(total - 1.0) > _TOLERANCE:
            raise ScoringError(f"ranking weights must sum to 1, they sum to {total:.4f}")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def without_relevance(self) -> RankingWeights:
        """For ranking with no task text: relevance's share spread over the rest."""
        rest = 1.0 - self.relevance
        if rest <= _TOLERANCE:
            return RankingWeights(0.0, 1.0, 0.0, 0.0, 0.0)
        scale = 1.0 / rest
        values = {k: v * scale for k, v in self.as_dict().items() if k != "relevance"}
        # Fix rounding so the sum is exactly one.
        values["confidence"] += 1.0 - sum(values.values())
        return RankingWeights(relevance=0.0, **values)


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every component in [0, 1], the weights used, and their weighted sum."""

    relevance: float
    confidence: float
    importance: float
    frequency: float
    recency: float
    total: float
    feedback: float = 1.0  # usefulness(): multiplies the weighted sum
    tier: float = 1.0  # the team weight for a team memory (TEAM_WEIGHT), else 1

    def components(self) -> dict[str, float]:
        return {
            "relevance": self.relevance,
            "confidence": self.confidence,
            "importance": self.importance,
            "frequency": self.frequency,
            "recency": self.recency,
        }

    def describe(self) -> str:
        """One line for a tooltip or a CLI column."""
        parts = ", ".join(f"{k} {v:.2f}" for k, v in self.components().items())
        used = f", use feedback x{self.feedback:.2f}" if self.feedback != 1.0 else ""
        tier = f", team x{self.tier:.2f}" if self.tier != 1.0 else ""
        return f"score {self.total:.3f} = {parts}{used}{tier}"


@dataclass(frozen=True)
class ScoringFacts:
    """What the scorer needs to know about one memory."""

    relevance: float  # already normalised to [0, 1]
    confidence: float
    importance: float
    access_count: int
    last_used: datetime  # last access, else last seen, else when it was said
    cited: int = 0  # injections the assistant's answers used (seed 004)
    ignored: int = 0  # injections they did not
    team: bool = False  # a team memory (domain/sharing.py)


def score(
    facts: ScoringFacts,
    weights: RankingWeights,
    now: datetime,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    team_weight: float = TEAM_WEIGHT,
) -> ScoreBreakdown:
    relevance = _unit(facts.relevance)
    confidence = _unit(facts.confidence)
    importance = _unit(facts.importance)
    freq = frequency(facts.access_count)
    recency = usage_decay(days_between(facts.last_used, now), facts.access_count, half_life_days)
    total = (
        weights.relevance * relevance
        + weights.confidence * confidence
        + weights.importance * importance
        + weights.frequency * freq
        + weights.recency * recency
    )
    feedback = usefulness(facts.cited, facts.ignored)
    tier = team_weight if facts.team else 1.0
    return ScoreBreakdown(
        relevance, confidence, importance, freq, recency, _unit(total * feedback * tier),
        feedback, tier,
    )  # fmt: skip


def normalised_relevance(raw: float, best: float) -> float:
    """bm25 relative to the best match of the same query: the top hit scores 1."""
    if best <= 0:
        return 0.0
    return _unit(raw / best)


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def _require_positive(half_life_days: float) -> None:
    if not half_life_days > 0:
        raise ScoringError(f"half-life must be a positive number of days, got {half_life_days!r}")
