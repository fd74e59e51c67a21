"""The memory editor's Links section in the Memories view: a memory's links shown, a
click opens the other memory, "Add link…" links two memories (undoable)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialogButtonBox

from memory_app.gui.context import AppContext
from memory_app.gui.views.memories import MemoriesView
from tests.small_store import build_small_store

TABS, CELERY, SMTP, SPACES = 1, 7, 9, 13


def test_the_editor_shows_links_follows_them_and_adds_one(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    service = context.service
    build_small_store(service)
    service.rebuild_links()
    view = MemoriesView(context)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    view.activate(TABS)
    settle()
    section = view.editor.links
    assert view.editor.record is not None and view.editor.record.id == TABS
    assert section.lines()[0].startswith("contradicts: #13 We always indent with four spaces")
    assert 'href="memory:13"' in section.list.text()

    section.list.linkActivated.emit("memory:13")  # as a click on the link does
    settle()
    assert view.editor.record is not None and view.editor.record.id == SPACES
    assert section.lines()[0].startswith("contradicts: #1 We always indent with tabs")

    view.activate(CELERY)
    settle()
    section.add_button.click()
    dialog = section.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.target.setValue(SMTP)
    dialog.kind.setCurrentIndex(dialog.kind.findData("depends-on"))
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    settle()
    assert section.lines()[0].startswith("depends-on: #9 Turns out the SMTP client")
    first = service.memory_links(CELERY)[0]
    assert (first.other_id, first.origin) == (SMTP, "person")

    view.editor.show_nothing()
    assert section.list.text() == "—" and not section.add_button.isEnabled()
