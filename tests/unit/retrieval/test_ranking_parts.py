"""The ranker's word choice and the query cache, in isolation."""

from __future__ import annotations

from memory_app.retrieval.cache import QueryCache
from memory_app.retrieval.ranker import choose_terms
from memory_app.store.term_stats import default_stemmer


def test_the_commonest_words_go_once_the_rarer_ones_match_enough() -> None:
    words = ["using", "kafka", "tests", "retry"]
    counts = [25_000, 2_200, 11_000, 40]
    assert choose_terms(words, counts, 2500) == ["kafka", "retry"]
    assert choose_terms(words, counts, 100_000) == words
    assert choose_terms(["using"], [25_000], 2500) == ["using"]  # the rarest always stays
    assert choose_terms(["zzz", "retry"], [0, 40], 2500) == ["retry"]  # absent words go


def test_words_are_stemmed_like_the_index() -> None:
    assert default_stemmer().stems(["passing", "tests", "the", "é"]) == [
        "pass",
        "test",
        "the",
        "e",
    ]


def test_cache_entries_expire_and_follow_the_generation() -> None:
    now = [0.0]
    cache: QueryCache[str] = QueryCache(ttl_seconds=120, max_entries=2, clock=lambda: now[0])
    cache.put("a", 1, "A")
    assert cache.get("a", 1) == "A"
    assert cache.get("a", 2) is None  # the store changed
    cache.put("a", 2, "A2")
    now[0] = 121
    assert cache.get("a", 2) is None  # too old
    cache.put("x", 2, "X")
    cache.put("y", 2, "Y")
    cache.put("z", 2, "Z")
    assert len(cache) == 2 and cache.get("x", 2) is None  # least recently used went
