"""New Claude Code sessions are imported while the app is open: a real projects folder under
the test's home, real session files, a real store, and a settle window of one second.

Imports run the way the app runs them: in a child process through the job thread."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync

from memory_app.gui.context import AppContext
from memory_app.gui.maintenance_scheduler import MaintenanceScheduler
from memory_app.gui.session_watcher import SessionWatcher, seconds_until_settled
from memory_app.ingest import parse_source

RunUntil = Callable[..., None]
Settle = Callable[..., None]
JOB_TIMEOUT = 90  # an import starts a child process; slow machines take seconds for that
SETTLE = 1.0
SESSION = "simonw_sample_session.jsonl"
GROWING = "spotter_short.jsonl"


@pytest.fixture
def projects() -> Path:
    """Where Claude Code keeps its sessions, under the test's home (not created)."""
    return Path.home() / ".claude" / "projects"


@pytest.fixture
def scheduler(context: AppContext) -> MaintenanceScheduler:
    # Enabled, but not started: the startup check is not what these tests are about; the
    # person has said yes to automatic imports.
    return MaintenanceScheduler(context, enabled=True, settle_seconds=SETTLE, auto_import=True)


@pytest.fixture
def watcher(scheduler: MaintenanceScheduler) -> Iterator[SessionWatcher]:
    watching = SessionWatcher(scheduler, margin_ms=200, recheck_ms=500)
    yield watching
    watching.stop()


def imported_names(context: AppContext) -> list[str]:
    return sorted(Path(r.source_path or "").name for r in context.service.resources())


