"""The main window: navigation, shortcuts, status bar, undo, and restored state."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from memory_app.config import APP_ID
from memory_app.extract.base import ExtractedItem
from memory_app.gui.app import build_main_window, prepare_application_identity
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.store.tables import ConflictMemberRow, ConflictRow
from tests.helpers import ScriptedExtractor, conversation

VIEW_KEYS = [
    "dashboard",
    "memories",
    "conflicts",
    "sources",
    "episodes",
    "maintenance",
    "context",
    "settings",
]


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    context.service.extractor = ScriptedExtractor(
        [
            ExtractedItem("coding_preferences", "Indent with tabs", 0.9),
            ExtractedItem("coding_preferences", "Indent with four spaces", 0.9),
            ExtractedItem("bug_patterns", "Off-by-one in the pager; fixed the slice end", 0.9),
        ]
    )
    context.service.memorize(
        conversation(("A long enough conversation to pass the triviality gate.", "Yes."))
    )
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()


def test_identity_is_set_before_the_application_for_the_desktop_entry() -> None:
    prepare_application_identity()
    assert QCoreApplication.applicationName() == APP_ID
    assert QGuiApplication.desktopFileName() == APP_ID
    assert QGuiApplication.applicationDisplayName() == "Memory Curator"


def test_every_view_is_in_the_sidebar_with_a_shortcut(
    qtbot, window: MainWindow, settle: Callable[..., None]
) -> None:
    assert [v.key for v in window.views] == VIEW_KEYS
    assert window.sidebar.count() == len(VIEW_KEYS)
    for number, key in enumerate(VIEW_KEYS, start=1):
        qtbot.keyClick(
            window, getattr(Qt.Key, f"Key_{number}"), Qt.KeyboardModifier.ControlModifier
        )
        settle()
        assert window.current_view().key == key
        assert window.sidebar.currentRow() == number - 1


def test_find_focuses_the_memory_search(
    qtbot, window: MainWindow, settle: Callable[..., None]
) -> None:
    window.show_view(0)
    settle()
    window.find_action.trigger()
    settle()
    memories = window.view("memories")
    assert window.current_view() is memories
    assert memories.search.hasFocus()


def test_status_bar_counts_and_conflict_badge(
    window: MainWindow, context: AppContext, settle: Callable[..., None]
) -> None:
    assert window.counts.text().startswith("3 memories · last import ")
    # "Indent with tabs" / "Indent with four spaces" is itself a conflict the import found.
    assert window.sidebar.item(VIEW_KEYS.index("conflicts")).text() == "Conflicts  (1)"
    with context.service.db.writing() as session:
        conflict = ConflictRow(category="coding_preferences", reason="tabs vs spaces")
        session.add(conflict)
        session.flush()
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=1))
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=2, position=1))
    context.events.memories_changed.emit()
    settle()
    assert window.sidebar.item(VIEW_KEYS.index("conflicts")).text() == "Conflicts  (2)"


def test_status_indicator_follows_the_work(
    window: MainWindow, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    indicator = window.indicator
    assert indicator.text() == "Ready"
    context.status.begin("Importing")
    context.status.progress(1, 3, "Importing session.jsonl")
    assert indicator.text() == "Processing… Importing session.jsonl (1/3)"
    assert window.progress.isVisibleTo(window) and window.progress.maximum() == 3
    context.status.fail("database is locked")
    assert indicator.text() == "Error: database is locked"
    assert "database is locked" in indicator.toolTip()
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: shown.append(text))
    indicator.details_requested.emit()
    assert shown == ["database is locked"]
    context.status.finish()
    assert indicator.text() == "Ready"
    assert not window.progress.isVisibleTo(window)
    context.status.set_maintenance(True)
    assert window.maintenance_badge.isVisibleTo(window)


def test_delete_then_ctrl_z_restores(
    qtbot, window: MainWindow, context: AppContext, settle: Callable[..., None]
) -> None:
    window.navigate("memories")
    settle()
    memories = window.view("memories")
    memories.table.selectRow(0)
    settle()
    deleted = memories.selected_records()[0].id
    qtbot.keyClick(memories.table, Qt.Key.Key_Delete)
    settle()
    assert context.service.get_item(deleted).status == "deleted"
    assert window.toast.isVisible() and window.toast.undo_button.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert context.service.get_item(deleted).status == "active"
    assert memories.model.total == 3


def test_geometry_and_last_view_are_restored(
    qtbot, context: AppContext, settle: Callable[..., None], window: MainWindow
) -> None:
    window.navigate("sources")
    settle()
    window.resize(1111, 777)
    qtbot.waitUntil(lambda: window.width() == 1111)
    window.close()
    settings: QSettings = context.settings
    assert settings.value("window/view") == "sources"
    again = build_main_window(context)
    qtbot.addWidget(again)
    settle()
    assert again.current_view().key == "sources"
    assert not settings.value("window/geometry").isEmpty()
    # Restored from the saved geometry (clamped to the offscreen screen), not the default.
    assert (again.width(), again.height()) != (1200, 760)
