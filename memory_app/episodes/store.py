"""Episodes in the store: written when a conversation is imported, rebuilt for the ones
already stored (schema version 6's migration and `memory-app episodes rebuild`), listed
and shown with their memories.

Core SQL over named columns rather than the ORM, because the migration runs it on a
store of version 5 inside its transaction, where later columns do not exist yet.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    delete,
    func,
    insert,
    null,
    or_,
    select,
    update,
)
from sqlmodel import Session

from memory_app.domain.rendering import turn_text
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.episodes.builder import build_episode
from memory_app.episodes.model import (
    Enrichment,
    Episode,
    FileTouch,
    Milestone,
    Problem,
    format_duration,
)
from memory_app.episodes.runs import (
    CONTINUED_OPENING,
    LONGEST_SESSION,
    MAX_GAP,
    SessionFacts,
    find_runs,
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
OPENING_TURNS = 3  # the first turns looked at for Claude Code's continuation summary


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
    """Build the conversation's episode and store it in place of any earlier one (the
    same row, so its id, its run and Claude's reading stay); a sub-agent's conversation
    has none of its own (its work is a milestone of its parent's). True when an episode
    was stored."""
    episode = None if transcript.is_sidechain else build_episode(transcript)
    if episode is None:
        conn.execute(delete(EPISODE).where(EPISODE.c.resource_id == resource_id))
        return False
    values = episode_values(resource_id, episode)
    known = conn.execute(
        select(EPISODE.c.id).where(EPISODE.c.resource_id == resource_id)
    ).scalar_one_or_none()
    if known is None:
        conn.execute(insert(EPISODE).values(**values))
    else:
        conn.execute(update(EPISODE).where(EPISODE.c.id == known).values(**values))
    return True


def record_episode(session: Session, resource_id: int | None, transcript: Transcript) -> None:
    """The import's hook: the episode is derived data, so a failure to build it is logged
    and never costs the conversation (`memory-app episodes rebuild` tries again). The
    runs around it are joined again whether it was stored or deleted (a deleted run head
    must not leave its sessions pointing at it)."""
    if resource_id is None:
        return
    try:
        with session.begin_nested():
            conn = session.connection()
            save_episode(conn, resource_id, transcript)
            since = transcript.started_at or _turns_start(transcript)
            rebuild_runs(conn, project=transcript.project, since=since)
    except Exception:  # any bug in the builder must not lose an import
        log.exception("Could not build the episode of conversation #%s", resource_id)


def _turns_start(transcript: Transcript) -> datetime | None:
    stamps = [t.timestamp for t in transcript.turns if t.timestamp is not None]
    return min(stamps) if stamps else None


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


# --- runs of sessions -----------------------------------------------------------------


def _opening_texts(conn: Connection, resource_ids: list[int]) -> dict[int, str]:
    """The start of each conversation's first turns, lower-cased: enough to see Claude
    Code's continuation summary. Each conversation's text is read once, up to the end of
    its first turns (SQLite loads a whole value for substr, so one call per turn would
    read it again for every turn)."""
    found: dict[int, str] = {}
    size = len(CONTINUED_OPENING) + 20
    for chunk in _chunks(resource_ids):
        spans: dict[int, list[tuple[int, int]]] = {}
        for resource_id, start, end in conn.execute(
            select(TURN.c.resource_id, TURN.c.start, TURN.c.end)
            .where(TURN.c.resource_id.in_(chunk), TURN.c.position < OPENING_TURNS)
            .order_by(TURN.c.resource_id, TURN.c.position)
        ).all():
            spans.setdefault(resource_id, []).append((start, end))
        if not spans:
            continue
        reach = max(start + size for turns in spans.values() for start, _ in turns)
        for resource_id, head in conn.execute(
            select(RESOURCE.c.id, func.substr(RESOURCE.c.text, 1, reach)).where(
                RESOURCE.c.id.in_(list(spans))
            )
        ).all():
            text = head or ""
            found[resource_id] = "".join(
                "\n" + text[start : min(end, start + size)].lower()
                for start, end in spans[resource_id]
            )
    return found


def _chunks(ids: list[int], size: int = 200) -> list[list[int]]:
    """Bound parameter lists short enough for any SQLite build."""
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def _window_query(project: str | None) -> Any:
    query = select(
        EPISODE.c.id,
        EPISODE.c.resource_id,
        EPISODE.c.goal,
        EPISODE.c.files,
        EPISODE.c.started_at,
        EPISODE.c.ended_at,
        EPISODE.c.run_id,
        EPISODE.c.run_reason,
        EPISODE.c.run_from_turn,
        RESOURCE.c.project,
        RESOURCE.c.branch,
        RESOURCE.c.session_id,
    ).join(RESOURCE, RESOURCE.c.id == EPISODE.c.resource_id)
    if project is not None:
        query = query.where(RESOURCE.c.project == project)
    return query.where(RESOURCE.c.project.is_not(None))


def _window_rows(conn: Connection, project: str | None, since: datetime | None) -> list[Any]:
    """The episodes whose run may change when a session starting at `since` comes or
    goes: those a session that late may carry on (from `since` less the longest session
    and gap) up to the ones that may carry it on (`since` plus as much), and further up
    to the last session of any run that reaches into those (its head may change). Every
    episode in between is read, so the rule sees each one's neighbours as a full
    rebuild would; the episodes later than that keep their candidates and their run."""
    query = _window_query(project)
    if since is None:
        return list(conn.execute(query).all())
    reach = LONGEST_SESSION + MAX_GAP
    lower, upper = since - reach, since + reach
    rows = conn.execute(
        query.where(EPISODE.c.started_at >= lower, EPISODE.c.started_at <= upper)
    ).all()
    runs = sorted({r.run_id for r in rows if r.run_id is not None} | {r.id for r in rows})
    latest = [
        conn.execute(
            select(func.max(EPISODE.c.started_at)).where(EPISODE.c.run_id.in_(chunk))
        ).scalar_one_or_none()
        for chunk in _chunks(runs)
    ]
    last = max((t for t in latest if t is not None), default=None)
    if last is not None and last > upper:
        more = conn.execute(
            query.where(EPISODE.c.started_at > upper, EPISODE.c.started_at <= last)
        ).all()
        rows = [*rows, *more]
    return list(rows)


def _session_facts(
    conn: Connection, project: str | None, since: datetime | None
) -> list[tuple[Any, SessionFacts]]:
    rows = _window_rows(conn, project, since)
    later = [r.resource_id for r in rows if _recomputed(r, since)]
    openings = _opening_texts(conn, later)  # only a later session's opening is read
    facts = []
    for row in rows:
        changed = frozenset(
            str(f.get("path"))
            for f in row.files or ()
            if {"edited", "written"} & set(f.get("actions", ()))
        )
        facts.append(
            (
                row,
                SessionFacts(
                    episode_id=row.id,
                    project=row.project,
                    branch=row.branch,
                    session_id=row.session_id,
                    started_at=row.started_at,
                    ended_at=row.ended_at,
                    goal=row.goal,
                    opens_continued=CONTINUED_OPENING in openings.get(row.resource_id, ""),
                    changed_files=changed,
                ),
            )
        )
    return facts


def _recomputed(row: Any, since: datetime | None) -> bool:
    """Whether the episode's run is worked out again (before `since`: it is context)."""
    return since is None or (row.started_at is not None and row.started_at >= since)


def _own_first_turns(
    conn: Connection, resumed: dict[int, datetime | None]
) -> dict[int, int | None]:
    """The first turn of each resumed conversation that is its own, by resource id: the
    turns before it were copied in from the session it resumes (their timestamps are that
    session's, `resumed[resource_id]` its end). One grouped query per 100 conversations."""
    known = {r: after for r, after in resumed.items() if after is not None}
    found: dict[int, int | None] = dict.fromkeys(resumed)
    ids = sorted(known)
    for chunk in _chunks(ids, 100):
        rows = conn.execute(
            select(TURN.c.resource_id, func.min(TURN.c.position))
            .where(
                or_(*(and_(TURN.c.resource_id == r, TURN.c.timestamp > known[r]) for r in chunk))
            )
            .group_by(TURN.c.resource_id)
        ).all()
        for resource_id, first in rows:
            found[resource_id] = int(first) if first not in (None, 0) else None
    return found


def rebuild_runs(
    conn: Connection, *, project: str | None = None, since: datetime | None = None
) -> int:
    """Join the stored episodes into runs of sessions (episodes/runs.py), for one project
    or all; with `since`, only around a session starting then (`_window_rows`: an import
    reads a few days around its conversation; the episodes before `since` keep their
    stored run). Claude's reading of a run follows it to its new first episode. Returns
    how many episodes continue a run."""
    by_project: dict[str, list[tuple[Any, SessionFacts]]] = {}
    for row, facts in _session_facts(conn, project, since):
        by_project.setdefault(row.project, []).append((row, facts))
    joined_count = 0
    touched: set[int] = set()
    for members in by_project.values():
        rows = {facts.episode_id: row for row, facts in members}
        ends = {facts.episode_id: facts.ended_at for _, facts in members}
        joined = find_runs([facts for _, facts in members])
        fixed = {  # before `since`: their stored run is the context, not recomputed
            i: (r.run_id or i) for i, r in rows.items() if not _recomputed(r, since)
        }
        resumed = {
            rows[i].resource_id: ends[previous]
            for i, (_, previous, _) in joined.items()
            if i not in fixed
        }
        own_first = _own_first_turns(conn, resumed)
        heads = {fixed.get(head, head) for head, _, _ in joined.values()}
        for episode_id, row in rows.items():
            touched.update(i for i in (episode_id, row.run_id) if i is not None)
            if episode_id in fixed:
                continue
            found = joined.get(episode_id)
            if found is None:
                values: dict[str, Any] = {
                    "run_id": episode_id if episode_id in heads else None,
                    "run_reason": None,
                    "run_from_turn": None,
                }
            else:
                head, _, reason = found
                values = {
                    "run_id": fixed.get(head, head),
                    "run_reason": reason,
                    "run_from_turn": own_first[row.resource_id],
                }
                joined_count += 1
            touched.update(i for i in (values["run_id"],) if i is not None)
            if (row.run_id, row.run_reason, row.run_from_turn) != tuple(values.values()):
                conn.execute(update(EPISODE).where(EPISODE.c.id == episode_id).values(**values))
    scope = None if since is None else sorted(touched)
    _mark_heads(conn, scope)
    _move_readings(conn, scope)
    return joined_count


def _mark_heads(conn: Connection, scope: list[int] | None = None) -> None:
    """A run's first episode carries the run's id too; an episode no other continues
    stands alone (run_id None), so `run_id = id` always means "the first of a run".
    `scope`: only these episodes can have changed (None: all)."""
    member = EPISODE.alias("member")
    has_members = (
        select(member.c.id)
        .where(member.c.run_id == EPISODE.c.id, member.c.id != EPISODE.c.id)
        .exists()
    )
    for chunk in [None] if scope is None else _chunks(scope):
        where = [] if chunk is None else [EPISODE.c.id.in_(chunk)]
        conn.execute(
            update(EPISODE)
            .where(
                *where,
                has_members,
                or_(EPISODE.c.run_id.is_(None), EPISODE.c.run_id != EPISODE.c.id),
            )
            .values(run_id=EPISODE.c.id, run_reason=None, run_from_turn=None)
        )
        conn.execute(
            update(EPISODE)
            .where(*where, EPISODE.c.run_id == EPISODE.c.id, ~has_members)
            .values(run_id=None)
        )


def _move_readings(conn: Connection, scope: list[int] | None = None) -> None:
    """Claude's reading of a run is kept on its first episode: when an earlier session
    joined (imported later, or after a rebuild) it moves to the new first one, where its
    fingerprint shows it outdated. A first episode with a reading of its own keeps it
    (the other stays where it is, shown again if the runs part)."""
    for chunk in [None] if scope is None else _chunks(scope):
        where = [] if chunk is None else [EPISODE.c.id.in_(chunk)]
        moved = conn.execute(
            select(EPISODE.c.id, EPISODE.c.run_id, EPISODE.c.enrichment).where(
                *where,
                EPISODE.c.enrichment.is_not(None),
                EPISODE.c.run_id.is_not(None),
                EPISODE.c.run_id != EPISODE.c.id,
            )
        ).all()
        for episode_id, head, reading in moved:
            if reading is None:  # a JSON null
                continue
            taken = conn.execute(
                update(EPISODE)
                .where(EPISODE.c.id == head, EPISODE.c.enrichment.is_(None))
                .values(enrichment=reading)
            ).rowcount
            if taken:
                conn.execute(
                    update(EPISODE).where(EPISODE.c.id == episode_id).values(enrichment=null())
                )


# --- reading -------------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeRecord:
    """An episode (one conversation) as the CLI and the app show it."""

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
    run_id: int | None = None
    run_reason: str | None = None  # why it carries on the session before it
    run_from_turn: int | None = None  # its own turns start here (a resume copies earlier)
    enrichment: Enrichment | None = None
    content_hash: str | None = None  # its conversation's, as stored (it changes as it grows)

    @property
    def duration(self) -> str:
        return format_duration(self.duration_seconds)

    @property
    def problems_fixed(self) -> int:
        return sum(1 for p in self.problems if p.fixed)

    @property
    def own_milestones(self) -> tuple[Milestone, ...]:
        """The milestones of its own turns (not those a resume copied in)."""
        first = self.run_from_turn or 0
        return tuple(m for m in self.milestones if m.turn >= first)

    @property
    def own_problems(self) -> tuple[Problem, ...]:
        first = self.run_from_turn or 0
        return tuple(p for p in self.problems if p.turn >= first)

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
            "run_reason": self.run_reason,
            "own_from_turn": self.run_from_turn,
            "claude": self.enrichment.to_json() if self.enrichment else None,
        }


