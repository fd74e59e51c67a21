"""Long jobs (imports, retries, maintenance) in a separate process, so the window keeps the
interpreter to itself.

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
from memory_app.domain.records import ImportReport, MaintenanceRunRecord
from memory_app.extract.base import Extractor
from memory_app.service import MemoryService
from memory_app.store.database import Database
from memory_app.store.errors import DatabaseDamagedError, DatabaseFileError

_POLL_S = 0.1
_ERRORS: dict[str, type[Exception]] = {
    "FileNotFoundError": FileNotFoundError,
    "ValueError": ValueError,
    "PermissionError": PermissionError,
    # The store's own messages reach the window word for word.
    "DatabaseFileError": DatabaseFileError,
    "DatabaseDamagedError": DatabaseDamagedError,
}


def _run_in_child(
    db_url: str,
    extractor: Extractor,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    messages: Any,
    cancel: Any,
) -> None:
    """The child's whole life: open the store, run the job, send the result, close."""
    service: MemoryService | None = None
    try:
        service = MemoryService(Database(db_url), extractor)
        state = JobState(
            on_progress=lambda done, total, text: messages.put(("progress", done, total, text))
        )
        state._cancel = cancel  # a process-shared event with the same interface
        messages.put(("done", getattr(service, method)(*args, job=state, **kwargs)))
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
    result: ImportReport = _in_child(service, "import_paths", (list(paths),), {"fmt": fmt}, job)
    return result


def retry_in_process(
    service: MemoryService, *, automatic: bool = False, job: JobState | None = None
) -> ImportReport:
    """MemoryService.retry_pending in a child process (the offline rules are pure Python
    too); falls back to this process like `import_in_process`."""
    job = job or JobState()
    if not can_run_in_process(service):
        return service.retry_pending(automatic=automatic, job=job)
    result: ImportReport = _in_child(service, "retry_pending", (), {"automatic": automatic}, job)
    return result


def maintenance_in_process(
    service: MemoryService,
    kind: str,
    *,
    dry_run: bool = False,
    apply: bool = True,
    job: JobState | None = None,
) -> MaintenanceRunRecord:
    """MemoryService.run_maintenance in a child process (duplicate search is seconds of
    pure Python); falls back to this process like `import_in_process`."""
    job = job or JobState()
    kwargs = {"dry_run": dry_run, "apply": apply}
    if not can_run_in_process(service):
        return service.run_maintenance(kind, job=job, **kwargs)
    result: MaintenanceRunRecord = _in_child(service, "run_maintenance", (kind,), kwargs, job)
    return result


def _in_child(
    service: MemoryService,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    job: JobState,
) -> Any:
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    cancel = context.Event()
    child = context.Process(
        target=_run_in_child,
        args=(service.db.url, service.extractor, method, args, kwargs, messages, cancel),
        name=f"memory-{method}",
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
                        f"the background process ended unexpectedly (exit code {child.exitcode})"
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
