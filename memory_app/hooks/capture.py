"""Capture hooks (SessionEnd, PreCompact): queue the session's transcript and return.

Memorizing a transcript loads the extractor and the store's write path, seconds of work
the assistant must not wait for; the hook only appends one JSON line to
`hook-queue.jsonl` beside the store and starts the worker that imports it
(`memory-app capture`, memory_app/capture_worker.py) detached, in a session of its own,
so the assistant does not wait and a closing terminal does not stop it.
MEMORY_APP_HOOK_WORKER=0 only queues (import the queue yourself with `memory-app
capture`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any


class BadPayload(ValueError):
    """The hook's stdin lacks a field the event needs."""


def queue_entry(event: str, payload: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        raise BadPayload(f"{event} payload has no transcript_path")
    return {
        "event": event,
        "transcript_path": transcript,
        "session_id": _text(payload.get("session_id")),
        "cwd": _text(payload.get("cwd")),
        "queued_at": now.astimezone(UTC).isoformat(),
    }


def append_line(path: str, entry: Mapping[str, Any]) -> None:
    """One line, appended in a single write (atomic for lines this short under O_APPEND),
    to a file created private (0600) in a private folder, like the store's."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


WORKER_ENV = "MEMORY_APP_HOOK_WORKER"


def start_worker(env: Mapping[str, str]) -> bool:
    """Start `memory-app capture` detached (it leaves at once if one already runs);
    False when MEMORY_APP_HOOK_WORKER=0 says only to queue."""
    if env.get(WORKER_ENV, "").strip() == "0":
        return False
    import subprocess
    import sys

    subprocess.Popen(
        [sys.executable, "-m", "memory_app", "capture"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(env),
        start_new_session=True,
        close_fds=True,
    )
    return True


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