@dataclass(frozen=True)
class EpisodeRun:
    """One or more sessions on one task told as one episode: the first session's goal,
    the last one's outcome, the milestones and problems of each in order, the files of
    all, from the first start to the last end. A lone session is a run of one."""

    sessions: tuple[EpisodeRecord, ...]

    @property
    def first(self) -> EpisodeRecord:
        return self.sessions[0]

    @property
    def last(self) -> EpisodeRecord:
        return self.sessions[-1]

    @property
    def id(self) -> int:
        return self.first.id

    @property
    def resource_id(self) -> int:
        return self.first.resource_id

    @property
    def title(self) -> str:
        return self.first.title

    @property
    def goal(self) -> str:
        return self.first.goal

    @property
    def goal_turn(self) -> int | None:
        return self.first.goal_turn

    @property
    def outcome(self) -> str:
        return self.last.outcome

    @property
    def outcome_reason(self) -> str:
        return self.last.outcome_reason

    @property
    def outcome_turn(self) -> int | None:
        return self.last.outcome_turn

    @property
    def project(self) -> str | None:
        return self.first.project

    @property
    def branch(self) -> str | None:
        return self.first.branch

    @property
    def fingerprint(self) -> str:
        """Which sessions the run is and what they hold: Claude's reading is kept with
        the fingerprint of the run it read, so a run that changed shows it outdated."""
        parts = "\n".join(
            f"{s.resource_id}:{s.content_hash or ''}:{s.turn_count}" for s in self.sessions
        )
        return hashlib.sha256(parts.encode()).hexdigest()[:16]

    @property
    def enrichment(self) -> Enrichment | None:
        """Claude's reading of the whole run, kept on its first episode; `outdated` when
        the run is no longer the one it read (a reading from before fingerprints were
        kept cannot tell, and is taken as current)."""
        reading = self.first.enrichment
        if reading is None or not reading.fingerprint:
            return reading
        return replace(reading, outdated=reading.fingerprint != self.fingerprint)

    @property
    def started_at(self) -> datetime | None:
        return self.first.started_at

    @property
    def ended_at(self) -> datetime | None:
        ends = [s.ended_at for s in self.sessions if s.ended_at is not None]
        return max(ends) if ends else None

    @property
    def duration_seconds(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0, int((self.ended_at - self.started_at).total_seconds()))

    @property
    def active_seconds(self) -> int | None:
        """Time inside the sessions, the gaps between them left out (and a resumed
        session's copied start counted once)."""
        spans = sorted(
            (s.started_at, s.ended_at)
            for s in self.sessions
            if s.started_at is not None and s.ended_at is not None
        )
        if not spans:
            return None
        total = 0.0
        current_start, current_end = spans[0]
        for begin, end in spans[1:]:
            if begin > current_end:
                total += (current_end - current_start).total_seconds()
                current_start, current_end = begin, end
            else:
                current_end = max(current_end, end)
        total += (current_end - current_start).total_seconds()
        return int(total)

    @property
    def duration(self) -> str:
        return format_duration(self.duration_seconds)

    @property
    def turn_count(self) -> int:
        return sum(s.turn_count - (s.run_from_turn or 0) for s in self.sessions)

    @property
    def milestones(self) -> tuple[Milestone, ...]:
        """Every session's own milestones, in order (each turn is its session's); a later
        session's own goal is a new request of the run."""
        return tuple(m for s in self.sessions for m in self.session_milestones(s))

    def session_milestones(self, session: EpisodeRecord) -> tuple[Milestone, ...]:
        own = session.own_milestones
        turn = session.goal_turn
        if session is self.first or turn is None or turn < (session.run_from_turn or 0):
            return own
        if session.goal == self.goal:
            return own
        request = Milestone(turn, "request", f"New request: {session.goal}")
        return (request, *own)

    @property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(p for s in self.sessions for p in s.own_problems)

    @property
    def problems_fixed(self) -> int:
        return sum(1 for p in self.problems if p.fixed)

    @property
    def files(self) -> tuple[FileTouch, ...]:
        """The files of all sessions, each once with every action on it (first turn: of
        the session that touched it first)."""
        merged: dict[str, FileTouch] = {}
        for session in self.sessions:
            for touch in session.files:
                known = merged.get(touch.path)
                if known is None:
                    merged[touch.path] = touch
                    continue
                actions = tuple(
                    a
                    for a in ("read", "edited", "written")
                    if a in known.actions or a in touch.actions
                )
                merged[touch.path] = FileTouch(touch.path, actions, known.first_turn)
        return tuple(merged.values())

    @property
    def memory_count(self) -> int:
        return sum(s.memory_count for s in self.sessions)

    def to_json(self) -> dict[str, Any]:
        """The run as one episode (the first session's id), with each session's part."""
        payload = self.first.to_json()
        payload.update(
            {
                "outcome": self.outcome,
                "outcome_reason": self.outcome_reason,
                "outcome_turn": self.outcome_turn,
                "outcome_conversation": self.last.resource_id,
                "ended_at": self.ended_at.isoformat() if self.ended_at else None,
                "duration_seconds": self.duration_seconds,
                "active_seconds": self.active_seconds,
                "turn_count": self.turn_count,
                "milestones": [m.to_json() for m in self.milestones],
                "problems": [p.to_json() for p in self.problems],
                "files": [f.to_json() for f in self.files],
                "memory_count": self.memory_count,
                "session_count": len(self.sessions),
                "sessions": [s.to_json() for s in self.sessions],
                "claude": self._reading_json(),
            }
        )
        del payload["run_reason"], payload["own_from_turn"]
        return payload

    def _reading_json(self) -> dict[str, Any] | None:
        reading = self.enrichment
        if reading is None:
            return None
        return {**reading.to_json(), "outdated": reading.outdated}


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
        RESOURCE.c.content_hash,
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
        run_id=row.run_id,
        run_reason=row.run_reason,
        run_from_turn=row.run_from_turn,
        enrichment=Enrichment.from_json(row.enrichment) if row.enrichment else None,
        content_hash=row.content_hash,
    )


