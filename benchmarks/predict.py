"""Predictive context benchmark (issue 19): on a planted project, do the memories about the
open file come first when predicted from the branch and the file, and how does that
compare with typing the same signals into the plain search?

The planted project (/home/dev/shop) has sixteen files; each was worked on in two
Claude Code-like conversations (one on the file's feature branch, one on main), stored
through the real pipeline (resource, turns, tool calls). Each conversation teaches three
memories about its file: one names it (`In client.ts, ...`), one names its module ("the
api client ..."), one names neither but was said right before the file was edited; plus
one unrelated convention said at the conversation's start. Decoys: two files share the
name client.ts, one has a generic name (index.tsx), another project (/home/dev/blog)
holds memories about the same paths, and generated background memories (a third of
them in the shop project, some on its branches) fill the store.

Precision@5 over the queries (one per file, with its feature branch; one per file on
main), predict() against `retrieve` given the file's path and the branch as text,
in one run on the same store.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.demo import generated_rows
from memory_app.domain.categories import Category
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.retrieval.predict import Signals, predict
from memory_app.service import MemoryService
from memory_app.store import repository as repo

SHOP = "/home/dev/shop"
BLOG = "/home/dev/blog"
FILES = (
    "src/api/client.ts",
    "src/api/routes.ts",
    "src/db/client.ts",
    "src/db/migrations.py",
    "src/auth/session.py",
    "src/auth/tokens.py",
    "src/billing/invoice.py",
    "src/billing/tax_rules.py",
    "src/ui/cart.tsx",
    "src/ui/index.tsx",
    "src/jobs/email_worker.py",
    "src/jobs/scheduler.py",
    "src/search/indexer.py",
    "src/search/query_parser.py",
    "src/payments/stripe_gateway.py",
    "src/payments/refunds.py",
)
K = 5
TARGET_PRECISION = 0.8  # predict's precision@5 must reach this and beat the baseline
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = START + timedelta(days=200)  # when the queries run

_NAMED = (
    "In {name}, retries back off exponentially and give up after {n} attempts",
    "In {name}, every public function returns a Result instead of raising",
    "{name} must stay free of side effects at import time; tests import it {n} times",
    "In {name}, timestamps are UTC and formatted as ISO 8601",
    "{name} logs through the shared logger, never print, and redacts tokens",
)
_MODULE = (
    "The {module} reads its settings from the environment, prefixed SHOP_{upper}",
    "The {module} is covered by contract tests that run against a recorded fixture",
    "The {module} keeps a cache of {n} entries that is cleared on deploy",
    "The {module} was rewritten in March to drop the legacy XML format",
    "Changes to the {module} need a review from the platform team",
)
_SILENT = (
    "We agreed to cap request bodies at {n} kilobytes to keep the gateway happy",
    "Keep the public names stable: downstream scripts import them by name",
    "Prefer small pure helpers here; the {n}-line function was hard to test",
    "Use dependency injection for the clock so the tests control time",
    "Feature flags for this code live in flags.yaml, not in code",
)
_UNRELATED = (
    "Commit messages follow Conventional Commits, with the scope in brackets #{n}",
    "Run the linter with --fix before every push, rule set {n}",
    "Pull requests need a linked ticket number, board {n}",
    "Write release notes in the past tense, section {n}",
)


@dataclass(frozen=True)
class Planted:
    """The store's planted memories about each file of the shop project."""

    about: dict[str, set[int]]  # file path -> memory ids
    branches: dict[str, str]  # file path -> its feature branch


class PlantedExtractor:
    """Hands the pipeline the memories planted for each conversation (by session id)."""

    name = "planted"

    def __init__(self) -> None:
        self.items: dict[str, list[ExtractedItem]] = {}

    def extract(
        self, transcript: Transcript, categories: Sequence[Category]
    ) -> list[ExtractedItem]:
        return list(self.items.get(transcript.session_id or "", []))


def feature_branch(path: str) -> str:
    parts = path.split("/")
    return f"feature/{parts[-2]}-{parts[-1].split('.')[0].replace('_', '-')}"


def _conversation(
    session: str,
    project: str,
    branch: str,
    path: str,
    other: str,
    said: Sequence[str],
    unrelated: str,
    when: datetime,
) -> tuple[Transcript, list[ExtractedItem]]:
    """One session: a convention first, some test runs, reading another file, the three
    statements about the file, then the edit of the file."""
    texts: list[tuple[str, str, str]] = [
        ("user", "message", unrelated),
        ("assistant", "message", "Noted."),
    ]
    for n in range(5):
        texts += [
            ("assistant", "tool_use", f"[Bash] npm test -- --shard {n}"),
            ("tool", "tool_result", f"shard {n}: all tests passed"),
        ]
    texts += [
        ("user", "message", f"Now let's look at {path}."),
        ("assistant", "tool_use", f"[Read] {project}/{other}"),
        ("tool", "tool_result", "(file contents)"),
    ]
    first = len(texts)
    texts += [("user", "message", s) for s in said]
    texts += [
        ("assistant", "tool_use", f"[Edit] {project}/{path}"),
        ("tool", "tool_result", "The file has been updated."),
    ]
    turns = tuple(
        Turn(n, speaker, text, kind, timestamp=when + timedelta(seconds=20 * n))
        for n, (speaker, kind, text) in enumerate(texts)
    )
    items = [
        ExtractedItem("project_conventions", unrelated, 0.9, turn_start=0, turn_end=0),
        *(
            ExtractedItem("implementation_notes", s, 0.9, turn_start=first + n, turn_end=first + n)
            for n, s in enumerate(said)
        ),
    ]
    transcript = Transcript(
        source_kind="claude-code",
        turns=turns,
        session_id=session,
        branch=branch,
        project=project,
        title=f"Work on {path}",
        started_at=when,
        ended_at=when + timedelta(seconds=20 * len(turns)),
    )
    return transcript, items


