"""The first window and the Qt build it runs on."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from memory_app.gui.app import OverviewWindow
from memory_app.service import MemoryService
from tests.helpers import conversation


class Emitter(QObject):
    changed = Signal(int, bool)


def test_many_signal_emissions_do_not_crash_the_interpreter(qtbot: object) -> None:
    """PySide6 6.12.0 on Python 3.11 aborted after a few hundred emits (bool_dealloc)."""
    emitter = Emitter()
    received: list[int] = []
    emitter.changed.connect(lambda n, flag: received.append(n) if flag else None)
    for n in range(100_000):
        emitter.changed.emit(n, n % 2 == 0)
    assert len(received) == 50_000
    assert received[-1] == 99_998


def test_the_window_shows_what_the_store_holds(qtbot, service: MemoryService) -> None:  # type: ignore[no-untyped-def]
    service.memorize(
        conversation(
            (
                "House rule: we always use async/await, never .then() chains.",
                "Understood, async/await it is.",
            )
        )
    )
    window = OverviewWindow(service.get_stats(), "test.db")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.windowTitle() == "Memory Curator"
    assert "<b>1</b> memories" in window.summary.text()
    assert "<b>5</b> categories" in window.summary.text()
