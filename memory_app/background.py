"""Long imports in a separate process, so the window keeps the interpreter to itself.

Python threads share one interpreter lock: while an import thread parses, redacts and
extracts, every piece of GUI work takes two to three times longer, and building a chart
stalled the window for 60-100 ms. A child process runs on the other core instead; it
opens the same SQLite file (WAL lets the window keep reading) and reports progress and
its result through a queue. Cancellation crosses over as a shared event.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue as queue_module
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_app.domain.jobs import JobState
from memory_app.domain.records import ImportReport
from memory_app.extract.base import Extractor
from memory_app.service import MemoryService
from memory_app.store.database import Database

_POLL_S = 0.1
_ERRORS: dict[str, type[Exception]] = {
    "FileNotFoundError": FileNotFoundError,
    "ValueError": ValueError,
    "PermissionError": PermissionError,
}


def _import_in_child(
    db_url: str,
    extractor: Extractor,
    paths: list[Path],
    fmt: str | None,
    messages: Any,
    cancel: Any,
) -> None:
    """The child's whole life: open the store, import, send the report, close."""
    service: MemoryService | None = None
    try:
        service = MemoryService(Database(db_url), extractor)
        state = JobState(
            on_progress=lambda done, total, text: messages.put(("progress", done, total, text))
        )
        state._cancel = cancel  # a process-shared event with the same interface
        messages.put(("done", service.import_paths(paths, fmt=fmt, job=state)))
    except Exception as exc:  # reported to the parent, which raises it there
        messages.put(("error", type(exc).__name__, str(exc)))
    finally:
        if service is not None:
            service.close()


def can_run_in_process(service: MemoryService) -> bool:
    """True when the extractor can be handed to a child process (it pickles)."""
    try:
        pickle.dumps(service.extractor)
    except Exception:
        return False
    return service.db.path is not None  # an in-memory database cannot be shared


def import_in_process(
    service: MemoryService,
    paths: Sequence[Path],
    *,
    fmt: str | None = None,
    job: JobState | None = None,
) -> ImportReport:
    """MemoryService.import_paths, run in a child process; blocks until it is done.

    Progress and cancellation go through `job` as with the in-process call. Falls back to
    importing in this process when the extractor cannot be sent to a child.
    """
    job = job or JobState()
    if not can_run_in_process(service):
        return service.import_paths(paths, fmt=fmt, job=job)
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    cancel = context.Event()
    child = context.Process(
        target=_import_in_child,
        args=(service.db.url, service.extractor, list(paths), fmt, messages, cancel),
        name="memory-import",
        daemon=True,
    )
    child.start()
    try:
        while True:
            if job.cancelled:
                cancel.set()
            try:
                message = messages.get(timeout=_POLL_S)
            except queue_module.Empty:
                if not child.is_alive():
                    raise RuntimeError(
                        f"the import process ended unexpectedly (exit code {child.exitcode})"
                    ) from None
                continue
            kind = message[0]
            if kind == "progress":
                job.report(*message[1:])
            elif kind == "done":
                return message[1]
            else:
                _, name, text = message
                raise _ERRORS.get(name, RuntimeError)(
                    text if name in _ERRORS else f"{name}: {text}"
                )
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
        messages.close()
