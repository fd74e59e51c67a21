"""Normalized conversations, the common shape every importer produces.

Importers turn very different files (Claude Code JSONL, plain text, markdown) into a
`Transcript` of `Turn`s, so the rest of the pipeline never sees a source format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# Who said a turn. "agent" is a sub-agent's orchestrator prompt: it reads like a user
# message but is written by the assistant, so it is never learnt from as the user's word.
SPEAKERS = ("user", "assistant", "tool", "system", "agent")

# What a turn is. Only "message" turns carry statements people make; the rest are kept
# for the record (and the Sources view) but never mined for memories.
TURN_KINDS = ("message", "tool_use", "tool_result", "summary", "command")


@dataclass(frozen=True)
class Turn:
    """One utterance in a conversation."""

    position: int
    speaker: str
    text: str
    kind: str = "message"
    timestamp: datetime | None = None
    source_line: int | None = None  # 1-based line in the source file, when it has lines

    @property
    def is_statement(self) -> bool:
        """True when a person or the assistant said this in prose (not tool traffic)."""
        return self.kind == "message" and self.speaker in ("user", "assistant")


@dataclass(frozen=True)
class Transcript:
    """A whole conversation, normalized, ready to be stored as a resource."""

    source_kind: str  # "claude-code" | "text" | "markdown"
    turns: tuple[Turn, ...]
    source_path: str | None = None
    session_id: str | None = None
    branch: str | None = None
    project: str | None = None  # the working directory the conversation ran in
    title: str | None = None
    parent_session_id: str | None = None  # set for a sub-agent's own transcript
    is_sidechain: bool = False
    started_at: datetime | None = None
    ended_at: datetime | None = None
    tags: tuple[str, ...] = field(default=())

    @property
    def message_count(self) -> int:
        return sum(1 for t in self.turns if t.is_statement)


@dataclass(frozen=True)
class ParseProblem:
    """A part of a source file that could not be read; the rest still imports."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ParsedSource:
    """What one source file yielded: its transcripts and anything that went wrong."""

    path: str
    transcripts: tuple[Transcript, ...]
    problems: tuple[ParseProblem, ...] = ()
