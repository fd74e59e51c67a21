"""Codex CLI sessions (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).

One JSON object per line, `{"timestamp", "type", "payload"}`. What this importer has to
know (verified on the samples in `tests/fixtures/samples/codex/`, a real Codex 0.77 session
and a synthetic one covering tool calls):

- `session_meta` names the session (`id`), its folder (`cwd`) and, when Codex saw a git
  repository, its branch (`git.branch`). `turn_context` repeats the folder each turn.
- `response_item` is the conversation: `message` items of role user and assistant,
  `reasoning` (only its summary is readable; `encrypted_content` never is), tool calls
  (`function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`; MCP tools
  are function calls named `server__tool`) and their `*_output`. Tool traffic becomes
  tool turns as Claude Code's does (`[exec_command] ls`, then the output as the tool's
  turn); a reasoning summary becomes a `[reasoning]` turn of the assistant, kept for the
  record and never read as something anyone said.
- Codex hands the model its context as *user* messages: the AGENTS.md instructions, the
  `<environment_context>`, skills, notifications. Those are dropped, as Claude Code's meta
  lines are; a `!` shell command the user ran (`<user_shell_command>`) is kept as a command.
- `event_msg` lines mirror what the items say (`user_message`, `agent_message`) for the
  terminal: they are read only when a rollout has no message items at all.
- Rollouts before Codex 0.32 had no envelope: a header line with the session's `id` and
  bare items. They are read the same way. Any other record type is skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import ParsedSource, ParseProblem, Transcript, Turn
from memory_app.ingest.claude_code import parse_timestamp, render_tool_use, session_title
from memory_app.ingest.files import require_regular_file, shown_path, too_large
from memory_app.ingest.jsonl import json_records

RECORD_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
# The items a rollout before 0.32 wrote bare, without the envelope.
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
# Context Codex injects as user messages (codex-rs `contextual_user_message.rs`): a message
# holding one of these fragments is not something the user typed.
_CONTEXT_FRAGMENTS = (
    ("# AGENTS.md instructions", "</INSTRUCTIONS>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<environment_context>", "</environment_context>"),
    ("<skill>", "</skill>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<user_action>", "</user_action>"),
)
_SHELL_COMMAND = re.compile(
    r"\s*<user_shell_command>.*?<command>(?P<command>.*?)</command>.*</user_shell_command>\s*",
    re.DOTALL,
)
_IMAGE_TAG = re.compile(r"</?image\b[^>]*>", re.IGNORECASE)
_FILE_UUID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)
# Shells a `shell` call wraps its command in: `["bash", "-lc", "ls"]` shows as `ls`.
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})


@dataclass
class _Pending:
    speaker: str
    text: str
    kind: str
    timestamp: datetime | None
    line: int
    mirror: bool = False  # from an `event_msg`: dropped when the items say it too


@dataclass
class _Rollout:
    turns: list[_Pending] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    meta_seen: bool = False
    session_id: str | None = None
    project: str | None = None
    branch: str | None = None
    parent_session_id: str | None = None
    is_sidechain: bool = False
    has_messages: bool = False  # a `message` item was seen: events only mirror them
    started_at: datetime | None = None
    ended_at: datetime | None = None


def parse_codex(path: Path) -> ParsedSource:
    """Read one Codex CLI rollout; unreadable lines become problems, not failures."""
    require_regular_file(path)
    source = shown_path(path)
    refused = too_large(path, source)
    if refused is not None:
        return ParsedSource(source, (), (refused,))
    rollout = _Rollout()
    for number, record in json_records(path, rollout.problems):
        kind, payload = _envelope(record)
        if kind is None:
            continue
        moment = parse_timestamp(record.get("timestamp"))
        _note_time(rollout, moment)
        _add(rollout, kind, payload, moment, number)
    return ParsedSource(source, (_transcript(path, rollout),), tuple(rollout.problems))


def _envelope(record: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(record type, payload) of a line; a pre-0.32 header or bare item as the envelope
    would have said it; (None, {}) for a line that is no Codex record."""
    kind = record.get("type")
    payload = record.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload
    if isinstance(kind, str) and kind in ITEM_TYPES:
        return "response_item", record
    if kind is None and "record_type" not in record and isinstance(record.get("id"), str):
        return "session_meta", record
    return None, {}


