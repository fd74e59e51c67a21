"""Episodes: "Enrich with Claude" on the spotter sample's episode, through the real SDK
over a mocked HTTP transport: disabled (saying why) without Claude, Claude's reading shown
in place when it answers, and a failure explained with the offline episode kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from memory_app.episodes import store as episode_store
from memory_app.gui.context import AppContext
from memory_app.gui.views.episodes import EpisodesView
from tests.gui.test_episodes_view import SPOTTER, TITLE
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude, message

READING = {
    "title": "Set up Credo, Dialyxir and mix_audit beads",
    "narrative": "The user asked how to set up the linters fastest; the assistant researched "
    "and wrote a plan of beads, which the user approved.",
    "lessons": ["Plan beads before creating them"],
    "outcome": "succeeded",
    "outcome_reason": "the beads and their dependency were created",
}


@pytest.fixture
def view(qtbot: Any, context: AppContext, settle: Callable[..., None]) -> EpisodesView:
    context.service.import_paths([SPOTTER])
    episodes = EpisodesView(context)
    qtbot.addWidget(episodes)
    episodes.resize(1100, 720)
    episodes.show()
    episodes.activate()
    settle()
    assert episodes.shown is not None
    return episodes


def stored_reading(context: AppContext) -> Any:
    with context.service.db.reading() as session:
        return episode_store.get_run(session.connection(), 1).enrichment


def test_without_claude_the_action_is_disabled_and_says_why(view: EpisodesView) -> None:
    assert not view.enrich.button.isEnabled()
    assert "Needs Claude" in view.enrich.button.toolTip()
    assert view.enrich.enrich() is None


def test_claude_s_reading_is_shown_in_place(
    view: EpisodesView, context: AppContext, settle: Callable[..., None]
) -> None:
    api = FakeMessagesAPI(message(READING, input_tokens=3000, output_tokens=180))
    context.service.extractor = make_claude(api)
    view.activate()  # back from Settings, where Claude was chosen
    settle()
    assert view.enrich.button.isEnabled()
    assert "title, the story and the lessons" in view.enrich.button.toolTip()
    view.enrich.button.click()
    assert view.enrich.running == 1 and not view.enrich.button.isEnabled()
    settle()
    assert api.calls == 1
    assert TITLE.split(":")[0] in api.prompts()[0]  # the offline episode was sent
    assert re.fullmatch(r"Claude read episode #1 \(3,?180 tokens\)\.", view.enrich.status.text())
    assert view.enrich.button.isEnabled() and view.enrich.busy.isHidden()
    text = view.detail.toPlainText()
    assert "Claude's reading (claude-haiku-4-5, not read from the turns)" in text
    assert READING["title"] in text and "Plan beads before creating them" in text
    assert "Claude's verdict: Succeeded · the beads and their dependency were created" in text
    assert view.tree.topLevelItem(0).child(0).text(0) == TITLE  # the offline title stays
    assert stored_reading(context).title == READING["title"]
    assert "Outdated" not in text
    # The conversation changes after Claude read it: the reading is shown as outdated.
    with context.service.db.writing() as session:
        session.connection().exec_driver_sql(
            "UPDATE episode SET enrichment = json_set(enrichment, '$.fingerprint', 'before')"
            " WHERE enrichment IS NOT NULL"
        )
    context.spawn(view.reload())
    settle()
    assert stored_reading(context).outdated
    assert "Outdated: the episode changed since Claude read it." in view.detail.toPlainText()


def test_a_failure_is_explained_and_the_offline_episode_stays(
    view: EpisodesView, context: AppContext, settle: Callable[..., None]
) -> None:
    api = FakeMessagesAPI(api_error(529, "overloaded_error", "Overloaded"))
    context.service.extractor = make_claude(api)
    view.activate()
    settle()
    view.enrich.enrich()
    settle()
    status = view.enrich.status.text()
    assert status.startswith("Claude could not read episode #1: the Anthropic API refused")
    assert "(529)" in status and status.endswith("The offline episode is unchanged.")
    assert view.enrich.status.styleSheet()  # shown as an error
    assert "Claude's reading" not in view.detail.toPlainText()
    assert "10 milestones" in view.detail.toPlainText()
    assert stored_reading(context) is None
    assert view.enrich.button.isEnabled()  # it can be tried again