def _runs(conn: Connection, heads: list[EpisodeRecord]) -> list[EpisodeRun]:
    """The runs whose first episodes are `heads`, in that order."""
    run_ids = [h.id for h in heads if h.run_id == h.id]
    members: dict[int, list[EpisodeRecord]] = {}
    if run_ids:
        query = _select(conn).where(EPISODE.c.run_id.in_(run_ids), EPISODE.c.run_id != EPISODE.c.id)
        for row in conn.execute(query).all():
            members.setdefault(row.run_id, []).append(_record(row))

    def when(record: EpisodeRecord) -> tuple[datetime | str, int]:
        return (record.started_at or "", record.id)

    return [EpisodeRun((h, *sorted(members.get(h.id, []), key=when))) for h in heads]


def _is_head() -> Any:
    """Listed: a run's first episode, one alone, and one whose first episode is gone
    (shown alone until its runs are joined again)."""
    head = EPISODE.alias("head")
    return or_(
        EPISODE.c.run_id.is_(None),
        EPISODE.c.run_id == EPISODE.c.id,
        ~select(head.c.id).where(head.c.id == EPISODE.c.run_id).exists(),
    )


def list_episodes(
    conn: Connection,
    *,
    limit: int = 50,
    offset: int = 0,
    project: str | None = None,
    outcome: str | None = None,
) -> list[EpisodeRun]:
    """Newest first (by when the run started); a run of sessions is one entry, and its
    outcome is its last session's."""
    query = _select(conn).where(_is_head())
    if project is not None:
        query = query.where(RESOURCE.c.project == project)
    newest = func.coalesce(EPISODE.c.started_at, RESOURCE.c.imported_at)
    query = query.order_by(newest.desc(), EPISODE.c.id.desc())
    if outcome is None:
        heads = [_record(row) for row in conn.execute(query.limit(limit).offset(offset)).all()]
        return _runs(conn, heads)
    # The outcome is the last session's: filtered after the runs are put together.
    runs = _runs(conn, [_record(row) for row in conn.execute(query).all()])
    return [r for r in runs if r.outcome == outcome][offset : offset + limit]


