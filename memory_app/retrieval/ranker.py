"""Ranking: full-text candidates rescored with what is known of each memory.

bm25 finds and orders candidates (an OR of the task's meaningful words, so a long task
still matches); a pool a few times larger than asked for is rescored with the weighted
components of domain/scoring.py, so a confident, used, recent memory can overtake a
slightly better word match, but an irrelevant one cannot enter.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from memory_app.domain.retrieval import RetrievalQuery
from memory_app.domain.scoring import (
    ScoreBreakdown,
    ScoringFacts,
    normalised_relevance,
    score,
)
from memory_app.store import retrieval as store
from memory_app.store.dialects import dialect_of
from memory_app.store.fts_query import query_terms, terms_expression

MIN_POOL = 50
POOL_FACTOR = 5
MAX_POOL = 500
# Rows an OR query may match before its commonest words are dropped: bm25 over three
# columns measured 1.2 microseconds per matched row, so this keeps ranking near 3 ms at
# any store size.
MAX_MATCHED_ROWS = 2500


def pool_size(limit: int) -> int:
    return min(max(POOL_FACTOR * limit, MIN_POOL), MAX_POOL)


def affordable_terms(words: list[str], conn: Connection) -> list[str]:
    """The task's words, rarest first, while together they match at most
    MAX_MATCHED_ROWS memories (the rarest is always kept); words in no memory go."""
    counts = dialect_of(conn).document_frequencies(conn, words)
    return choose_terms(words, counts, MAX_MATCHED_ROWS)


def choose_terms(words: list[str], counts: list[int], max_rows: int) -> list[str]:
    kept: set[int] = set()
    rows = 0
    for n in sorted(range(len(words)), key=lambda i: counts[i]):
        if counts[n] == 0:
            continue
        if kept and rows + counts[n] > max_rows:
            break
        kept.add(n)
        rows += counts[n]
    return [w for n, w in enumerate(words) if n in kept]


def rank(
    conn: Connection, query: RetrievalQuery, now: datetime
) -> list[tuple[int, ScoreBreakdown]]:
    """The ids of the best `query.limit` memories with their scores, best first."""
    at = query.filters.valid_at or now
    pool = pool_size(query.limit)
    weights = query.weights
    words = query_terms(query.text)
    match = None
    if words:
        chosen = affordable_terms(words, conn)
        if not chosen:
            return []  # no word of the task is in any memory
        match = terms_expression(chosen, match_any=True)
    if match is None:
        candidates = store.standing(conn, query.filters, at, pool)
        weights = weights.without_relevance()
    else:
        candidates = store.matching(conn, match, query.filters, at, pool)
    best = max((c.relevance for c in candidates), default=0.0)
    scored = []
    for order, c in enumerate(candidates):
        facts = ScoringFacts(
            relevance=normalised_relevance(c.relevance, best) if match else 0.0,
            confidence=c.confidence,
            importance=c.importance,
            access_count=c.access_count,
            last_used=c.last_used,
            cited=c.cited,
            ignored=c.ignored,
            team=c.team,
        )
        breakdown = score(facts, weights, at, query.half_life_days, query.team_weight)
        if breakdown.total >= query.min_score:
            scored.append((breakdown.total, -order, c.id, breakdown))
    scored.sort(reverse=True)
    return [(item_id, breakdown) for _, _, item_id, breakdown in scored[: query.limit]]
