"""The episode commands of `memory-app`: conversations told as goal, milestones, problems
and outcome (memory_app/episodes).

    memory-app episodes list [--project DIR] [--outcome O] [--limit N]
    memory-app episodes show ID [--turn N [--session K]]
    memory-app episodes rebuild
    memory-app episodes enrich [ID ... | --all]

Argument parsing and printing only; the work is in memory_app/episodes.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app.episodes.model import OUTCOMES, format_duration

if TYPE_CHECKING:
    from memory_app.episodes.enrich import EnrichResult
    from memory_app.episodes.store import EpisodeMemory, EpisodeRecord, EpisodeRun
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
    text = (
        "one episode (a run of sessions: each session's part): its milestones and problems "
        "with their turns, files and memories"
    )
    q = inner.add_parser("show", help=text, description=text, parents=[common])
    q.add_argument("id", type=int, help="the episode's id, as `episodes list` shows it")
    q.add_argument(
        "--turn",
        type=int,
        metavar="N",
        help="print that turn of the conversation instead (as the milestones name it)",
    )
    q.add_argument(
        "--session",
        type=int,
        metavar="K",
        default=1,
        help="with --turn: the run's K-th session (default 1)",
    )
    text = "build every conversation's episode again (after an upgrade of the builder)"
    inner.add_parser("rebuild", help=text, description=text, parents=[common])
    text = (
        "ask Claude (needs ANTHROPIC_API_KEY) for a title, a narrative, lessons and its "
        "verdict on the outcome, kept beside the offline episode"
    )
    q = inner.add_parser("enrich", help=text, description=text, parents=[common])
    q.add_argument("ids", type=int, nargs="*", metavar="ID", help="the episodes to read")
    q.add_argument(
        "--all",
        action="store_true",
        help="every episode Claude has not read yet, or whose reading is outdated",
    )


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
        if args.turn is not None:
            return _turn(service, args)
        with service.db.reading() as session:
            conn = session.connection()
            run = store.get_run(conn, args.id)
            memories = store.run_memories(conn, run)
        payload = run.to_json()
        payload["memories"] = [{**m.to_json(), "conversation": c} for c, m in memories]
        return payload, describe(run, [m for _, m in memories])
    if command == "enrich":
        return _enrich(service, args)
    with service.db.writing() as session:
        conn = session.connection()
        built = store.build_episodes(conn, missing_only=False)
        joined = store.rebuild_runs(conn)
    text = f"Built {built} episodes; {joined} continue an earlier session."
    return {"built": built, "joined": joined}, text


def _turn(service: MemoryService, args: argparse.Namespace) -> Output:
    """One turn of an episode's conversation: where a milestone or problem came from."""
    from memory_app.episodes import store

    with service.db.reading() as session:
        conn = session.connection()
        run = store.get_run(conn, args.id)
        if not 1 <= args.session <= len(run.sessions):
            raise ValueError(
                f"episode {args.id} has {len(run.sessions)} session(s): "
                f"--session must be 1 to {len(run.sessions)}, not {args.session}"
            )
        episode = run.sessions[args.session - 1]
        transcript = store.stored_transcript(conn, episode.resource_id)
    turns = {t.position: t for t in transcript.turns} if transcript else {}
    turn = turns.get(args.turn)
    if turn is None:
        raise ValueError(
            f"conversation #{episode.resource_id} has no turn {args.turn} "
            f"(its turns are 0 to {len(turns) - 1})"
        )
    payload = {
        "episode": run.id,
        "conversation": episode.resource_id,
        "turn": turn.position,
        "speaker": turn.speaker,
        "kind": turn.kind,
        "timestamp": turn.timestamp.isoformat() if turn.timestamp else None,
        "text": turn.text,
    }
    head = f"Conversation #{episode.resource_id}, turn {turn.position} ({turn.speaker}"
    head += f", {turn.kind})" if turn.kind != "message" else ")"
    return payload, f"{head}\n{turn.text}"


