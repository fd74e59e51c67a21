"""Store benchmark (issue: foundation): bulk-import N generated memories, then time
full-text searches through MemoryService.search. Target: p95 under 5 ms at 100,000 items
on a 2-core machine."""

from __future__ import annotations

import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

TARGET_P95_MS = 5.0

TOOLS = (
    "pytest ruff mypy black poetry pip uv docker kubernetes terraform postgres sqlite redis "
    "celery rq kafka rabbitmq nginx gunicorn uvicorn fastapi django flask sqlalchemy alembic "
    "pydantic react vue svelte typescript javascript node pnpm npm yarn vite webpack eslint "
    "prettier jest vitest playwright cypress rust cargo go gradle maven java kotlin swift "
    "graphql grpc protobuf openapi jwt oauth sessions websockets asyncio threads pathlib "
    "logging structlog sentry prometheus grafana github gitlab actions makefile bash zsh "
    "tmux neovim vscode pyside6 qt qasync markdown yaml toml json csv pandas numpy polars"
).split()
AREAS = (
    "tests api handlers migrations models views components hooks services workers cli "
    "config settings fixtures docs scripts deployment ci builds imports logging errors "
    "retries caching auth payments search indexing uploads emails notifications reports "
    "dashboard admin schema queries transactions pagination serialization validation"
).split()
VERBS = (
    "parse load save render fetch sync merge split build check send retry cache index "
    "import export encode decode resolve schedule notify archive compress validate "
    "migrate refresh rotate publish subscribe register dispatch format normalize "
    "compute estimate reconcile upload download sanitize redact"
).split()
NOUNS = (
    "invoice order customer cart payment refund ledger account profile session token "
    "report chart widget table column row filter query cursor batch queue job worker "
    "event message channel thread socket stream buffer file folder path image thumbnail "
    "video audio transcript summary category memory conflict resource snapshot backup "
    "config setting flag feature release build artifact package module plugin theme "
    "layout dialog window menu shortcut icon font locale timezone currency address "
    "email webhook endpoint route handler middleware schema model view template"
).split()
TEMPLATES = (
    "Always use {t1} for {a1}, never {t2}",
    "Prefer {t1} over {t2} in {a1}",
    "We decided to use {t1} for {a1} because {t2} was too slow",
    "The {a1} folder mirrors the {a2} layout and is checked by {t1}",
    "Bug in {fn}: {t1} retried forever when {t2} timed out; fix by capping retries",
    "Run {t1} before committing changes to {path}",
    "Root cause of flaky {a1}: {fn} shared state between {a2}",
    "{t1} config lives in {path}; do not duplicate it in {a2}",
    "Switched from {t2} to {t1} for {a1} after the {fn} rewrite",
    "Keep {fn} small; move {a2} logic into {t1} helpers",
    "{fn} must validate its input before calling {t1}",
    "Tests for {path} use {t1} fixtures, not {t2} mocks",
)


def generate_rows(count: int, seed: int = 7) -> list[MemoryItemRow]:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    rows = []
    for n in range(count):
        t1, t2 = rng.sample(TOOLS, 2)
        a1, a2 = rng.sample(AREAS, 2)
        fn = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
        path = f"src/{a1}/{rng.choice(NOUNS)}_{rng.choice(NOUNS)}.py"
        template = rng.choice(TEMPLATES)
        content = template.format(t1=t1, t2=t2, a1=a1, a2=a2, fn=fn, path=path) + "."
        category = DEFAULT_CATEGORIES[n % len(DEFAULT_CATEGORIES)]
        when = now - timedelta(minutes=rng.randrange(0, 60 * 24 * 365))
        rows.append(
            MemoryItemRow(
                category=category.key,
                type=category.default_type,
                content=content,
                content_key="",
                confidence=round(rng.uniform(0.75, 1.0), 3),
                importance=round(rng.uniform(0.3, 0.9), 3),
                scope="project",
                project=f"/work/project-{n % 40}",
                tags=sorted({t1, t2}),
                extracted_at=when,
                updated_at=when,
                valid_from=when,
            )
        )
    return rows


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
            rows = generate_rows(items)
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