def _note_time(rollout: _Rollout, moment: datetime | None) -> None:
    if moment is None:
        return
    if rollout.started_at is None or moment < rollout.started_at:
        rollout.started_at = moment
    if rollout.ended_at is None or moment > rollout.ended_at:
        rollout.ended_at = moment


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _add(
    rollout: _Rollout, kind: str, payload: dict[str, Any], moment: datetime | None, line: int
) -> None:
    if kind == "session_meta":
        _note_meta(rollout, payload)
    elif kind == "turn_context":
        rollout.project = rollout.project or _text(payload.get("cwd"))
    elif kind == "response_item":
        rollout.turns.extend(_item_turns(rollout, payload, moment, line))
    elif kind == "event_msg":
        rollout.turns.extend(_event_turns(rollout, payload, moment, line))
    elif kind == "compacted":
        summary = _text(payload.get("message"))
        if summary:
            rollout.turns.append(_Pending("system", summary.strip(), "summary", moment, line))
    # Any other record (token counts, world state, a type of a later Codex) is skipped.


def _note_meta(rollout: _Rollout, payload: dict[str, Any]) -> None:
    """The first `session_meta` is the session's own (a fork copies its parent's after it)."""
    if rollout.meta_seen:
        return
    rollout.meta_seen = True
    rollout.session_id = _text(payload.get("id"))
    rollout.project = _text(payload.get("cwd")) or rollout.project
    git = payload.get("git")
    if isinstance(git, dict):
        rollout.branch = _text(git.get("branch"))
    origin = payload.get("source")
    if isinstance(origin, dict) and "subagent" in origin:
        # A sub-agent's prompts come from the agent that spawned it, not from a person.
        rollout.is_sidechain = True
        rollout.parent_session_id = _find_text(origin, "parent_thread_id")


def _find_text(value: object, key: str) -> str | None:
    """The first string under `key` anywhere in a JSON value."""
    if isinstance(value, dict):
        if _text(value.get(key)):
            return str(value[key])
        children: list[Any] = list(value.values())
    elif isinstance(value, list):
        children = value
    else:
        return None
    for child in children:
        found = _find_text(child, key)
        if found:
            return found
    return None


# --- items ---------------------------------------------------------------------------


def _item_turns(
    rollout: _Rollout, item: dict[str, Any], moment: datetime | None, line: int
) -> list[_Pending]:
    kind = item.get("type")
    if kind == "message":
        rollout.has_messages = True
        return _message_turns(rollout, item, moment, line)
    if kind == "reasoning":
        summary = "\n\n".join(_texts(item.get("summary"), ("summary_text",)))
        if not summary.strip():
            return []  # only `encrypted_content`: nothing a person can read
        text = render_tool_use("reasoning", summary)
        return [_Pending("assistant", text, "tool_use", moment, line)]
    if kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
        text = render_tool_use(*_tool_call(item))
        return [_Pending("assistant", text, "tool_use", moment, line)]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = tool_output(item.get("output"))
        return [_Pending("tool", output, "tool_result", moment, line)] if output else []
    return []  # ghost snapshots, compaction checkpoints, items of a later Codex


