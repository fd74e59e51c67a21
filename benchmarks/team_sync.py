"""Team sync benchmark (issue 20): 10,000 changes through a throwaway PostgreSQL server
(tests/postgres.py, as the tests start it).

One local store publishes 10,000 generated memories and pushes them (`team sync`), a
second, empty store pulls them all; then the first edits 1,000 of them and the second
pulls the edits. Reported per direction as changes per second and the p50/p95 time of
one batch (500 changes: one team transaction and one local transaction).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.demo import generated_rows
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.database import Database
from memory_app.store.tables import TeamLinkRow
from memory_app.team import sync_schema
from memory_app.team.sync import BATCH, SyncReport, sync

TARGET_CHANGES_PER_S = 500.0  # 10,000 changes in 20 s each way at most


def _store(folder: Path, url: str) -> MemoryService:
    service = MemoryService.open(resolve_settings(folder, env={}))
    with service.db.writing() as session:
        session.add(TeamLinkRow(url=url))
    return service


def _timed(service: MemoryService, batch: int) -> tuple[float, SyncReport]:
    started = time.perf_counter()
    report = sync(service.db, batch=batch)
    return time.perf_counter() - started, report


def _figures(changes: int, seconds: float, batches: list[float]) -> dict[str, Any]:
    return {
        "changes": changes,
        "seconds": round(seconds, 2),
        "changes_per_s": round(changes / seconds, 1) if seconds else 0.0,
        "batch": summarize_ms(batches) if batches else {},
    }


def run(items: int = 10_000, edits: int = 1_000, batch: int = BATCH) -> dict[str, Any]:
    from tests.postgres import ADMIN, ThrowawayServer

    result: dict[str, Any] = {"benchmark": "team_sync", "items": items, "batch": batch}
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder, ThrowawayServer() as pg:
        Database(pg.create_database("team")).close()  # the dialect's schema
        from sqlalchemy import create_engine

        admin = create_engine(pg.url("team"))
        with admin.begin() as conn:
            sync_schema.install(conn)
        admin.dispose()
        saved = os.environ.get("PGPASSWORD")
        os.environ["PGPASSWORD"] = pg.password  # libpq's: the link's URL has none
        url = f"postgresql://{ADMIN}@127.0.0.1:{pg.port}/team"
        a, b = _store(Path(folder) / "a", url), _store(Path(folder) / "b", url)
        try:
            with a.db.writing() as session:
                rows = generated_rows(items, seed=11, now=None)
                repo.bulk_add_items(
                    session, a.db.dialect, rows, actor="system", group_id="bench"
                )  # fmt: skip
                session.execute(text("UPDATE memory_item SET sharing = 'team', team_dirty = 1"))
            seconds, pushed = _timed(a, batch)
            sent = pushed.push.published
            result["push"] = _figures(sent, seconds, pushed.push.batch_seconds)
            result["not_sent"] = len(pushed.push.not_sent)
            seconds, pulled = _timed(b, batch)
            result["pull"] = _figures(pulled.pull.added, seconds, pulled.pull.batch_seconds)
            with a.db.writing() as session:
                session.execute(
                    text(
                        "UPDATE memory_item SET content = content || ' (revised)', "
                        "team_dirty = 1 WHERE sharing = 'team' AND id IN "
                        "(SELECT id FROM memory_item WHERE sharing = 'team' ORDER BY id "
                        "LIMIT :n)"
                    ),
                    {"n": edits},
                )
            seconds, edited = _timed(a, batch)
            result["push_edits"] = _figures(edited.push.updated, seconds, edited.push.batch_seconds)
            seconds, caught = _timed(b, batch)
            result["pull_edits"] = _figures(caught.pull.updated, seconds, caught.pull.batch_seconds)
            result["conflicts"] = len(caught.pull.conflicts)
        finally:
            a.close()
            b.close()
            if saved is None:
                os.environ.pop("PGPASSWORD", None)
            else:
                os.environ["PGPASSWORD"] = saved
    slowest = min(result["push"]["changes_per_s"], result["pull"]["changes_per_s"])
    result["target_changes_per_s"] = TARGET_CHANGES_PER_S
    result["passed"] = (
        slowest >= TARGET_CHANGES_PER_S
        and result["pull"]["changes"] == result["push"]["changes"] >= items * 0.99
        and result["conflicts"] == 0
    )
    return result


def report(result: dict[str, Any]) -> str:
    lines = [f"team_sync: {result['items']:,} memories, batches of {result['batch']}"]
    for name in ("push", "pull", "push_edits", "pull_edits"):
        part = result[name]
        batch = part["batch"]
        lines.append(
            f"  {name:<10} {part['changes']:>6,} changes in {part['seconds']} s: "
            f"{part['changes_per_s']:,} changes/s; batch p50 {batch.get('p50_ms')} ms "
            f"p95 {batch.get('p95_ms')} ms"
        )
    verdict = "PASS" if result["passed"] else "FAIL"
    lines.append(
        f"  not sent (checks): {result['not_sent']}; conflicts: {result['conflicts']}; "
        f"target >= {result['target_changes_per_s']:,} changes/s each way: {verdict}"
    )
    return "\n".join(lines)
