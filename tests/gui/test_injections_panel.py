"""What the assistant saw (seed 004): the Context view's second tab lists the recall
hooks' answers live, with each memory's score and verdict; the memory editor says how
often a memory was given and used. Injections come from the hook's own code path."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from memory_app.config import Settings
from memory_app.gui.context import AppContext
from memory_app.gui.views.context import INJECTIONS, ContextView
from memory_app.gui.views.memories import MemoriesView
from memory_app.gui.widgets.injections_panel import (
    COUNT,
    EVENT,
    MEMORY,
    OUTCOME,
    PROJECT,
    PROMPT,
    SCORE,
    VERDICT,
    WHEN,
    InjectionsPanel,
)
from memory_app.gui.widgets.memory_editor import usage_text
from memory_app.gui.widgets.tree_items import top_level_items
from memory_app.hooks import runtime
from memory_app.service import MemoryService
from tests.helpers import claude_session_file

SHOP = "/home/user/shop"
SESSION = "5e55-gui"
ASKED = "Write the factorial function for the pricing module"
USED = "Compute a factorial iteratively with math.prod, never recursively"
UNUSED = "The pricing module rounds every amount with banker's rounding"
ANSWER = (
    "Here it is: `def factorial(n): return math.prod(range(1, n + 1))` computed "
    "iteratively, so no recursion limit is hit."
)


def ask(settings: Settings, prompt: str, now: datetime) -> dict[str, Any] | None:
    """One UserPromptSubmit through the hook's code: it answers and writes its log line."""
    payload = {
        "session_id": SESSION,
        "transcript_path": f"/tmp/{SESSION}.jsonl",
        "cwd": SHOP,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    env = {"MEMORY_APP_DATA_DIR": str(settings.data_dir), "MEMORY_APP_HOOK_WORKER": "0"}
    return runtime.handle("UserPromptSubmit", json.dumps(payload).encode(), env, now)


def write_session(path: Path, when: datetime, prompt: str, answer: str) -> Path:
    return claude_session_file(path, SESSION, SHOP, [(when, prompt, answer)])


@pytest.fixture
def memories(service: MemoryService) -> dict[str, int]:
    ids = {}
    for text in (USED, UNUSED):
        _, record = service.remember(text, category="coding_preferences", project=SHOP)
        ids[text] = record.id
    return ids


@pytest.fixture
def view(
    qtbot: Any, context: AppContext, memories: dict[str, int], settle: Callable[..., None]
) -> ContextView:
    """The Context view on its "What the assistant saw" tab, polling fast."""
    panel = ContextView(context)
    qtbot.addWidget(panel)
    panel.injections.poll_timer.setInterval(50)
    panel.resize(1100, 700)
    panel.show()
    panel.activate(INJECTIONS)
    settle()
    return panel


def rows(panel: InjectionsPanel) -> list[list[str]]:
    return [[row.text(c) for c in range(6)] for row in top_level_items(panel.list)]


def memory_rows(panel: InjectionsPanel) -> list[list[str]]:
    return [[row.text(c) for c in range(3)] for row in top_level_items(panel.memories)]


def test_with_nothing_injected_the_tab_says_how_to_start(
    view: ContextView, context: AppContext, settle: Callable[..., None], qtbot: Any
) -> None:
    panel = view.injections
    assert view.main.currentWidget() is panel and panel.isVisible()
    assert panel.loaded
    assert panel.pages.currentWidget() is panel.empty
    assert "Nothing injected yet" in panel.empty.title.text()
    assert "Settings > Claude Code" in panel.empty.text.text()
    assert panel.empty.button is not None
    with qtbot.waitSignal(context.events.navigate) as blocker:
        panel.empty.button.click()
    assert blocker.args == ["settings", None]


def test_a_new_injection_appears_live_with_its_memories_and_scores(
    view: ContextView,
    settings: Settings,
    memories: dict[str, int],
    run_until: Callable[..., None],
) -> None:
    panel = view.injections
    assert panel.pages.currentWidget() is panel.empty
    answer = ask(settings, ASKED, datetime.now(UTC) + timedelta(seconds=1))
    assert answer is not None  # the hook did inject

    run_until(lambda: bool(rows(panel)))  # the timer took the log off the GUI thread

    assert panel.pages.currentWidget() is panel.main
    (row,) = rows(panel)
    # Today's show the time of day (with the date only if the test crossed midnight).
    assert re.fullmatch(r"\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d", row[WHEN])
    assert [row[c] for c in (PROJECT, EVENT, OUTCOME, COUNT)] == ["shop", "Prompt", "Injected", "2"]
    assert row[PROMPT] == "Prompt not imported yet"  # the hook never writes the prompt down
    assert panel.list.currentItem() is panel.list.topLevelItem(0)
    assert "2 memories given" in panel.summary.text()
    shown = {row[MEMORY]: row for row in memory_rows(panel)}
    assert set(shown) == {f"#{memories[USED]}  {USED}", f"#{memories[UNUSED]}  {UNUSED}"}
    for row in shown.values():
        assert 0 < float(row[SCORE]) <= 1
        assert row[VERDICT] == "Pending"


def test_an_imported_transcript_shows_the_prompt_and_each_verdict(
    view: ContextView,
    context: AppContext,
    settings: Settings,
    memories: dict[str, int],
    run_until: Callable[..., None],
    settle: Callable[..., None],
    tmp_path: Path,
) -> None:
    panel = view.injections
    now = datetime.now(UTC) + timedelta(seconds=1)
    ask(settings, ASKED, now)
    run_until(lambda: bool(rows(panel)))
    session = write_session(tmp_path / f"{SESSION}.jsonl", now, ASKED, ANSWER)

    context.service.import_paths([session])
    context.events.sources_changed.emit()  # as the Sources view and the watcher do
    run_until(lambda: "Pending" not in {row[VERDICT] for row in memory_rows(panel)})
    settle()

    assert rows(panel)[0][PROMPT] == ASKED
    assert panel.prompt.text() == ASKED
    verdicts = {row[MEMORY].split()[0]: row[VERDICT] for row in memory_rows(panel)}
    assert verdicts == {f"#{memories[USED]}": "Cited", f"#{memories[UNUSED]}": "Ignored"}
    cited = next(r for r in top_level_items(panel.memories) if r.text(VERDICT) == "Cited")
    ignored = next(r for r in top_level_items(panel.memories) if r.text(VERDICT) == "Ignored")
    # Told apart by a colour as well as the word, and the word is explained on hover.
    assert cited.foreground(VERDICT).color() != ignored.foreground(VERDICT).color()
    assert "used this memory" in cited.toolTip(VERDICT)


def test_enter_on_a_memory_opens_it_in_memories(
    qtbot: Any,
    view: ContextView,
    context: AppContext,
    settings: Settings,
    memories: dict[str, int],
    run_until: Callable[..., None],
) -> None:
    panel = view.injections
    ask(settings, ASKED, datetime.now(UTC) + timedelta(seconds=1))
    run_until(lambda: bool(rows(panel)))
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_Return)  # on to the prompt's memories
    assert panel.memories.hasFocus()
    first = panel.selected_memory()
    assert first is not None
    with qtbot.waitSignal(context.events.navigate) as blocker:
        qtbot.keyClick(panel.memories, Qt.Key.Key_Return)
    assert blocker.args == ["memories", first.item_id]


