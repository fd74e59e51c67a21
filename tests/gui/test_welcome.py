"""The dashboard's first-run page: Claude Code's history offered, files and folders, the
extractors explained; imports run through the Sources view's import and fill the dashboard."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.maintenance_scheduler import MaintenanceScheduler
from memory_app.gui.views.dashboard import DashboardView
from memory_app.gui.widgets import welcome
from memory_app.gui.widgets.welcome import (
    ClaudeHistory,
    WelcomePanel,
    describe_history,
    find_claude_history,
    home_relative,
)
from tests.gui.conftest import ScriptedDialogs

Settle = Callable[..., None]
RunUntil = Callable[..., None]
SESSION = "spotter_short.jsonl"  # a real Claude Code session, small
MENU_MNEMONICS = {"f", "e", "v", "h"}  # File, Edit, View, Help in the menu bar


def plain(button: QPushButton) -> str:
    return button.text().replace("&", "")


@pytest.fixture
def projects(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the welcome page looks for Claude Code's history: a folder in the test's own
    home (never the real one), nothing in it yet."""
    folder = Path.home() / ".claude" / "projects"
    monkeypatch.setattr(welcome, "claude_projects_dir", lambda: folder)
    return folder


@pytest.fixture
def history(projects: Path, samples_dir: Path) -> Path:
    """Claude Code's history with one real session in one project."""
    project = projects / "-home-dev-spotter"
    project.mkdir(parents=True)
    shutil.copy(samples_dir / "claude-code" / SESSION, project / SESSION)
    return projects


@pytest.fixture
def window(qtbot, projects: Path, context: AppContext, settle: Settle) -> Iterator[MainWindow]:
    """The main window on the dashboard; a test's `history` is made before it (name it
    first), as Claude Code's folder is there before the app starts."""
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    qtbot.waitExposed(main)
    main.navigate("dashboard")
    settle()
    yield main
    main.close()


def dashboard(window: MainWindow) -> DashboardView:
    view = window.view("dashboard")
    assert isinstance(view, DashboardView)
    return view


def panel(window: MainWindow) -> WelcomePanel:
    view = dashboard(window)
    assert view.pages.currentWidget() is view.welcome
    return view.welcome


def resources(context: AppContext) -> int:
    return context.service.get_stats().resources


# -- what is offered -------------------------------------------------------------------------


@pytest.mark.usefixtures("history")
def test_claude_code_history_is_offered_first_with_its_session_count(
    window: MainWindow,
) -> None:
    page = panel(window)
    assert page.history_button.isVisible()
    assert plain(page.history_button) == "Import Claude Code History"
    assert page.history_note.text() == "1 session from 1 project in ~/.claude/projects"
    assert page.primary_button() is page.history_button
    assert page.history_button.isDefault()
    assert not page.files_button.isDefault() and not page.folder_button.isDefault()
    assert window.focusWidget() is page.history_button
    assert [plain(b) for b in (page.files_button, page.folder_button)] == [
        "Import File…",
        "Import Folder…",
    ]


def test_without_claude_code_history_the_button_is_absent_and_the_page_says_so(
    window: MainWindow,
) -> None:
    page = panel(window)
    assert not page.history_button.isVisible()
    assert page.history_note.isVisible()
    assert page.history_note.text() == "No Claude Code history found in ~/.claude/projects."
    assert page.files_button.isVisible() and page.folder_button.isVisible()
    assert page.primary_button() is page.files_button and page.files_button.isDefault()


def test_an_empty_claude_code_folder_offers_nothing_to_import(
    projects: Path, window: MainWindow, settle: Settle
) -> None:
    (projects / "-home-dev-empty").mkdir(parents=True)
    dashboard(window).activate()
    settle()
    page = panel(window)
    assert not page.history_button.isVisible()
    assert page.history_note.text() == "No Claude Code sessions in ~/.claude/projects yet."


def test_buttons_have_mnemonics_that_do_not_clash(window: MainWindow) -> None:
    page = panel(window)
    buttons = (*page.import_buttons, page.setup_button)
    keys = []
    for button in buttons:
        text = button.text()
        assert text.count("&") == 1, text
        keys.append(text[text.index("&") + 1].lower())
    assert len(set(keys)) == len(keys)
    assert not set(keys) & MENU_MNEMONICS


# -- importing -------------------------------------------------------------------------------


