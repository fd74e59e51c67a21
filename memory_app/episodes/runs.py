"""Runs of sessions: consecutive conversations of one project that carry on one task,
told as one episode (seed 003's narrative arc across sessions).

Claude Code starts a new session file when a session is resumed (`--resume`,
`--continue`: the earlier turns are copied in, with their old timestamps) or continued
after its context ran out (it opens with "This session is being continued from a previous
conversation"). Nothing in the stored conversation names the session it came from, so the
rule reads the signals a person would: the same project and branch, a gap of hours not
days, and then something that says "the same task": the same session id, the opening
continuation summary, the same opening prompt, or a goal that says it continues *and*
either a short gap or files changed in both. Precision first: two unrelated tasks told as
one story mislead; a run left apart only costs a second line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

# Longer than a night's sleep, shorter than a weekend: a task picked up the next morning
# is still one run, one resumed days later is a new episode.
MAX_GAP = timedelta(hours=16)
# "continue" with nothing else in common must follow closely.
SHORT_GAP = timedelta(hours=3)
LONGEST_SESSION = timedelta(days=7)  # how far back a session's start is looked for
SAME_GOAL_MIN_CHARS = 15  # "hi" or "fix it" twice is no evidence of one task
CONTINUED_OPENING = "this session is being continued from a previous conversation"

_CONTINUE_WORDS = re.compile(
    r"^\s*(?:ok(?:ay)?[,.!]?\s+|so[,.]?\s+|now[,.]?\s+|please[,.]?\s+|let'?s\s+)*"
    r"(?:continue|carry on|keep going|resume|pick (?:it |this )?up|go on|proceed|finish)\b"
    r"|\b(?:where (?:we|you) left off|from last time|previous session|last session"
    r"|still (?:fail\w*|broken|wrong|not working|doesn'?t|does not|errors?|getting))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SessionFacts:
    """What the rule reads of one stored episode and its conversation."""

    episode_id: int
    project: str | None
    branch: str | None
    session_id: str | None
    started_at: datetime | None
    ended_at: datetime | None
    goal: str
    opens_continued: bool  # its first turns are Claude Code's continuation summary
    changed_files: frozenset[str]  # files it edited or wrote


def says_continue(goal: str) -> bool:
    """The goal reads as carrying on earlier work ("continue…", "…still fails")."""
    return bool(_CONTINUE_WORDS.search(goal))


def _same_goal(a: str, b: str) -> bool:
    key_a, key_b = " ".join(a.lower().split()), " ".join(b.lower().split())
    return len(key_a) >= SAME_GOAL_MIN_CHARS and key_a == key_b


def continues(earlier: SessionFacts, later: SessionFacts) -> str | None:
    """Why `later` carries on `earlier`'s task, or None when they stay apart."""
    if earlier.project is None or earlier.project != later.project:
        return None
    if earlier.branch and later.branch and earlier.branch != later.branch:
        return None
    if None in (earlier.started_at, earlier.ended_at, later.started_at):
        return None
    assert earlier.started_at and earlier.ended_at and later.started_at
    if later.started_at < earlier.started_at:
        return None
    gap = later.started_at - earlier.ended_at
    if gap > MAX_GAP:
        return None
    if earlier.session_id and earlier.session_id == later.session_id:
        return "the same session id"
    if later.opens_continued:
        return "opens with Claude Code's summary of the previous conversation"
    if _same_goal(earlier.goal, later.goal):
        return "resumed: the same opening prompt"
    if says_continue(later.goal):
        shared = earlier.changed_files & later.changed_files
        if shared:
            return f"says it continues, and changes {sorted(shared)[0]} again"
        if gap <= SHORT_GAP:
            return "says it continues, soon after"
    return None


def _end(session: SessionFacts) -> tuple[datetime, int]:
    moment = session.ended_at or session.started_at
    assert moment is not None
    return moment, session.episode_id


def _is_strong(reason: str) -> bool:
    return reason.startswith(("the same session", "resumed"))


def find_runs(sessions: list[SessionFacts]) -> dict[int, tuple[int, int, str]]:
    """For each episode that carries on an earlier one: (the run's first episode, the
    episode it carries on, why).

    `sessions` are one project's episodes. A continuation summary or "continue" is read
    against the session just before (by end); an identical session id or opening prompt
    may reach further back, past an unrelated session in between.
    """
    ordered = sorted(
        (s for s in sessions if s.started_at is not None),
        key=lambda s: (s.started_at, s.episode_id),
    )
    run_of: dict[int, int] = {}
    joined: dict[int, tuple[int, int, str]] = {}
    for index, later in enumerate(ordered):
        start = later.started_at
        assert start is not None
        window = []
        for candidate in reversed(ordered[:index]):
            assert candidate.started_at is not None
            if start - candidate.started_at > LONGEST_SESSION + MAX_GAP:
                break
            window.append(candidate)
        window.sort(key=_end, reverse=True)  # the session that ended last comes first
        for rank, candidate in enumerate(window):
            if start - _end(candidate)[0] > MAX_GAP:
                break
            reason = continues(candidate, later)
            if reason is not None and (rank == 0 or _is_strong(reason)):
                head = run_of.get(candidate.episode_id, candidate.episode_id)
                run_of[later.episode_id] = head
                joined[later.episode_id] = (head, candidate.episode_id, reason)
                break
    return joined
