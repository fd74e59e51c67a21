"""Near-duplicate detection for nightly consolidation: what merges, what must not, and a
planted corpus of 20,000 memories."""

from __future__ import annotations

import random

import pytest

from benchmarks.planted import planted_corpus
from memory_app.conflicts.judge import Verdict
from memory_app.domain.similarity import similarity
from memory_app.maintenance import duplicates
from memory_app.maintenance.duplicates import (
    DedupeItem,
    DuplicateGroup,
    find_duplicates,
    near_duplicate,
)

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

SCOPE = ("coding_preferences", "atlas")
FIXTURES = "Use pytest fixtures for database tests in the importer module"


def item(id: int, content: str, rank: float = 0.5, scope: tuple[str, str] = SCOPE) -> DedupeItem:
    return DedupeItem(id=id, scope=scope, content=content, rank=(rank,))


# --- what is a duplicate -------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (FIXTURES, "use pytest fixtures for the database tests in the importer module."),
        (
            "Run ruff before committing to the main branch",
            "Please run ruff before committing to the main branch!",
        ),
        (
            "Run the linter before committing because CI is slow",
            "Because CI is slow, run the linter before committing.",
        ),
        (
            "Keep the shared fixtures of the importer tests in one directory",
            "Keep the shared fixtures of the importer test suite in one folder",
        ),
        (
            "Write docstrings with examples for every public function in the billing module",
            "Write docstrings with examples for every new public function in the billing module",
        ),
        (
            "The repo formats Python code with black",
            "The repository formats Python code with black",
        ),
    ],
)
def test_near_duplicates_are_recognized(a: str, b: str) -> None:
    sim = near_duplicate(a, b)
    assert sim is not None and sim >= duplicates.DUPLICATE_THRESHOLD
    assert near_duplicate(b, a) == sim


def test_unrelated_and_partly_related_statements_are_not_duplicates() -> None:
    assert near_duplicate(FIXTURES, "Prefer pathlib over os.path when touching files") is None
    # Adds too much to count as the same statement.
    assert (
        near_duplicate("Use pytest for tests", "Use pytest for tests in CI and on laptops") is None
    )


# --- similar but different: one test per kind of meaning-changing edit ---------------

LONG = "Run the {x} linter on the billing service {y} merging pull requests into the main branch"


def assert_rejected(a: str, b: str) -> None:
    """`a` and `b` look alike (the word-set similarity is high) but are not duplicates."""
    assert similarity(a, b) >= 0.75, "the pair should be similar enough to need the rules"
    assert near_duplicate(a, b) is None
    assert near_duplicate(b, a) is None
    groups = find_duplicates([item(1, a, 0.9), item(2, b, 0.1)])
    assert groups == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Use Python 3.11 for the billing service workers and the nightly import scripts",
            "Use Python 3.12 for the billing service workers and the nightly import scripts",
        ),
        (
            "Run the local dev server of the billing dashboard on port 8080 inside docker",
            "Run the local dev server of the billing dashboard on port 8081 inside docker",
        ),
        (
            "Retry failed webhook deliveries three times before alerting the payments on-call",
            "Retry failed webhook deliveries five times before alerting the payments on-call",
        ),
    ],
)
def test_a_different_number_or_version_is_not_a_duplicate(a: str, b: str) -> None:
    assert_rejected(a, b)


@pytest.mark.parametrize(
    "negated",
    [
        "Don't run the linter on the billing service before merging pull requests into main",
        "Never run the linter on the billing service before merging pull requests into main",
        "Do not run the linter on the billing service before merging pull requests into main",
        "Avoid running the linter on the billing service before merging pull requests into main",
    ],
)
def test_a_negation_is_not_a_duplicate(negated: str) -> None:
    assert_rejected(
        "Run the linter on the billing service before merging pull requests into main", negated
    )


def test_with_and_without_are_not_duplicates() -> None:
    assert_rejected(
        "Build the billing docker image with the layer cache on the shared CI runners",
        "Build the billing docker image without the layer cache on the shared CI runners",
    )


@pytest.mark.parametrize(
    ("a", "word", "opposite"),
    [
        ("Always rebase feature branches on main before asking for a review", "Always", "Never"),
        (
            "Enable strict mode for the billing package in the shared mypy config",
            "Enable",
            "Disable",
        ),
        (
            "Use sync database calls in the billing worker that reconciles the ledger",
            "sync",
            "async",
        ),
        (
            "Run the schema migrations before deploying the billing api to staging",
            "before",
            "after",
        ),
        (
            "Allow cross-origin requests from the admin dashboard to the billing api",
            "Allow",
            "Deny",
        ),
        (
            "Set autocommit to true for the reporting connection of the billing warehouse",
            "true",
            "false",
        ),
        (
            "Use the min pool size for the analytics workers of the nightly billing export",
            "min",
            "max",
        ),
        (
            "Put the migration notes first in the release checklist of the billing service",
            "first",
            "last",
        ),
        (
            "Add type hints to every public function in the billing service core package",
            "Add",
            "Remove",
        ),
        (
            "Include generated protobuf files in the coverage report of the billing service",
            "Include",
            "Exclude",
        ),
    ],
)
def test_an_antonym_is_not_a_duplicate(a: str, word: str, opposite: str) -> None:
    assert_rejected(a, a.replace(word, opposite, 1))


