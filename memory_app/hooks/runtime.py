"""`python -m memory_app.hooks EVENT`: one Claude Code hook call, stdin JSON in, JSON out.

Fails open: whatever goes wrong (no store, a writer holding it, a damaged file, bad
stdin, an unknown event, the deadline) the process exits 0 with nothing on stdout and
one line in the app's log, so the assistant is never blocked nor shown a traceback.
Imports stay light (stdlib sqlite3 and the pure ranking code): the hook runs before
every prompt, and tests/unit/hooks/test_runtime.py checks nothing heavy is loaded.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any

from memory_app.domain.gates import prompt_skip_reason
from memory_app.domain.private_spans import without_private
from memory_app.hooks import capture, conversation, injections, locations, recall
from memory_app.hooks.command import EVENTS
from memory_app.privacy_gate import why_excluded

DEFAULT_BUDGET = 800  # tokens, ~4 characters each (domain/budget.py)
MAX_BUDGET = 20_000
# Claude Code waits up to the entry's timeout; answering late is worse than answering
# nothing, so the hook gives up well before.
DEADLINE_S = 3.0
BUSY_TIMEOUT_S = 0.25  # a writer's transaction is short; a longer one means skip
MAX_STDIN = 1_000_000
LOGGER = "memory_app.hooks"


class HookFailure(Exception):
    """An expected reason to answer nothing, logged as it is."""


def main(
    argv: Sequence[str],
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one event; always 0."""
    env = os.environ if env is None else env
    event = argv[0] if argv else ""
    try:
        with _Deadline(DEADLINE_S):
            raw = (stdin or sys.stdin.buffer).read(MAX_STDIN + 1)
            answer = handle(event, raw, env, datetime.now(UTC))
            if answer is not None:
                out = stdout or sys.stdout.buffer
                out.write(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
                out.flush()
    except BaseException as exc:  # fail open, whatever it was
        _log(env, event, exc)
    return 0


def handle(event: str, raw: bytes, env: Mapping[str, str], now: datetime) -> dict[str, Any] | None:
    """The hook's JSON answer to one event, or None to say nothing."""
    if event not in EVENTS:
        raise HookFailure(f"unknown event {event[:40]!r}; known: {', '.join(EVENTS)}")
    if len(raw) > MAX_STDIN:
        raise HookFailure("stdin larger than 1 MB")
    payload = json.loads(raw)
    if not isinstance(payload, dict):
        raise HookFailure("stdin is not a JSON object")
    cwd = payload.get("cwd")
    project = cwd if isinstance(cwd, str) else ""
    if why_excluded(Path(locations.store_path(env)).parent, project) is not None:
        return None  # paused (`memory-app off`) or denied: nothing captured or recalled
    if event in ("SessionEnd", "PreCompact"):
        capture.append_line(locations.queue_file(env), capture.queue_entry(event, payload, now))
        capture.start_worker(env)
        return None
    budget = hook_budget(env)
    if event == "UserPromptSubmit":
        return _prompt_answer(payload, project, env, now, budget)
    with _open_store(env) as conn:
        so_far = _so_far(conn, payload, budget, env, event)
        conflicts, pinned, conventions = recall.standing(conn, project, now)
        shown = {i for _, ids in pinned for i in ids}
        foreseen = _predicted(conn, project, now, shown, env, event)
        found = recall.session_context(conflicts, pinned, conventions, budget, foreseen, so_far)
    memories = [(item_id, None) for item_id in found.ids] if found else []
    outcome = injections.INJECTED if found else injections.NO_MATCH
    _record(env, injections.entry(event, payload, now, outcome, memories, budget=budget))
    return _answer(event, found)


def _predicted(
    conn: sqlite3.Connection,
    project: str,
    now: datetime,
    shown: set[int],
    env: Mapping[str, str],
    event: str,
) -> list[recall.Line]:
    """The memories predicted for the branch and recently edited files; a failure here
    is logged and costs only this section, never the standing context."""
    try:
        from memory_app.hooks import predicted  # SessionStart only: prompts skip its import

        return predicted.predicted_lines(conn, project, now, shown)
    except Exception as exc:
        _log(env, f"{event} (its predicted section)", exc)
        return []


def _so_far(
    conn: sqlite3.Connection,
    payload: Mapping[str, Any],
    budget: int,
    env: Mapping[str, str],
    event: str,
) -> tuple[str, list[str]] | None:
    """After a compaction or a resume, the session's stored chunk summaries; nothing at
    a startup or a clear. A failure costs only this section, never the standing context."""
    session_id = _text(payload.get("session_id"))
    if payload.get("source") not in conversation.RESTORED or not session_id:
        return None
    try:
        lines = conversation.so_far_lines(conversation.stored_chunks(conn, session_id), budget)
    except Exception as exc:
        _log(env, f"{event} (its conversation section)", exc)
        return None
    return (conversation.HEADING, lines) if lines else None


def _prompt_answer(
    payload: Mapping[str, Any], project: str, env: Mapping[str, str], now: datetime, budget: int
) -> dict[str, Any] | None:
    """UserPromptSubmit: the gate, the search, then the topic window (memories given in
    the session's last few prompts are still in the conversation: only the others are
    added). Every decision is logged (hook-injections.jsonl) for `/mem why` and the
    usage feedback."""
    event = "UserPromptSubmit"
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        raise HookFailure("UserPromptSubmit payload has no prompt")
    if prompt.lstrip().startswith("/"):
        return None  # a command (`/mem why`): nothing to recall for, nothing to log
    prompt, _ = without_private(prompt)
    if prompt_skip_reason(prompt) is not None or not recall.search_terms(prompt):
        _record(env, injections.entry(event, payload, now, injections.SKIPPED, prompt=prompt))
        return None
    with _open_store(env) as conn:
        memories = recall.relevant(conn, prompt, project, now)
    session_id = _text(payload.get("session_id"))
    recent = injections.tail(injections.log_path(env), session_id=session_id) if session_id else []
    given = injections.in_conversation(recent, session_id, now)
    scores = {m.id: m.score for m in memories}
    everything = recall.prompt_context(memories, budget)
    if everything is None:
        _record(env, injections.entry(event, payload, now, injections.NO_MATCH, prompt=prompt))
        return None
    found = recall.prompt_context([m for m in memories if m.id not in given], budget)
    already = [i for i in everything.ids if i in given]
    if found is None:  # all of it is still in the conversation
        line = injections.entry(
            event,
            payload,
            now,
            injections.REUSED,
            [(i, scores.get(i)) for i in already],
            prompt=prompt,
            reused_from=max(given[i] for i in already),
        )
        _record(env, line)
        return None
    given_now = [(i, scores.get(i)) for i in found.ids]
    line = injections.entry(
        event,
        payload,
        now,
        injections.INJECTED,
        given_now,
        already=already,
        prompt=prompt,
        budget=budget,
    )
    _record(env, line)
    return _answer(event, found)


def _record(env: Mapping[str, str], line: Mapping[str, Any]) -> None:
    """Log the decision; a log that cannot be written must not cost the answer."""
    try:
        injections.record(env, line)
    except OSError as exc:
        _log(env, str(line.get("event")), exc)


def _answer(event: str, found: recall.Packed | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": found.text}}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def hook_budget(env: Mapping[str, str]) -> int:
    """MEMORY_APP_HOOK_BUDGET tokens; a value that is not a positive number is ignored."""
    try:
        value = int(env.get("MEMORY_APP_HOOK_BUDGET", ""))
    except ValueError:
        return DEFAULT_BUDGET
    return min(value, MAX_BUDGET) if value > 0 else DEFAULT_BUDGET


class _open_store:  # a context manager, named like open()
    """The store read-only: a URI with mode=ro never creates, migrates nor writes it."""

    def __init__(self, env: Mapping[str, str]) -> None:
        path = locations.store_path(env)
        if not os.path.isfile(path):
            raise HookFailure("no store yet (the app has not imported anything)")
        uri = locations.read_only_uri(path)
        self.conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("PRAGMA query_only = 1")
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


class _Deadline:
    """Raises TimeoutError in the main thread after `seconds` (where SIGALRM exists)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = hasattr(signal, "setitimer") and _in_main_thread()

    def __enter__(self) -> None:
        if self.armed:
            signal.signal(signal.SIGALRM, _expired)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _expired(signum: int, frame: FrameType | None) -> None:
    raise TimeoutError(f"hook gave up after {DEADLINE_S} s")


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _log(env: Mapping[str, str], event: str, exc: BaseException) -> None:
    """One line in the app's log file, in logs.py's format; never raises. Only the
    exception's type and message are written, never the prompt."""
    try:
        message = " ".join(str(exc).split())[:300]
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
        millis = int(now % 1 * 1000)
        line = (
            f"{stamp},{millis:03d} WARNING {LOGGER} [MainThread] hook {event[:40]!r} "
            f"answered nothing: {type(exc).__name__}: {message}\n"
        )
        path = locations.log_file(env)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except BaseException:  # logging must not break the fail-open
        pass