def get_episode(conn: Connection, episode_id: int) -> EpisodeRecord:
    row = conn.execute(_select(conn).where(EPISODE.c.id == episode_id)).first()
    if row is None:
        raise NotFoundError("episode", episode_id)
    return _record(row)


def get_run(conn: Connection, episode_id: int) -> EpisodeRun:
    """The run an episode belongs to (itself alone when it is in none, or when the run's
    first episode is gone)."""
    episode = get_episode(conn, episode_id)
    if episode.run_id in (None, episode.id):
        return _runs(conn, [episode])[0]
    assert episode.run_id is not None
    row = conn.execute(_select(conn).where(EPISODE.c.id == episode.run_id)).first()
    if row is None:
        log.warning(
            "Episode %s's run starts at episode %s, which is gone", episode.id, episode.run_id
        )
        return EpisodeRun((episode,))
    return _runs(conn, [_record(row)])[0]


def run_memories(conn: Connection, run: EpisodeRun) -> list[tuple[int, EpisodeMemory]]:
    """The memories of every session of a run: (the session's conversation, memory)."""
    return [(s.resource_id, m) for s in run.sessions for m in episode_memories(conn, s.resource_id)]


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
    """How many episodes are listed: a run of sessions counts once."""
    query = select(func.count()).select_from(EPISODE).where(_is_head())
    return int(conn.execute(query).scalar_one())