def test_the_timer_runs_only_while_the_tab_is_shown(
    view: ContextView, settle: Callable[..., None]
) -> None:
    panel = view.injections
    assert panel.poll_timer.isActive()
    view.main.setCurrentWidget(view.preview_page)
    settle()
    assert not panel.poll_timer.isActive()
    view.hide()
    view.main.setCurrentWidget(panel)
    assert not panel.poll_timer.isActive()
    view.show()
    assert panel.poll_timer.isActive()
    settle()


def test_the_tabs_switch_from_the_keyboard(
    qtbot: Any, view: ContextView, settle: Callable[..., None]
) -> None:
    qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # P&review
    assert view.main.currentWidget() is view.preview_page
    view.tree.setFocus()
    qtbot.keyClick(view.tree, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert view.main.currentWidget() is view.injections
    qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)  # the &assistant
    assert view.main.currentWidget() is view.injections
    settle()


def test_the_tab_is_remembered(context: AppContext, view: ContextView, qtbot: Any) -> None:
    again = ContextView(context)
    qtbot.addWidget(again)
    assert again.main.currentWidget() is again.injections
    view.main.setCurrentWidget(view.preview_page)
    third = ContextView(context)
    qtbot.addWidget(third)
    assert third.main.currentWidget() is third.preview_page


def test_the_editor_says_how_often_a_memory_was_given_and_used(
    qtbot: Any,
    context: AppContext,
    settings: Settings,
    memories: dict[str, int],
    settle: Callable[..., None],
    tmp_path: Path,
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)
    ask(settings, ASKED, now)
    context.service.import_paths([write_session(tmp_path / "s.jsonl", now, ASKED, ANSWER)])
    _, unseen = context.service.remember(
        "Deploy on Tuesdays only", category="project_conventions", project=SHOP
    )
    view = MemoriesView(context)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    editor = view.editor

    view.activate(memories[USED])
    settle()
    assert editor.record is not None and editor.record.id == memories[USED]
    assert editor.ui.usage.text() == "Injected once, cited 1, ignored 0"
    assert editor.ui.usage.isVisible()

    view.activate(memories[UNUSED])
    settle()
    assert editor.record is not None and editor.record.id == memories[UNUSED]
    assert editor.ui.usage.text() == "Injected once, cited 0, ignored 1"

    view.activate(unseen.id)
    settle()
    assert editor.ui.usage.text() == "Never given to the assistant"


def test_usage_in_words() -> None:
    assert usage_text(0, 0, 0) == "Never given to the assistant"
    assert usage_text(1, 1, 0) == "Injected once, cited 1, ignored 0"
    assert usage_text(5, 2, 1) == "Injected 5 times, cited 2, ignored 1 · 2 not judged yet"
    assert usage_text(1200, 1000, 200) == "Injected 1,200 times, cited 1,000, ignored 200"
