"""Conflicts, Maintenance and Settings views against a real store."""

from __future__ import annotations

from collections.abc import Callable

from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.views.conflicts import ConflictsView
from memory_app.gui.views.maintenance import MaintenanceView
from memory_app.gui.views.settings import SettingsView
from memory_app.store.tables import ConflictMemberRow, ConflictRow, MaintenanceRunRow
from tests.helpers import ScriptedExtractor, conversation


def test_conflicts_view_shows_an_empty_state_then_records(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    view = ConflictsView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    assert view.pages.currentWidget() is view.empty
    context.service.extractor = ScriptedExtractor(
        [
            ExtractedItem("coding_preferences", "Indent with tabs", 0.9),
            ExtractedItem("coding_preferences", "Indent with spaces", 0.9),
        ]
    )
    context.service.memorize(
        conversation(("A long enough message to pass the gate.", "Sure thing."))
    )
    with context.service.db.writing() as session:
        conflict = ConflictRow(category="coding_preferences", reason="tabs vs spaces")
        session.add(conflict)
        session.flush()
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=1, position=0))
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=2, position=1))
    view.activate()
    settle()
    assert view.pages.currentWidget() is view.table
    row = view.table.topLevelItem(0)
    assert row.text(0) == "#1 tabs vs spaces"
    assert row.text(2) == "unresolved"
    assert row.text(3) == "#1, #2"


def test_maintenance_view_lists_runs(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    view = MaintenanceView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    assert view.pages.currentWidget() is view.empty
    with context.service.db.writing() as session:
        session.add(
            MaintenanceRunRow(kind="nightly", status="success", result={"duplicates_merged": 3})
        )
    view.activate()
    settle()
    assert view.log.topLevelItem(0).text(0) == "nightly"
    assert view.log.topLevelItem(0).text(3) == "duplicates merged 3"


def test_settings_view_shows_the_store_and_categories(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    view = SettingsView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    assert view.ui.database.text().endswith("memory.db")
    assert view.ui.extractorChoice.currentData() == "offline"
    assert view.ui.categories.topLevelItemCount() == 5
    assert view.ui.categories.topLevelItem(0).text(0) == "Coding preferences"
