"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).

One JSON object per line. What this importer has to know (verified on real sessions, see
`shared/samples/claude-code/`):

- One API response is written as several `assistant` lines sharing `message.id` (one
  content block per line, with hook `progress` lines in between): consecutive lines with
  the same id are one message. Its text blocks become one turn; each `tool_use` block its
  own turn; `thinking` blocks are never stored.
- Lines that are not conversation are skipped: `isMeta` lines, `file-history-snapshot`,
  `progress`, `queue-operation`, and every `attachment` line. Attachments carry hook
  output such as `hook_additional_context`, i.e. memory this app injected itself; learning
  it again would feed the store its own output.
- `system` lines: only `local_command` is kept (as a "command" turn, so the Sources view
  shows `/model` and its output); hook summaries, durations, errors and compaction markers
  are skipped.
- Sub-agents live in `<session>/subagents/agent-<id>.jsonl`; their lines carry the
  parent's `sessionId`, an `agentId` and `isSidechain: true`. Their "user" prompts are
  written by the orchestrating agent, so they become speaker "agent", never "user".
- Project and branch come from each line's `cwd` and `gitBranch`: the folder name is a
  lossy encoding of the path and cannot be decoded reliably.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_app.domain.redaction import redact
from memory_app.domain.transcripts import ParsedSource, ParseProblem, Transcript, Turn
from memory_app.ingest.files import (
    SURROGATE_ESCAPE,
    has_lone_surrogate,
    require_regular_file,
    shown_path,
    without_lone_surrogates,
)

MAX_FILE_BYTES = 200 * 1024 * 1024
TOOL_TEXT_LIMIT = 300

# Record types that are never conversation.
SKIPPED_TYPES = frozenset({"file-history-snapshot", "progress", "queue-operation", "attachment"})
# The keys of a tool's input that best say what it did, in order of preference.
TOOL_INPUT_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "pattern",
    "url",
    "query",
    "path",
    "description",
    "prompt",
    "skill",
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_COMMAND_TAGS = ("command-name", "command-message", "command-args")
_OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
# The wrappers Claude Code puts around slash commands and `!` shell commands.
_TAG = re.compile(
    r"<(?P<tag>" + "|".join((*_COMMAND_TAGS, *_OUTPUT_TAGS, "bash-input")) + r")>"
    r"(?P<body>.*?)</(?P=tag)>",
    re.DOTALL,
)
_SYSTEM_REMINDER = re.compile(r"<system-reminder>(?P<body>.*?)</system-reminder>", re.DOTALL)


@dataclass
class _Pending:
    """A turn before its position is known."""

    speaker: str
    text: str
    kind: str
    timestamp: datetime | None
    line: int


@dataclass
class _AssistantMessage:
    """Consecutive assistant lines of one API response (same `message.id`)."""

    message_id: str | None
    first_line: int
    timestamp: datetime | None
    speaker: str
    texts: list[str] = field(default_factory=list)
    turns: list[_Pending] = field(default_factory=list)  # tool uses, and a text slot
    text_slot: _Pending | None = None


@dataclass
class _Session:
    """Everything gathered from a file's lines, in order."""

    turns: list[_Pending] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    session_id: str | None = None
    agent_id: str | None = None
    project: str | None = None
    branch: str | None = None
    title: str | None = None
    first_conversation_is_sidechain: bool | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    open_message: _AssistantMessage | None = None


def parse_claude_code(path: Path) -> ParsedSource:
    """Read one Claude Code session file; unreadable lines become problems, not failures."""
    require_regular_file(path)
    source = shown_path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        message = f"file too large ({size // (1024 * 1024)} MB, limit 200 MB)"
        return ParsedSource(source, (), (ParseProblem(source, None, message),))
    session = _Session()
    for number, record in _records(path, session.problems):
        _note_metadata(session, record)
        _add_record(session, record, number)
    _close_message(session)
    return ParsedSource(source, (_transcript(path, session),), tuple(session.problems))


# --- reading lines ------------------------------------------------------------------------


