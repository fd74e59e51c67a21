"""Retrieval speed (issue: retrieval): MemoryService.retrieve over N generated memories.

Queries are task descriptions of several words (an OR of their meaningful words is
ranked by bm25, then rescored), some with a project filter, some with a category;
the query cache is cleared before each so the figure is the real work. Target: p95
under 10 ms at 100,000 memories in-process (seed 003 says < 5 ms, seed 004 < 50 ms).
Also times build_context (four tiers within a 2,000-token budget).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.demo import AREAS, NOUNS, TOOLS, VERBS, generated_rows
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.extract.offline import OfflineExtractor
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store import repository as repo

TARGET_P95_MS = 10.0
KINDS = ("task", "task in a project", "task in a category", "short task")


def generate_tasks(count: int, seed: int = 5) -> list[RetrievalQuery]:
    rng = random.Random(seed)
    queries = []
    for n in range(count):
        task = (
            f"{rng.choice(VERBS)} the {rng.choice(NOUNS)} in {rng.choice(AREAS)} "
            f"using {rng.choice(TOOLS)} and keep {rng.choice(TOOLS)} tests passing"
        )
        kind = n % len(KINDS)
        filters = RetrievalFilters()
        if kind == 1:
            filters = RetrievalFilters(project=f"/home/dev/project-{rng.randrange(40)}")
        elif kind == 2:
            filters = RetrievalFilters(categories=("coding_preferences",))
        elif kind == 3:
            task = f"{rng.choice(TOOLS)} {rng.choice(AREAS)}"
        queries.append(RetrievalQuery(text=task, filters=filters, limit=10))
    return queries


def run(items: int = 100_000, queries: int = 300) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder:
        service = MemoryService.open(resolve_settings(Path(folder), env={}), OfflineExtractor())
        try:
            with service.db.writing() as session:
                repo.bulk_add_items(
                    session, service.db.dialect, generated_rows(items), actor="system", group_id="b"
                )
            tasks = generate_tasks(queries)
            for query in tasks[:20]:  # warm the page cache like a running app would be
                service.retrieve(query)
            samples: list[float] = []
            for query in tasks:
                service.retrieval_cache.clear()
                t0 = time.perf_counter()
                service.retrieve(query, record_access=True)
                samples.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            written = service.flush_access()
            flush_s = time.perf_counter() - t0
            context_samples = []
            for query in tasks[:60]:
                t0 = time.perf_counter()
                service.build_context(
                    ContextRequest(task=query.text, project=query.filters.project)
                )
                context_samples.append(time.perf_counter() - t0)
            cached = []
            for query in tasks[:100]:
                service.retrieve(query)
                t0 = time.perf_counter()
                service.retrieve(query)
                cached.append(time.perf_counter() - t0)
        finally:
            service.close()
    latency = summarize_ms(samples)
    return {
        "benchmark": "retrieve",
        "items": items,
        "queries": queries,
        "retrieve": latency,
        "retrieve_by_kind": {
            kind: summarize_ms(samples[n :: len(KINDS)]) for n, kind in enumerate(KINDS)
        },
        "retrieve_cached": summarize_ms(cached),
        "build_context": summarize_ms(context_samples),
        "access_flush": {"memories": written, "ms": round(flush_s * 1000, 1)},
        "target_p95_ms": TARGET_P95_MS,
        "passed": latency["p95_ms"] < TARGET_P95_MS,
    }


def report(result: dict[str, Any]) -> str:
    r = result["retrieve"]
    c = result["build_context"]
    verdict = "PASS" if result["passed"] else "FAIL"
    return (
        f"retrieve: {result['items']:,} memories, {result['queries']} tasks (cache cleared): "
        f"p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, p99 {r['p99_ms']} ms\n"
        + "".join(
            f"    {kind:<20} p50 {k['p50_ms']} ms, p95 {k['p95_ms']} ms\n"
            for kind, k in result["retrieve_by_kind"].items()
        )
        + f"  cached: p50 {result['retrieve_cached']['p50_ms']} ms; build_context "
        f"(4 retrievals, 2,000 tokens): p50 {c['p50_ms']} ms, p95 {c['p95_ms']} ms\n"
        f"  access counts of {result['access_flush']['memories']} memories written in "
        f"{result['access_flush']['ms']} ms (one batch, off the query path)\n"
        f"  target p95 < {result['target_p95_ms']} ms: {verdict}"
    )
