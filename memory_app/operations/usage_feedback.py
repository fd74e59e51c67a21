"""Seed 004's usage tracker: what the hooks injected, and whether the assistant used it.

The recall hooks log each answer beside the store (hooks/injections.py); this part
takes those lines into the store, counts each injection, and, when the session's
transcript is imported, judges each injected memory cited or ignored by the answer that
followed (domain/citation.py). Ranking then favours memories that keep being used.
Nothing here may fail an import: a problem is logged and the lines wait for next time.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from pathlib import Path

from memory_app.domain import citation
from memory_app.domain.records import InjectionRecord
from memory_app.domain.redaction import redact
from memory_app.hooks.locations import INJECTION_LOG
from memory_app.operations.common import ServiceState
from memory_app.store import injections as store
from memory_app.store import repository as repo
from memory_app.store.tables import ResourceRow

log = logging.getLogger(__name__)

TAKEN_PREFIX = "hook-injections.taken-"
MAX_PROMPT_CHARS = 500
# The GUI's poll and an import's own take may run in two threads of one process.
_TAKING = threading.Lock()


class UsageFeedbackOperations(ServiceState):
    def take_injection_log(self) -> int:
        """Move the hooks' log lines into the store; returns how many injections were
        added. Each taker renames the log to a file of its own first, so the hooks keep
        appending to a fresh one and two takers never read the same lines twice."""
        folder = self._data_folder()
        if folder is None:
            return 0
        with _TAKING:
            return self._take(folder)

    def _take(self, folder: Path) -> int:
        for name in (INJECTION_LOG + ".1", INJECTION_LOG):
            try:  # a name no other taker uses, in this process or another
                os.replace(folder / name, folder / f"{TAKEN_PREFIX}{uuid.uuid4().hex}-{name}")
            except FileNotFoundError:
                continue
        added = 0
        for taken in sorted(folder.glob(f"{TAKEN_PREFIX}*")):
            try:
                lines = taken.read_bytes().splitlines()
            except FileNotFoundError:  # another process took it meanwhile
                continue
            parsed = []
            for raw in lines:
                try:
                    parsed.append(store.parse_line(json.loads(raw)))
                except (ValueError, TypeError, AttributeError):
                    log.warning("injection log: an unreadable line was skipped")
            with self.db.writing() as session:
                added += store.add_lines(session, parsed)
            taken.unlink(missing_ok=True)
        return added

    def judge_injections(self, resource_id: int) -> int:
        """Judge the injections of a stored conversation's session against what the
        assistant said after each; returns how many memories were judged."""
        judged = 0
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

    def _feedback_after(self, resource_id: int | None) -> None:
        """After a conversation was stored: take the log, judge its session. Never
        raises: usage feedback must not fail an import."""
        try:
            self.take_injection_log()
            if resource_id is not None:
                self.judge_injections(resource_id)
        except Exception:
            log.warning("usage feedback skipped for conversation #%s", resource_id, exc_info=True)

    def _data_folder(self) -> Path | None:
        return self.db.path.parent if self.db.path is not None else None
