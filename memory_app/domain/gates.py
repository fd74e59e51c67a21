"""Gates and truncation applied before extraction (seed 001 §8), and before recall.

Empty and trivial conversations are skipped without any extractor cost; long ones are
cut per turn and in total so an extractor's input stays bounded. Trivial prompts ("ok",
"continue") are answered by the recall hook with nothing (seed 002 recall gate): they
carry no topic to search for, and injecting memories would only cost the assistant tokens.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_app.domain.transcripts import Transcript, Turn

MAX_TURN_CHARS = 2_000
MAX_TOTAL_CHARS = 80_000
SUBSTANTIVE_CHARS = 50
# A prompt shorter than this (once its punctuation is gone) names no topic.
MIN_PROMPT_CHARS = 4
# Acknowledgements and go-aheads: the assistant already has the context it needs.
TRIVIAL_PROMPTS = frozenset(
    {
        "ok", "okay", "k", "kk", "thanks", "thank you", "thanks a lot", "thx", "ty",
        "cheers", "yes", "y", "yep", "yeah", "yup", "no", "nope", "sure", "continue",
        "go on", "go ahead", "keep going", "carry on", "proceed", "next", "done", "do it",
        "lgtm", "looks good", "sounds good", "great", "good", "nice", "cool", "perfect",
        "fine", "agreed", "right", "correct", "please continue", "please proceed",
        "ok thanks", "okay thanks", "ok continue", "yes please", "ok go ahead",
        "thanks continue", "yes continue", "yes go ahead",
    }
)  # fmt: skip
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def skip_reason(transcript: Transcript) -> str | None:
    """Why a conversation is not worth extracting from, or None when it is.

    "empty": no user prompt, or no answer to any. "trivial": no exchange (a user turn and
    the assistant's reply to it) reaches 50 characters combined.
    """
    # A sub-agent's prompts come from the orchestrating agent: they count as prompts here.
    statements = [
        t
        for t in transcript.turns
        if t.kind == "message" and t.speaker in ("user", "agent", "assistant") and t.text.strip()
    ]
    users = [t for t in statements if t.speaker != "assistant"]
    if not users:
        return "empty"
    if len(statements) == len(users) == 1:
        # A lone prompt with no reply: substantive only if it says enough on its own.
        return None if len(users[0].text.strip()) >= SUBSTANTIVE_CHARS else "trivial"
    best = 0
    pending = 0
    for turn in statements:
        if turn.speaker != "assistant":
            pending += len(turn.text.strip())
            best = max(best, pending)
        else:
            best = max(best, pending + len(turn.text.strip()))
            pending = 0
    return None if best >= SUBSTANTIVE_CHARS else "trivial"


def prompt_skip_reason(prompt: str) -> str | None:
    """Why a prompt is not worth a recall, or None when it is: "empty", "punctuation"
    (no word at all), "short" or "trivial" (an acknowledgement or a go-ahead)."""
    if not prompt.strip():
        return "empty"
    words = _NOT_WORD.sub(" ", prompt.lower()).split()
    if not words:
        return "punctuation"
    normalized = " ".join(words)
    if normalized in TRIVIAL_PROMPTS:
        return "trivial"
    if len(normalized) < MIN_PROMPT_CHARS:
        return "short"
    return None


def _capped(turn: Turn, max_turn_chars: int) -> Turn:
    if len(turn.text) <= max_turn_chars:
        return turn
    return replace(turn, text=turn.text[:max_turn_chars] + " [...truncated]")


def split_for_extraction(
    transcript: Transcript,
    max_turn_chars: int = MAX_TURN_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> tuple[Transcript, tuple[Turn, ...]]:
    """Cap each turn; returns the leading turns that fit `max_total_chars` together and
    the (capped) turns after them, which the caller represents otherwise
    (memory_app/chunks/extraction.py: as chunk summaries) instead of dropping."""
    kept: list[Turn] = []
    total = 0
    turns = transcript.turns
    for index, turn in enumerate(turns):
        capped = _capped(turn, max_turn_chars)
        if total + len(capped.text) > max_total_chars:
            rest = tuple(_capped(t, max_turn_chars) for t in turns[index:])
            return replace(transcript, turns=tuple(kept)), rest
        total += len(capped.text)
        kept.append(capped)
    return replace(transcript, turns=tuple(kept)), ()


def truncate_for_extraction(
    transcript: Transcript,
    max_turn_chars: int = MAX_TURN_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> tuple[Transcript, int]:
    """Cap each turn and the whole transcript; returns the cut transcript and how many
    turns were dropped at the end (noted in a final system turn, as seed 001 does)."""
    head, rest = split_for_extraction(transcript, max_turn_chars, max_total_chars)
    if not rest:
        return head, 0
    note = Turn(
        position=rest[0].position,
        speaker="system",
        kind="command",
        text=f"[...{len(rest)} remaining turns truncated for length]",
    )
    return replace(head, turns=(*head.turns, note)), len(rest)
