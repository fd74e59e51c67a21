"""The conversation itself in a task's context: "This conversation so far" (seed 003's
chunk summaries, priority 0.5, in what remains of the budget).

Memories come first (they fill their four tiers); what they leave goes to the
conversation's rolling summary of its earlier chunks, then to the latest chunks'
summaries, most recent first. Each piece comes in only if it fits what is left, so the
context never exceeds its budget; a piece that does not fit in full may come as its
headline (the requests it holds), and one that fits in no form is listed as left out.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection

from memory_app.chunks.builder import (
    ROLLING_TOKENS,
    ConversationChunk,
    build_chunks,
    rolling_summary,
)
from memory_app.chunks.store import conversation_chunks, find_conversation
from memory_app.domain.budget import ContextEntry, ContextPlan, TierPlan, estimate_tokens
from memory_app.episodes.store import stored_transcript

log = logging.getLogger(__name__)

TIER = "conversation"
TITLE = "This conversation so far"
LATEST_CHUNKS = 3  # shown one by one; the ones before them are in the rolling summary
MIN_ROLLING_TOKENS = 30  # a rolling summary shorter than this says nothing useful


def _entry(text: str, *shorter: str) -> ContextEntry:
    def one(body: str, level: str) -> ContextEntry:
        # Continuation lines indented under the bullet, as a workflow's steps are.
        lines = [line for line in body.split("\n") if line.strip()]
        return ContextEntry(text="\n".join([lines[0], *(f"  {x}" for x in lines[1:])]), level=level)

    return ContextEntry(
        text=one(text, "full").text,
        level="full",
        shorter=tuple(one(s, "summary") for s in shorter if s),
    )


def _chunk_entry(chunk: ConversationChunk) -> ContextEntry:
    where = f"Turns {chunk.turn_start}-{chunk.turn_end}:"
    return _entry(f"{where}\n{chunk.summary}", f"{where} {chunk.headline}")


def chunks_of(conn: Connection, resource_id: int) -> list[ConversationChunk]:
    """The stored chunks, or (a conversation stored while building them failed) built
    from its turns now, without writing: assembling context only reads."""
    chunks = conversation_chunks(conn, resource_id)
    if chunks:
        return chunks
    transcript = stored_transcript(conn, resource_id)
    if transcript is None:
        return []
    try:
        return build_chunks(transcript)
    except Exception:  # derived data: the context goes on without the conversation
        log.exception("Could not summarize conversation #%s", resource_id)
        return []


def add_conversation(conn: Connection, plan: ContextPlan, conversation: str) -> ContextPlan:
    """Add the "This conversation so far" tier to `plan` (changed in place, returned)
    within what it leaves of its budget. Raises ConversationNotFound for an unknown id."""
    resource_id = find_conversation(conn, conversation)
    chunks = chunks_of(conn, resource_id)
    tier = TierPlan(TIER, TITLE, 0.0, max(plan.remaining, 0))
    plan.tiers.append(tier)
    latest = chunks[-LATEST_CHUNKS:]
    older = chunks[: len(chunks) - len(latest)]
    candidates: list[ContextEntry] = []
    heading = estimate_tokens(tier.heading)
    if older:
        room = min(ROLLING_TOKENS, tier.allowance - heading - 2)
        if room >= MIN_ROLLING_TOKENS:
            rolling = rolling_summary(older, max_tokens=room)
            span = f"Turns {older[0].turn_start}-{older[-1].turn_end}, in short:"
            candidates.append(_entry(f"{span}\n{rolling.text.replace(chr(10) * 2, chr(10))}"))
        else:
            tier.left_out.append(_entry("(the rolling summary of the earlier turns)"))
    candidates += [_chunk_entry(c) for c in reversed(latest)]
    for candidate in candidates:
        cost = 0 if tier.entries else heading
        placed = next(
            (f for f in candidate.forms if tier.used + cost + f.tokens <= tier.allowance), None
        )
        if placed is None:
            tier.left_out.append(candidate)
        else:
            tier.entries.append(placed)
    return plan
