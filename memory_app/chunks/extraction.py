"""A conversation longer than an extractor may read, fitted without losing its end.

Before chunks, the turns past the extractor's `max_input_chars` were dropped. Now the
part that does not fit verbatim reaches the model as chunk summaries, each a "summary"
turn numbered like the first turn it stands for, so a memory the model reads there
still cites a turn of the right part of the conversation.

Which part stays verbatim: the beginning, and the summaries stand for the end.
- A conversation just over the limit keeps the verbatim text the old truncation kept
  (the same turns) when the summaries of its other turns fit in what that cut leaves
  of the budget: what was learnt from it is found again and reinforced, not learnt a
  second time in other words.
- A longer one gives a fifth of the budget to the summaries of the rest (one per chunk,
  or one rolling summary when those do not fit either), so its verbatim beginning is
  shorter than the old truncation's: a summary of hours of work is worth more than
  the last fifth of the beginning verbatim.
- The end of a long session usually reaches the extractor verbatim anyway: a session
  captured at PreCompact and again at SessionEnd grows (operations/memorize.py
  `_grow`), and only its new turns are read then, from the start of their own budget.
- A summary keeps the user's requests in their own words and what was done, so a late
  decision is still there to be extracted; the assistant's long explanations, which are
  what make a conversation long, are what a summary leaves out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memory_app.chunks.builder import SUMMARY_MARK, build_chunks, rolling_summary
from memory_app.domain.gates import MAX_TOTAL_CHARS, MAX_TURN_CHARS, split_for_extraction
from memory_app.domain.transcripts import Transcript, Turn

SUMMARY_SHARE = 5  # a fifth of the budget is kept for the summaries of a long rest


def summary_turn(position: int, turn_start: int, turn_end: int, text: str) -> Turn:
    return Turn(
        position=position,
        speaker="system",
        kind="summary",
        text=f"{SUMMARY_MARK} {turn_start}-{turn_end} (not sent verbatim): {text}",
    )


def _chars(turns: Sequence[Turn]) -> int:
    return sum(len(t.text) for t in turns)


def _summaries(transcript: Transcript, rest: Sequence[Turn], room: int | None) -> list[Turn]:
    """`rest` as one summary turn per chunk; when those are over `room` characters, as
    one rolling summary within it (None: no room to keep to)."""
    chunks = build_chunks(replace(transcript, turns=tuple(rest)))
    turns = [summary_turn(c.turn_start, c.turn_start, c.turn_end, c.summary) for c in chunks]
    if room is None or _chars(turns) <= room:
        return turns
    first, last = rest[0].position, rest[-1].position
    overhead = len(summary_turn(first, first, last, "").text)
    rolling = rolling_summary(chunks, max_tokens=max((room - overhead) // 4, 1))
    return [summary_turn(first, first, last, rolling.text)]


def fit_for_extraction(
    transcript: Transcript,
    max_turn_chars: int = MAX_TURN_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> tuple[Transcript, int]:
    """The conversation within `max_total_chars`: as it is when it fits (each turn cut
    at `max_turn_chars`); else the turns the old truncation kept, and the chunk
    summaries of the rest when they fit in what is left; else its beginning within four
    fifths of the budget and the rest summarized in the other fifth. Returns it and how
    many turns are summarized rather than sent."""
    head, rest = split_for_extraction(transcript, max_turn_chars, max_total_chars)
    if not rest:
        return head, 0
    summaries = _summaries(transcript, rest, None)
    if _chars(summaries) > max_total_chars - _chars(head.turns):
        room = max(max_total_chars // SUMMARY_SHARE, 1)
        head, rest = split_for_extraction(transcript, max_turn_chars, max_total_chars - room)
        summaries = _summaries(transcript, rest, max_total_chars - _chars(head.turns))
    return replace(head, turns=(*head.turns, *summaries)), len(rest)
