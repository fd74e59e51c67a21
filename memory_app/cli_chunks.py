"""The chunks command of `memory-app`: a conversation cut into runs of about ten
messages, each with its summary and key topics, and the rolling summary of them all
(seed 003's short-term memory; memory_app/chunks).

    memory-app chunks SESSION_OR_NUMBER [--json]

Argument parsing and printing only; the work is in memory_app/chunks.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_app.chunks.builder import ConversationChunk, RollingSummary
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "a conversation's chunks with their summaries, and its rolling summary"
    p = sub.add_parser("chunks", help=text, description=text, parents=[common])
    p.add_argument(
        "conversation",
        metavar="SESSION_OR_NUMBER",
        help="a Claude Code session id (or a prefix only one session has), or the "
        "conversation's number as `memory-app sources` shows it",
    )


def chunks(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.chunks.builder import rolling_summary
    from memory_app.chunks.context import chunks_of
    from memory_app.chunks.store import find_conversation

    with service.db.reading() as session:
        conn = session.connection()
        resource_id = find_conversation(conn, args.conversation)
        found = chunks_of(conn, resource_id)
    rolling = rolling_summary(found)
    payload = {
        "conversation": resource_id,
        "chunks": [c.to_json() for c in found],
        "rolling_summary": rolling.to_json(),
    }
    return payload, describe(resource_id, found, rolling)


def describe(resource_id: int, found: list[ConversationChunk], rolling: RollingSummary) -> str:
    if not found:
        return f"Conversation #{resource_id} has no turns to chunk."
    lines = [f"Conversation #{resource_id}: {len(found)} chunks"]
    for chunk in found:
        lines.append("")
        lines.append(
            f"Chunk {chunk.number}  turns {chunk.turn_start}-{chunk.turn_end}  "
            f"{chunk.token_count} tokens, summary {chunk.summary_tokens}"
        )
        lines += [f"  {line}" for line in chunk.summary.split("\n")]
        if chunk.key_topics:
            lines.append(f"  Topics: {', '.join(chunk.key_topics)}")
    lines += ["", f"Rolling summary ({rolling.tokens} tokens):"]
    lines += [f"  {line}" if line else "" for line in rolling.text.split("\n")]
    return "\n".join(lines)


HANDLERS = {"chunks": chunks}
