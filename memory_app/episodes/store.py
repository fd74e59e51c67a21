"""Episodes in the store: written when a conversation is imported, rebuilt for the ones
already stored (schema version 6's migration and `memory-app episodes rebuild`), listed
and shown with their memories.

Core SQL over named columns rather than the ORM, because the migration runs it on a
store of version 5 inside its transaction, where later columns do not exist yet.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select
from sqlmodel import Session

from memory_app.domain.rendering import turn_text
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.episodes.builder import build_episode
from memory_app.episodes.model import (
    Episode,
    FileTouch,
    Milestone,
    Problem,
    format_duration,
)
from memory_app.store.errors import NotFoundError
from memory_app.store.tables import (
    EpisodeRow,
    MemoryItemRow,
    ResourceRow,
    TurnRow,
    table_of,
    utc_now,
)

log = logging.getLogger(__name__)

EPISODE = table_of(EpisodeRow)
RESOURCE = table_of(ResourceRow)
TURN = table_of(TurnRow)
ITEM = table_of(MemoryItemRow)
# Memories shown with an episode: the ones in use or kept for the record, not deleted.
SHOWN_STATUSES = ("active", "archived", "superseded")


def episode_values(resource_id: int, episode: Episode) -> dict[str, Any]:
    return {
        "resource_id": resource_id,
        "title": episode.title,
        "goal": episode.goal,
        "goal_turn": episode.goal_turn,
        "outcome": episode.outcome,
        "outcome_reason": episode.outcome_reason,
        "outcome_turn": episode.outcome_turn,
        "summary": episode.summary,
        "started_at": episode.started_at,
        "ended_at": episode.ended_at,
        "duration_seconds": episode.duration_seconds,
        "turn_count": episode.turn_count,
        "milestones": [m.to_json() for m in episode.milestones],
        "problems": [p.to_json() for p in episode.problems],
        "files": [f.to_json() for f in episode.files],
        "builder": "offline",
        "built_at": utc_now(),
    }


def save_episode(conn: Connection, resource_id: int, transcript: Transcript) -> bool:
    """Build the conversation's episode and store it in place of any earlier one; a
    sub-agent's conversation has none of its own (its work is a milestone of its
    parent's). True when an episode was stored."""
    conn.execute(delete(EPISODE).where(EPISODE.c.resource_id == resource_id))
    if transcript.is_sidechain:
        return False
    episode = build_episode(transcript)
    if episode is None:
        return False
    conn.execute(insert(EPISODE).values(**episode_values(resource_id, episode)))
    return True


def record_episode(session: Session, resource_id: int | None, transcript: Transcript) -> None:
    """The import's hook: the episode is derived data, so a failure to build it is logged
    and never costs the conversation (`memory-app episodes rebuild` tries again)."""
    if resource_id is None:
        return
    try:
        with session.begin_nested():
            save_episode(session.connection(), resource_id, transcript)
    except Exception:  # any bug in the builder must not lose an import
        log.exception("Could not build the episode of conversation #%s", resource_id)


def stored_transcript(conn: Connection, resource_id: int) -> Transcript | None:
    """A stored conversation as a Transcript again, from the columns version 5 has."""
    row = conn.execute(
        select(
            RESOURCE.c.source_kind,
            RESOURCE.c.text,
            RESOURCE.c.project,
            RESOURCE.c.branch,
            RESOURCE.c.title,
            RESOURCE.c.session_id,
            RESOURCE.c.is_sidechain,
            RESOURCE.c.started_at,
            RESOURCE.c.ended_at,
        ).where(RESOURCE.c.id == resource_id)
    ).first()
    if row is None:
        return None
    turns = conn.execute(
        select(
            TURN.c.position,
            TURN.c.speaker,
            TURN.c.kind,
            TURN.c.start,
            TURN.c.end,
            TURN.c.timestamp,
            TURN.c.source_line,
        )
        .where(TURN.c.resource_id == resource_id)
        .order_by(TURN.c.position)
    ).all()
    text = row.text or ""
    return Transcript(
        source_kind=row.source_kind,
        turns=tuple(
            Turn(
                position=t.position,
                speaker=t.speaker,
                text=turn_text(text[t.start : t.end]),
                kind=t.kind,
                timestamp=t.timestamp,
                source_line=t.source_line,
            )
            for t in turns
        ),
        session_id=row.session_id,
        branch=row.branch,
        project=row.project,
        title=row.title,
        is_sidechain=bool(row.is_sidechain),
        started_at=row.started_at,
        ended_at=row.ended_at,
    )


def build_episodes(conn: Connection, *, missing_only: bool = True) -> int:
    """Build the episode of every stored conversation (only of those without one when
    `missing_only`); returns how many were stored. Runs in the caller's transaction."""
    query = select(RESOURCE.c.id).where(RESOURCE.c.is_sidechain.is_(False))
    if missing_only:
        have = select(EPISODE.c.resource_id)
        query = query.where(RESOURCE.c.id.not_in(have))
    built = 0
    for (resource_id,) in conn.execute(query.order_by(RESOURCE.c.id)).all():
        transcript = stored_transcript(conn, resource_id)
        if transcript is not None and save_episode(conn, resource_id, transcript):
            built += 1
    return built


