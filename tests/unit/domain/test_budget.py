"""Token budgets: never exceeded, tiers in the seed's proportions, rebalanced."""

from __future__ import annotations

import random

import pytest

from memory_app.domain.budget import (
    TIERS,
    BudgetError,
    ContextEntry,
    allocate,
    estimate_tokens,
)


def entries(rng: random.Random, count: int, prefix: str) -> list[ContextEntry]:
    return [
        ContextEntry(text=f"{prefix} " + "word " * rng.randrange(1, 80), item_id=n)
        for n in range(count)
    ]


def test_the_estimator_is_four_characters_a_token_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def test_the_tiers_follow_seed_004() -> None:
    assert [(k, s) for k, _, s in TIERS] == [
        ("critical", 0.25),
        ("relevant", 0.375),
        ("background", 0.25),
        ("index", 0.125),
    ]


@pytest.mark.parametrize("seed", range(30))
def test_the_budget_is_never_exceeded(seed: int) -> None:
    rng = random.Random(seed)
    candidates = {key: entries(rng, rng.randrange(0, 40), key) for key, _, _ in TIERS}
    budget = rng.choice([50, 120, 500, 1000, 2000, 8000])
    plan = allocate(candidates, budget)
    assert plan.used <= budget
    assert estimate_tokens(plan.render()) <= plan.used  # the rendered text, every piece counted
    placed = [e for t in plan.tiers for e in t.entries]
    assert len(placed) == len(set(map(id, placed)))


def test_full_tiers_get_their_shares() -> None:
    rng = random.Random(1)
    candidates = {key: entries(rng, 200, key) for key, _, _ in TIERS}
    plan = allocate(candidates, 8000)
    for tier in plan.tiers:
        assert tier.allowance == int(
            (8000 - estimate_tokens("# Memory for this task\n")) * tier.share
        )
        # Each full tier uses nearly its own share (what is left is smaller than an entry).
        assert tier.allowance - 30 <= tier.used <= tier.allowance + 100


def test_an_unused_share_goes_to_the_other_tiers() -> None:
    rng = random.Random(2)
    relevant = entries(rng, 300, "relevant")
    plan = allocate({"relevant": relevant}, 2000)
    assert plan.tier("critical").entries == []
    assert plan.tier("relevant").used > plan.tier("relevant").allowance * 2
    assert plan.remaining < 30
    assert plan.used <= 2000


def test_conflicts_come_first_in_the_critical_tier() -> None:
    conflict = ContextEntry(text="UNRESOLVED CONFLICT: tabs vs spaces", conflict_id=7)
    memory = ContextEntry(text="Use ruff", item_id=1)
    plan = allocate({"critical": [conflict, memory]}, 500)
    assert plan.tier("critical").entries == [conflict, memory]
    assert plan.render().index("UNRESOLVED") < plan.render().index("Use ruff")


def test_silly_budgets_are_refused() -> None:
    for budget in (0, 10, -5, 10_000_000):
        with pytest.raises(BudgetError, match="token budget"):
            allocate({}, budget)
