"""What SessionStart gives back after a compaction or a resume: "This conversation so
far", from the session's stored chunk summaries (seed 003; memory_app/chunks builds them
when the app imports the session, which it does at PreCompact through the capture queue).

A compaction drops the conversation's earlier turns from the model's context; the
summaries bring back what was asked, done and left open. They are read as stored text,
never rebuilt: rebuilding needs the turns and chunks/builder.py, whose imports alone cost
about 60 ms of the hook's clock. Standard library only, like the rest of the hook
(runtime.py). A store older than the chunks (schema version 8), a session the app has
not captured yet or one without chunks gives nothing, without a word in the log.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from memory_app.domain.budget import CHARS_PER_TOKEN

# SessionStart's `source` when the model lost the conversation's earlier turns.
RESTORED = ("compact", "resume")
HEADING = "This conversation so far (from Memory Curator's summaries of its turns):"
CHUNK_VERSION = 8  # conversation_chunk exists from schema version 8
SHARE = 0.5  # of the hook's budget at most: the standing memories keep the rest
LATEST = 3  # the last chunks, told in full when they fit; the ones before as headlines
MIN_LINE_CHARS = 60  # a line cut shorter than this says nothing useful


@dataclass(frozen=True)
class StoredChunk:
    turn_start: int
    turn_end: int
    summary: str

    @property
    def headline(self) -> str:
        """The summary's first line (the requests, else what was done)."""
        return self.summary.strip().split("\n", 1)[0]


def stored_chunks(conn: sqlite3.Connection, session_id: str) -> list[StoredChunk]:
    """The session's chunks in order: of a session stored more than once (a sub-agent
    shares its parent's id), the main conversation with the most turns, as
    chunks/store.py find_conversation picks it. Empty on a store without chunks."""
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if int(version) < CHUNK_VERSION or not session_id:
        return []
    row = conn.execute(
        "SELECT id FROM resource WHERE session_id = ? "
        "ORDER BY is_sidechain, turn_count DESC, id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if row is None:
        return []
    rows = conn.execute(
        "SELECT turn_start, turn_end, summary FROM conversation_chunk WHERE resource_id = ? "
        "ORDER BY chunk_number",
        (row[0],),
    ).fetchall()
    return [StoredChunk(start, end, summary) for start, end, summary in rows if summary.strip()]


def so_far_lines(chunks: Sequence[StoredChunk], budget: int) -> list[str]:
    """The rolling text of the chunks, within SHARE of `budget` tokens with the heading:
    the latest chunks in full (the most recent first to get room), shrunk to their
    headline (cut, at the last) when the full one does not fit; the earlier ones as one
    line of headlines, cut to what is left. Oldest first, as the conversation went."""
    room = int(budget * CHARS_PER_TOKEN * SHARE) - len(HEADING) - 1
    latest = list(chunks[-LATEST:])
    earlier = list(chunks[: len(chunks) - len(latest)])
    told: list[str] = []
    for chunk in reversed(latest):
        where = f"- Turns {chunk.turn_start}-{chunk.turn_end}: "
        full = where + "\n  ".join(x.strip() for x in chunk.summary.split("\n") if x.strip())
        short = where + chunk.headline
        placed = next((t for t in (full, short) if len(t) + 1 <= room), None)
        if placed is None and room - 1 >= MIN_LINE_CHARS:
            placed = _clip(short, room - 1)
        if placed is None:
            break  # an older chunk must not stand in for a newer one left out
        told.insert(0, placed)
        room -= len(placed) + 1
    if earlier and len(told) == len(latest):
        where = f"- Earlier, turns {earlier[0].turn_start}-{earlier[-1].turn_end}: "
        text = where + " / ".join(c.headline for c in earlier)
        if room - 1 >= MIN_LINE_CHARS:
            told.insert(0, _clip(text, room - 1))
    return told


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