def test_importing_the_history_fills_the_dashboard(
    qtbot, history: Path, window: MainWindow, context: AppContext, run_until: RunUntil
) -> None:
    view = dashboard(window)
    page = panel(window)
    assert page.history_button.isVisible()
    qtbot.mouseClick(page.history_button, Qt.MouseButton.LeftButton)
    run_until(page.progress_row.isVisible)
    assert not page.history_button.isEnabled()  # one import at a time
    run_until(lambda: view.pages.currentWidget() is view.scroll_area, timeout=60)

    assert context.dialogs.asked == []  # the folder was known: nothing to ask
    assert resources(context) == 1
    assert window.current_view() is view  # the dashboard stays, now with its numbers
    assert view.cards["resources"].value() == "1"
    (imported,) = context.service.resources()
    assert imported.source_kind == "claude-code"
    assert imported.source_path == str(history / "-home-dev-spotter" / SESSION)


def test_enter_on_the_focused_primary_button_imports(
    qtbot, history: Path, window: MainWindow, context: AppContext, run_until: RunUntil
) -> None:
    view = dashboard(window)
    page = panel(window)
    assert page.history_button.isVisible() and window.focusWidget() is page.history_button
    qtbot.keyClick(page.history_button, Qt.Key.Key_Return)
    run_until(lambda: view.pages.currentWidget() is view.scroll_area, timeout=60)
    assert resources(context) == 1


def test_import_file_asks_for_files_and_imports_them(
    qtbot,
    window: MainWindow,
    context: AppContext,
    samples_dir: Path,
    run_until: RunUntil,
) -> None:
    dialogs = context.dialogs
    assert isinstance(dialogs, ScriptedDialogs)
    dialogs.files = [samples_dir / "claude-code" / SESSION]
    view = dashboard(window)
    qtbot.mouseClick(panel(window).files_button, Qt.MouseButton.LeftButton)
    run_until(lambda: view.pages.currentWidget() is view.scroll_area, timeout=60)
    assert dialogs.asked == ["import_paths"]
    assert resources(context) == 1
    assert window.current_view() is view


def test_import_folder_asks_for_a_folder_and_imports_it(
    qtbot,
    window: MainWindow,
    context: AppContext,
    samples_dir: Path,
    tmp_path: Path,
    run_until: RunUntil,
) -> None:
    folder = tmp_path / "exported"
    folder.mkdir()
    shutil.copy(samples_dir / "claude-code" / SESSION, folder / SESSION)
    dialogs = context.dialogs
    assert isinstance(dialogs, ScriptedDialogs)
    dialogs.folder = folder
    view = dashboard(window)
    qtbot.mouseClick(panel(window).folder_button, Qt.MouseButton.LeftButton)
    run_until(lambda: view.pages.currentWidget() is view.scroll_area, timeout=60)
    assert dialogs.asked == ["import_folder"]
    assert resources(context) == 1


def test_a_cancelled_file_dialog_leaves_the_welcome_page_ready(
    qtbot, window: MainWindow, context: AppContext, settle: Settle
) -> None:
    page = panel(window)
    qtbot.mouseClick(page.files_button, Qt.MouseButton.LeftButton)  # answered with no files
    settle()
    assert context.dialogs.asked == ["import_paths"]  # type: ignore[attr-defined]
    assert panel(window) is page
    assert page.files_button.isEnabled() and not page.progress_row.isVisible()


def test_a_running_import_shows_progress_and_how_it_ended(
    window: MainWindow, context: AppContext
) -> None:
    page = panel(window)
    status = context.status
    status.begin("Importing conversations")
    assert page.progress_row.isVisible()
    assert page.progress_text.text() == "Importing conversations…"
    assert not any(b.isEnabled() for b in page.import_buttons)
    status.progress(2, 5, "Reading notes.md")
    assert page.progress_text.text() == "Reading notes.md (3/5)"
    assert page.progress_bar.maximum() == 5 and page.progress_bar.value() == 2

    page.cancel_button.click()
    assert not page.cancel_button.isEnabled()
    status.finish("Imported 0 conversations")
    assert not page.progress_row.isVisible()
    assert page.outcome.isVisible() and page.outcome.text() == "Imported 0 conversations"
    assert all(b.isEnabled() for b in page.import_buttons if b.isVisibleTo(page))


def test_maintenance_does_not_block_importing(window: MainWindow, context: AppContext) -> None:
    page = panel(window)
    context.status.set_maintenance(True)
    context.status.begin("Nightly maintenance")
    assert page.files_button.isEnabled() and not page.progress_row.isVisible()
    context.status.finish("done")
    context.status.set_maintenance(False)
    assert not page.outcome.isVisible()


