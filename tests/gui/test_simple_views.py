"""Conflicts, Maintenance and Settings views against a real store."""

from __future__ import annotations

from collections.abc import Callable

from memory_app.gui.context import AppContext
from memory_app.gui.views.maintenance import MaintenanceView
from memory_app.gui.views.settings import SettingsView
from memory_app.store.tables import MaintenanceRunRow


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
