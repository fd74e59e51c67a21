"""A new user's first hour (issue 17): the first start asks before importing anything
automatically; the status bar tells the truth (the last import ages, "to review" goes once
nothing waits, "1 memory"); "Extract with Claude" says why it cannot run without a key.

A real store, real Claude Code session files in a projects folder under the test's home,
the real scheduler and watcher; imports run as the app runs them (a child process)."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from memory_app.domain.humanize import plural
from memory_app.gui import auto_import
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.maintenance_scheduler import MaintenanceScheduler
from memory_app.gui.session_watcher import SessionWatcher
from memory_app.gui.views.dashboard import DashboardView
from memory_app.gui.views.maintenance import MaintenanceView
from memory_app.gui.views.settings import SettingsView
from memory_app.gui.views.sources import SourcesView
from memory_app.gui.widgets import welcome
from memory_app.gui.widgets.status_indicator import AGE_REFRESH_MS, counts_text
from memory_app.gui.widgets.welcome import WelcomePanel
from tests.gui.test_maintenance_view import DUPLICATE, KEEP, add, dry_run_nightly
from tests.helpers import conversation

Settle = Callable[..., None]
RunUntil = Callable[..., None]
JOB_TIMEOUT = 90  # an import starts a child process; slow machines take seconds for that
STARTUP_DELAY_MS = 200  # the app waits 5 s; the tests wait well past this one
SETTLE = 0.5  # seconds a session must be quiet (the app: five minutes)
FIRST = "simonw_sample_session.jsonl"
LATER = "spotter_short.jsonl"
CHAT = conversation(
    (
        "Add a retry wrapper around the payment client, it flakes under load.",
        "Added with_retry() using exponential backoff (base 0.5s, max 8s).",
    )
)


# -- the folder, the scheduler and the watcher, as the app builds them --------------------------


@pytest.fixture
def projects(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code's projects folder in the test's home, seen by the welcome page too."""
    folder = Path.home() / ".claude" / "projects"
    monkeypatch.setattr(welcome, "claude_projects_dir", lambda: folder)
    return folder


def add_session(projects: Path, samples_dir: Path, name: str) -> Path:
    """A real session file, last written an hour ago (settled: nothing is writing it)."""
    target = projects / "-home-dev-shop" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(samples_dir / "claude-code" / name, target)
    an_hour_ago = time.time() - 3600
    os.utime(target, (an_hour_ago, an_hour_ago))
    return target


@pytest.fixture
def background(
    context: AppContext, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[MaintenanceScheduler, SessionWatcher, list[str]]]:
    """The scheduler and watcher of `app.py`, started the same way (a short startup delay).
    The maintenance jobs of the startup check are recorded, not run: each would start a
    child process, and they are not what these tests are about."""
    scheduler = MaintenanceScheduler(
        context, enabled=True, claude_dir=projects, settle_seconds=SETTLE
    )
    checks: list[str] = []

    async def no_maintenance() -> list[Any]:
        checks.append("maintenance")
        return []

    monkeypatch.setattr(scheduler, "_run_due", no_maintenance)
    watcher = SessionWatcher(scheduler, margin_ms=100, recheck_ms=500)
    yield scheduler, watcher, checks
    watcher.stop()
    scheduler.stop()


def start_background(
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
) -> tuple[MaintenanceScheduler, SessionWatcher]:
    scheduler, watcher, _checks = background
    assert scheduler.start(delay_ms=STARTUP_DELAY_MS)
    watcher.start()
    return scheduler, watcher


def wait(loop: qasync.QEventLoop, seconds: float) -> None:
    loop.run_until_complete(asyncio.sleep(seconds))


def resources(context: AppContext) -> list[str]:
    return sorted(Path(r.source_path or "").name for r in context.service.resources())


@pytest.fixture
def window(qtbot: Any, context: AppContext, settle: Settle) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    qtbot.waitExposed(main)
    main.navigate("dashboard")
    settle()
    yield main
    main.close()


def welcome_page(window: MainWindow) -> WelcomePanel:
    view = window.view("dashboard")
    assert isinstance(view, DashboardView)
    assert view.pages.currentWidget() is view.welcome
    return view.welcome


# -- the first start asks -----------------------------------------------------------------------


