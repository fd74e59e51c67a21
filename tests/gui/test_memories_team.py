"""The Memories view's personal and team memories (issue 20): the team badge, the
Personal/Team filter, and "Publish to Team…" with its preview of what would be sent."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt

from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.models.memory_table_model import CONTENT
from memory_app.gui.views.memories import MemoriesView
from memory_app.gui.widgets.publish_dialog import PublishDialog
from tests.helpers import ScriptedExtractor, conversation

KEY = "a8Xk2PqL9zR4mN7vB3cT6yW1"  # random-looking: held as a possible secret
SHARED = "Every pull request needs one review"
OWN = "I like to run the tests before lunch"
SECRET = f"The staging deploy key is {KEY}"


def learn(context: AppContext, content: str, n: int) -> int:
    service = context.service
    cited = ExtractedItem("project_conventions", content, 0.9, turn_start=0, turn_end=0)
    service.extractor = ScriptedExtractor([cited])
    said = (f"Conversation {n}: please remember this for the project: {content}", "Noted.")
    result = service.memorize(conversation(said, session=f"s{n}"))
    return result.items_added[0]


def shown(view: MemoriesView) -> list[str]:
    return [view.proxy.index(r, CONTENT).data() for r in range(view.proxy.rowCount())]


def select(view: MemoriesView, content: str) -> None:
    view.table.clearSelection()
    view.table.selectRow(shown(view).index(content))


def open_view(qtbot, context: AppContext, settle: Callable[..., None]) -> MemoriesView:
    view = MemoriesView(context)
    qtbot.addWidget(view)
    view.resize(1200, 600)
    view.show()
    view.activate()
    settle()
    return view


def screenshot(widget, name: str) -> None:
    folder = os.environ.get("MEMORY_APP_SCREENSHOTS")
    if folder:
        widget.grab().save(str(Path(folder) / name))


def test_team_memories_have_a_badge_and_a_filter(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    shared = learn(context, SHARED, 1)
    learn(context, OWN, 2)
    context.service.publish([shared])
    view = open_view(qtbot, context, settle)
    rows = {view.proxy.index(r, CONTENT).data(): r for r in range(view.proxy.rowCount())}
    team_cell = view.proxy.index(rows[SHARED], CONTENT)
    own_cell = view.proxy.index(rows[OWN], CONTENT)
    badge = team_cell.data(Qt.ItemDataRole.DecorationRole)
    assert badge.cacheKey() == view.model.team_icon.cacheKey() and not badge.isNull()
    assert own_cell.data(Qt.ItemDataRole.DecorationRole) is None
    tip = team_cell.data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Team memory: shared with your team with the next sync")
    assert own_cell.data(Qt.ItemDataRole.ToolTipRole) == OWN
    screenshot(view, "memories-team.png")

    filters = [view.sharing_filter.itemText(i) for i in range(view.sharing_filter.count())]
    assert filters == ["Personal and team", "Personal", "Team"]
    view.sharing_filter.setCurrentIndex(2)
    settle()
    assert shown(view) == [SHARED]
    view.sharing_filter.setCurrentIndex(1)
    settle()
    assert shown(view) == [OWN]
    view.sharing_filter.setCurrentIndex(0)
    settle()
    assert sorted(shown(view)) == sorted([SHARED, OWN])


def test_publish_to_team_previews_what_would_be_sent_then_publishes(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    own = learn(context, OWN, 2)
    view = open_view(qtbot, context, settle)
    assert view.publish_action.shortcut().toString() == "Ctrl+Shift+P"
    select(view, OWN)
    view.publish_action.trigger()
    settle()
    dialog = view.publish_dialog
    assert isinstance(dialog, PublishDialog) and dialog.isVisible()
    assert "will be shared with your team" in dialog.heading.text()
    listing = dialog.listing.toPlainText()
    assert OWN in listing and "Project: not sent" in listing
    assert "Noted." not in listing and "please remember this" not in listing  # never sent
    assert "never a conversation" in dialog.note.text()
    screenshot(dialog, "publish-dialog.png")
    assert dialog.publish_button.isEnabled()
    dialog.publish_button.click()
    settle()
    assert view.publish_dialog is None
    assert context.service.get_item(own).sharing == "team"
    assert context.service.get_item(own).team_dirty


def test_a_held_secret_shows_a_blocked_preview_and_publishes_nothing(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    held = learn(context, SECRET, 3)
    view = open_view(qtbot, context, settle)
    view.status_filter.setCurrentIndex(view.status_filter.findText("Held for review"))
    settle()
    assert shown(view) == [SECRET]
    select(view, SECRET)
    view.publish_selected()
    settle()
    dialog = view.publish_dialog
    assert dialog is not None
    assert "Nothing can be published" in dialog.heading.text()
    listing = dialog.listing.toPlainText()
    assert "Not published" in listing and "held for review as a possible secret" in listing
    assert KEY not in listing
    assert not dialog.publish_button.isEnabled()
    screenshot(dialog, "publish-dialog-blocked.png")
    dialog.reject()
    assert context.service.get_item(held).sharing == "personal"
