"""Workflows from command runs repeated across sessions (seed 004: "extracted from
repeated tool-call sequences").

One session running `ruff check`, `pytest`, `git commit` is one piece of work; the same
steps in three sessions of a project is a routine worth remembering. When a conversation
is imported, its shell commands are compared with those of the project's recent stored
conversations (their tool-call turns, read back from the store); every ordered run of
steps that recurs in MIN_SESSIONS sessions, this one among them, becomes a workflow item
for the import to store. The same run found again, by a later session, has the same
content, so storing it reinforces the memory instead of adding a copy.

Noise stays out at three levels: commands that only look around (`ls`, `cd`, `git
status`) are no steps at all (procedures.normalise_command), a step re-run straight
away counts once, and a run needs MIN_SEQUENCE different steps.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from sqlalchemy import Connection, false, func, select

from memory_app.domain.rendering import turn_text
from memory_app.domain.transcripts import Transcript
from memory_app.extract.base import ExtractedItem
from memory_app.extract.procedures import (
    MAX_SEQUENCE,
    MIN_SEQUENCE,
    MIN_SESSIONS,
    collapse_reruns,
    command_workflow,
    normalise_command,
    recurring_runs,
    rotations,
    session_commands,
    shell_command,
    step_key,
)
from memory_app.store.tables import EpisodeRow, ResourceRow, TurnRow, table_of

RESOURCE = table_of(ResourceRow)
TURN = table_of(TurnRow)
EPISODE = table_of(EpisodeRow)
RECENT_SESSIONS = 40  # the project's latest conversations compared with a new one
THIS = ""  # the session being imported, among the sessions compared

Call = tuple[str, datetime | None]  # a command's step key and when it ran


@dataclass
class _Sessions:
    """The compared sessions' command calls, when each started, and the task (run of
    resumed sessions) each carries on."""

    calls: dict[str, list[Call]] = field(default_factory=dict)
    started: dict[str, datetime | None] = field(default_factory=dict)
    task: dict[str, str] = field(default_factory=dict)


def workflows_across_sessions(
    conn: Connection,
    transcript: Transcript,
    already: Collection[int] = (),
    *,
    stored_as: int | None = None,
) -> list[ExtractedItem]:
    """The workflows `transcript` completes: runs of its steps that its project's recent
    conversations also ran, in MIN_SESSIONS sessions with it. `already`: the turn
    positions stored before (a session that grew), whose runs were counted then;
    `stored_as`: the conversation's id when it is stored already (extracted again).

    A resumed session starts with a copy of the calls of the one it resumes (same time,
    same command): a copied call counts in the session that ran it only, and the sessions
    of one task (a run of them, episodes/runs.py) count as one."""
    if transcript.is_sidechain or not transcript.project:
        return []
    when = {turn.position: turn.timestamp for turn in transcript.turns}
    steps = [
        (step_key(c), position, when[position]) for c, position in session_commands(transcript)
    ]
    if len({s for s, _, _ in steps}) < MIN_SEQUENCE:
        return []
    stored = _stored_sessions(conn, transcript.project, transcript.session_id, stored_as)
    if len(stored.calls) < MIN_SESSIONS - 1:
        return []
    stored.calls[THIS] = [(s, at) for s, _, at in steps]
    stored.started[THIS] = transcript.started_at
    own = _own_calls(stored.calls, stored.started)
    steps = [step for step, keep in zip(steps, own.pop(THIS), strict=True) if keep]
    sessions = {THIS: [s for s, _, _ in steps]}
    sessions |= {
        name: [s for (s, _), keep in zip(stored.calls[name], kept, strict=True) if keep]
        for name, kept in own.items()
    }
    earlier = [s for s, position, _ in steps if position in already]
    seen_before = _loops_in(earlier)
    items: list[ExtractedItem] = []
    for run, names in recurring_runs(sessions, same_task=stored.task):
        if THIS not in names or min(rotations(run)) in seen_before:
            continue
        first = _first_position([(s, position) for s, position, _ in steps], run)
        ids = sorted(int(n) for n in names if n != THIS)
        listed = ", ".join(f"#{i}" for i in ids)
        context = f"the same commands in {len(names)} sessions: this one and conversations {listed}"
        items.append(command_workflow(run, context, first))
    return items


def _stored_sessions(
    conn: Connection, project: str, session_id: str | None, stored_as: int | None
) -> _Sessions:
    """The command calls of the project's latest conversations other than this session
    (subagents' ones left out: their work is their parent's), by conversation id. Each
    conversation's text is read once and its tool calls cut from it: SQLite's substr
    would load the whole text again for every call."""
    others = [RESOURCE.c.project == project, RESOURCE.c.is_sidechain == false()]
    if session_id:
        others.append(RESOURCE.c.session_id.is_(None) | (RESOURCE.c.session_id != session_id))
    if stored_as is not None:
        others.append(RESOURCE.c.id != stored_as)
    recent = conn.execute(
        select(RESOURCE.c.id, RESOURCE.c.session_id, RESOURCE.c.started_at)
        .where(*others)
        .order_by(func.coalesce(RESOURCE.c.started_at, RESOURCE.c.imported_at).desc())
        .limit(RECENT_SESSIONS)
    ).all()
    out = _Sessions()
    sessions: set[str] = set()
    for resource_id, session, started in recent:
        if session is None or session not in sessions:  # one copy of a session
            out.started[str(resource_id)] = started
            sessions.add(session)
    if not out.started:
        return out
    ids = [int(name) for name in out.started]
    spans: dict[int, list[tuple[int, int, datetime | None]]] = {}
    for resource_id, start, end, at in conn.execute(
        select(TURN.c.resource_id, TURN.c.start, TURN.c.end, TURN.c.timestamp)
        .where(TURN.c.resource_id.in_(ids), TURN.c.kind == "tool_use")
        .order_by(TURN.c.resource_id, TURN.c.position)
    ):
        spans.setdefault(resource_id, []).append((start, end, at))
    for resource_id, text in conn.execute(
        select(RESOURCE.c.id, RESOURCE.c.text).where(RESOURCE.c.id.in_(list(spans)))
    ):
        calls = out.calls.setdefault(str(resource_id), [])
        for start, end, at in spans[resource_id]:
            line = shell_command(turn_text(text[start:end]))
            step = _step_of(line) if line is not None else None
            if step is not None:
                calls.append((step, at))
    for name in [n for n in out.started if n not in out.calls]:
        del out.started[name]
    runs = select(EPISODE.c.resource_id, EPISODE.c.run_id).where(
        EPISODE.c.resource_id.in_([*ids, *([stored_as] if stored_as is not None else [])]),
        EPISODE.c.run_id.is_not(None),
    )
    for resource_id, run_id in conn.execute(runs):
        name = THIS if resource_id == stored_as else str(resource_id)
        out.task[name] = f"run {run_id}"
    return out


@lru_cache(maxsize=4096)
def _step_of(line: str) -> str | None:
    """A command line's step key (None for looking around); cached, as the same commands
    come back in every session compared."""
    command = normalise_command(line)
    return step_key(command) if command is not None else None


def _own_calls(
    calls: Mapping[str, Sequence[Call]], started: Mapping[str, datetime | None]
) -> dict[str, list[bool]]:
    """For each session, which of its calls are its own: a call another session ran at
    the same moment (a resume copies the calls it resumes) is the earliest session's."""
    seen: set[tuple[str, datetime]] = set()
    own: dict[str, list[bool]] = {}
    newest = datetime.max.replace(tzinfo=UTC)

    def first(name: str) -> tuple[datetime, int, str]:  # a copy holds more than its original
        return (_instant(started.get(name)) or newest, len(calls[name]), name)

    for name in sorted(calls, key=first):
        keys = [(s, _instant(at)) for s, at in calls[name]]
        own[name] = [at is None or (s, at) not in seen for s, at in keys]
        seen.update((s, at) for s, at in keys if at is not None)
    return own


def _instant(at: datetime | None) -> datetime | None:
    if at is None:
        return None
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _loops_in(steps: Sequence[str]) -> set[tuple[str, ...]]:
    """Every run of different steps in `steps`, as its loop (the least rotation)."""
    collapsed = collapse_reruns(steps)
    return {
        min(rotations(run))
        for length in range(MIN_SEQUENCE, MAX_SEQUENCE + 1)
        for start in range(len(collapsed) - length + 1)
        if len(set(run := tuple(collapsed[start : start + length]))) == length
    }


def _first_position(steps: list[tuple[str, int]], run: tuple[str, ...]) -> int | None:
    """Where the run, or the loop it is a turn of, starts in this session (after
    re-runs are collapsed)."""
    collapsed = [
        (s, position) for n, (s, position) in enumerate(steps) if n == 0 or steps[n - 1][0] != s
    ]
    keys = [s for s, _ in collapsed]
    loop = set(rotations(run))
    for start in range(len(keys) - len(run) + 1):
        if tuple(keys[start : start + len(run)]) in loop:
            return collapsed[start][1]
    return None