def _statements(path: str, rng: random.Random, serial: int) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    parts = path.split("/")
    module = f"{parts[-2]} {name.split('.')[0].replace('_', ' ')}"
    n = 10 + serial
    slots = {"name": name, "module": module, "upper": parts[-2].upper(), "n": n}
    picked = (rng.choice(_NAMED), rng.choice(_MODULE), rng.choice(_SILENT))
    statement = [t.format(**slots) for t in picked]
    statement[0] = statement[0][0].upper() + statement[0][1:]
    # Distinct across files, so the pipeline's deduplication keeps every planted memory.
    return [f"{s} (note {serial}-{i})." for i, s in enumerate(statement)]


def plant(service: MemoryService, extractor: PlantedExtractor, background: int) -> Planted:
    rng = random.Random(19)
    about: dict[str, set[int]] = {p: set() for p in FILES}
    branches = {p: feature_branch(p) for p in FILES}
    serial = 0
    for project in (SHOP, BLOG):
        for f, path in enumerate(FILES):
            for c, branch in enumerate((branches[path], "main")):
                serial += 1
                session = f"{project}-{f}-{c}"
                other = FILES[(f + 3 + c) % len(FILES)]
                unrelated = rng.choice(_UNRELATED).format(n=serial)
                when = START + timedelta(hours=serial * 7)
                transcript, items = _conversation(
                    session,
                    project,
                    branch,
                    path,
                    other,
                    _statements(path, rng, serial),
                    unrelated,
                    when,
                )
                extractor.items[session] = items
                result = service.memorize(transcript, update_summaries=False)
                if project == SHOP:
                    ids = _learnt(service, result.resource_id)
                    about[path] |= {i for i, content in ids if content != unrelated}
    rows = generated_rows(background, seed=19, now=NOW)
    for n, row in enumerate(rows):
        if n % 3 == 0:
            row.project = SHOP
            if n % 2 == 0:
                row.branch = branches[FILES[n % len(FILES)]]
    with service.db.writing() as session:
        repo.bulk_add_items(session, service.db.dialect, rows, actor="system", group_id="bench")
    return Planted(about, branches)


def _learnt(service: MemoryService, resource_id: int | None) -> list[tuple[int, str]]:
    from sqlalchemy import text

    with service.db.reading() as session:
        rows = session.connection().execute(
            text("SELECT id, content FROM memory_item WHERE source_resource_id = :r"),
            {"r": resource_id},
        )
        return [(row[0], row[1]) for row in rows]


def queries(planted: Planted) -> list[tuple[str, Signals]]:
    """One query per file with its feature branch, one with main."""
    found = []
    for path in FILES:
        for branch in (planted.branches[path], "main"):
            found.append((path, Signals(project=SHOP, branch=branch, files=(path,))))
    return found


def measure(service: MemoryService, planted: Planted, now: datetime) -> dict[str, Any]:
    predicted, searched, times = [], [], []
    misses: list[dict[str, Any]] = []
    for path, signals in queries(planted):
        relevant = planted.about[path]
        t0 = time.perf_counter()
        top = [p.id for p in predict(service, signals, K, now=now)]
        times.append(time.perf_counter() - t0)
        text = f"{path} {signals.branch}"
        query = RetrievalQuery(text=text, filters=RetrievalFilters(project=SHOP), limit=K)
        base = [r.record.id for r in service.retrieve(query)]
        predicted.append(len(set(top) & relevant) / K)
        searched.append(len(set(base) & relevant) / K)
        if predicted[-1] < 1.0:
            misses.append({"file": path, "branch": signals.branch, "p_at_5": predicted[-1]})
    return {
        "predict_p_at_5": round(sum(predicted) / len(predicted), 3),
        "search_p_at_5": round(sum(searched) / len(searched), 3),
        "predict_latency": summarize_ms(times),
        "imperfect_queries": misses,
    }


def run(background: int = 3000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder:
        extractor = PlantedExtractor()
        service = MemoryService.open(
            resolve_settings(Path(folder), env={}), extractor, clock=lambda: NOW
        )
        try:
            planted = plant(service, extractor, background)
            figures = measure(service, planted, NOW)
        finally:
            service.close()
    p, s = figures["predict_p_at_5"], figures["search_p_at_5"]
    return {
        "benchmark": "predict",
        "files": len(FILES),
        "queries": 2 * len(FILES),
        "relevant_per_query": 6,
        "background_memories": background,
        **figures,
        "target_predict_p_at_5": TARGET_PRECISION,
        "passed": p >= TARGET_PRECISION and p > s,
    }


def report(result: dict[str, Any]) -> str:
    verdict = "PASS" if result["passed"] else "FAIL"
    latency = result["predict_latency"]
    return (
        f"predict: planted project, {result['files']} files, {result['queries']} queries "
        f"(file + branch), {result['relevant_per_query']} relevant each, "
        f"{result['background_memories']:,} background memories\n"
        f"  precision@5  predict {result['predict_p_at_5']:.3f}   "
        f"search (path + branch as text) {result['search_p_at_5']:.3f}\n"
        f"  predict latency p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms\n"
        f"  target predict p@5 >= {result['target_predict_p_at_5']} and above search: {verdict}"
    )
