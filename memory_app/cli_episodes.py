"""The episode commands of `memory-app`: conversations told as goal, milestones, problems
and outcome (memory_app/episodes).

    memory-app episodes list [--project DIR] [--outcome O] [--limit N]
    memory-app episodes show ID
    memory-app episodes rebuild

Argument parsing and printing only; the work is in memory_app/episodes.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app.episodes.model import OUTCOMES

if TYPE_CHECKING:
    from memory_app.episodes.store import EpisodeMemory, EpisodeRecord
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "conversations as episodes: goal, milestones, problems, outcome (see `list --help`)"
    p = sub.add_parser("episodes", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="episodes_command", metavar="ACTION", required=True)
    text = "the episodes, newest first: goal, project, outcome, duration, counts"
    q = inner.add_parser("list", help=text, description=text, parents=[common])
    q.add_argument("--project", help="only this project's (its folder)")
    q.add_argument("--outcome", choices=OUTCOMES, help="only the ones that ended so")
    q.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    text = "one episode: its milestones and problems with their turns, files and memories"
    q = inner.add_parser("show", help=text, description=text, parents=[common])
    q.add_argument("id", type=int, help="the episode's id, as `episodes list` shows it")
    text = "build every conversation's episode again (after an upgrade of the builder)"
    inner.add_parser("rebuild", help=text, description=text, parents=[common])


def episodes(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.episodes import store

    command = args.episodes_command
    if command == "list":
        if args.limit < 1:
            raise ValueError(f"--limit must be at least 1, not {args.limit}")
        project = os.path.abspath(os.path.expanduser(args.project)) if args.project else None
        with service.db.reading() as session:
            found = store.list_episodes(
                session.connection(), limit=args.limit, project=project, outcome=args.outcome
            )
        text = "\n".join(_line(e) for e in found) or "No episodes yet: import a conversation."
        return [e.to_json() for e in found], text
    if command == "show":
        with service.db.reading() as session:
            conn = session.connection()
            episode = store.get_episode(conn, args.id)
            memories = store.episode_memories(conn, episode.resource_id)
        payload = episode.to_json()
        payload["memories"] = [m.to_json() for m in memories]
        return payload, describe(episode, memories)
    with service.db.writing() as session:
        built = store.build_episodes(session.connection(), missing_only=False)
    return {"built": built}, f"Built {built} episodes."


def _line(e: EpisodeRecord) -> str:
    when = e.started_at.strftime("%Y-%m-%d %H:%M") if e.started_at else "—"
    project = Path(e.project).name if e.project else "—"
    counts = f"{len(e.milestones)} milestones, {len(e.problems)} problems"
    counts += f" ({e.problems_fixed} fixed)" if e.problems else ""
    counts += f", {e.memory_count} memories"
    return (
        f"{e.id:>5}  {when}  {e.outcome:<9}  {e.duration:>7}  {project}\n"
        f"       {e.title}\n       {counts}"
    )


def describe(e: EpisodeRecord, memories: list[EpisodeMemory]) -> str:
    """The whole episode as text, each part with the turn it was read from."""
    when = e.started_at.strftime("%Y-%m-%d %H:%M") if e.started_at else "—"
    lines = [
        f"Episode {e.id}: {e.title}",
        f"Goal: {e.goal}" + (f"  (turn {e.goal_turn})" if e.goal_turn is not None else ""),
        f"Outcome: {e.outcome}: {e.outcome_reason}"
        + (f"  (turn {e.outcome_turn})" if e.outcome_turn is not None else ""),
        f"Conversation: #{e.resource_id}" + (f" ({e.source})" if e.source else ""),
        f"Project: {e.project or '—'}" + (f"  branch: {e.branch}" if e.branch else ""),
        f"Started: {when}  duration: {e.duration}  turns: {e.turn_count}",
        "",
        "Milestones:",
        *([f"  turn {m.turn:>4}  {m.text}" for m in e.milestones] or ["  none"]),
        "Problems:",
        *(
            [
                f"  turn {p.turn:>4}  {p.text}"
                + (f"  (fixed at turn {p.fixed_at})" if p.fixed_at is not None else "  (not fixed)")
                for p in e.problems
            ]
            or ["  none"]
        ),
        "Files:",
        *([f"  {f.path}  ({', '.join(f.actions)})" for f in e.files] or ["  none"]),
        "Memories:",
        *([f"  #{m.id}  [{m.category}] {m.content}" for m in memories] or ["  none"]),
    ]
    return "\n".join(lines)


HANDLERS = {"episodes": episodes}
