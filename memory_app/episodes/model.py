"""What an episode is: one conversation told as a short story (seeds 003 and 004).

A goal, the points where the work moved on (milestones), the problems met on the way and
whether they were fixed, how it ended, the files it touched and how long it took; every
part points back at the turn it was read from, so a person can check it in Sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

# How a conversation ended, read from its last turns.
OUTCOMES = ("succeeded", "abandoned", "unknown")

# Kinds of milestone, in the user's words (the text says what happened).
MILESTONE_KINDS = (
    "explored",  # a run of reading and searching ended in an answer or a decision
    "answered",  # the user answered the assistant's questions
    "approved",  # the user approved a plan
    "delegated",  # a sub-agent finished its task
    "wrote",  # files written or edited
    "tests_passed",  # a test run passed (the first, or after a failure)
    "committed",  # a git commit (or push)
    "made",  # a command reported it created or added something
    "request",  # the user asked for something new
    "confirmed",  # the user said it works, or thanked
)


@dataclass(frozen=True)
class Milestone:
    turn: int  # the position of the turn it was read from
    kind: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "kind": self.kind, "text": self.text}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Milestone:
        return cls(int(data["turn"]), str(data["kind"]), str(data["text"]))


@dataclass(frozen=True)
class Problem:
    turn: int
    text: str  # the error's telling line
    source: str  # "command" | "tool" | "tests" | "user"
    fixed_at: int | None = None  # the turn that showed it fixed, if one did

    @property
    def fixed(self) -> bool:
        return self.fixed_at is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "text": self.text,
            "source": self.source,
            "fixed": self.fixed,
            "fixed_at": self.fixed_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Problem:
        fixed_at = data.get("fixed_at")
        return cls(
            int(data["turn"]),
            str(data["text"]),
            str(data.get("source", "tool")),
            int(fixed_at) if fixed_at is not None else None,
        )


@dataclass(frozen=True)
class FileTouch:
    path: str
    actions: tuple[str, ...]  # of "read", "edited", "written", in that order
    first_turn: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "actions": list(self.actions), "first_turn": self.first_turn}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileTouch:
        return cls(str(data["path"]), tuple(data.get("actions", ())), int(data["first_turn"]))


@dataclass(frozen=True)
class Episode:
    """One conversation as an episode; built offline from its structure (builder.py)."""

    title: str
    goal: str
    goal_turn: int | None
    outcome: str  # OUTCOMES
    outcome_reason: str
    outcome_turn: int | None
    milestones: tuple[Milestone, ...] = ()
    problems: tuple[Problem, ...] = ()
    files: tuple[FileTouch, ...] = ()
    started_at: datetime | None = None
    ended_at: datetime | None = None
    turn_count: int = 0

    @property
    def duration_seconds(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0, int((self.ended_at - self.started_at).total_seconds()))

    @property
    def summary(self) -> str:
        """One line: what it set out to do and how it went (seed 004's summary level)."""
        fixed = sum(1 for p in self.problems if p.fixed)
        parts = [f"{len(self.milestones)} milestones"]
        if self.problems:
            parts.append(f"{len(self.problems)} problems ({fixed} fixed)")
        return f"{self.title}: {self.outcome}; {', '.join(parts)}"


def format_duration(seconds: int | None) -> str:
    """`9m 36s`, `2h 05m`, `40s`; an em dash when unknown."""
    if seconds is None:
        return "—"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


@dataclass(frozen=True)
class Enrichment:
    """Claude's reading of an episode (episodes/enrich.py), kept beside the offline facts
    and shown as Claude's: it never replaces what the turns show. `fingerprint` is the
    run's (its sessions and their content) when Claude read it: once the run has changed
    (a session joined or left, a conversation grew) the reading is `outdated`, shown as
    such and offered to Claude again."""

    title: str
    narrative: str  # one paragraph: the arc from goal through obstacles to the end
    lessons: tuple[str, ...]
    outcome: str  # OUTCOMES, Claude's verdict
    outcome_reason: str
    model: str
    enriched_at: str  # ISO 8601
    fingerprint: str = ""  # of the run read; "" when read before fingerprints were kept
    outdated: bool = False  # set when read: the run is no longer the one Claude read

    def to_json(self) -> dict[str, Any]:
        """As stored (`outdated` is not: it is worked out when the episode is read)."""
        return {
            "title": self.title,
            "narrative": self.narrative,
            "lessons": list(self.lessons),
            "outcome": self.outcome,
            "outcome_reason": self.outcome_reason,
            "model": self.model,
            "enriched_at": self.enriched_at,
            "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Enrichment:
        return cls(
            str(data.get("title", "")),
            str(data.get("narrative", "")),
            tuple(str(x) for x in data.get("lessons", ())),
            str(data.get("outcome", "unknown")),
            str(data.get("outcome_reason", "")),
            str(data.get("model", "")),
            str(data.get("enriched_at", "")),
            str(data.get("fingerprint", "")),
        )