def test_a_swapped_preference_is_not_a_duplicate() -> None:
    # Equal word sets: only the order says which is preferred.
    assert_rejected(
        "I prefer tabs over spaces for indentation in the makefiles of the billing service",
        "I prefer spaces over tabs for indentation in the makefiles of the billing service",
    )


def test_a_swapped_switch_is_not_a_duplicate() -> None:
    assert_rejected(
        "We switched the billing service frontend from webpack to vite in the spring cleanup",
        "We switched the billing service frontend from vite to webpack in the spring cleanup",
    )


def test_exchanged_words_are_not_a_duplicate() -> None:
    assert_rejected(
        "The minimum tenant size the role backend accepts is 16 kilobytes per upload",
        "The minimum upload size the tenant backend accepts is 16 kilobytes per role",
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Use pytest to run the unit tests of the billing service on every pull request",
            "Use unittest to run the unit tests of the billing service on every pull request",
        ),
        (
            "Use npm to install the frontend packages of the billing dashboard in CI builds",
            "Use pnpm to install the frontend packages of the billing dashboard in CI builds",
        ),
        (
            "Keep the shared fixtures in tests/conftest.py for the billing importer test suite",
            "Keep the shared fixtures in tests/fixtures.py for the billing importer test suite",
        ),
        (
            "Call load_user before rendering the profile page of the billing account settings",
            "Call load_account before rendering the profile page of the billing account settings",
        ),
    ],
)
def test_another_tool_or_identifier_is_not_a_duplicate(a: str, b: str) -> None:
    assert_rejected(a, b)


def test_the_contradiction_judge_can_veto(monkeypatch: pytest.MonkeyPatch) -> None:
    a = "Run the linter before committing because CI is slow"
    b = "Because CI is slow, run the linter before committing."
    assert near_duplicate(a, b) == 1.0
    calls: list[tuple[str, str]] = []

    def contradicts(older: str, newer: str) -> Verdict:
        calls.append((older, newer))
        return Verdict(True, "test")

    monkeypatch.setattr(duplicates, "judge", contradicts)
    assert near_duplicate(a, b) is None
    assert calls == [(a, b)]


# --- grouping ------------------------------------------------------------------------


def test_duplicates_are_grouped_under_the_best_ranked_item() -> None:
    groups = find_duplicates(
        [
            item(1, FIXTURES, 0.4),
            item(2, FIXTURES.lower() + ".", 0.9),
            item(3, "Please " + FIXTURES.lower(), 0.6),
            item(4, "Prefer pathlib over os.path when touching files", 0.99),
        ]
    )
    assert groups == [DuplicateGroup(survivor=2, duplicates=(3, 1), similarity=(1.0, 1.0))]


def test_rank_ties_keep_the_smallest_id() -> None:
    groups = find_duplicates([item(7, FIXTURES), item(5, FIXTURES + "!"), item(9, FIXTURES)])
    assert [(g.survivor, sorted(g.duplicates)) for g in groups] == [(5, [7, 9])]


def test_groups_are_sorted_by_survivor_and_ids_are_used_once() -> None:
    texts = [
        FIXTURES,
        "Prefer pathlib over os.path when touching files in the importer scripts",
        "Write docstrings with examples for every public function in the billing module",
    ]
    items = [
        item(100 + n * 10 + k, text, rank=float(k)) for n, text in enumerate(texts) for k in (0, 1)
    ]
    groups = find_duplicates(reversed(items))
    assert [g.survivor for g in groups] == [101, 111, 121]
    ids = [i for g in groups for i in (g.survivor, *g.duplicates)]
    assert len(ids) == len(set(ids)) == 6


def test_scope_separates_identical_statements() -> None:
    groups = find_duplicates(
        [
            item(1, FIXTURES, scope=("coding_preferences", "atlas")),
            item(2, FIXTURES, scope=("coding_preferences", "borealis")),
            item(3, FIXTURES, scope=("coding_preferences", "")),
            item(4, FIXTURES, scope=("project_conventions", "atlas")),
        ]
    )
    assert groups == []
    other = ("coding_preferences", "")
    groups = find_duplicates([item(1, FIXTURES), item(2, FIXTURES, scope=other), item(3, FIXTURES)])
    assert [(g.survivor, g.duplicates) for g in groups] == [(1, (3,))]