# --- reading -------------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeRecord:
    """An episode as the CLI and the app show it."""

    id: int
    resource_id: int
    title: str
    goal: str
    goal_turn: int | None
    outcome: str
    outcome_reason: str
    outcome_turn: int | None
    project: str | None
    branch: str | None
    source: str | None  # the conversation's file
    started_at: datetime | None
    ended_at: datetime | None
    duration_seconds: int | None
    turn_count: int
    milestones: tuple[Milestone, ...]
    problems: tuple[Problem, ...]
    files: tuple[FileTouch, ...]
    memory_count: int

    @property
    def duration(self) -> str:
        return format_duration(self.duration_seconds)

    @property
    def problems_fixed(self) -> int:
        return sum(1 for p in self.problems if p.fixed)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "conversation": self.resource_id,
            "title": self.title,
            "goal": self.goal,
            "goal_turn": self.goal_turn,
            "outcome": self.outcome,
            "outcome_reason": self.outcome_reason,
            "outcome_turn": self.outcome_turn,
            "project": self.project,
            "branch": self.branch,
            "source": self.source,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "duration_seconds": self.duration_seconds,
            "turn_count": self.turn_count,
            "milestones": [m.to_json() for m in self.milestones],
            "problems": [p.to_json() for p in self.problems],
            "files": [f.to_json() for f in self.files],
            "memory_count": self.memory_count,
        }


@dataclass(frozen=True)
class EpisodeMemory:
    id: int
    category: str
    content: str
    status: str
    turn_start: int | None
    turn_end: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "content": self.content,
            "status": self.status,
            "turn_start": self.turn_start,
            "turn_end": self.turn_end,
        }


def _memory_counts(conn: Connection) -> Any:
    return (
        select(ITEM.c.source_resource_id, func.count().label("n"))
        .where(ITEM.c.status.in_(SHOWN_STATUSES))
        .group_by(ITEM.c.source_resource_id)
        .subquery()
    )


def _select(conn: Connection) -> Any:
    counts = _memory_counts(conn)
    return select(
        EPISODE,
        RESOURCE.c.project,
        RESOURCE.c.branch,
        RESOURCE.c.source_path,
        func.coalesce(counts.c.n, 0).label("memory_count"),
    ).select_from(
        EPISODE.join(RESOURCE, RESOURCE.c.id == EPISODE.c.resource_id).outerjoin(
            counts, counts.c.source_resource_id == EPISODE.c.resource_id
        )
    )


def _record(row: Any) -> EpisodeRecord:
    return EpisodeRecord(
        id=row.id,
        resource_id=row.resource_id,
        title=row.title,
        goal=row.goal,
        goal_turn=row.goal_turn,
        outcome=row.outcome,
        outcome_reason=row.outcome_reason,
        outcome_turn=row.outcome_turn,
        project=row.project,
        branch=row.branch,
        source=row.source_path,
        started_at=row.started_at,
        ended_at=row.ended_at,
        duration_seconds=row.duration_seconds,
        turn_count=row.turn_count,
        milestones=tuple(Milestone.from_json(m) for m in row.milestones or ()),
        problems=tuple(Problem.from_json(p) for p in row.problems or ()),
        files=tuple(FileTouch.from_json(f) for f in row.files or ()),
        memory_count=int(row.memory_count),
    )


def list_episodes(
    conn: Connection,
    *,
    limit: int = 50,
    offset: int = 0,
    project: str | None = None,
    outcome: str | None = None,
) -> list[EpisodeRecord]:
    """Newest first (by when the conversation started)."""
    query = _select(conn)
    if project is not None:
        query = query.where(RESOURCE.c.project == project)
    if outcome is not None:
        query = query.where(EPISODE.c.outcome == outcome)
    newest = func.coalesce(EPISODE.c.started_at, RESOURCE.c.imported_at)
    query = query.order_by(newest.desc(), EPISODE.c.id.desc()).limit(limit).offset(offset)
    return [_record(row) for row in conn.execute(query).all()]


def get_episode(conn: Connection, episode_id: int) -> EpisodeRecord:
    row = conn.execute(_select(conn).where(EPISODE.c.id == episode_id)).first()
    if row is None:
        raise NotFoundError("episode", episode_id)
    return _record(row)


def episode_memories(conn: Connection, resource_id: int) -> list[EpisodeMemory]:
    """The memories learnt from the episode's conversation, in the order it said them."""
    rows = conn.execute(
        select(
            ITEM.c.id,
            ITEM.c.category,
            ITEM.c.content,
            ITEM.c.status,
            ITEM.c.turn_start,
            ITEM.c.turn_end,
        )
        .where(ITEM.c.source_resource_id == resource_id, ITEM.c.status.in_(SHOWN_STATUSES))
        .order_by(func.coalesce(ITEM.c.turn_start, 1 << 30), ITEM.c.id)
    ).all()
    return [EpisodeMemory(*row) for row in rows]


def count_episodes(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(EPISODE)).scalar_one())
