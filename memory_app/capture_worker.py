"""The worker behind the capture hooks: imports the transcripts they queued.

A SessionEnd or PreCompact hook only appends a line to `hook-queue.jsonl` and starts
this worker detached (`memory-app capture`), so the assistant never waits for an
import. One worker at a time: a second one finds the lock held and leaves at once (the
first drains what was queued meanwhile too). The queue is taken by renaming it, so lines
a hook appends during an import go to a new queue and are read on the next pass; a
worker killed half-way leaves the taken file, which the next worker finishes first.
Importing the same transcript later (the app's startup check) adds nothing: the store
knows its content.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_app.domain.records import MemorizeResult
from memory_app.service import MemoryService

log = logging.getLogger(__name__)

QUEUE = "hook-queue.jsonl"
TAKEN = "hook-queue.taken.jsonl"
LOCK = "hook-queue.lock"
MAX_PASSES = 20  # a hook appending without end must not keep one worker alive for ever


@contextmanager
def _only_worker(folder: Path) -> Iterator[bool]:
    """True while this process holds the lock; False when another worker does."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock


def _queued_paths(taken: Path) -> list[Path]:
    """The transcripts of the taken queue, each once, in the order last queued (a
    session queued at PreCompact and at SessionEnd is imported once, whole)."""
    order: dict[str, None] = {}
    for line in taken.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            log.warning("capture queue: an unreadable line was skipped")
            continue
        path = entry.get("transcript_path") if isinstance(entry, dict) else None
        if isinstance(path, str) and path:
            order.pop(path, None)
            order[path] = None
    return [Path(p) for p in order]


def drain(service: MemoryService, folder: Path) -> list[MemorizeResult] | None:
    """Import every queued transcript; None when another worker is already at it."""
    with _only_worker(folder) as alone:
        if not alone:
            return None
        results: list[MemorizeResult] = []
        queue, taken = folder / QUEUE, folder / TAKEN
        for _ in range(MAX_PASSES):
            if not taken.exists():
                if not queue.exists():
                    break
                os.replace(queue, taken)
            paths = [p for p in _queued_paths(taken) if p.is_file()]
            if paths:
                report = service.import_paths(paths)
                results += report.results
                for result in report.results:
                    log.info("captured %s: %s", result.source, result.reason or result.status)
            taken.unlink()
        return results