def test_first_start_maintenance_is_not_reported_as_an_import(
    window: MainWindow, context: AppContext, settle: Settle
) -> None:
    """On a new store every job is due at once and the scheduler runs them back to back
    (in a child process each, as the app does): the page must not take them for imports."""
    page = panel(window)
    seen: list[bool] = []
    context.status.changed.connect(lambda: seen.append(page.progress_row.isVisible()))
    scheduler = MaintenanceScheduler(context, enabled=False)
    ran: list[list[Any]] = []
    scheduler.checked.connect(ran.append)
    scheduler.check_now()
    settle(timeout=120)
    assert [record.kind for record in ran[-1]] == ["nightly", "weekly", "monthly"]
    assert seen and not any(seen)  # never shown as an import in progress
    assert not page.outcome.isVisible(), page.outcome.text()
    assert all(button.isEnabled() for button in (page.files_button, page.folder_button))


# -- the extractors --------------------------------------------------------------------------


class NamedExtractor:
    """Stands for an extractor by name (the page reads nothing else)."""

    def __init__(self, name: str) -> None:
        self.name = name


def test_the_extractor_in_use_is_named_and_marked(
    window: MainWindow, context: AppContext, settle: Settle
) -> None:
    page = panel(window)
    assert context.service.extractor.name == "offline"
    assert page.offline_card.active and not page.claude_card.active
    assert page.offline_card.badge.isVisible() and not page.claude_card.badge.isVisible()
    assert page.active_note.text() == "New conversations are read by the offline extractor."
    assert "API key" in page.claude_card.text.text()
    assert "nothing leaves your computer" in page.offline_card.text.text()

    # Settings switched to Claude meanwhile: the page says so when it is shown again.
    context.service.extractor = NamedExtractor("claude")  # type: ignore[assignment]
    window.navigate("memories")
    settle()
    window.navigate("dashboard")
    settle()
    assert page.claude_card.active and not page.offline_card.active
    assert page.active_note.text() == "New conversations are read by Claude."


def test_set_up_claude_opens_settings(
    qtbot, window: MainWindow, context: AppContext, settle: Settle
) -> None:
    page = panel(window)
    assert plain(page.setup_button) == "Set Up Claude…"
    with qtbot.waitSignal(context.events.navigate, timeout=1000) as blocker:
        qtbot.mouseClick(page.setup_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["settings", None]
    settle()
    assert window.current_view().key == "settings"


# -- looking for Claude Code's history (no Qt) -----------------------------------------------


def test_sessions_are_counted_per_project_without_sub_agents_or_hidden_files(
    projects: Path,
) -> None:
    for name in ("a.jsonl", "b.jsonl", ".hidden.jsonl", "notes.md"):
        (projects / "-home-dev-one").mkdir(parents=True, exist_ok=True)
        (projects / "-home-dev-one" / name).write_text("{}\n")
    sub_agents = projects / "-home-dev-one" / "a" / "subagents"
    sub_agents.mkdir(parents=True)
    (sub_agents / "agent-1.jsonl").write_text("{}\n")
    (projects / "-home-dev-two").mkdir()
    (projects / "-home-dev-two" / "c.jsonl").write_text("{}\n")
    (projects / ".cache").mkdir()
    (projects / ".cache" / "d.jsonl").write_text("{}\n")
    (projects / "-home-dev-empty").mkdir()

    found = find_claude_history()
    assert found == ClaudeHistory(projects, exists=True, sessions=3, projects=2)
    assert describe_history(found) == "3 sessions from 2 projects in ~/.claude/projects"

    capped = find_claude_history(limit=2)
    assert capped.capped and capped.sessions == 2
    assert describe_history(capped).startswith("2+ sessions from ")


def test_a_missing_folder_is_reported_as_missing(projects: Path) -> None:
    found = find_claude_history()
    assert found == ClaudeHistory(projects, exists=False)
    assert describe_history(found) == "No Claude Code history found in ~/.claude/projects."


def test_the_home_folder_is_written_as_a_tilde(tmp_path: Path) -> None:
    assert home_relative(Path.home() / ".claude" / "projects") == "~/.claude/projects"
    assert home_relative(Path.home()) == "~"
    elsewhere = tmp_path / "claude"  # the test's home is a sibling of tmp_path
    assert home_relative(elsewhere) == str(elsewhere)
