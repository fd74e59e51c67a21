"""The Settings view against a real store (Maintenance: test_maintenance_view.py)."""

from __future__ import annotations

from collections.abc import Callable

from memory_app.gui.context import AppContext
from memory_app.gui.views.settings import SettingsView


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
