"""Merging the synthesized queries' rankings into the task's own: reciprocal rank fusion,
with the task's best offline matches always kept, so the model can add memories and
never hide one."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from memory_app.domain.retrieval import RetrievalQuery, RetrievedMemory
from memory_app.retrieval.assisted.questions import MAX_QUERIES, SearchPlan

if TYPE_CHECKING:
    from memory_app.service import MemoryService

RRF_K = 60  # reciprocal rank fusion's usual constant: rank 1 scores 1/61
QUERY_WORD_CHARS = 200  # one synthesized query, at most


def clean_queries(queries: Sequence[str], task: str) -> list[str]:
    """At most MAX_QUERIES distinct, non-empty, bounded queries, none the task itself."""
    seen = {" ".join(task.lower().split())}
    kept: list[str] = []
    for q in queries:
        text = " ".join(q.split())[:QUERY_WORD_CHARS]
        if text and text.lower() not in seen:
            seen.add(text.lower())
            kept.append(text)
    return kept[:MAX_QUERIES]


def fused(
    service: MemoryService,
    query: RetrievalQuery,
    plan: SearchPlan,
    offline: list[RetrievedMemory],
) -> tuple[list[RetrievedMemory], tuple[int, ...]]:
    """Reciprocal rank fusion of the task's offline ranking with each synthesized query's
    (restricted to the chosen categories); the task's best offline matches always stay.
    Also returns the memories only the synthesized queries found."""
    filters = query.filters
    if plan.categories:
        filters = replace(filters, categories=tuple(plan.categories))
    rankings = [offline] + [
        service.retrieve(replace(query, text=q, filters=filters)) for q in plan.queries
    ]
    scores: dict[int, float] = {}
    found: dict[int, RetrievedMemory] = {}
    for ranking in rankings:
        for position, result in enumerate(ranking, start=1):
            item = result.record.id
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + position)
            found.setdefault(item, result)
    order = sorted(scores, key=lambda i: -scores[i])
    kept = {r.record.id for r in offline[: math.ceil(query.limit / 2)]}
    for item in order:
        if len(kept) >= query.limit:
            break
        kept.add(item)
    results = [found[i] for i in order if i in kept]
    before = {r.record.id for r in offline}
    return results, tuple(r.record.id for r in results if r.record.id not in before)
