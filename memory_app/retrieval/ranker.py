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
from memory_app.store.dialects.sqlite import RETRIEVAL_RANK
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import match_expression

MIN_POOL = 50
POOL_FACTOR = 5
MAX_POOL = 500


def pool_size(limit: int) -> int:
    return min(max(POOL_FACTOR * limit, MIN_POOL), MAX_POOL)


def rank(
    conn: Connection, query: RetrievalQuery, now: datetime
) -> list[tuple[int, ScoreBreakdown]]:
    """The ids of the best `query.limit` memories with their scores, best first."""
    at = query.filters.valid_at or now
    pool = pool_size(query.limit)
    weights = query.weights
    try:
        match = match_expression(query.text, match_any=True) if query.text.strip() else None
    except EmptyQueryError:
        match = None
    if match is None:
        candidates = store.standing(conn, query.filters, at, pool)
        weights = weights.without_relevance()
    else:
        candidates = store.matching(conn, match, RETRIEVAL_RANK, query.filters, at, pool)
    best = max((c.relevance for c in candidates), default=0.0)
    scored = []
    for order, c in enumerate(candidates):
        facts = ScoringFacts(
            relevance=normalised_relevance(c.relevance, best) if match else 0.0,
            confidence=c.confidence,
            importance=c.importance,
            access_count=c.access_count,
            last_used=c.last_used,
        )
        breakdown = score(facts, weights, at, query.half_life_days)
        if breakdown.total >= query.min_score:
            scored.append((breakdown.total, -order, c.id, breakdown))
    scored.sort(reverse=True)
    return [(item_id, breakdown) for _, _, item_id, breakdown in scored[: query.limit]]
