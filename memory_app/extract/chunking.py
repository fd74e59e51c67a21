"""A conversation as prompt text, split into chunks that fit one request, and the
chunks' answers merged back into one list.

Turns are never split (the service already caps each at 2,000 characters), so every
chunk is a run of whole turns and every turn keeps its number: the model cites turns by
those numbers, which is what provenance (`turn_start`/`turn_end`) needs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memory_app.chunks.builder import SUMMARY_MARK, rolling_summary, split_turns, summarize
from memory_app.domain.similarity import content_key
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.extract.sentences import is_injected_turn, strip_injected

# Tool traffic gives context (a failing test explains a bug pattern) but is not what
# memories are made of: a short excerpt is enough and keeps the cost down.
TOOL_EXCERPT_CHARS = 400
OTHER_EXCERPT_CHARS = 200
# Of a request's characters, at most this share (and this many) carries the summary of
# the conversation before its chunk ("Earlier in this conversation: …").
EARLIER_SHARE = 8
EARLIER_MAX_CHARS = 2_400
EARLIER_HEADING = "Earlier in this conversation (a summary, for context: it was read already)"
_LABELS = {"user": "User", "assistant": "Assistant", "agent": "Agent", "system": "System"}


@dataclass(frozen=True)
class Chunk:
    lines: tuple[str, ...]  # one rendered turn each
    positions: tuple[int, ...]  # the turn numbers they hold, in order

    @property
    def text(self) -> str:
        return "\n\n".join(self.lines)


def _excerpt(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rstrip() + " […]"


def render_turn(turn: Turn) -> str | None:
    """One turn as a prompt line, or None for turns that must not be learnt from."""
    text = turn.text
    if turn.speaker == "user" and turn.kind == "message":
        if is_injected_turn(text):
            return None  # a skill body, a compaction prompt: not the user's words
        text = strip_injected(text)  # system reminders, hook output we injected ourselves
    text = text.strip()
    if not text:
        return None
    label = _LABELS.get(turn.speaker, turn.speaker.title())
    if turn.kind == "tool_use":
        return f"[{turn.position}] {label} (tool call): {_excerpt(text, TOOL_EXCERPT_CHARS)}"
    if turn.kind == "tool_result" or turn.speaker == "tool":
        return f"[{turn.position}] Tool result: {_excerpt(text, TOOL_EXCERPT_CHARS)}"
    if turn.kind == "summary" and text.startswith(SUMMARY_MARK):
        return f"[{turn.position}] {text}"  # chunks that did not fit verbatim: all of it
    if turn.kind != "message":
        return f"[{turn.position}] {label} ({turn.kind}): {_excerpt(text, OTHER_EXCERPT_CHARS)}"
    return f"[{turn.position}] {label}: {text}"


def chunk_transcript(
    transcript: Transcript, max_chars: int, later_max_chars: int | None = None
) -> list[Chunk]:
    """Consecutive runs of rendered turns, the first at most `max_chars` long and the
    others at most `later_max_chars` (by default `max_chars` too); a single turn longer
    than that still gets a chunk of its own."""
    chunks: list[Chunk] = []
    lines: list[str] = []
    positions: list[int] = []
    size = 0
    limit = max_chars
    for turn in transcript.turns:
        line = render_turn(turn)
        if line is None:
            continue
        if lines and size + len(line) + 2 > limit:
            chunks.append(Chunk(tuple(lines), tuple(positions)))
            lines, positions, size = [], [], 0
            limit = max_chars if later_max_chars is None else later_max_chars
        lines.append(line)
        positions.append(turn.position)
        size += len(line) + 2
    if lines:
        chunks.append(Chunk(tuple(lines), tuple(positions)))
    return chunks


def earlier_room(chunk_chars: int) -> int:
    """The characters of a request kept for the summary of what came before its chunk."""
    return min(chunk_chars // EARLIER_SHARE, EARLIER_MAX_CHARS)


def request_chunks(transcript: Transcript, chunk_chars: int) -> list[Chunk]:
    """The conversation cut for requests of `chunk_chars`: the first chunk has nothing
    before it, so it gets them all (a conversation that fits one request is sent in
    one); each later chunk leaves `earlier_room` for the summary of what came before."""
    return chunk_transcript(transcript, chunk_chars, chunk_chars - earlier_room(chunk_chars))


def _is_summary(turn: Turn) -> bool:
    return turn.kind == "summary" and turn.text.startswith(SUMMARY_MARK)


def earlier_contexts(transcript: Transcript, befores: Sequence[int], max_chars: int) -> list[str]:
    """For each turn number in `befores`, the rolling summary of the conversation's
    turns before it, headed, in at most `max_chars` (empty when nothing came before, or
    nothing fits): sent with a request chunk so that "do it the other way" in it is
    understood. The conversation's chunks are built once: each summary takes the whole
    chunks before its turn and, of the chunk the turn falls in, the turns before it."""
    room = max_chars - len(EARLIER_HEADING) - 3
    if room < 40 or not befores:
        return ["" for _ in befores]
    runs = split_turns([t for t in transcript.turns if not _is_summary(t)])
    whole = [summarize(transcript, run, number) for number, run in enumerate(runs, start=1)]
    ends = [run[-1].position for run in runs]
    found: list[str] = []
    for before in befores:
        count = bisect_left(ends, before)  # the runs that end before turn `before`
        chunks = whole[:count]
        if count < len(runs):
            part = tuple(t for t in runs[count] if t.position < before)
            if part:
                chunks.append(summarize(transcript, part, count + 1))
        text = rolling_summary(chunks, max_tokens=room // 4).text if chunks else ""
        found.append(f"{EARLIER_HEADING}:\n{text}" if text else "")
    return found


def split_chunk(chunk: Chunk) -> list[Chunk]:
    """A chunk cut in two halves of its turns (used when an answer hit max_tokens)."""
    if len(chunk.positions) < 2:
        return [chunk]
    middle = len(chunk.positions) // 2
    return [
        Chunk(chunk.lines[:middle], chunk.positions[:middle]),
        Chunk(chunk.lines[middle:], chunk.positions[middle:]),
    ]


def restrict_turns(item: ExtractedItem, positions: Sequence[int]) -> ExtractedItem:
    """Drop turn numbers the model cited that are not in the chunk it read."""
    if item.turn_start is None:
        return item
    inside = [p for p in positions if item.turn_start <= p <= (item.turn_end or item.turn_start)]
    if not inside:
        return replace(item, turn_start=None, turn_end=None)
    return replace(item, turn_start=inside[0], turn_end=inside[-1])


def merge_items(batches: Iterable[Sequence[ExtractedItem]]) -> list[ExtractedItem]:
    """One list from the chunks' answers: the same statement (normalized text) once, with
    the highest confidence any chunk gave it; first-seen order is kept. A chunk that saw
    the statement as an update of an existing memory wins over one that did not say so
    (the first such id when chunks disagree)."""
    best: dict[str, ExtractedItem] = {}
    for batch in batches:
        for item in batch:
            key = content_key(item.content)
            if not key:
                continue
            kept = best.get(key)
            if kept is None:
                best[key] = item
                continue
            winner = item if item.confidence > kept.confidence else kept
            updates = kept.updates if kept.updates is not None else item.updates
            if winner.updates != updates:
                winner = replace(winner, updates=updates)
            best[key] = winner  # replacing a value keeps the key's first position
    return list(best.values())
