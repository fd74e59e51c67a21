"""A transcript as one readable text, with where each turn sits in it."""

from __future__ import annotations

from dataclasses import dataclass

from memory_app.domain.transcripts import Transcript

_LABELS = {
    "user": "User",
    "assistant": "Assistant",
    "tool": "Tool",
    "system": "System",
    "agent": "Agent",
}


@dataclass(frozen=True)
class TurnSpan:
    position: int
    start: int
    end: int


def render_transcript(transcript: Transcript) -> tuple[str, list[TurnSpan]]:
    """The normalized text stored for a resource and each turn's character span."""
    parts: list[str] = []
    spans: list[TurnSpan] = []
    offset = 0
    for turn in transcript.turns:
        label = _LABELS.get(turn.speaker, turn.speaker.title())
        if turn.kind == "tool_use":
            label = f"{label} (tool call)"
        elif turn.kind == "command":
            label = f"{label} (command)"
        block = f"{label}: {turn.text.strip()}"
        if parts:
            offset += 2  # the blank line between turns
        spans.append(TurnSpan(turn.position, offset, offset + len(block)))
        parts.append(block)
        offset += len(block)
    return "\n\n".join(parts), spans


def turn_text(block: str) -> str:
    """A turn's own text from its rendered block ("User: …" → "…"): the inverse of the
    labelling above, used to rebuild a stored conversation. Labels never contain ": "."""
    _, sep, rest = block.partition(": ")
    return rest if sep else block
