"""Sources: "Extract with Claude" on a conversation the offline rules already read, through
the real SDK over a mocked HTTP transport."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_app.gui.context import AppContext
from memory_app.gui.views.sources import SourcesView
from tests.helpers import conversation
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude, message

ANSWER = {
    "coding_preferences": [
        {
            "content": "Wrap payment client calls in exponential-backoff retries.",
            "confidence": 0.9,
            "context": "asked by the user",
        }
    ],
    "architectural_decisions": [],
    "project_conventions": [],
    "bug_patterns": [],
    "implementation_notes": [],
}
CHAT = conversation(
    (
        "Add a retry wrapper around the payment client, it flakes under load.",
        "Added with_retry() using exponential backoff (base 0.5s, max 8s).",
    )
)


def open_view(qtbot: Any, context: AppContext, settle: Callable[..., None]) -> SourcesView:
    context.service.memorize(CHAT)  # the offline rules find nothing here
    view = SourcesView(context)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    view.activate()
    settle()
    view.table.selectRow(0)
    settle()
    return view


def test_claude_reads_the_selected_conversation_again(
    qtbot: Any, context: AppContext, settle: Callable[..., None]
) -> None:
    assert context.service.get_stats().items == 0
    view = open_view(qtbot, context, settle)
    assert not view.extract_button.isEnabled()  # no key yet
    api = FakeMessagesAPI(message(ANSWER))
    context.service.extractor = make_claude(api)
    view.activate()  # back from Settings, where Claude was chosen
    settle()
    assert view.extract_button.isEnabled()
    changed: list[bool] = []
    context.events.memories_changed.connect(lambda: changed.append(True))
    view.extract_with_claude()
    settle()
    assert api.calls >= 1
    (item,) = context.service.list_items()
    assert item.content == "Wrap payment client calls in exponential-backoff retries."
    assert item.extractor == "claude"
    assert item.source_resource_id == view.selected_resource().id
    assert changed
    assert "1 memor" in view.result_bar.text.text()
    assert context.service.usage().runs >= 1


def test_without_a_key_it_says_so_and_changes_nothing(
    qtbot: Any, context: AppContext, settle: Callable[..., None]
) -> None:
    view = open_view(qtbot, context, settle)
    assert view.extract_with_claude() is None
    assert "no Anthropic API key" in view.result_bar.text.text()
    assert context.status.state == context.status.ERROR
    assert context.service.get_stats().items == 0


def test_an_api_failure_is_reported_and_the_store_is_unchanged(
    qtbot: Any, context: AppContext, settle: Callable[..., None]
) -> None:
    view = open_view(qtbot, context, settle)
    context.service.extractor = make_claude(
        FakeMessagesAPI(api_error(401, "authentication_error", "invalid x-api-key"))
    )
    view.extract_with_claude()
    settle()
    assert context.service.get_stats().items == 0
    details = view.result_bar.details
    reasons = [details.topLevelItem(i).text(2) for i in range(details.topLevelItemCount())]
    assert any("invalid API key" in reason for reason in reasons), reasons
