"""Store benchmark (issue: foundation): bulk-import N generated memories, then time
full-text searches through MemoryService.search. Target: p95 under 5 ms at 100,000 items
on a 2-core machine."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.demo import AREAS, NOUNS, TOOLS, VERBS, generated_rows
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo

TARGET_P95_MS = 5.0

QUERY_KINDS = ("tool name", "tool + area", "identifier", "two words", "question")


def generate_queries(count: int, seed: int = 11) -> list[str]:
    """What people type into a search box: a word or two, an identifier, a question.
    Query n is of kind QUERY_KINDS[n % 5]."""
    rng = random.Random(seed)
    queries = []
    for n in range(count):
        kind = n % len(QUERY_KINDS)
        if kind == 0:
            queries.append(rng.choice(TOOLS))
        elif kind == 1:
            queries.append(f"{rng.choice(TOOLS)} {rng.choice(AREAS)}")
        elif kind == 2:
            queries.append(f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}")
        elif kind == 3:
            queries.append(f"{rng.choice(NOUNS)} {rng.choice(VERBS)}")
        else:
            queries.append(f"why {rng.choice(TOOLS)} over {rng.choice(TOOLS)}?")
    return queries


def run(items: int = 100_000, queries: int = 200) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder:
        service = MemoryService.open(resolve_settings(Path(folder)), OfflineExtractor())
        try:
            rows = generated_rows(items)
            started = time.perf_counter()
            with service.db.writing() as session:
                repo.bulk_add_items(
                    session, service.db.dialect, rows, actor="system", group_id="bench"
                )
            import_s = time.perf_counter() - started
            texts = generate_queries(queries)
            for text in texts[:20]:  # warm the page cache like a running app would be
                service.search(text, limit=10)
            samples: list[float] = []
            hits = 0
            for text in texts:
                t0 = time.perf_counter()
                found = service.search(text, limit=10)
                samples.append(time.perf_counter() - t0)
                hits += bool(found)
        finally:
            service.close()
    latency = summarize_ms(samples)
    by_kind = {
        kind: summarize_ms(samples[n :: len(QUERY_KINDS)]) for n, kind in enumerate(QUERY_KINDS)
    }
    return {
        "benchmark": "store_search",
        "items": items,
        "import_seconds": round(import_s, 2),
        "import_items_per_second": round(items / import_s),
        "queries": queries,
        "queries_with_results": hits,
        "search": latency,
        "search_by_kind": by_kind,
        "target_p95_ms": TARGET_P95_MS,
        "passed": latency["p95_ms"] < TARGET_P95_MS,
    }


def report(result: dict[str, Any]) -> str:
    s = result["search"]
    verdict = "PASS" if result["passed"] else "FAIL"
    return (
        f"store_search: {result['items']:,} items imported in {result['import_seconds']} s "
        f"({result['import_items_per_second']:,}/s)\n"
        f"  {result['queries']} queries ({result['queries_with_results']} with results): "
        f"p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, p99 {s['p99_ms']} ms, max {s['max_ms']} ms\n"
        + "".join(
            f"    {kind:<12} p50 {k['p50_ms']} ms, p95 {k['p95_ms']} ms\n"
            for kind, k in result["search_by_kind"].items()
        )
        + f"  target p95 < {result['target_p95_ms']} ms: {verdict}"
    )