def test_a_session_written_while_the_app_is_open_is_imported(
    context: AppContext,
    watcher: SessionWatcher,
    projects: Path,
    samples_dir: Path,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    shop = projects / "-home-dev-shop"
    shop.mkdir(parents=True)
    sources: list[bool] = []
    context.events.sources_changed.connect(lambda: sources.append(True))
    assert watcher.start()
    # Claude Code's folders, and home for the Codex sessions folder that is not there yet.
    assert watcher.watched() == [Path.home(), projects, shop]

    shutil.copy(samples_dir / "claude-code" / SESSION, shop / SESSION)
    run_until(lambda: imported_names(context) == [SESSION], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    # The same feedback as the startup import: the status bar's message, views refreshed.
    assert context.status.message == "Imported 1 new session"
    assert sources
    (logged,) = context.service.maintenance_runs()
    assert logged.kind == "startup" and logged.result["imported"] == 1

    # A project folder that appears later is watched too.
    other = projects / "-home-dev-blog"
    other.mkdir()
    run_until(lambda: other in watcher.watched())
    shutil.copy(samples_dir / "claude-code" / GROWING, other / GROWING)
    run_until(lambda: imported_names(context) == sorted([SESSION, GROWING]), timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert context.status.message == "Imported 1 new session"


def test_a_session_still_being_written_waits_until_it_has_settled(
    context: AppContext,
    watcher: SessionWatcher,
    projects: Path,
    samples_dir: Path,
    loop: qasync.QEventLoop,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    shop = projects / "-home-dev-shop"
    shop.mkdir(parents=True)
    watcher.start()
    checks: list[bool] = []
    watcher.triggered.connect(lambda: checks.append(True))
    lines = (samples_dir / "claude-code" / GROWING).read_text(encoding="utf-8").splitlines(True)
    target = shop / GROWING

    async def write_slowly() -> None:
        # A line every quarter second: never quiet for the settle window.
        for line in lines:
            with target.open("a", encoding="utf-8") as file:
                file.write(line)
            await asyncio.sleep(0.25)

    loop.run_until_complete(write_slowly())
    assert len(checks) >= 2  # it looked, more than once, while the file grew
    assert context.service.resources() == []  # and took nothing half-written
    run_until(lambda: imported_names(context) == [GROWING], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    (resource,) = context.service.resources()
    (whole,) = parse_source(samples_dir / "claude-code" / GROWING).transcripts
    assert resource.turn_count == len(whole.turns)  # all of it, not the first lines
    assert not watcher.pending()  # nothing is being written any more: no more checks


def test_a_missing_projects_folder_is_waited_for(
    context: AppContext,
    watcher: SessionWatcher,
    projects: Path,
    samples_dir: Path,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    assert not projects.exists()
    assert watcher.start()  # no crash, and the nearest folder above is watched
    assert watcher.watched() == [Path.home()]
    watcher.scheduler.import_new_sessions()  # and an import finds nothing, quietly
    settle()
    assert context.service.resources() == [] and context.status.state == "ready"

    shop = projects / "-home-dev-shop"
    shop.mkdir(parents=True)
    shutil.copy(samples_dir / "claude-code" / SESSION, shop / SESSION)
    run_until(lambda: imported_names(context) == [SESSION], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert projects in watcher.watched() and shop in watcher.watched()

    # Claude Code's folder removed while watched: back to waiting, no crash.
    shutil.rmtree(projects.parent)
    run_until(lambda: watcher.watched() == [Path.home()])
    assert context.status.state == "ready"


def test_one_import_at_a_time(
    context: AppContext,
    scheduler: MaintenanceScheduler,
    projects: Path,
    samples_dir: Path,
    settle: Settle,
) -> None:
    shop = projects / "-home-dev-shop"
    shop.mkdir(parents=True)
    for name in (SESSION, GROWING):
        shutil.copy(samples_dir / "claude-code" / name, shop / name)
    scheduler.settle_seconds = 0
    reports: list[Any] = []
    scheduler.imported.connect(reports.append)
    scheduler.import_new_sessions()
    scheduler.import_new_sessions()  # asked again while the first runs: it runs after it
    settle(timeout=JOB_TIMEOUT)
    assert imported_names(context) == sorted([SESSION, GROWING])
    first, second = reports  # the first was not cancelled by the second
    assert first is not None and not first.cancelled and first.resources_added == 2
    assert second is None  # nothing was new any more
    assert not scheduler.importing


def test_switched_off_means_not_watched(context: AppContext, projects: Path) -> None:
    projects.mkdir(parents=True)
    scheduler = MaintenanceScheduler(context, enabled=False)
    watching = SessionWatcher(scheduler)
    assert watching.start() is False
    assert watching.watched() == [] and not watching.active


def test_stop_ends_watching(watcher: SessionWatcher, projects: Path) -> None:
    (projects / "p").mkdir(parents=True)
    watcher.start()
    (projects / "p" / "s.jsonl").write_text("{}\n", encoding="utf-8")
    watcher.stop()
    assert watcher.watched() == [] and not watcher.pending()
    watcher.stop()  # twice is harmless


CODEX = "daaain_synthetic_rollout.jsonl"
CODEX_DAY_TWO = "simonw_sample_codex_session.jsonl"


def test_a_codex_session_written_while_the_app_is_open_is_imported(
    context: AppContext,
    watcher: SessionWatcher,
    samples_dir: Path,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    """Codex writes `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`: a new day's folder three
    levels down is watched as soon as it appears, and its session imported."""
    sessions = Path.home() / ".codex" / "sessions"
    sessions.mkdir(parents=True)
    assert watcher.start()
    assert watcher.watched() == [Path.home(), sessions]  # home: Claude Code's is missing

    day = sessions / "2026" / "01" / "02"
    day.mkdir(parents=True)
    shutil.copy(samples_dir / "codex" / CODEX, day / f"rollout-2026-01-02T03-04-05-{CODEX}")
    run_until(lambda: len(context.service.resources()) == 1, timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    (first,) = context.service.resources()
    assert first.source_kind == "codex" and first.turn_count == 9
    assert context.status.message == "Imported 1 new session"
    assert day in watcher.watched()

    next_day = sessions / "2026" / "01" / "03"  # inside a watched month folder
    next_day.mkdir()
    run_until(lambda: next_day in watcher.watched())
    run_until(lambda: not watcher.pending(), timeout=JOB_TIMEOUT)  # the folder's own check
    settle(timeout=JOB_TIMEOUT)
    # Nothing is armed now: only the new day folder's watch can see this session.
    shutil.copy(samples_dir / "codex" / CODEX_DAY_TWO, next_day / "rollout-2.jsonl")
    run_until(lambda: len(context.service.resources()) == 2, timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    kinds = {r.source_kind for r in context.service.resources()}
    assert kinds == {"codex"}


def test_the_startup_check_takes_claude_code_and_codex_sessions_from_codex_home(
    context: AppContext,
    scheduler: MaintenanceScheduler,
    projects: Path,
    samples_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    settle: Settle,
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert scheduler.codex_root == tmp_path / "codex-home" / "sessions"
    assert scheduler.session_roots == (projects, scheduler.codex_root)
    day = scheduler.codex_root / "2025" / "12" / "28"
    day.mkdir(parents=True)
    shutil.copy(samples_dir / "codex" / CODEX_DAY_TWO, day / "rollout-a.jsonl")
    shop = projects / "-home-dev-shop"
    shop.mkdir(parents=True)
    shutil.copy(samples_dir / "claude-code" / SESSION, shop / SESSION)
    scheduler.settle_seconds = 0
    scheduler.import_new_sessions()
    settle(timeout=JOB_TIMEOUT)
    assert imported_names(context) == sorted(["rollout-a.jsonl", SESSION])
    assert context.status.message == "Imported 2 new sessions"
    (logged,) = context.service.maintenance_runs()
    assert logged.result == {"new_sessions": 2, "imported": 2, "deferred": 0}


def test_seconds_until_settled(tmp_path: Path) -> None:
    assert seconds_until_settled(tmp_path / "missing", 300) == 0
    session = tmp_path / "p" / "s.jsonl"
    session.parent.mkdir()
    session.write_text("{}\n", encoding="utf-8")
    written = session.stat().st_mtime
    assert seconds_until_settled(tmp_path, 300, now=written + 100) == pytest.approx(200)
    assert seconds_until_settled(tmp_path, 300, now=written + 400) == 0
