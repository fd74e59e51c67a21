"""Seed 004's usage tracker: what the hooks injected, and whether the assistant used it.

The recall hooks log each answer beside the store (hooks/injections.py); this part
takes those lines into the store, counts each injection, and, when the session's
transcript is imported, judges each injected memory cited or ignored by the answer that
followed (domain/citation.py). Ranking then favours memories that keep being used.
Nothing here may fail an import: a problem is logged and the lines wait for next time.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_app.domain import citation
from memory_app.domain.records import InjectionRecord
from memory_app.domain.redaction import redact
from memory_app.hooks.locations import INJECTION_LOG
from memory_app.operations.common import ServiceState
from memory_app.store import injections as store
from memory_app.store import repository as repo
from memory_app.store.errors import StoreError
from memory_app.store.tables import ResourceRow

log = logging.getLogger(__name__)

CURSOR = "hook-injections.cursor"  # how far the store has read the log
LOCK = "hook-injections.lock"
MAX_PROMPT_CHARS = 500
# The GUI's poll and an import's own take may run in two threads of one process; the
# lock file keeps two processes (the app and a capture worker) apart.
_TAKING = threading.Lock()


class UsageFeedbackOperations(ServiceState):
    def take_injection_log(self) -> int:
        """Copy the hooks' new log lines into the store; returns how many injections were
        added. The log stays where it is (the hook's topic window reads its tail): a
        cursor beside it says how far the store has read, and a log the hook rotated
        (`.1`) is read to its end and removed."""
        folder = self._data_folder()
        if folder is None:
            return 0
        with _TAKING, _locked(folder / LOCK):
            return self._take(folder)

    def _take(self, folder: Path) -> int:
        cursor = _read_cursor(folder / CURSOR)
        added = 0
        rotated = folder / (INJECTION_LOG + ".1")
        if rotated.exists():
            data, _ = _unread(rotated, cursor)
            added += self._store_lines(data)
            rotated.unlink(missing_ok=True)
        current = folder / INJECTION_LOG
        if current.exists():
            data, mark = _unread(current, cursor)
            added += self._store_lines(data)
            if mark != cursor:  # the GUI asks every few seconds: no write when idle
                _write_cursor(folder / CURSOR, mark)
        return added

    def _store_lines(self, data: bytes) -> int:
        """Store the lines; one that cannot be read or stored is skipped with a warning,
        never left to block the lines after it."""
        parsed = []
        for raw in data.splitlines():
            try:
                parsed.append(store.parse_line(json.loads(raw)))
            except (ValueError, TypeError, AttributeError):
                log.warning("injection log: an unreadable line was skipped")
        if not parsed:
            return 0
        try:
            with self.db.writing() as session:
                return store.add_lines(session, parsed)
        except StoreError:
            raise
        except Exception:  # one bad line: store the others one by one
            added = 0
            for one in parsed:
                try:
                    with self.db.writing() as session:
                        added += store.add_lines(session, [one])
                except StoreError:
                    raise
                except Exception:
                    log.warning("injection log: a line the store refused was skipped")
            return added

    def judge_injections(self, resource_id: int) -> int:
        """Judge the injections of a stored conversation's session against what the
        assistant said after each; returns how many memories were judged."""
        judged = 0
        with self.db.reading() as session:  # most imports have nothing to judge
            row = session.get(ResourceRow, resource_id)
            if row is None or not row.session_id:
                return 0
            if not store.pending_of_session(session, row.session_id):
                return 0
        with self.db.writing() as session:
            row = session.get(ResourceRow, resource_id)
            if row is None or not row.session_id:
                return 0
            waiting = store.pending_of_session(session, row.session_id)
            if not waiting:
                return 0
            transcript = repo.stored_transcript(session, row)
            for injection, memories in waiting:
                exchange = citation.exchange_after(transcript, injection.at, injection.event)
                if exchange is None:
                    continue  # not answered yet in this transcript: judged when it grows
                prompt, answer = exchange
                verdicts = citation.verdicts(memories, answer, prompt)
                shown = None if prompt is None else redact(prompt[:MAX_PROMPT_CHARS]).text
                store.set_verdicts(session, injection, verdicts, shown)
                judged += len(verdicts)
        return judged

    def recent_injections(
        self, limit: int = 50, *, item_id: int | None = None, project: str | None = None
    ) -> list[InjectionRecord]:
        """What the assistant saw, newest first: every answer of the recall hooks (for
        one memory or one project), with each memory's score and verdict."""
        with self.db.reading() as session:
            return store.recent(session, limit, item_id=item_id, project=project)

    # Usage feedback must never fail an import: these two log a problem and go on.

    def _take_log_quietly(self) -> None:
        try:
            self.take_injection_log()
        except Exception:
            log.warning("the hooks' injection log could not be taken", exc_info=True)

    def _judge_quietly(self, resource_id: int | None) -> None:
        """After a conversation was stored: judge what its session was given."""
        if resource_id is None:
            return
        try:
            self.judge_injections(resource_id)
        except Exception:
            log.warning("usage feedback skipped for conversation #%s", resource_id, exc_info=True)

    def _data_folder(self) -> Path | None:
        return self.db.path.parent if self.db.path is not None else None


Mark = tuple[int, int]  # (the log file's inode, the bytes of it the store has read)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _read_cursor(path: Path) -> Mark | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
        return int(value["inode"]), int(value["offset"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_cursor(path: Path, mark: Mark) -> None:
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        json.dump({"inode": mark[0], "offset": mark[1]}, stream)
    os.replace(temporary, path)


def _unread(path: Path, cursor: Mark | None) -> tuple[bytes, Mark]:
    """The whole lines of `path` after the cursor (all of them when the cursor is about
    another file, or past this one's end), and the cursor after them."""
    with open(path, "rb") as stream:
        inode = os.fstat(stream.fileno()).st_ino
        size = os.fstat(stream.fileno()).st_size
        start = cursor[1] if cursor is not None and cursor[0] == inode else 0
        if start > size:
            start = 0
        stream.seek(start)
        data = stream.read()
    whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits
    return whole, (inode, start + len(whole))
