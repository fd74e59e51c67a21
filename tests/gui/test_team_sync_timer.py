"""Background team sync in the window (issue 20, offline first): a failure shows on the
status indicator and changes nothing; the next run against a reachable team store catches
up and clears it; a store with no team link is left alone; a sync held up by the server
holds up neither the job thread (imports, maintenance) nor quitting."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from sqlalchemy import create_engine

from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.runtime import DetachedWorker
from memory_app.gui.team_sync_timer import TeamSyncTimer
from memory_app.store.database import Database
from memory_app.store.tables import MemoryItemRow, TeamLinkRow
from memory_app.team import sync_schema
from memory_app.team.sync import SyncFailed, SyncReport
from tests.postgres import ADMIN, ThrowawayServer


@pytest.fixture
def team_url(postgres_server: ThrowawayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"team_{uuid.uuid4().hex[:8]}"
    engine = create_engine(postgres_server.create_database(name, template="store_template"))
    with engine.begin() as conn:
        sync_schema.install(conn)
    engine.dispose()
    monkeypatch.setenv("PGPASSWORD", postgres_server.password)  # libpq reads it
    yield f"postgresql://{ADMIN}@127.0.0.1:{postgres_server.port}/{name}"
    postgres_server.drop_database(name)


def run(loop: qasync.QEventLoop, timer: TeamSyncTimer) -> SyncReport | None:
    return loop.run_until_complete(asyncio.wait_for(timer.run(), timeout=30))


def test_a_store_without_a_team_link_is_not_synced(
    context: AppContext, loop: qasync.QEventLoop
) -> None:
    timer = TeamSyncTimer(context)
    assert run(loop, timer) is None
    assert context.status.state == StatusModel.READY


@pytest.mark.postgresql
def test_an_offline_sync_shows_on_the_indicator_and_the_next_one_clears_it(
    context: AppContext, loop: qasync.QEventLoop, team_url: str
) -> None:
    service = context.service
    with service.db.writing() as session:
        session.add(TeamLinkRow(url="postgresql://nobody@127.0.0.1:9/team"))
        session.add(
            MemoryItemRow(
                category="project_conventions", content="Logs are shipped as JSON lines",
                content_key="", confidence=0.9, sharing="team", team_dirty=True,
            )
        )  # fmt: skip
    timer = TeamSyncTimer(context)

    assert run(loop, timer) is None
    assert context.status.state == StatusModel.ERROR
    assert context.status.message.startswith("Team sync failed: Cannot reach the team database")

    with service.db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.url = team_url
    report = run(loop, timer)
    assert report is not None and report.push.published == 1
    assert context.status.state == StatusModel.READY
    assert context.status.message == "Team sync caught up"


class StuckSync:
    """A sync the server holds up: it waits until the test releases it, and says on
    which thread it runs."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.thread: threading.Thread | None = None

    def __call__(self, db: Database) -> SyncReport:
        self.thread = threading.current_thread()
        self.started.set()
        self.release.wait()
        return SyncReport()


def until(loop: qasync.QEventLoop, condition: Callable[[], bool]) -> None:
    """Run the loop until `condition` holds (the timeout only stops a hang)."""

    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.005)

    loop.run_until_complete(asyncio.wait_for(wait(), timeout=30))


def test_a_stuck_sync_holds_up_neither_maintenance_nor_quitting(
    context: AppContext, loop: qasync.QEventLoop
) -> None:
    with context.service.db.writing() as session:
        session.add(TeamLinkRow(url="postgresql://nobody@127.0.0.1:9/team"))
    stuck = StuckSync()
    timer = TeamSyncTimer(context, sync_store=stuck)
    syncing = timer.sync_now()
    until(loop, stuck.started.is_set)
    try:
        # A maintenance job on the shared job thread runs to its end while the sync waits.
        record = loop.run_until_complete(
            asyncio.wait_for(context.maintenance.run("nightly", dry_run=True), timeout=30)
        )
        assert record is not None and record.status == "success"
        assert not syncing.done() and stuck.thread is not None and stuck.thread.is_alive()
        assert not stuck.thread.name.startswith("memory-job")

        # Quitting (app.py's order, on the window's thread, as the app does): stopping the
        # timer and the context's workers returns while the sync is still held up, and the
        # sync's thread does not keep the process alive. (Calling shutdown from another
        # thread would cancel the loop's tasks off its thread and leave Qt objects behind
        # that crash a later test.) An alarm turns a regression into a failure, not a hang.
        def waited(_signum: int, _frame: object) -> None:
            raise AssertionError("quitting waited for the stuck sync")

        previous = signal.signal(signal.SIGALRM, waited)
        signal.alarm(30)
        try:
            timer.stop()
            context.shutdown()
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert not stuck.release.is_set() and stuck.thread.is_alive()
        assert stuck.thread.daemon
        # Once the app quit, the sync's end posts nothing into the loop: a thread posting
        # into a loop whose Qt objects are gone crashed a later test's event processing.
        posted: list[object] = []
        real_post = loop.call_soon_threadsafe
        loop.call_soon_threadsafe = lambda *a, **k: posted.append(a) or real_post(*a, **k)  # type: ignore[method-assign]
        stuck.release.set()
        stuck.thread.join(timeout=30)
        assert not stuck.thread.is_alive() and posted == []
    finally:
        stuck.release.set()
        if stuck.thread is not None:
            stuck.thread.join(timeout=30)


def test_a_process_quits_while_a_detached_call_is_stuck(tmp_path: Path) -> None:
    """The interpreter's exit does not join the detached thread (it would join a
    ThreadPoolExecutor's worker, even after shutdown(wait=False))."""
    script = tmp_path / "quit.py"
    script.write_text(
        "import asyncio, threading\n"
        "from memory_app.gui.runtime import DetachedWorker\n"
        "async def main():\n"
        "    started = threading.Event()\n"
        "    def stuck():\n"
        "        started.set()\n"
        "        threading.Event().wait()\n"
        "    task = asyncio.ensure_future(DetachedWorker('stuck').run(stuck))\n"
        "    while not started.is_set():\n"
        "        await asyncio.sleep(0.005)\n"
        "    task.cancel()\n"
        "    print('quitting', flush=True)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert (done.returncode, done.stdout.strip()) == (0, "quitting"), done.stderr


def test_a_detached_call_returns_its_result_and_raises_its_error(
    loop: qasync.QEventLoop,
) -> None:
    worker = DetachedWorker("test")
    assert loop.run_until_complete(worker.run(lambda a, b: a + b, 2, b=3)) == 5

    def fails() -> None:
        raise SyncFailed("offline")

    with pytest.raises(SyncFailed, match="offline"):
        loop.run_until_complete(worker.run(fails))
