"""The asyncio loop over Qt's event loop that the window runs on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import qasync
from PySide6.QtCore import QCoreApplication, QEventLoop

T = TypeVar("T")


class EventLoop(qasync.QEventLoop):
    """qasync's loop, except that run_until_complete's last pass over pending events
    runs with this loop as the running loop. qasync makes that pass after it has
    stopped being the running loop, so a task stepped in it failed with "no running
    event loop" (a reload that happened to resume then was reported as an error)."""

    def run_until_complete(self, future: Awaitable[T]) -> T:
        if self.is_running():
            raise RuntimeError("Event loop already running")
        task = asyncio.ensure_future(future, loop=self)

        def stop(_done: Any) -> None:
            self.stop()

        task.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            task.remove_done_callback(stop)
        self._process_pending_events()
        if not task.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return task.result()

    def _process_pending_events(self) -> None:
        app = QCoreApplication.instance()
        if app is None:
            return
        asyncio.events._set_running_loop(self)
        try:
            app.eventDispatcher().processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(None)
