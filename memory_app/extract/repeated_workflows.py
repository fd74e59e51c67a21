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

from collections.abc import Collection

from sqlalchemy import Connection, and_, false, func, select

from memory_app.domain.rendering import turn_text
from memory_app.domain.transcripts import Transcript
from memory_app.extract.base import ExtractedItem
from memory_app.extract.procedures import (
    MIN_SESSIONS,
    command_workflow,
    normalise_command,
    recurring_runs,
    session_commands,
    shell_command,
    step_key,
)
from memory_app.store.tables import ResourceRow, TurnRow, table_of

RESOURCE = table_of(ResourceRow)
TURN = table_of(TurnRow)
RECENT_SESSIONS = 40  # the project's latest conversations compared with a new one
THIS = ""  # the session being imported, among the sessions compared


def workflows_across_sessions(
    conn: Connection, transcript: Transcript, already: Collection[int] = ()
) -> list[ExtractedItem]:
    """The workflows `transcript` completes: runs of its steps that its project's recent
    conversations also ran, in MIN_SESSIONS sessions with it. `already`: the turn
    positions stored before (a session that grew), whose runs were counted then."""
    if transcript.is_sidechain or not transcript.project:
        return []
    commands = session_commands(transcript)
    steps = [(step_key(c), position) for c, position in commands]
    if len({s for s, _ in steps}) < 3:
        return []
    earlier = [s for s, position in steps if position in already]
    others = _stored_steps(conn, transcript.project, transcript.session_id)
    if len(others) < MIN_SESSIONS - 1:
        return []
    sessions = {THIS: [s for s, _ in steps], **others}
    seen_before = {run for run, _ in recurring_runs({THIS: earlier}, 1)} if earlier else set()
    items: list[ExtractedItem] = []
    for run, names in recurring_runs(sessions):
        if THIS not in names or run in seen_before:
            continue
        first = _first_position(steps, run)
        ids = sorted(int(n) for n in names if n != THIS)
        listed = ", ".join(f"#{i}" for i in ids)
        context = f"the same commands in {len(names)} sessions: this one and conversations {listed}"
        items.append(command_workflow(run, context, first))
    return items


def _stored_steps(conn: Connection, project: str, session_id: str | None) -> dict[str, list[str]]:
    """Conversation id → its step keys in order, for the project's latest conversations
    other than this session (subagents' ones left out: their work is their parent's)."""
    other_session = (
        RESOURCE.c.session_id.is_(None) | (RESOURCE.c.session_id != session_id)
        if session_id
        else RESOURCE.c.id.is_not(None)
    )
    recent = conn.execute(
        select(RESOURCE.c.id, RESOURCE.c.session_id)
        .where(
            RESOURCE.c.project == project,
            RESOURCE.c.is_sidechain == false(),
            other_session,
        )
        .order_by(func.coalesce(RESOURCE.c.started_at, RESOURCE.c.imported_at).desc())
        .limit(RECENT_SESSIONS)
    ).all()
    ids: list[int] = []
    sessions: set[str] = set()
    for resource_id, session in recent:
        if session is None or session not in sessions:  # one copy of a session
            ids.append(resource_id)
            sessions.add(session)
    if not ids:
        return {}
    block = func.substr(RESOURCE.c.text, TURN.c.start + 1, TURN.c.end - TURN.c.start)
    rows = conn.execute(
        select(TURN.c.resource_id, block)
        .select_from(TURN.join(RESOURCE, and_(RESOURCE.c.id == TURN.c.resource_id)))
        .where(TURN.c.resource_id.in_(ids), TURN.c.kind == "tool_use")
        .order_by(TURN.c.resource_id, TURN.c.position)
    ).all()
    out: dict[str, list[str]] = {}
    for resource_id, text in rows:
        line = shell_command(turn_text(text or ""))
        command = normalise_command(line) if line is not None else None
        if command is not None:
            out.setdefault(str(resource_id), []).append(step_key(command))
    return out


def _first_position(steps: list[tuple[str, int]], run: tuple[str, ...]) -> int | None:
    """Where the run starts in this session (after re-runs are collapsed)."""
    collapsed = [
        (s, position) for n, (s, position) in enumerate(steps) if n == 0 or steps[n - 1][0] != s
    ]
    keys = [s for s, _ in collapsed]
    for start in range(len(keys) - len(run) + 1):
        if tuple(keys[start : start + len(run)]) == run:
            return collapsed[start][1]
    return None
