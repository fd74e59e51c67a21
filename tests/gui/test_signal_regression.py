"""The first window and the Qt build it runs on."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


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
