"""ChatGPT data exports (`conversations.json`): a list of conversations, or one of them.

A conversation is a tree, not a list: editing a message or regenerating an answer starts
a new branch (`mapping` holds every message with its `parent` and `children`), and the
branch the person last saw ends at `current_node`. Following `parent` links from there to
the root and reading them back gives the conversation as it was shown; the other branches
are left out (each one would contradict the shown one).

Each conversation becomes one transcript. System messages, messages the web page hides
(custom instructions, memory context), the model's hidden reasoning and empty messages are
dropped. A message the assistant addresses to a tool (`recipient` other than "all": code
for Python, a search) is its tool call; a `tool` message is the tool's result.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import ParsedSource, ParseProblem, Transcript, Turn
from memory_app.ingest.claude_code import render_tool_use, session_title, shorten_title
from memory_app.ingest.files import (
    UnreadableFile,
    require_regular_file,
    shown_path,
    too_large,
    without_lone_surrogates,
)

# Exports of years of chats reach hundreds of megabytes, all of it one JSON document.
MAX_FILE_BYTES = 1024 * 1024 * 1024
# Content the page never shows as a message: reasoning, its recap, memory and profile context.
_HIDDEN_CONTENT = frozenset(
    {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}
)


def parse_chatgpt(path: Path) -> ParsedSource:
    """Read a ChatGPT export: one transcript per conversation; a conversation that cannot
    be read is a problem and the others still import. Raises UnreadableFile when the file
    is not JSON or not a ChatGPT export at all."""
    require_regular_file(path)
    source = shown_path(path)
    refused = too_large(path, source, MAX_FILE_BYTES)
    if refused is not None:
        return ParsedSource(source, (), (refused,))
    data = load_json(path, "a ChatGPT export")
    if isinstance(data, dict) and "mapping" in data:
        conversations: list[Any] = [data]
    elif isinstance(data, list):
        conversations = data
    else:
        raise UnreadableFile(
            f"{source}: not a ChatGPT export (expected a list of conversations, or one "
            'conversation with a "mapping" of its messages)'
        )
    transcripts: list[Transcript] = []
    problems: list[ParseProblem] = []
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
            problems.append(ParseProblem(source, None, f"{where} has no messages; skipped"))
            continue
        transcripts.append(_transcript(source, conversation))
    return ParsedSource(source, tuple(transcripts), tuple(problems))


def load_json(path: Path, what: str) -> Any:
    """A whole JSON document; UnreadableFile (naming the file, the place and `what` it
    was read as) when it is not JSON."""
    source = shown_path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            f"{source}: not UTF-8 text (byte {exc.start}), so not {what}"
        ) from None
    try:
        return without_lone_surrogates(json.loads(text))
    except json.JSONDecodeError as exc:
        raise UnreadableFile(
            f"{source}: not valid JSON, so not {what} ({exc.msg} at line {exc.lineno} "
            f"column {exc.colno}); a file cut off while it was written or saved looks so"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise UnreadableFile(f"{source}: unreadable JSON ({exc}), so not {what}") from None


def _moment(value: object) -> datetime | None:
    """ChatGPT's times are Unix seconds (with a fraction)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def selected_branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of the branch `current_node` selects, root first (a conversation
    without `current_node` shows its newest leaf)."""
    mapping: dict[str, Any] = conversation["mapping"]
    node_id = conversation.get("current_node")
    if not isinstance(node_id, str) or node_id not in mapping:
        node_id = _newest_leaf(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)  # a damaged export with a cycle must still end
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        message = node.get("message")
        if isinstance(message, dict):
            path.append(message)
        node_id = node.get("parent")
    path.reverse()
    return path


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    leaves = [
        (_moment(_message(node).get("create_time")) or datetime.min.replace(tzinfo=UTC), key)
        for key, node in mapping.items()
        if isinstance(node, dict) and not node.get("children")
    ]
    return max(leaves)[1] if leaves else None


def _message(node: object) -> dict[str, Any]:
    message = node.get("message") if isinstance(node, dict) else None
    return message if isinstance(message, dict) else {}


def _turn(message: dict[str, Any], position: int) -> Turn | None:
    """One message as a turn; None for what the page does not show as a message."""
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    metadata = message.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    if role not in ("user", "assistant", "tool"):
        return None  # system messages and unknown roles
    if metadata.get("is_visually_hidden_from_conversation") or metadata.get(
        "is_user_system_message"
    ):
        return None
    content = message.get("content")
    content = content if isinstance(content, dict) else {}
    if content.get("content_type") in _HIDDEN_CONTENT:
        return None
    text = content_text(content).strip()
    if not text:
        return None
    moment = _moment(message.get("create_time"))
    recipient = message.get("recipient")
    if role == "tool":
        return Turn(position, "tool", text, "tool_result", moment)
    if role == "assistant" and isinstance(recipient, str) and recipient not in ("all", ""):
        return Turn(position, "assistant", render_tool_use(recipient, text), "tool_use", moment)
    return Turn(position, role, text, "message", moment)


def content_text(content: dict[str, Any]) -> str:
    """A message's content as text: its parts (an uploaded image as "[image]"), or the text
    of code, its output, a quoted page."""
    parts = content.get("parts")
    if isinstance(parts, list):
        texts: list[str] = []
        for part in parts:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):  # an audio transcription
                    texts.append(part["text"])
                elif "image" in str(part.get("content_type", "")):
                    texts.append("[image]")
        return "\n\n".join(t for t in texts if t.strip())
    for key in ("text", "result", "summary"):
        if isinstance(content.get(key), str):
            return str(content[key])
    return ""


def _transcript(source: str, conversation: dict[str, Any]) -> Transcript:
    turns: list[Turn] = []
    for message in selected_branch(conversation):
        turn = _turn(message, len(turns))
        if turn is not None:
            turns.append(turn)
    title = conversation.get("title")
    ident = conversation.get("conversation_id") or conversation.get("id")
    return Transcript(
        source_kind="chatgpt",
        turns=tuple(turns),
        source_path=source,
        session_id=ident if isinstance(ident, str) and ident else None,
        title=(
            shorten_title(title)
            if isinstance(title, str) and title.strip()
            else session_title(None, tuple(turns))
        ),
        started_at=_moment(conversation.get("create_time")),
        ended_at=_moment(conversation.get("update_time")),
    )
