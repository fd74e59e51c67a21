"""Context: the request names a conversation, whose summaries join the preview as "This
conversation so far", and "Ask Claude" builds it with Claude's search words (through the
real SDK over a mocked HTTP transport), or says why Claude was not used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memory_app.gui.context import AppContext
from memory_app.gui.views.context import ContextView
from tests.gui.test_sources_chunks import LONG
from tests.small_store import build_small_store
from tests.unit.extract.fake_anthropic import (
    FakeMessagesAPI,
    api_error,
    make_claude,
    schema_title,
)

TIER = "This conversation so far"


@pytest.fixture
def view(qtbot: Any, context: AppContext, settle: Callable[..., None]) -> ContextView:
    build_small_store(context.service)
    context.service.memorize(LONG)
    panel = ContextView(context)
    qtbot.addWidget(panel)
    panel.resize(1200, 720)
    panel.show()
    panel.activate()
    settle()
    return panel


def tier_titles(view: ContextView) -> list[str]:
    return [view.tree.topLevelItem(i).text(0) for i in range(view.tree.topLevelItemCount())]


def pick_long_conversation(view: ContextView, settle: Callable[..., None]) -> int:
    combo = view.controls.conversation
    index = next(
        i
        for i in range(combo.count())
        if combo.itemText(i).startswith("#") and " s1 " in combo.itemText(i)
    )
    combo.setCurrentIndex(index)
    settle()
    return index


def test_a_named_conversation_adds_its_summaries_to_the_preview(
    view: ContextView, settle: Callable[..., None]
) -> None:
    combo = view.controls.conversation
    assert combo.currentText() == "None" and combo.count() > 1
    assert TIER not in tier_titles(view)
    pick_long_conversation(view, settle)
    assert view.preview is not None and view.preview.request.conversation is not None
    assert tier_titles(view)[-1] == TIER
    head = view.tree.topLevelItem(view.tree.topLevelItemCount() - 1)
    rows = [head.child(i).text(0) for i in range(head.childCount())]
    assert any(r.startswith("Turns 40-49:") for r in rows)  # the latest chunk first
    assert "This conversation so far" in view.rendered.toPlainText()
    assert view.preview.used <= view.preview.plan.budget
    combo.setCurrentIndex(0)  # None again
    settle()
    assert TIER not in tier_titles(view)


def test_ask_claude_needs_claude(view: ContextView) -> None:
    assert not view.controls.ask_button.isEnabled()
    assert "Needs Claude" in view.controls.ask_button.toolTip()
    assert view.ask_claude() is None


def answer(body: dict[str, Any]) -> Any:
    if schema_title(body) == "SearchPlan":
        return {"queries": ["pytest fixtures setUp"], "categories": ["coding_preferences"]}
    return {"sufficient": False, "reason": "the summaries lack detail"}


def test_ask_claude_shows_its_queries_and_categories(
    qtbot: Any, view: ContextView, context: AppContext, settle: Callable[..., None]
) -> None:
    api = FakeMessagesAPI(answer)
    context.service.extractor = make_claude(api)
    view.activate()
    settle()
    assert view.controls.ask_button.isEnabled()
    qtbot.keyClicks(view.task, "how do we write tests")
    pick_long_conversation(view, settle)
    view.controls.ask_button.click()
    assert view.asking and not view.controls.ask_button.isEnabled()
    settle()
    assert api.calls >= 1
    assert "how do we write tests" in api.prompts()[0]
    note = view.controls.assist_note.text()
    assert note.startswith("Claude searched for: pytest fixtures setUp · in coding preferences")
    assert not view.controls.assist_note.styleSheet()
    assert view.preview is not None and view.preview.assistance is not None
    assert TIER in tier_titles(view)  # the conversation stays in the assisted context
    assert "pytest fixtures" in view.rendered.toPlainText().lower()
    assert view.controls.ask_button.isEnabled()
    # A change of the request shows the offline preview again, without asking Claude.
    calls = api.calls
    view.budget.setValue(view.budget.value() + 250)
    view.refresh()
    settle()
    assert view.controls.assist_note.text() == "" and api.calls == calls


def test_a_failure_says_why_and_shows_the_offline_preview(
    qtbot: Any, view: ContextView, context: AppContext, settle: Callable[..., None]
) -> None:
    api = FakeMessagesAPI(api_error(500, "api_error", "Internal server error"))
    context.service.extractor = make_claude(api)
    view.activate()
    settle()
    qtbot.keyClicks(view.task, "how do we write tests")
    view.refresh()  # now, not after the typing pause
    settle()
    offline = view.rendered.toPlainText()
    assert "Relevant to the task" in offline
    view.ask_claude()
    settle()
    note = view.controls.assist_note.text()
    assert note.startswith("Claude was not used: ")
    assert "500" in note and note.endswith("This is the offline preview.")
    assert view.controls.assist_note.styleSheet()  # shown as an error
    assert view.rendered.toPlainText() == offline
