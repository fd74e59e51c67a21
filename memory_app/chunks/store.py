"""Chunks in the store: written when a conversation is imported or extracted again,
read by context assembly and `memory-app chunks` (which build them from the turns of a
conversation stored before schema version 8, without writing).

Core SQL over named columns rather than the ORM, as the episodes' store does.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Connection, delete, insert, select
from sqlmodel import Session

from memory_app.chunks.builder import ConversationChunk, build_chunks
from memory_app.domain.transcripts import Transcript
from memory_app.episodes.store import stored_transcript
from memory_app.store.errors import NotFoundError
from memory_app.store.tables import ConversationChunkRow, ResourceRow, table_of

log = logging.getLogger(__name__)

CHUNK = table_of(ConversationChunkRow)
RESOURCE = table_of(ResourceRow)


class ConversationNotFound(NotFoundError):
    """No conversation has that session id or number."""

    def __init__(self, ident: str) -> None:
        super().__init__("conversation", ident)
        self.args = (f"no conversation with session id or number {ident!r}",)

    def __str__(self) -> str:
        return str(self.args[0])


def save_chunks(conn: Connection, resource_id: int, transcript: Transcript) -> int:
    """Build the conversation's chunks and store them in place of any earlier ones;
    returns how many were stored."""
    conn.execute(delete(CHUNK).where(CHUNK.c.resource_id == resource_id))
    chunks = build_chunks(transcript)
    if chunks:
        conn.execute(insert(CHUNK), [_values(resource_id, c) for c in chunks])
    return len(chunks)


def _values(resource_id: int, chunk: ConversationChunk) -> dict[str, Any]:
    return {
        "resource_id": resource_id,
        "chunk_number": chunk.number,
        "turn_start": chunk.turn_start,
        "turn_end": chunk.turn_end,
        "summary": chunk.summary,
        "key_topics": list(chunk.key_topics),
        "token_count": chunk.token_count,
    }


def record_chunks(session: Session, resource_id: int | None, transcript: Transcript) -> None:
    """The import's hook: chunks are derived data, so a failure to build them is logged
    and never costs the conversation (reading it again rebuilds them)."""
    if resource_id is None:
        return
    try:
        with session.begin_nested():
            save_chunks(session.connection(), resource_id, transcript)
    except Exception:  # any bug in the builder must not lose an import
        log.exception("Could not build the chunks of conversation #%s", resource_id)


def build_all_chunks(conn: Connection) -> int:
    """Build the chunks of every stored conversation that has text and no chunks (a
    backfill for maintenance: reading a conversation builds its chunks anyway); returns
    how many conversations got chunks. In the caller's transaction, one savepoint per
    conversation: one the builder cannot read is logged and skipped, never the rest."""
    query = (
        select(RESOURCE.c.id)
        .where(RESOURCE.c.id.not_in(select(CHUNK.c.resource_id)), RESOURCE.c.text != "")
        .order_by(RESOURCE.c.id)
    )
    built = 0
    for (resource_id,) in conn.execute(query).all():
        try:
            with conn.begin_nested():
                transcript = stored_transcript(conn, resource_id)
                if transcript is not None and save_chunks(conn, resource_id, transcript):
                    built += 1
        except Exception:  # derived data: a bug in the builder must not stop the others
            log.exception("Could not build the chunks of conversation #%s", resource_id)
    return built


def find_conversation(conn: Connection, ident: str | int) -> int:
    """The conversation a person names: its number (`memory-app sources` shows it) or
    its Claude Code session id (the whole id, or a prefix only one session has). Of a
    session stored more than once (a sub-agent shares its parent's), the main one with
    the most turns."""
    text = str(ident).strip()
    if text.isdigit():
        found = conn.execute(select(RESOURCE.c.id).where(RESOURCE.c.id == int(text))).first()
        if found is not None:
            return int(found[0])
    if text:
        order = (RESOURCE.c.is_sidechain, RESOURCE.c.turn_count.desc(), RESOURCE.c.id.desc())
        exact = conn.execute(
            select(RESOURCE.c.id).where(RESOURCE.c.session_id == text).order_by(*order)
        ).first()
        if exact is not None:
            return int(exact[0])
        if len(text) >= 6:
            pattern = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = conn.execute(
                select(RESOURCE.c.id, RESOURCE.c.session_id)
                .where(RESOURCE.c.session_id.like(pattern, escape="\\"))
                .order_by(*order)
            ).all()
            if len({r.session_id for r in rows}) == 1:
                return int(rows[0].id)
    raise ConversationNotFound(text)


def conversation_chunks(conn: Connection, resource_id: int) -> list[ConversationChunk]:
    """The conversation's stored chunks, in order."""
    rows = conn.execute(
        select(CHUNK).where(CHUNK.c.resource_id == resource_id).order_by(CHUNK.c.chunk_number)
    ).all()
    return [
        ConversationChunk(
            number=row.chunk_number,
            turn_start=row.turn_start,
            turn_end=row.turn_end,
            summary=row.summary,
            key_topics=tuple(row.key_topics or ()),
            token_count=row.token_count,
        )
        for row in rows
    ]