def _records(path: Path, problems: list[ParseProblem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line number, object) for each readable line, noting the rest."""
    source = shown_path(path)
    bad_encoding: list[int] = []
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", errors="replace")
                bad_encoding.append(number)
            if number == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            record = _decode_line(line, number, source, problems)
            if record is not None:
                yield number, record
    if bad_encoding:
        lines = "line" if len(bad_encoding) == 1 else f"{len(bad_encoding)} lines, first"
        problems.append(
            ParseProblem(
                source,
                bad_encoding[0],
                f"invalid UTF-8 bytes replaced by U+FFFD ({lines} {bad_encoding[0]})",
            )
        )


def _decode_line(
    line: str, number: int, source: str, problems: list[ParseProblem]
) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
        if SURROGATE_ESCAPE.search(line) and _has_lone_surrogate(value):
            value = without_lone_surrogates(value)
            problems.append(
                ParseProblem(source, number, "half of a UTF-16 surrogate pair replaced by U+FFFD")
            )
    except json.JSONDecodeError as exc:
        message = f"not valid JSON, line truncated or corrupt ({exc.msg} at column {exc.colno})"
        problems.append(ParseProblem(source, number, f"{message}; skipped"))
        return None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, [[[[...]]]]
        problems.append(ParseProblem(source, number, f"unreadable JSON ({exc}); skipped"))
        return None
    if not isinstance(value, dict):
        kind = type(value).__name__
        problems.append(
            ParseProblem(source, number, f"expected a JSON object, got {kind}; skipped")
        )
        return None
    return value


def _has_lone_surrogate(value: object) -> bool:
    return has_lone_surrogate(json.dumps(value, ensure_ascii=False))


# --- metadata -----------------------------------------------------------------------------


def parse_timestamp(value: object) -> datetime | None:
    """An ISO 8601 timestamp ("...Z" included) as an aware UTC datetime, or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _text_field(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) and value else None


def _note_metadata(session: _Session, record: dict[str, Any]) -> None:
    """Session id, project, branch and time span; the first value seen wins."""
    session.session_id = session.session_id or _text_field(record, "sessionId")
    session.agent_id = session.agent_id or _text_field(record, "agentId")
    session.project = session.project or _text_field(record, "cwd")
    session.branch = session.branch or _text_field(record, "gitBranch")
    moment = parse_timestamp(record.get("timestamp"))
    if moment is not None:
        if session.started_at is None or moment < session.started_at:
            session.started_at = moment
        if session.ended_at is None or moment > session.ended_at:
            session.ended_at = moment


# --- records to turns ---------------------------------------------------------------------


def _add_record(session: _Session, record: dict[str, Any], number: int) -> None:
    kind = record.get("type")
    if not isinstance(kind, str):
        return  # `"type": []` or a missing type: no record this importer knows
    if kind == "summary":
        summary = _text_field(record, "summary")
        session.title = summary.strip() if summary else session.title
        return
    if kind in SKIPPED_TYPES or record.get("isMeta") is True:
        return  # not conversation; also does not interrupt a split assistant message
    if kind in ("user", "assistant") and session.first_conversation_is_sidechain is None:
        session.first_conversation_is_sidechain = record.get("isSidechain") is True
    if kind == "assistant":
        _add_assistant(session, record, number)
    elif kind == "user":
        _close_message(session)
        session.turns.extend(_user_turns(record, number))
    elif kind == "system":
        _close_message(session)
        session.turns.extend(_system_turns(record, number))


def _message(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    return message if isinstance(message, dict) else {}


def _blocks(content: object) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a bare string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _add_assistant(session: _Session, record: dict[str, Any], number: int) -> None:
    message = _message(record)
    message_id = message.get("id") if isinstance(message.get("id"), str) else None
    current = session.open_message
    if current is None or message_id is None or current.message_id != message_id:
        _close_message(session)
        # API errors and "No response requested." are written by Claude Code, not the model.
        synthetic = record.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>"
        current = _AssistantMessage(
            message_id,
            number,
            parse_timestamp(record.get("timestamp")),
            "system" if synthetic else "assistant",
        )
        session.open_message = current
    for block in _blocks(message.get("content")):
        block_type = block.get("type")
        if block_type == "text":
            _add_assistant_text(current, block.get("text"))
        elif block_type == "tool_use":
            text = render_tool_use(block.get("name"), block.get("input"))
            moment = parse_timestamp(record.get("timestamp"))
            current.turns.append(_Pending(current.speaker, text, "tool_use", moment, number))
        # "thinking" and "redacted_thinking" blocks are dropped on purpose.


def _add_assistant_text(message: _AssistantMessage, text: object) -> None:
    if not isinstance(text, str) or not text.strip():
        return
    message.texts.append(text.strip())
    if message.text_slot is None:
        kind = "command" if message.speaker == "system" else "message"
        slot = _Pending(message.speaker, "", kind, message.timestamp, message.first_line)
        message.text_slot = slot
        message.turns.append(slot)


def _close_message(session: _Session) -> None:
    """Emit the open assistant message's turns (text joined into its one slot)."""
    message = session.open_message
    if message is None:
        return
    if message.text_slot is not None:
        message.text_slot.text = "\n\n".join(message.texts)
    session.turns.extend(message.turns)
    session.open_message = None


def render_tool_use(name: object, tool_input: object) -> str:
    """A short line saying what a tool call did: `[Bash] mix phx.server 2>&1 | head -80`."""
    label = name if isinstance(name, str) and name else "tool"
    detail = ""
    if isinstance(tool_input, dict):
        for key in TOOL_INPUT_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value.strip():
                detail = value
                break
        else:
            if tool_input:
                detail = json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
    elif isinstance(tool_input, str):
        detail = tool_input
    # Redacted before it is cut or its lines joined: a private key in a heredoc is only
    # recognisable whole, with its line breaks.
    detail = redact(detail).text
    detail = " ".join(detail.split())
    if len(detail) > TOOL_TEXT_LIMIT:
        detail = detail[: TOOL_TEXT_LIMIT - 1].rstrip() + "…"
    return f"[{label}] {detail}".rstrip()


def _user_turns(record: dict[str, Any], number: int) -> list[_Pending]:
    """Turns from one `user` line; adjacent blocks of the same sort are merged."""
    moment = parse_timestamp(record.get("timestamp"))
    sidechain = record.get("isSidechain") is True
    compact_summary = record.get("isCompactSummary") is True
    turns: list[_Pending] = []
    for block in _blocks(_message(record).get("content")):
        block_type = block.get("type")
        if block_type == "tool_result":
            text = flatten_tool_result(block.get("content"))
            if text:
                turns.append(_Pending("tool", text, "tool_result", moment, number))
            continue
        if block_type == "text":
            classified = classify_user_text(block.get("text"))
        elif block_type in ("image", "document"):
            classified = ("user", f"[{block_type}]", "message")
        else:
            continue
        if classified is None:
            continue
        speaker, text, kind = classified
        if compact_summary and kind == "message":
            # The summary Claude Code writes when it compacts a conversation: the model's
            # words in a user line, so it must not be read as the user's.
            speaker, kind = "system", "summary"
        elif sidechain and speaker == "user":
            speaker = "agent"
        last = turns[-1] if turns else None
        if last is not None and (last.speaker, last.kind) == (speaker, kind):
            last.text = f"{last.text}\n\n{text}"
        else:
            turns.append(_Pending(speaker, text, kind, moment, number))
    return turns


def classify_user_text(text: object) -> tuple[str, str, str] | None:
    """(speaker, text, kind) for a user text block; None when it carries nothing.

    Slash commands, their output, interruptions and system reminders are "command" turns:
    kept for the record, never mined as something the user said. Reminders appended to a
    real prompt are injected context, not the user's words, so they are cut from it.
    """
    if not isinstance(text, str) or not text.strip():
        return None
    stripped = text.strip()
    if "<system-reminder>" in stripped:
        rest = _SYSTEM_REMINDER.sub("", stripped).strip()
        if not rest:
            bodies = [m["body"].strip() for m in _SYSTEM_REMINDER.finditer(stripped)]
            return "system", "\n\n".join(b for b in bodies if b) or stripped, "command"
        stripped = rest
    if stripped.startswith("[Request interrupted by user"):
        return "user", stripped, "command"
    if not stripped.startswith("<"):
        return "user", stripped, "message"
    tags = {match["tag"]: match["body"].strip() for match in _TAG.finditer(stripped)}
    if any(tag in tags for tag in _COMMAND_TAGS):
        return "user", _render_command(tags), "command"
    if "bash-input" in tags:
        return "user", f"! {tags['bash-input']}", "command"
    if any(tag in tags for tag in _OUTPUT_TAGS):
        outputs = [_ANSI.sub("", tags[tag]) for tag in _OUTPUT_TAGS if tags.get(tag)]
        return "system", "\n".join(outputs) or "(no output)", "command"
    return "user", stripped, "message"


def _render_command(tags: dict[str, str]) -> str:
    """`/model`, `/handgemacht:create-beads websearch to ...` from the command tags."""
    name = tags.get("command-name") or tags.get("command-message") or ""
    if name and not name.startswith("/"):
        name = f"/{name}"
    args = tags.get("command-args", "")
    return f"{name} {args}".strip() or "(command)"


def flatten_tool_result(content: object) -> str:
    """A tool result's content as plain text (it may be a string or a list of blocks)."""
    if isinstance(content, str):
        return _trim(content)
    parts: list[str] = []
    for block in _blocks(content):
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(_trim(block["text"]))
        elif block.get("type") in ("image", "document"):
            parts.append(f"[{block['type']}]")
    return "\n".join(part for part in parts if part)


def _trim(text: str) -> str:
    """Tool output without the reminders Claude Code appends to it (`<system-reminder>`)
    or blank lines around it; its first line keeps its indentation."""
    if "<system-reminder>" in text:
        text = _SYSTEM_REMINDER.sub("", text)
    return text.rstrip().lstrip("\r\n")


def _system_turns(record: dict[str, Any], number: int) -> list[_Pending]:
    """Only local slash commands (`/model` and its output) are kept from system lines."""
    if record.get("subtype") != "local_command":
        return []
    classified = classify_user_text(record.get("content"))
    if classified is None:
        return []
    speaker, text, kind = classified
    if kind == "message":  # an unexpected shape: keep it, but never as the user's words
        speaker, kind = "system", "command"
    return [_Pending(speaker, text, kind, parse_timestamp(record.get("timestamp")), number)]


# --- the transcript -----------------------------------------------------------------------


def _transcript(path: Path, session: _Session) -> Transcript:
    is_sidechain = bool(session.first_conversation_is_sidechain)
    session_id = session.session_id
    parent_session_id = None
    agent_id = session.agent_id or _agent_id_from_path(path)
    if agent_id and (is_sidechain or _in_subagents_folder(path)):
        parent_session_id = session_id
        session_id = f"{session_id}:{agent_id}" if session_id else agent_id
    turns = tuple(
        Turn(
            position=index,
            speaker=pending.speaker,
            text=pending.text,
            kind=pending.kind,
            timestamp=pending.timestamp,
            source_line=pending.line,
        )
        for index, pending in enumerate(t for t in session.turns if t.text.strip())
    )
    return Transcript(
        source_kind="claude-code",
        turns=turns,
        source_path=shown_path(path),
        session_id=session_id,
        branch=session.branch,
        project=session.project,
        title=session.title,
        parent_session_id=parent_session_id,
        is_sidechain=is_sidechain,
        started_at=session.started_at,
        ended_at=session.ended_at,
    )


def _in_subagents_folder(path: Path) -> bool:
    return path.parent.name == "subagents"


def _agent_id_from_path(path: Path) -> str | None:
    """`<session>/subagents/agent-<id>.jsonl` names its agent even if the lines do not."""
    if _in_subagents_folder(path) and path.stem.startswith("agent-"):
        return path.stem.removeprefix("agent-") or None
    return None
