"""Progress and cancellation for long jobs that run without Qt (CLI, tests, workers)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field


class JobCancelled(Exception):
    """Raised inside a job at a safe point after cancel() was called."""


@dataclass
class JobState:
    """Shared between a job and whoever watches it; safe to touch from two threads."""

    on_progress: Callable[[int, int, str], None] | None = None
    done: int = 0
    total: int = 0
    message: str = ""
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)

    def report(self, done: int, total: int, message: str = "") -> None:
        self.done, self.total, self.message = done, total, message
        if self.on_progress is not None:
            self.on_progress(done, total, message)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        """Call between units of work: stops the job cleanly when cancelled."""
        if self._cancel.is_set():
            raise JobCancelled()