def test_the_first_start_asks_and_imports_nothing_until_yes(
    qtbot: Any,
    projects: Path,
    samples_dir: Path,
    window: MainWindow,
    context: AppContext,
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
    loop: qasync.QEventLoop,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    add_session(projects, samples_dir, FIRST)
    window.view("dashboard").activate()  # the history is counted again
    settle()
    page = welcome_page(window)
    assert page.history_button.isVisible() and page.keep_importing.isVisible()
    assert page.keep_importing.isChecked()  # proposed, and said with the Import button
    assert page.keep_importing.text().replace("&", "") == (
        "Keep importing new sessions automatically"
    )

    scheduler, watcher = start_background(background)
    wait(loop, STARTUP_DELAY_MS / 1000 * 5)  # well past the startup check
    settle()
    assert background[2] == ["maintenance"]  # the startup check ran…
    assert resources(context) == []  # …and imported nothing behind the person's back
    assert context.settings.value(auto_import.KEY) == auto_import.UNDECIDED
    assert scheduler.auto_import is False
    assert not watcher.active
    assert welcome_page(window) is page  # the choice is still there

    # Yes: the Import button imports the history and says "keep importing".
    qtbot.mouseClick(page.history_button, Qt.MouseButton.LeftButton)
    run_until(lambda: resources(context) == [FIRST], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert auto_import.stored_choice(context.settings) is True
    assert scheduler.auto_import is True
    assert watcher.active and projects in watcher.watched()

    # From now on a new session is imported without asking.
    add_session(projects, samples_dir, LATER)
    run_until(lambda: resources(context) == sorted([FIRST, LATER]), timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)


def test_importing_without_keep_importing_says_no(
    qtbot: Any,
    projects: Path,
    samples_dir: Path,
    window: MainWindow,
    context: AppContext,
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
    run_until: RunUntil,
    settle: Settle,
) -> None:
    add_session(projects, samples_dir, FIRST)
    window.view("dashboard").activate()
    settle()
    scheduler, watcher = start_background(background)
    page = welcome_page(window)
    page.keep_importing.setChecked(False)
    qtbot.mouseClick(page.history_button, Qt.MouseButton.LeftButton)
    run_until(lambda: resources(context) == [FIRST], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert auto_import.stored_choice(context.settings) is False
    assert scheduler.auto_import is False and not watcher.active


def test_a_store_with_conversations_keeps_importing_automatically(
    projects: Path,
    samples_dir: Path,
    context: AppContext,
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
    run_until: RunUntil,
    settle: Settle,
) -> None:
    """Someone who used the app before this question existed is not asked again."""
    context.service.memorize(CHAT)
    assert context.settings.value(auto_import.KEY) is None
    add_session(projects, samples_dir, FIRST)
    scheduler, watcher = start_background(background)
    run_until(lambda: FIRST in resources(context), timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert auto_import.stored_choice(context.settings) is True
    assert scheduler.auto_import is True and watcher.active


def test_an_answered_no_is_kept_on_later_starts(
    projects: Path,
    samples_dir: Path,
    context: AppContext,
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
    loop: qasync.QEventLoop,
    settle: Settle,
) -> None:
    context.service.memorize(CHAT)  # conversations, but the person said no
    context.settings.setValue(auto_import.KEY, False)
    add_session(projects, samples_dir, FIRST)
    scheduler, watcher = start_background(background)
    wait(loop, STARTUP_DELAY_MS / 1000 * 5)
    settle()
    assert background[2] == ["maintenance"]
    assert FIRST not in resources(context)
    assert scheduler.auto_import is False and not watcher.active


def test_settings_switches_automatic_imports_on_and_off(
    qtbot: Any,
    projects: Path,
    samples_dir: Path,
    context: AppContext,
    background: tuple[MaintenanceScheduler, SessionWatcher, list[str]],
    loop: qasync.QEventLoop,
    run_until: RunUntil,
    settle: Settle,
) -> None:
    view = SettingsView(context)
    qtbot.addWidget(view)
    view.show()
    add_session(projects, samples_dir, FIRST)
    scheduler, watcher = start_background(background)
    wait(loop, STARTUP_DELAY_MS / 1000 * 5)
    settle()
    view.activate()
    settle()
    assert not view.auto_import.isChecked() and resources(context) == []

    view.auto_import.click()  # on: new sessions are looked for at once, and watched
    run_until(lambda: resources(context) == [FIRST], timeout=JOB_TIMEOUT)
    settle(timeout=JOB_TIMEOUT)
    assert auto_import.stored_choice(context.settings) is True
    assert watcher.active

    view.auto_import.click()  # off again
    assert auto_import.stored_choice(context.settings) is False
    assert scheduler.auto_import is False and not watcher.active


def test_the_welcome_page_and_settings_show_the_same_answer(
    window: MainWindow, context: AppContext
) -> None:
    settings = window.view("settings")
    assert isinstance(settings, SettingsView)
    page = welcome_page(window)
    auto_import.set_auto_import(context, True, import_now=False)
    assert settings.auto_import.isChecked() and page.keep_importing.isChecked()
    auto_import.set_auto_import(context, False, import_now=False)
    assert not settings.auto_import.isChecked() and not page.keep_importing.isChecked()


# -- the status bar -----------------------------------------------------------------------------


def test_last_import_ages_while_the_window_is_open(window: MainWindow, context: AppContext) -> None:
    imported_at = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    stats = replace(context.service.get_stats(), items=1, last_memorized=imported_at)
    now = [imported_at + timedelta(seconds=20)]
    window.counts.clock = lambda: now[0]
    window.show_counts(stats)
    assert window.counts.text() == "1 memory · last import just now"
    assert window.counts.timer.isActive()
    assert window.counts.timer.interval() == AGE_REFRESH_MS <= 60_000

    now[0] = imported_at + timedelta(minutes=13)  # no new import meanwhile: the timer says so
    window.counts.timer.timeout.emit()
    assert window.counts.text() == "1 memory · last import 13 min ago"
    now[0] = imported_at + timedelta(hours=3, minutes=5)
    window.counts.timer.timeout.emit()
    assert window.counts.text() == "1 memory · last import 3 h ago"


def test_changes_to_review_leave_the_status_bar_once_applied(
    qtbot: Any, context: AppContext, settle: Settle
) -> None:
    service = context.service
    add(service, KEEP, confidence=0.9)
    add(service, DUPLICATE, confidence=0.6)
    view = MaintenanceView(context)
    qtbot.addWidget(view)
    view.resize(1100, 760)
    view.show()
    view.activate()
    settle()
    dry_run_nightly(view, settle)
    assert context.status.message == "Nightly consolidation (dry run): 1 change to review"

    view.changeset.accept_all_button.click()
    settle()
    assert "1 change to review" in context.status.message  # accepted, not applied yet
    view.changeset.apply_button.click()
    settle()
    assert service.maintenance_changes() == []
    assert context.status.state == context.status.READY
    assert "to review" not in context.status.message


def test_counts_are_said_with_the_right_word(
    window: MainWindow, context: AppContext, settle: Settle
) -> None:
    assert plural(1, "memory", "memories") == "1 memory"
    assert plural(0, "memory", "memories") == "0 memories"
    assert plural(1204, "change") == "1,204 changes"
    stats = replace(context.service.get_stats(), items=1, last_memorized=None)
    assert counts_text(stats) == "1 memory · last import never"

    item = add(context.service, "Prefer pathlib over os.path when touching files")
    context.service.bulk_set([item], "pin", pinned=True)
    notices: list[str] = []
    context.events.notify.connect(lambda text, _undo: notices.append(text))
    window.undo()
    settle()
    assert notices == ["Undid the last change to 1 memory."]


# -- Extract with Claude ------------------------------------------------------------------------


def test_extract_with_claude_is_disabled_without_a_key(
    qtbot: Any, context: AppContext, settle: Settle, monkeypatch: pytest.MonkeyPatch
) -> None:
    context.service.memorize(CHAT)
    view = SourcesView(context)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    view.activate()
    settle()
    view.table.selectRow(0)
    settle()
    assert view.selected_resource() is not None
    assert not view.extract_button.isEnabled()
    assert "Needs an Anthropic API key" in view.extract_button.toolTip()

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    view.activate()  # back from Settings, where the key was set
    settle()
    assert view.extract_button.isEnabled()
    assert "Let Claude read the selected conversation again" in view.extract_button.toolTip()
