"""The Episodes view on a real store: the spotter sample's episode listed by day with its
outcome, its milestones linked to their turns in Sources, its memories linked to
Memories, and the empty state on an empty store."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from memory_app.extract.base import ExtractedItem
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.views.episodes import EpisodesView
from tests.helpers import ScriptedExtractor

SPOTTER = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "samples"
    / "claude-code"
    / "spotter_subagent.jsonl"
)
TITLE = "create-beads: websearch to learn how to fastest setup credo, dialyzer, mix_audit"
LEARNT = "Beads issues are created with bd create and linked with bd dep add."


@pytest.fixture
def window(qtbot: Any, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    settle()
    yield main
    main.close()


def episodes_view(window: MainWindow, settle: Callable[..., None]) -> EpisodesView:
    window.navigate("episodes")
    settle()
    view = window.view("episodes")
    assert isinstance(view, EpisodesView)
    return view


def test_the_sample_is_listed_by_day_with_its_outcome_and_milestones(
    window: MainWindow, context: AppContext, settle: Callable[..., None]
) -> None:
    context.service.extractor = ScriptedExtractor(
        [ExtractedItem("implementation_notes", LEARNT, 0.9)]
    )
    context.service.import_paths([SPOTTER])
    view = episodes_view(window, settle)
    assert view.pages.currentWidget() is view.main
    day = view.tree.topLevelItem(0)
    assert day.text(0).endswith("February 2026")  # the day in local time: 10 or 11
    row = day.child(0)
    assert [row.text(c) for c in range(5)][:4] == [TITLE, "spotter", "Succeeded", "9 min 35 s"]
    assert view.count.text() == "1 episode"
    # The detail pane: goal, outcome, the ten milestones with their turns, the files, the
    # memory learnt from the conversation.
    assert view.shown is not None
    text = view.detail.toPlainText()
    assert "10 milestones" in text
    assert "turn 40 · made: Added dependency: spotter-0p7.2 depends on spotter-0p7.1" in text
    assert "Succeeded · ended after: Added dependency" in text
    assert "plan.md · written · turn 27" in text
    assert "0 problems" in text
    assert "1 memory learnt" in text and LEARNT in text
    markup = view.detail.toHtml()
    assert len(re.findall(r'href="turn:\d+"', markup)) >= 10 + 2 + 2


def test_a_milestone_opens_the_conversation_at_its_turn_and_a_memory_in_memories(
    window: MainWindow, context: AppContext, settle: Callable[..., None]
) -> None:
    context.service.extractor = ScriptedExtractor(
        [ExtractedItem("implementation_notes", LEARNT, 0.9)]
    )
    context.service.import_paths([SPOTTER])
    view = episodes_view(window, settle)
    assert view.shown is not None
    episode, memories = view.shown
    assert 'href="turn:30"' in view.detail.toHtml()  # "approved: Plan approved"
    view.detail.anchorClicked.emit(QUrl("turn:30"))
    settle()
    sources = window.current_view()
    assert sources.key == "sources"
    assert sources.focused_turns == (30, 30)  # type: ignore[attr-defined]
    assert sources.conversation is not None  # type: ignore[attr-defined]
    assert sources.reader_pages.shown_id == episode.resource_id  # type: ignore[attr-defined]

    window.navigate("episodes")
    settle()
    (memory,) = memories
    view.detail.anchorClicked.emit(QUrl(f"memory:{memory.id}"))
    settle()
    assert window.current_view().key == "memories"
    assert window.current_view().editor.record.id == memory.id  # type: ignore[attr-defined]


def test_an_empty_store_shows_the_empty_state(
    window: MainWindow, settle: Callable[..., None]
) -> None:
    view = episodes_view(window, settle)
    assert view.pages.currentWidget() is view.empty
    assert view.empty.title.text() == "<h3>No episodes yet</h3>"
    assert view.empty.button is not None


def test_a_new_import_appears_while_the_view_is_open(
    window: MainWindow, context: AppContext, settle: Callable[..., None]
) -> None:
    view = episodes_view(window, settle)
    assert view.pages.currentWidget() is view.empty
    context.service.import_paths([SPOTTER])
    context.events.sources_changed.emit()
    settle()
    assert view.pages.currentWidget() is view.main
    assert view.tree.topLevelItem(0).child(0).text(0) == TITLE


def test_a_run_of_sessions_is_one_row_and_links_each_session_s_turns(
    window: MainWindow, context: AppContext, settle: Callable[..., None], tmp_path: Path
) -> None:
    from datetime import timedelta

    from memory_app.episodes.enrich import save_enrichment
    from memory_app.episodes.model import Enrichment
    from tests.unit.episodes.test_runs import FIRST, T0, session_file

    copied = session_file(tmp_path / "a.jsonl", "a", T0, FIRST)
    session_file(
        tmp_path / "b.jsonl",
        "b",
        T0 + timedelta(hours=1),
        [("user", "go on"), ("edit", "cart/totals.py")],
        copied=copied,
    )
    context.service.import_paths([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    reading = Enrichment(
        "Discount codes",
        "It went well.",
        ("Totals live in totals.py",),
        "succeeded",
        "done",
        "claude-haiku-4-5",
        "2026-03-02T12:00:00+00:00",
    )
    with context.service.db.writing() as session:
        save_enrichment(session.connection(), 1, reading)
    view = episodes_view(window, settle)
    day = view.tree.topLevelItem(0)
    assert day.childCount() == 1
    assert day.child(0).text(0) == (
        "Add a discount code field to the checkout cart page · 2 sessions"
    )
    assert view.count.text() == "1 episode"
    text = view.detail.toPlainText()
    assert "Session 2" in text and "resumed: the same opening prompt" in text
    assert "Claude's reading (claude-haiku-4-5, not read from the turns)" in text
    assert "Totals live in totals.py" in text
    links = re.findall(r'href="turn:(\d+):2"', view.detail.toHtml())
    assert links  # the second session's milestones point at its own conversation
    view.detail.anchorClicked.emit(QUrl(f"turn:{links[-1]}:2"))
    settle()
    sources = window.current_view()
    assert sources.key == "sources"
    assert sources.reader_pages.shown_id == 2  # type: ignore[attr-defined]
    assert sources.focused_turns == (int(links[-1]),) * 2  # type: ignore[attr-defined]
