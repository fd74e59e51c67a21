"""The tray: what it announces (tested without a real tray), and no icon where none exists."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from PySide6.QtWidgets import QSystemTrayIcon, QWidget

from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.main_window import MainWindow
from memory_app.gui.tray import SETTINGS_KEY, TrayAnnouncer, TrayIcon


class Focus:
    """Whether the window is the active one, as the test says."""

    def __init__(self) -> None:
        self.active = False

    def __call__(self) -> bool:
        return self.active


@pytest.fixture
def focus() -> Focus:
    return Focus()


@pytest.fixture
def status() -> StatusModel:
    return StatusModel()


@pytest.fixture
def announcer(qtbot, status: StatusModel, focus: Focus) -> TrayAnnouncer:
    return TrayAnnouncer(status, focus, gather_ms=20)


def test_finished_background_work_is_announced_while_the_window_is_away(
    qtbot, announcer: TrayAnnouncer, status: StatusModel
) -> None:
    status.begin("Importing 3 new Claude Code sessions")
    status.progress(1, 3, "Reading session 1")
    with qtbot.waitSignal(announcer.announce) as said:
        status.finish("Imported 3 new Claude Code sessions")
    assert said.args == ["Memory Curator", "Imported 3 new Claude Code sessions", False]


def test_a_failure_is_announced_as_a_warning(
    qtbot, announcer: TrayAnnouncer, status: StatusModel
) -> None:
    status.begin("Nightly consolidation")
    with qtbot.waitSignal(announcer.announce) as said:
        status.fail("Nightly consolidation failed: disk full")
    assert said.args == ["Memory Curator", "Nightly consolidation failed: disk full", True]


def test_work_without_a_closing_word_is_named_by_its_start(
    qtbot, announcer: TrayAnnouncer, status: StatusModel
) -> None:
    status.begin("Weekly summaries")
    with qtbot.waitSignal(announcer.announce) as said:
        status.finish()
    assert said.args[1] == "Weekly summaries finished"


def test_nothing_is_said_while_the_window_is_active(
    qtbot, announcer: TrayAnnouncer, status: StatusModel, focus: Focus
) -> None:
    focus.active = True
    with qtbot.assertNotEmitted(announcer.announce, wait=100):
        status.begin("Importing conversations")
        status.finish("Imported 2 conversations")
        announcer.conflicts_counted(0)
        announcer.conflicts_counted(4)


def test_nothing_is_said_when_the_window_comes_back_before_the_message(
    qtbot, status: StatusModel, focus: Focus
) -> None:
    announcer = TrayAnnouncer(status, focus, gather_ms=10_000)
    status.begin("Importing conversations")
    status.finish("Imported 2 conversations")
    focus.active = True
    with qtbot.assertNotEmitted(announcer.announce):
        announcer.flush()


def test_an_error_of_something_just_done_is_not_background_work(
    qtbot, announcer: TrayAnnouncer, status: StatusModel
) -> None:
    with qtbot.assertNotEmitted(announcer.announce, wait=100):
        status.fail("Cannot extract with Claude: no API key")


def test_new_conflicts_are_announced_and_gathered_with_the_work_that_found_them(
    qtbot, announcer: TrayAnnouncer, status: StatusModel
) -> None:
    announcer.conflicts_counted(2)  # the first count is where things stand
    with qtbot.assertNotEmitted(announcer.announce, wait=60):
        announcer.conflicts_counted(1)  # one resolved: nothing to say
    status.begin("Importing conversations")
    with qtbot.waitSignal(announcer.announce) as said:
        status.finish("Imported 1 conversation")
        announcer.conflicts_counted(3)
    assert said.args[1] == "Imported 1 conversation\n2 new conflicts to resolve"
    with qtbot.waitSignal(announcer.announce) as said:
        announcer.conflicts_counted(4)
    assert said.args[1] == "1 new conflict to resolve"


def test_without_a_tray_there_is_no_icon_and_no_error(qtbot, announcer: TrayAnnouncer) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    tray = TrayIcon(window, announcer, available=False)
    assert tray.icon is None and not tray.shown
    tray.set_enabled(True)
    assert tray.icon is None
    tray.show_message("Memory Curator", "Imported 1 conversation", False)  # nowhere to go


def test_the_menu_shows_the_window_imports_and_quits(qtbot, announcer: TrayAnnouncer) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    tray = TrayIcon(window, announcer, available=False)
    texts = [a.text() for a in tray.menu.actions() if not a.isSeparator()]
    assert texts == ["&Show Window", "&Import Files…", "&Quit"]
    window.hide()
    with qtbot.waitSignal(tray.import_requested):
        tray.import_action.trigger()
    assert window.isVisible()
    with qtbot.waitSignal(tray.quit_requested):
        tray.quit_action.trigger()


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()


def test_the_window_has_no_tray_icon_where_the_desktop_has_no_tray(window: MainWindow) -> None:
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # offscreen
    assert window.tray.icon is None
    assert not window.tray_action.isEnabled()
    assert not window.tray_action.isChecked()


def test_the_window_tells_the_tray_about_conflicts_and_work(
    qtbot, window: MainWindow, context: AppContext
) -> None:
    announcer = window.tray_announcer
    announcer.window_active = lambda: False
    announcer._timer.setInterval(10)
    window.show_counts(context.service.get_stats())  # where things stand: no conflicts
    stats = context.service.get_stats()
    with qtbot.waitSignal(announcer.announce) as said:
        context.status.begin("Importing conversations")
        context.status.finish("Imported 1 conversation")
        window.show_counts(replace(stats, conflicts_open=1))
    assert said.args[1] == "Imported 1 conversation\n1 new conflict to resolve"


def test_switching_the_tray_off_is_remembered(window: MainWindow, context: AppContext) -> None:
    window.set_tray_enabled(False)
    assert str(context.settings.value(SETTINGS_KEY)).lower() == "false"
    assert window.tray.icon is None
