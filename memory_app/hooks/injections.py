"""What the recall hooks gave the assistant: one JSON line per answered event.

The hook process opens the store read-only and must stay fast, so it does not write
rows: it appends one line per UserPromptSubmit or SessionStart to `hook-injections.jsonl`
beside the store (the capture queue's way), and the app or the capture worker moves the
lines into the store (`MemoryService.take_injection_log`), where each injected memory
is later judged cited or ignored (seed 004's usage tracker).

Nothing of the prompt is written here, not even a hash of its words (a word list turns
short hashes back into words): it may hold a secret, and the redaction code costs a
third of the hook's budget to load. A line keeps the prompt's length; the prompt itself
is found, redacted, in the session's transcript later, by its time.

The log also serves seed 002's topic window: memories given to the session in its last
few prompts are still in the conversation, so a prompt on the same topic is not given
them again (`in_conversation`). The store takes the lines by a cursor and leaves the file
in place, so the window still sees them.

Stdlib only: the hook imports it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.hooks import capture, locations

# Seed 002 §2.7: a topic window of 3-5 turns and a cache of 2-5 minutes.
TOPIC_TURNS = 4
TOPIC_TTL = timedelta(minutes=5)
TAIL_BYTES = 32_768  # the last lines are enough for a session's topic window
MAX_LOG_BYTES = 4_000_000  # past this (nothing took the lines), start a fresh file

# What the hook did with a prompt.
INJECTED = "injected"  # memories added to the prompt
REUSED = "reused"  # all it matched was given in the topic window: still in the conversation
NO_MATCH = "no_match"  # searched, nothing relevant enough
SKIPPED = "skipped"  # a trivial prompt ("ok", "thanks"): not searched
OUTCOMES = (INJECTED, REUSED, NO_MATCH, SKIPPED)


def log_path(env: Mapping[str, str]) -> str:
    return os.path.join(os.path.dirname(locations.store_path(env)), locations.INJECTION_LOG)


def entry(
    event: str,
    payload: Mapping[str, Any],
    now: datetime,
    outcome: str,
    memories: Sequence[tuple[int, float | None]] = (),
    *,
    already: Sequence[int] = (),
    prompt: str | None = None,
    reused_from: str | None = None,
    budget: int | None = None,
) -> dict[str, Any]:
    """One line of the log; `memories` are (id, score) in the order they were given."""

    def text(name: str) -> str | None:
        value = payload.get(name)
        return value if isinstance(value, str) else None

    line: dict[str, Any] = {
        "at": now.isoformat(),
        "event": event,
        "session_id": text("session_id"),
        "cwd": text("cwd"),
        "transcript_path": text("transcript_path"),
        "outcome": outcome,
        "memories": [[item_id, None if s is None else round(s, 4)] for item_id, s in memories],
    }
    if prompt is not None:
        line["prompt_chars"] = len(prompt)
    if already:  # matched too, but given in the topic window: still in the conversation
        line["already"] = list(already)
    if reused_from is not None:
        line["reused_from"] = reused_from
    if budget is not None:
        line["budget"] = budget
    return line


def record(env: Mapping[str, str], line: Mapping[str, Any]) -> None:
    path = log_path(env)
    try:
        if os.path.getsize(path) > MAX_LOG_BYTES:
            os.replace(path, path + ".1")  # one old file kept; the app takes both
    except OSError:
        pass
    capture.append_line(path, line)


def tail(
    path: str, limit_bytes: int = TAIL_BYTES, *, session_id: str | None = None
) -> list[dict[str, Any]]:
    """The last whole lines of the log (only the session's, when one is named), oldest
    first; unreadable lines are left out."""
    try:
        with open(path, "rb") as stream:
            stream.seek(0, os.SEEK_END)
            size = stream.tell()
            stream.seek(max(0, size - limit_bytes))
            data = stream.read()
    except OSError:
        return []
    lines = data.split(b"\n")
    if size > limit_bytes:
        lines = lines[1:]  # the first may be cut
    found = []
    marker = json.dumps(session_id).encode() if session_id is not None else b""
    for raw in lines:
        if marker not in raw:  # parse only the session's lines: the hook runs every prompt
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def in_conversation(
    recent: Sequence[Mapping[str, Any]], session_id: str | None, now: datetime
) -> dict[int, str]:
    """The memories given to the session within its last TOPIC_TURNS prompts and
    TOPIC_TTL, back to its latest start (whose standing context counts; a compaction
    or a resume starts again), each with when it was given."""
    given: dict[int, str] = {}
    if not session_id:
        return given
    turns = 0
    for line in reversed(recent):
        if line.get("session_id") != session_id:
            continue
        start = line.get("event") == "SessionStart"
        if not start:
            turns += 1
        if turns > TOPIC_TURNS or _age(line, now) > TOPIC_TTL:
            break
        if line.get("outcome") == INJECTED:
            for pair in line.get("memories") or ():
                if pair and type(pair[0]) is int:
                    given.setdefault(pair[0], str(line.get("at")))
        if start:
            break
    return given


def last_for(
    lines: Sequence[Mapping[str, Any]], project: str, event: str = "UserPromptSubmit"
) -> Mapping[str, Any] | None:
    """The newest line of `event` whose cwd is the project or a folder inside it."""
    for line in reversed(lines):
        cwd = line.get("cwd") or ""
        if line.get("event") == event and (
            cwd == project or cwd.startswith(project.rstrip("/") + "/")
        ):
            return line
    return None


def _age(line: Mapping[str, Any], now: datetime) -> timedelta:
    try:
        return now - datetime.fromisoformat(str(line.get("at")))
    except (TypeError, ValueError):
        return timedelta.max


def explain_last(env: Mapping[str, str], project: str) -> str:
    """`/mem why`: what the recall hook gave the assistant for the project's last
    prompt, with scores, from the log or (once the app took the log) the store."""
    project = project.rstrip("/") or "/"
    found = last_for(tail(log_path(env), MAX_LOG_BYTES), project)
    stored = _last_stored(env, project)
    if stored is not None and (found is None or _when(stored) >= _when(found)):
        found = stored
    if found is None:
        return (
            "No prompt of this project has reached the memory hook yet. "
            "Check `memory-app hooks status`."
        )
    when = _when(found).astimezone().strftime("%Y-%m-%d %H:%M")
    head = f"Last prompt in this project: {when}."
    memories = [(int(m[0]), m[1]) for m in found.get("memories") or ()]
    outcome = found.get("outcome")
    if outcome == SKIPPED:
        why = "an acknowledgement, or no word to search for (the recall gate)"
        return f"{head}\nNothing was injected: {why}."
    if outcome == NO_MATCH:
        return f"{head}\nNothing was injected: no memory matched the prompt closely enough."
    contents, verdicts = _described(env, [i for i, _ in memories], found.get("id"))
    lines = [head]
    if outcome == REUSED:
        earlier = _local(str(found.get("reused_from") or ""))
        n = len(memories)
        lines.append(
            f"Nothing new was injected: the {_noun(n)} it matched had been given by {earlier} "
            f"and {'is' if n == 1 else 'are'} still in the conversation (the topic window):"
        )
    else:
        budget = found.get("budget")
        tail_text = f" (budget {budget} tokens)" if budget else ""
        lines.append(f"{_count(len(memories))} injected{tail_text}:")
        already = found.get("already") or ()
        if already:
            lines.append(
                f"({len(already)} more matched but had been given by then, within the topic "
                "window, and are still in the conversation.)"
            )
    for item_id, score in memories:
        shown = f"{score:.2f}" if isinstance(score, int | float) else "  - "
        text = " ".join(contents.get(item_id, "(deleted since)").split())
        text = text if len(text) <= 100 else text[:99] + "…"
        verdict = verdicts.get(item_id)
        mark = f" [{verdict}]" if verdict in ("cited", "ignored") else ""
        lines.append(f"  #{item_id}  score {shown}  {text}{mark}")
    return "\n".join(lines)


def _count(n: int) -> str:
    return "1 memory was" if n == 1 else f"{n} memories were"


def _noun(n: int) -> str:
    return "memory" if n == 1 else f"{n} memories"


def _local(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M")
    except ValueError:
        return "earlier"


def _when(line: Mapping[str, Any]) -> datetime:
    try:
        return datetime.fromisoformat(str(line.get("at")))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)


def _read_only(env: Mapping[str, str]) -> Any:
    path = locations.store_path(env)
    if not os.path.isfile(path):
        return None
    import sqlite3

    try:
        return sqlite3.connect(locations.read_only_uri(path), uri=True, timeout=1.0)
    except sqlite3.Error:
        return None


def _last_stored(env: Mapping[str, str], project: str) -> dict[str, Any] | None:
    """The newest stored injection of the project's prompts, shaped like a log line."""
    import sqlite3

    conn = _read_only(env)
    if conn is None:
        return None
    try:
        row = conn.execute(
            "SELECT id, at, outcome, budget, reused_from FROM injection "
            "WHERE event = 'UserPromptSubmit' AND (project = :p OR "
            "substr(project, 1, length(:p) + 1) = :p || '/') ORDER BY at DESC LIMIT 1",
            {"p": project},
        ).fetchone()
        if row is None:
            return None
        memories = conn.execute(
            "SELECT item_id, score FROM injection_memory WHERE injection_id = ? ORDER BY position",
            (row[0],),
        ).fetchall()
    except sqlite3.Error:  # an older store without the table
        return None
    finally:
        conn.close()
    at = row[1].replace("Z", "+00:00")
    reused = row[4].replace("Z", "+00:00") if row[4] else None
    return {
        "id": row[0],
        "at": at,
        "outcome": row[2],
        "budget": row[3],
        "reused_from": reused,
        "memories": [list(m) for m in memories],
    }


def _described(
    env: Mapping[str, str], ids: Sequence[int], injection_id: object
) -> tuple[dict[int, str], dict[int, str]]:
    """The memories' contents, and their verdicts when the injection is stored."""
    import sqlite3

    conn = _read_only(env)
    if conn is None or not ids:
        return {}, {}
    try:
        marks = ",".join("?" * len(ids))
        contents = dict(
            conn.execute(f"SELECT id, content FROM memory_item WHERE id IN ({marks})", list(ids))
        )
        verdicts = {}
        if isinstance(injection_id, int):
            verdicts = dict(
                conn.execute(
                    "SELECT item_id, verdict FROM injection_memory WHERE injection_id = ?",
                    (injection_id,),
                )
            )
        return contents, verdicts
    except sqlite3.Error:
        return {}, {}
    finally:
        conn.close()