def _enrich(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.episodes.enrich import enrich_episodes, make_enricher, runs_to_enrich

    if bool(args.ids) == bool(args.all):
        raise ValueError("name the episodes to enrich (IDs) or give --all, not both")
    if not runs_to_enrich(service.db, args.ids or None):
        return [], "Every episode is enriched already."
    enricher = make_enricher(service.extractor)
    if isinstance(enricher, str):
        raise ValueError(f"cannot ask Claude: {enricher}; the episodes stay as they are")
    results = enrich_episodes(service.db, enricher, args.ids or None)
    text = "\n".join(_enrich_line(r) for r in results) or "Every episode is enriched already."
    return [r.to_json() for r in results], text


def _enrich_line(r: EnrichResult) -> str:
    if r.enrichment is None:
        return f"{r.episode_id:>5}  kept offline: {r.error}"
    cost = r.usage.cost_usd if r.usage else None
    spent = f"  (${cost:.4f})" if cost is not None else ""
    return f"{r.episode_id:>5}  {r.enrichment.title}{spent}"


def _line(e: EpisodeRun) -> str:
    when = e.started_at.strftime("%Y-%m-%d %H:%M") if e.started_at else "—"
    project = Path(e.project).name if e.project else "—"
    counts = f"{len(e.milestones)} milestones, {len(e.problems)} problems"
    counts += f" ({e.problems_fixed} fixed)" if e.problems else ""
    counts += f", {e.memory_count} memories"
    if len(e.sessions) > 1:
        counts = f"{len(e.sessions)} sessions, " + counts
    reading = e.enrichment
    title = e.title
    if reading is not None:
        title += "  ✦ " + reading.title + (" (outdated)" if reading.outdated else "")
    return (
        f"{e.id:>5}  {when}  {e.outcome:<9}  {e.duration:>7}  {project}\n"
        f"       {title}\n       {counts}"
    )


def _turn_ref(turn: int | None) -> str:
    return f"  (turn {turn})" if turn is not None else ""


def _session_part(run: EpisodeRun, number: int, e: EpisodeRecord) -> list[str]:
    total = len(run.sessions)
    lines: list[str] = []
    if total > 1:
        when = e.started_at.strftime("%Y-%m-%d %H:%M") if e.started_at else "—"
        lines += [
            "",
            f"Session {number} of {total}: episode {e.id}, conversation #{e.resource_id}"
            + (f" ({e.source})" if e.source else ""),
            f"  {when}, {e.duration}, {e.outcome}"
            + (f"; continues the session before: {e.run_reason}" if e.run_reason else ""),
        ]
        if e.run_from_turn:
            lines.append(f"  turns before {e.run_from_turn} were copied in by the resume")
    milestones, problems = run.session_milestones(e), e.own_problems
    lines += [
        "Milestones:",
        *([f"  turn {m.turn:>4}  {m.text}" for m in milestones] or ["  none"]),
        "Problems:",
        *(
            [
                f"  turn {p.turn:>4}  {p.text}"
                + (f"  (fixed at turn {p.fixed_at})" if p.fixed_at is not None else "  (not fixed)")
                for p in problems
            ]
            or ["  none"]
        ),
    ]
    return lines


def describe(e: EpisodeRun, memories: list[EpisodeMemory]) -> str:
    """The whole episode as text, each part with the turn it was read from; a run of
    sessions with each session's part in order."""
    when = e.started_at.strftime("%Y-%m-%d %H:%M") if e.started_at else "—"
    total = len(e.sessions)
    duration = f"duration: {e.duration}"
    if total > 1:
        duration += f" (active {format_duration(e.active_seconds)})"
    lines = [
        f"Episode {e.id}: {e.title}",
        f"Goal: {e.goal}" + _turn_ref(e.goal_turn),
        f"Outcome: {e.outcome}: {e.outcome_reason}"
        + _turn_ref(e.outcome_turn)
        + (f" of session {total}" if total > 1 and e.outcome_turn is not None else ""),
    ]
    if total == 1:
        lines.append(
            f"Conversation: #{e.resource_id}" + (f" ({e.first.source})" if e.first.source else "")
        )
    else:
        lines.append(
            f"Sessions: {total}, one task (conversations "
            + ", ".join(f"#{s.resource_id}" for s in e.sessions)
            + ")"
        )
    lines += [
        f"Project: {e.project or '—'}" + (f"  branch: {e.branch}" if e.branch else ""),
        f"Started: {when}  {duration}  turns: {e.turn_count}",
    ]
    if e.enrichment is not None:
        c = e.enrichment
        lines += [
            "",
            f"Claude's reading ({c.model}, {c.enriched_at[:10]}; not from the turns"
            + (
                f"; outdated: the episode changed since, `memory-app episodes enrich {e.id}` "
                "reads it again):"
                if c.outdated
                else "):"
            ),
            f"  Title: {c.title}",
            f"  Story: {c.narrative}",
            *(f"  Lesson: {lesson}" for lesson in c.lessons),
            f"  Outcome: {c.outcome}: {c.outcome_reason}"
            + ("" if c.outcome == e.outcome else f"  (offline: {e.outcome})"),
        ]
    if total == 1:
        lines.append("")
    for number, session in enumerate(e.sessions, start=1):
        lines += _session_part(e, number, session)
    lines += [
        "Files:",
        *([f"  {f.path}  ({', '.join(f.actions)})" for f in e.files] or ["  none"]),
        "Memories:",
        *([f"  #{m.id}  [{m.category}] {m.content}" for m in memories] or ["  none"]),
        "",
        f"A turn's text: memory-app episodes show {e.id} --turn N"
        + (" --session K" if total > 1 else ""),
    ]
    return "\n".join(lines)


HANDLERS = {"episodes": episodes}
