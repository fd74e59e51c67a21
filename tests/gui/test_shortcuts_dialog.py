"""Help > Keyboard Shortcuts lists what the window's actions and shortcuts really are."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu

from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.shortcuts_dialog import (
    UNDESCRIBED,
    Shortcut,
    ShortcutsDialog,
    collect_shortcuts,
    key_text,
    plain,
)


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()


def open_with_f1(qtbot, window: MainWindow) -> ShortcutsDialog:
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.shortcuts_dialog
    assert isinstance(dialog, ShortcutsDialog)
    qtbot.waitExposed(dialog)
    return dialog


def test_f1_opens_the_list_from_the_help_menu(qtbot, window: MainWindow) -> None:
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert isinstance(help_menu, QMenu)
    assert window.shortcuts_action in help_menu.actions()
    assert window.shortcuts_action.shortcut() == QKeySequence("F1")
    dialog = open_with_f1(qtbot, window)
    assert dialog.isVisible() and dialog.windowTitle() == "Keyboard Shortcuts"
    dialog.close()


def test_every_action_with_a_shortcut_is_listed(qtbot, window: MainWindow) -> None:
    listed = open_with_f1(qtbot, window).listed()
    pairs = {(s.keys, s.description) for s in listed}
    actions = [a for a in window.findChildren(QAction) if not a.shortcut().isEmpty()]
    assert len(actions) >= 12  # import ×2, undo, find, delete, seven views, F1 …
    for action in actions:
        assert (key_text(action.shortcuts()), plain(action.text())) in pairs, action.text()
    assert ("Ctrl+I", "Import Files…") in pairs
    assert ("F1", "Keyboard Shortcuts") in pairs


def test_every_shortcut_of_the_views_is_listed_with_what_it_does(qtbot, window: MainWindow) -> None:
    listed = collect_shortcuts(window)
    shortcuts = window.findChildren(QShortcut)
    assert shortcuts  # conflicts, maintenance, context and the changeset define some
    for shortcut in shortcuts:
        assert shortcut.whatsThis(), f"{key_text(shortcut.keys())} says nothing about itself"
        assert any(
            s.keys == key_text(shortcut.keys()) and s.description == shortcut.whatsThis()
            for s in listed
        )
    assert all(s.description != UNDESCRIBED for s in listed)
    groups = [s.group for s in listed]
    assert groups[0] == "File"  # menus first, in menu-bar order, then the views
    assert Shortcut("Maintenance", "Ctrl+Return", "Apply the accepted changes") in listed
    assert Shortcut("Conflicts", "O", "Keep older (in the inbox)") in listed


def test_search_narrows_the_list(qtbot, window: MainWindow) -> None:
    dialog = open_with_f1(qtbot, window)
    everything = dialog.listed()
    qtbot.keyClicks(dialog.search, "import")
    found = dialog.listed()
    assert found and len(found) < len(everything)
    assert all("import" in f"{s.keys} {s.description} {s.group}".lower() for s in found)
    dialog.search.setText("ctrl+3")
    assert [s.description for s in dialog.listed()] == ["Conflicts"]
    dialog.search.setText("no such thing")
    assert dialog.listed() == []
    dialog.search.clear()
    assert dialog.listed() == everything