def test_no_transitive_chains() -> None:
    # a ~ b and b ~ c (one word added each time), but a and c differ by two words in a
    # short statement: too far apart. c must not join a's group through b.
    a = "Use shared fixtures for database tests in importer"
    b = "Use shared fixtures for database tests in the whole importer"
    c = "Use shared fixtures for slow database tests in the whole importer"
    assert near_duplicate(a, b) and near_duplicate(b, c) and near_duplicate(a, c) is None
    groups = find_duplicates([item(1, a, 0.9), item(2, b, 0.5), item(3, c, 0.1)])
    assert [(g.survivor, g.duplicates) for g in groups] == [(1, (2,))]
    # With b the best, a and c are each verified against b: one star.
    groups = find_duplicates([item(1, a, 0.5), item(2, b, 0.9), item(3, c, 0.1)])
    assert [(g.survivor, sorted(g.duplicates)) for g in groups] == [(2, [1, 3])]


def test_a_huge_bucket_of_copies_stays_one_group() -> None:
    copies = [
        item(i, FIXTURES if i % 2 else FIXTURES.upper(), rank=i / 10_000) for i in range(3000)
    ]
    groups = find_duplicates(copies)
    assert len(groups) == 1
    assert groups[0].survivor == 2999
    assert sorted(groups[0].duplicates) == list(range(2999))


def test_empty_and_repeated_items() -> None:
    assert find_duplicates([]) == []
    assert find_duplicates([item(1, ""), item(2, "  ...  ")]) == []
    # A repeated id counts once.
    assert find_duplicates([item(1, FIXTURES), item(1, FIXTURES)]) == []


def test_results_are_deterministic_whatever_the_input_order() -> None:
    corpus = planted_corpus(total=3000, duplicate_share=0.05, different=300, seed=11)
    items = [
        DedupeItem(p.key, (p.category, p.project or ""), p.content, (p.importance, p.confidence))
        for p in corpus.items
    ]
    first = find_duplicates(items)
    assert first and first == find_duplicates(items)
    shuffled = items[:]
    random.Random(3).shuffle(shuffled)
    assert find_duplicates(shuffled) == first


def test_progress_and_cancellation() -> None:
    chunk = duplicates.CHUNK
    n = 2 * chunk + 100
    items = [item(i, f"note {i}") for i in range(n)]  # too short to be anyone's duplicate
    seen: list[tuple[int, int]] = []
    find_duplicates(items, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, n), (chunk, n), (2 * chunk, n), (n, n)]

    class Cancelled(Exception):
        pass

    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise Cancelled

    with pytest.raises(Cancelled):
        find_duplicates(items, check=check)


def test_threshold_must_be_a_fraction() -> None:
    with pytest.raises(ValueError):
        find_duplicates([], threshold=0)


# --- a planted corpus ----------------------------------------------------------------


def test_planted_corpus_recall_and_no_false_merges() -> None:
    corpus = planted_corpus(total=20_000)
    assert len(corpus.items) == 20_000
    assert len(corpus.duplicate_pairs) == 1000 and len(corpus.different_pairs) == 2000
    groups = find_duplicates(
        DedupeItem(p.key, (p.category, p.project or ""), p.content, (p.importance, p.confidence))
        for p in corpus.items
    )
    group_of = {i: g.survivor for g in groups for i in (g.survivor, *g.duplicates)}

    def merged(a: int, b: int) -> bool:
        return a in group_of and group_of[a] == group_of.get(b)

    recalled = sum(merged(a, b) for a, b in corpus.duplicate_pairs)
    assert recalled / len(corpus.duplicate_pairs) >= 0.95
    assert [p for p in corpus.different_pairs if merged(*p)] == []
    planted = {frozenset(p) for p in corpus.duplicate_pairs}
    outside = [
        (g.survivor, d)
        for g in groups
        for d in g.duplicates
        if frozenset((g.survivor, d)) not in planted
    ]
    assert outside == []


def test_planted_corpus_is_deterministic_and_keeps_scopes() -> None:
    one, two = planted_corpus(total=2000, different=100), planted_corpus(total=2000, different=100)
    assert one == two
    by_key = {p.key: p for p in one.items}
    assert sorted(by_key) == list(range(2000))
    for a, b in one.duplicate_pairs | one.different_pairs:
        assert (by_key[a].category, by_key[a].project) == (by_key[b].category, by_key[b].project)
    assert {p.category for p in one.items} == set(
        "coding_preferences architectural_decisions project_conventions bug_patterns "
        "implementation_notes".split()
    )
