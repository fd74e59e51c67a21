"""The conflict inbox and side-by-side panel, on conflicts the real detector found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt

from memory_app.gui.context import AppContext
from memory_app.gui.views.conflicts import ConflictsView
from tests.unit.test_conflicts_service import SPACES, SWITCHED, TABS, said


@pytest.fixture
def view(qtbot: Any, context: AppContext, settle: Callable[..., None]) -> ConflictsView:
    panel = ConflictsView(context)
    qtbot.addWidget(panel)
    panel.resize(1100, 650)
    panel.show()
    return panel


def load(view: ConflictsView, settle: Callable[..., None]) -> None:
    view.activate()
    settle()
    settle()  # the selected conflict's detail loads after the inbox


def tabs_then_spaces(context: AppContext) -> tuple[int, int]:
    older = context.service.memorize(said(TABS, 40, "a")).items_added[0]
    newer = context.service.memorize(said(SPACES, 2, "b")).items_added[0]
    return older, newer


def test_an_empty_inbox_explains_itself(view: ConflictsView, settle: Callable[..., None]) -> None:
    load(view, settle)
    assert view.pages.currentWidget() is view.empty


def test_both_sides_with_the_differing_words_marked(
    view: ConflictsView, context: AppContext, settle: Callable[..., None]
) -> None:
    older, newer = tabs_then_spaces(context)
    load(view, settle)
    assert view.pages.currentWidget() is view.main
    assert view.inbox.count() == 1
    assert "tabs → spaces" in view.inbox.item(0).text()
    assert view.detail is not None
    assert [i.id for i in view.detail.items] == [older, newer]
    assert "font-weight:600" in view.newer.content.text()  # differing words marked
    assert "spaces" in view.newer.content.text() and "tabs" in view.older.content.text()
    assert "confidence" in view.older.meta.text()
    assert "Open conversation #" in view.older.excerpt.text()


def test_keep_newer_then_undo(
    qtbot: Any, view: ConflictsView, context: AppContext, settle: Callable[..., None]
) -> None:
    older, newer = tabs_then_spaces(context)
    load(view, settle)
    undos: list[Any] = []
    context.events.notify.connect(lambda _text, undo: undos.append(undo))
    view.note.setText("we moved to spaces with the formatter")
    qtbot.mouseClick(view.buttons["keep_newer"], Qt.MouseButton.LeftButton)
    settle()
    loser = context.service.get_item(older)
    assert loser.status == "superseded" and loser.superseded_by == newer
    assert loser.valid_until is not None
    assert context.service.get_stats().conflicts_open == 0
    assert view.inbox.count() == 0  # moved on: nothing left to decide
    undos[-1]()
    settle()
    assert context.service.get_item(older).status == "active"
    assert context.service.get_stats().conflicts_open == 1


def test_merge_writes_one_statement_for_both(
    view: ConflictsView, context: AppContext, settle: Callable[..., None]
) -> None:
    older, newer = tabs_then_spaces(context)
    load(view, settle)
    view.start_merge()
    view.merge_editor.setPlainText("Indent with spaces; tabs only in Makefiles.")
    view.resolve("merge")
    settle()
    for ident in (older, newer):
        assert context.service.get_item(ident).status == "superseded"
    (merged,) = context.service.search("Makefiles")
    assert merged.content == "Indent with spaces; tabs only in Makefiles."


def test_keyboard_resolves_from_the_inbox_and_source_links_navigate(
    qtbot: Any, view: ConflictsView, context: AppContext, settle: Callable[..., None]
) -> None:
    older, _ = tabs_then_spaces(context)
    load(view, settle)
    link = view.older.excerpt.text().split('href="')[1].split('"')[0]
    with qtbot.waitSignal(context.events.navigate) as blocker:
        view.older.excerpt.linkActivated.emit(link)
    assert blocker.args[0] == "sources"
    view.inbox.setFocus()
    qtbot.keyClick(view.inbox, Qt.Key.Key_B)
    settle()
    assert context.service.get_item(older).status == "active"
    assert context.service.get_stats().conflicts_open == 0


def test_an_automatic_update_is_listed_and_can_be_reopened(
    qtbot: Any, view: ConflictsView, context: AppContext, settle: Callable[..., None]
) -> None:
    older = context.service.memorize(said(TABS, 40, "a")).items_added[0]
    newer = context.service.memorize(said(SWITCHED, 2, "b")).items_added[0]
    assert context.service.get_item(older).superseded_by == newer  # applied at once
    load(view, settle)
    assert view.inbox.count() == 0 and view.pages.currentWidget() is view.empty
    view.filter.setCurrentIndex(view.filter.findText("Auto-resolved"))
    settle()
    settle()
    assert view.inbox.count() == 1
    assert "resolved automatically" in view.inbox.item(0).text()
    assert view.detail is not None and view.detail.record.status == "auto_resolved"
    assert not view.reopen_button.isHidden()
    assert all(b.isHidden() for b in view.buttons.values())  # nothing to decide yet
    qtbot.mouseClick(view.reopen_button, Qt.MouseButton.LeftButton)
    settle()
    settle()
    assert context.service.get_item(older).status == "active"
    assert context.service.get_stats().conflicts_open == 1
    assert view.inbox.count() == 0  # no longer automatic: back in the Open list
    view.filter.setCurrentIndex(view.filter.findText("Open"))
    settle()
    settle()
    assert view.inbox.count() == 1 and view.reopen_button.isHidden()
    assert not view.buttons["keep_newer"].isHidden()
