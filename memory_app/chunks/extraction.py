"""A conversation longer than an extractor may read, fitted without losing its end.

Before chunks, the turns past the extractor's `max_input_chars` were dropped. Now the
part that does not fit verbatim reaches the model as chunk summaries, each a "summary"
turn numbered like the first turn it stands for, so a memory the model reads there
still cites a turn of the right part of the conversation.

Which part stays verbatim: the beginning, and the summaries stand for the end.
- A conversation read before keeps the same verbatim text (the same turns as the old
  truncation kept), so what was learnt from it is found again and reinforced, not
  learnt a second time in other words.
- The end of a long session usually reaches the extractor verbatim anyway: a session
  captured at PreCompact and again at SessionEnd grows (operations/memorize.py
  `_grow`), and only its new turns are read then, from the start of their own budget.
- A summary keeps the user's requests in their own words and what was done, so a late
  decision is still there to be extracted; the assistant's long explanations, which are
  what make a conversation long, are what a summary leaves out.
"""

from __future__ import annotations

from dataclasses import replace

from memory_app.chunks.builder import SUMMARY_MARK, build_chunks, rolling_summary
from memory_app.domain.gates import MAX_TOTAL_CHARS, MAX_TURN_CHARS, split_for_extraction
from memory_app.domain.transcripts import Transcript, Turn

SUMMARY_SHARE = 5  # a fifth of the budget is kept for the summaries of the rest


def summary_turn(position: int, turn_start: int, turn_end: int, text: str) -> Turn:
    return Turn(
        position=position,
        speaker="system",
        kind="summary",
        text=f"{SUMMARY_MARK} {turn_start}-{turn_end} (not sent verbatim): {text}",
    )


def fit_for_extraction(
    transcript: Transcript,
    max_turn_chars: int = MAX_TURN_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> tuple[Transcript, int]:
    """The conversation within `max_total_chars`: as it is when it fits (each turn cut
    at `max_turn_chars`), else its beginning verbatim and the rest as chunk summaries
    (one turn per chunk, or one rolling summary when those do not fit either). Returns
    it and how many turns are summarized rather than sent."""
    head, rest = split_for_extraction(transcript, max_turn_chars, max_total_chars)
    if not rest:
        return head, 0
    room = max(max_total_chars // SUMMARY_SHARE, 1)
    head, rest = split_for_extraction(transcript, max_turn_chars, max_total_chars - room)
    chunks = build_chunks(replace(transcript, turns=rest))
    turns = [summary_turn(c.turn_start, c.turn_start, c.turn_end, c.summary) for c in chunks]
    if sum(len(t.text) for t in turns) > room:
        first, last = rest[0].position, rest[-1].position
        overhead = len(summary_turn(first, first, last, "").text)
        rolling = rolling_summary(chunks, max_tokens=max((room - overhead) // 4, 1))
        turns = [summary_turn(first, first, last, rolling.text)]
    return replace(head, turns=(*head.turns, *turns)), len(rest)