def _texts(content: object, types: tuple[str, ...]) -> list[str]:
    """The `text` of each block of these types, in order (a bare string is one)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") in types
        and isinstance(block.get("text"), str)
    ]


def _message_turns(
    rollout: _Rollout, item: dict[str, Any], moment: datetime | None, line: int
) -> list[_Pending]:
    role = item.get("role")
    content = item.get("content")
    if role == "assistant":
        text = "\n\n".join(t.strip() for t in _texts(content, ("output_text", "text")) if t.strip())
        return [_Pending("assistant", text, "message", moment, line)] if text else []
    if role != "user":
        return []  # developer and system messages: Codex's own instructions
    texts = _texts(content, ("input_text", "text"))
    if any(is_injected_context(text) for text in texts):
        return []
    shell = next((m for m in map(_SHELL_COMMAND.fullmatch, texts) if m), None)
    if shell is not None:
        return [_Pending("user", f"! {shell['command'].strip()}", "command", moment, line)]
    parts = [_IMAGE_TAG.sub("", text).strip() for text in texts]
    images = (
        sum(1 for b in content if isinstance(b, dict) and b.get("type") == "input_image")
        if isinstance(content, list)
        else 0
    )
    text = "\n\n".join([*(p for p in parts if p), *(["[image]"] * images)])
    if not text:
        return []
    speaker = "agent" if rollout.is_sidechain else "user"
    return [_Pending(speaker, text, "message", moment, line)]


def is_injected_context(text: str) -> bool:
    """True for the context Codex writes as a user message (AGENTS.md, the environment)."""
    stripped = text.strip()
    lowered = stripped.lower()
    return any(
        lowered.startswith(start.lower()) and lowered.endswith(end.lower())
        for start, end in _CONTEXT_FRAGMENTS
    )


def _tool_call(item: dict[str, Any]) -> tuple[str, object]:
    """(tool name, its input) of a call item, for `render_tool_use`."""
    kind = item.get("type")
    if kind == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        return "shell", {"command": _command_line(command)}
    if kind == "web_search_call":
        action = item.get("action")
        return "web_search", action if isinstance(action, dict) else {}
    name = _text(item.get("name")) or str(kind)
    if kind == "custom_tool_call":
        return name, item.get("input")
    arguments = item.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return name, arguments
    if isinstance(arguments, dict):
        arguments = dict(arguments)
        command = arguments.pop("cmd", None) or arguments.get("command")
        if command is not None:
            arguments["command"] = _command_line(command)
    return name, arguments


def _command_line(command: object) -> str:
    """A command as one line: `["bash", "-lc", "ls -la"]` is `ls -la`."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list):
        return ""
    words = [str(word) for word in command]
    if len(words) == 3 and words[0] in _SHELLS and words[1] in ("-lc", "-c"):
        return words[2]
    return " ".join(words)


def tool_output(output: object) -> str:
    """A tool's output as text: a string (or the `output` of the JSON envelope older shell
    calls wrote), or the text blocks of a list, or an MCP result's text content."""
    if isinstance(output, str):
        stripped = output.strip()
        if stripped.startswith("{"):
            try:
                decoded = json.loads(stripped)
            except (ValueError, RecursionError):
                decoded = None
            if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
                return decoded["output"].rstrip()
        return output.rstrip().lstrip("\r\n")
    if isinstance(output, list):
        return "\n".join(
            t.rstrip() for t in _texts(output, ("input_text", "output_text", "text")) if t.strip()
        )
    if isinstance(output, dict):
        for key in ("content", "output"):
            if key in output:
                return tool_output(output[key])
    return ""


# --- events --------------------------------------------------------------------------


def _event_turns(
    rollout: _Rollout, event: dict[str, Any], moment: datetime | None, line: int
) -> list[_Pending]:
    kind = event.get("type")
    text = _text(event.get("message"))
    if text is None:
        return []
    if kind == "user_message" and not is_injected_context(text):
        speaker = "agent" if rollout.is_sidechain else "user"
        return [_Pending(speaker, text.strip(), "message", moment, line, mirror=True)]
    if kind == "agent_message":
        return [_Pending("assistant", text.strip(), "message", moment, line, mirror=True)]
    return []


# --- the transcript ------------------------------------------------------------------


def _transcript(path: Path, rollout: _Rollout) -> Transcript:
    kept = [t for t in rollout.turns if t.text.strip() and not (t.mirror and rollout.has_messages)]
    turns = tuple(
        Turn(
            position=index,
            speaker=pending.speaker,
            text=pending.text,
            kind=pending.kind,
            timestamp=pending.timestamp,
            source_line=pending.line,
        )
        for index, pending in enumerate(kept)
    )
    session_id = rollout.session_id
    if session_id is None:
        match = _FILE_UUID.search(path.stem)
        session_id = match.group(0) if match else None
    return Transcript(
        source_kind="codex",
        turns=turns,
        source_path=shown_path(path),
        session_id=session_id,
        branch=rollout.branch,
        project=rollout.project,
        title=session_title(None, turns),
        parent_session_id=rollout.parent_session_id,
        is_sidechain=rollout.is_sidechain,
        started_at=rollout.started_at,
        ended_at=rollout.ended_at,
    )
