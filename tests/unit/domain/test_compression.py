"""Compression levels: each memory's four forms, and the budget packing that picks among
them (seed 004 "Hierarchical Compression")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_app.domain.budget import TIERS, ContextEntry, allocate, estimate_tokens
from memory_app.domain.compression import (
    COMPRESSED_WORDS,
    LEVELS,
    SUMMARY_WORDS,
    compress,
    forms,
    summarise,
)
from memory_app.retrieval.context import memory_entry

LONG = (
    "Tim mentioned that he strongly prefers explicit error handling with Result types "
    "instead of try-catch blocks, especially in TypeScript code where type safety matters. "
    "He said this after the payments outage in March, when a swallowed exception hid a "
    "failed refund for two days and nobody noticed until customers wrote in."
)


def test_a_rule_is_compressed_to_its_topic_and_values() -> None:
    assert compress("Use pytest fixtures instead of unittest setUp in tests.") == (
        "tests: pytest fixtures > unittest setUp"
    )
    assert compress("We switched background jobs from Celery to RQ last week.") == (
        "background jobs: RQ > Celery"
    )
    assert compress("Never deploy on Fridays.") == "not deploy Fridays"


def test_a_statement_without_values_keeps_its_content_words() -> None:
    assert compress("the quick brown fox jumps over the lazy dog") == (
        "quick brown fox jumps lazy dog"
    )


def test_the_summary_is_the_first_sentence_that_carries_a_value() -> None:
    text = "Some background first. The API timeout is 30 seconds. It was 10 before."
    assert summarise(text) == "The API timeout is 30 seconds."
    long = summarise(LONG)
    assert long.startswith("Tim mentioned that he strongly prefers explicit error handling")
    assert len(long.split()) <= SUMMARY_WORDS
    assert "payments outage" not in long


def test_the_four_forms_get_shorter_and_the_index_names_the_id() -> None:
    f = forms(42, "coding preferences", LONG)
    assert f.full == " ".join(LONG.split())
    assert f.index == "#42 coding preferences: Tim mentioned…"
    assert len(f.compressed.split()) <= COMPRESSED_WORDS
    sizes = [estimate_tokens(f.at(level)) for level in LEVELS]
    assert sizes == sorted(sizes, reverse=True)
    with pytest.raises(ValueError, match="unknown compression level 'tiny'"):
        f.at("tiny")


def memory(n: int, words: int) -> ContextEntry:
    """A memory entry with its shorter forms, as context assembly builds it."""
    content = (
        f"For integration tests use Pytest{n} fixtures and Hypothesis strategies instead of "
        "unittest setUp or nose generators, since the fixtures compose. " + "Background. " * words
    )
    return memory_entry(n, "coding_preferences", content, 0.9)


def test_a_budget_too_small_for_full_items_gets_compressed_and_index_forms() -> None:
    candidates = {"relevant": [memory(n, 120) for n in range(1, 9)]}
    assert all(e.tokens > 400 for e in candidates["relevant"])
    plan = allocate(candidates, 50)
    assert plan.used <= 50 and estimate_tokens(plan.render()) <= plan.used
    placed = plan.tier("relevant").entries
    assert [(e.item_id, e.level) for e in placed] == [(1, "compressed"), (2, "index")]
    assert plan.render().endswith(
        "- integration tests: Pytest1 fixtures Hypothesis > unittest setUp [#1 compressed]\n"
        "- #2 coding preferences: integration tests… [index]\n"
    )
    # A little more room: the best memory as its summary, the next ones shorter.
    roomier = allocate(candidates, 100).tier("relevant").entries
    assert [e.level for e in roomier] == ["summary", "compressed", "index"]
    assert roomier[0].text.endswith("[#1 coding preferences, 90% confident; summary]")
    # Without shorter forms the same budgets hold nothing at all.
    bare = {"relevant": [ContextEntry(e.text, item_id=e.item_id) for e in candidates["relevant"]]}
    assert allocate(bare, 100).tier("relevant").entries == []


def test_a_generous_budget_keeps_every_memory_in_full() -> None:
    candidates = {"relevant": [memory(n, 20) for n in range(1, 9)]}
    plan = allocate(candidates, 4000)
    assert plan.tier("relevant").entries == candidates["relevant"]
    assert {e.level for e in plan.tier("relevant").entries} == {"full"}


def test_a_memory_too_big_for_its_share_still_comes_in_full_when_others_leave_room() -> None:
    big = memory(1, 30)
    assert 98 < big.tokens < 300
    plan = allocate({"critical": [big]}, 400)  # critical's own share is 98 tokens
    assert plan.tier("critical").entries == [big]  # the unused shares, before any shortening


@st.composite
def candidate_lists(draw: st.DrawFn) -> dict[str, list[ContextEntry]]:
    out: dict[str, list[ContextEntry]] = {}
    n = 0
    for key, _, _ in TIERS:
        entries = []
        for words in draw(st.lists(st.integers(0, 200), max_size=12)):
            n += 1
            plain = draw(st.booleans()) and draw(st.booleans())
            entry = memory(n, words)
            entries.append(ContextEntry(entry.text, item_id=n) if plain else entry)
        out[key] = entries
    return out


@settings(max_examples=150, deadline=None)
@given(candidates=candidate_lists(), budget=st.integers(50, 3000))
def test_levels_never_exceed_the_budget(
    candidates: dict[str, list[ContextEntry]], budget: int
) -> None:
    plan = allocate(candidates, budget)
    assert plan.used <= budget
    assert estimate_tokens(plan.render()) <= plan.used
    for tier in plan.tiers:
        given_ids = [e.item_id for e in candidates[tier.key]]
        placed = [e.item_id for e in tier.entries]
        left = [e.item_id for e in tier.left_out]
        assert sorted(placed + left) == sorted(given_ids)  # each placed once or left out
        for entry in tier.entries:
            original = next(e for e in candidates[tier.key] if e.item_id == entry.item_id)
            assert entry in original.forms
    # Levels only add: every memory placed in full without them is placed in full, in the
    # same order, and where that plan left nothing out it is exactly the same plan.
    bare = {k: [ContextEntry(e.text, item_id=e.item_id) for e in v] for k, v in candidates.items()}
    before = allocate(bare, budget)
    for tier, old in zip(plan.tiers, before.tiers, strict=True):
        assert [e.text for e in tier.entries[: len(old.entries)]] == [e.text for e in old.entries]
        assert all(e.level != "full" for e in tier.entries[len(old.entries) :])
    if not any(t.left_out for t in before.tiers):
        assert plan.render() == before.render()
