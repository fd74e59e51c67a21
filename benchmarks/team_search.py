"""Team store benchmark (issue 20): the same generated memories on SQLite and on a
throwaway PostgreSQL server (tests/postgres.py, as the tests start it), then search and
retrieval timed on both, and how far the two engines agree on what comes first.

Agreement is overlap@10: of the ten best results of a query on SQLite, the share that
PostgreSQL also puts in its ten best (mean over the queries either engine answers), and
Kendall's tau of the order of the results both put in their ten best. It is measured for
the dialect's bm25 (dialects/pg_bm25.py) and for ts_rank_cd with each normalization, so
the dialect's choice can be checked.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from benchmarks.store_search import generate_queries
from memory_app.config import resolve_settings
from memory_app.demo import generated_rows
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.dialects import postgresql

TARGET_P95_MS = 50.0  # a shared server over a socket: ten times the local target
NORMALIZATIONS = (0, 1, 2, 4, 8, 16, 32)
RANKINGS = ("bm25", *(f"ts_rank_cd/{n}" for n in NORMALIZATIONS))


def _fill(service: MemoryService, items: int) -> float:
    rows = generated_rows(items, seed=7, now=None)
    started = time.perf_counter()
    with service.db.writing() as session:
        repo.bulk_add_items(session, service.db.dialect, rows, actor="system", group_id="bench")
    return time.perf_counter() - started


def _time(service: MemoryService, texts: list[str]) -> dict[str, Any]:
    for text in texts[:20]:  # warm caches like a running app would be
        service.search(text, limit=10)
    search, retrieve = [], []
    for text in texts:
        t0 = time.perf_counter()
        service.search(text, limit=10)
        search.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        service.retrieve(text)
        retrieve.append(time.perf_counter() - t0)
    return {"search": summarize_ms(search), "retrieve": summarize_ms(retrieve)}


def _tops(service: MemoryService, texts: list[str]) -> dict[str, list[list[str]]]:
    """Each query's ten best, by content (ids differ between the two stores)."""
    return {
        "search": [[m.content for m in service.search(t, limit=10)] for t in texts],
        "retrieve": [[r.record.content for r in service.retrieve(t)][:10] for t in texts],
    }


def overlap_at_10(first: list[list[str]], second: list[list[str]]) -> float:
    shares = [
        len(set(a) & set(b)) / max(len(a), len(b))
        for a, b in zip(first, second, strict=True)
        if a or b
    ]
    return round(sum(shares) / len(shares), 3) if shares else 0.0


def kendall_tau(first: list[list[str]], second: list[list[str]]) -> float:
    """Mean tau-a of the order of the results both lists hold (queries with two or more)."""
    taus = []
    for a, b in zip(first, second, strict=True):
        common = [x for x in a if x in b]
        if len(common) < 2:
            continue
        where = {x: b.index(x) for x in common}
        pairs = [(i, j) for i in range(len(common)) for j in range(i + 1, len(common))]
        agree = sum(1 if where[common[i]] < where[common[j]] else -1 for i, j in pairs)
        taus.append(agree / len(pairs))
    return round(sum(taus) / len(taus), 3) if taus else 0.0


def _set_ranking(ranking: str) -> None:
    kind, _, normalization = ranking.partition("/")
    postgresql.RANKING = kind
    if normalization:
        postgresql.RANK_NORMALIZATION = int(normalization)


def run(items: int = 100_000, queries: int = 200) -> dict[str, Any]:
    from tests.postgres import ThrowawayServer

    texts = generate_queries(queries)
    result: dict[str, Any] = {"benchmark": "team_search", "items": items, "queries": queries}
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder, ThrowawayServer() as pg:
        local = MemoryService.open(resolve_settings(Path(folder)), OfflineExtractor())
        team_settings = resolve_settings(Path(folder), db_url=pg.create_database("team"))
        team = MemoryService.open(team_settings, OfflineExtractor())
        try:
            result["import_seconds"] = {
                "sqlite": round(_fill(local, items), 2),
                "postgresql": round(_fill(team, items), 2),
            }
            result["sqlite"] = _time(local, texts)
            result["postgresql"] = _time(team, texts)
            reference = _tops(local, texts)
            chosen = (postgresql.RANKING, postgresql.RANK_NORMALIZATION)
            agreement = {}
            try:
                for ranking in RANKINGS:
                    _set_ranking(ranking)
                    team.retrieval_cache.clear()  # else it answers with the previous ranking
                    tops = _tops(team, texts)
                    agreement[ranking] = {
                        kind: {
                            "overlap": overlap_at_10(reference[kind], tops[kind]),
                            "tau": kendall_tau(reference[kind], tops[kind]),
                        }
                        for kind in reference
                    }
            finally:
                postgresql.RANKING, postgresql.RANK_NORMALIZATION = chosen
            result["agreement_at_10"] = agreement
            result["ranking"] = chosen[0]
        finally:
            local.close()
            team.close()
    p95 = result["postgresql"]["search"]["p95_ms"]
    result["target_p95_ms"] = TARGET_P95_MS
    result["passed"] = p95 < TARGET_P95_MS
    return result


def report(result: dict[str, Any]) -> str:
    lines = [
        f"team_search: {result['items']:,} memories, {result['queries']} queries; import "
        f"SQLite {result['import_seconds']['sqlite']} s, "
        f"PostgreSQL {result['import_seconds']['postgresql']} s"
    ]
    for engine in ("sqlite", "postgresql"):
        s, r = result[engine]["search"], result[engine]["retrieve"]
        lines.append(
            f"  {engine:<10} search p50 {s['p50_ms']} ms p95 {s['p95_ms']} ms; "
            f"retrieve p50 {r['p50_ms']} ms p95 {r['p95_ms']} ms"
        )
    lines.append("  agreement with SQLite's ten best, overlap@10 (Kendall tau), search / retrieve:")
    for ranking, agreement in result["agreement_at_10"].items():
        mark = " (chosen)" if ranking == result["ranking"] else ""
        s, r = agreement["search"], agreement["retrieve"]
        lines.append(
            f"    {ranking:<14} {s['overlap']} ({s['tau']}) / {r['overlap']} ({r['tau']}){mark}"
        )
    verdict = "PASS" if result["passed"] else "FAIL"
    lines.append(f"  target PostgreSQL search p95 < {result['target_p95_ms']} ms: {verdict}")
    return "\n".join(lines)
