"""Importers: turn source files into normalized transcripts (`ParsedSource`).

`discover` expands the paths a person picks (a file, a project folder, the whole
`~/.claude/projects` or `~/.codex/sessions` tree) into files; `detect_format` says which
importer reads a file, by its content first (a Codex rollout saved as `.txt`, a ChatGPT
export without an extension are still what they are), by its extension for plain text,
and refuses clearly what no importer understands; `parse_source` runs the importer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from memory_app.domain.transcripts import ParsedSource
from memory_app.ingest.chatgpt import parse_chatgpt
from memory_app.ingest.claude_code import parse_claude_code
from memory_app.ingest.codex import ITEM_TYPES as _CODEX_ITEMS
from memory_app.ingest.codex import RECORD_TYPES as _CODEX_TYPES
from memory_app.ingest.codex import parse_codex
from memory_app.ingest.files import (
    UnreadableFile,
    UnsupportedFormat,
    require_regular_file,
    shown_path,
)
from memory_app.ingest.plain_text import parse_text
from memory_app.ingest.puffin import is_branch_memory, parse_branch_memory, parse_puffin_history

__all__ = [
    "FORMATS",
    "UnreadableFile",
    "UnsupportedFormat",
    "claude_projects_dir",
    "codex_sessions_dir",
    "detect_format",
    "discover",
    "parse_source",
    "session_folders",
]

FORMATS = (
    "claude-code",
    "codex",
    "chatgpt",
    "puffin-history",
    "puffin-memory",
    "markdown",
    "text",
)
# What a folder is searched for; a .json file is taken only when its content is a format.
DISCOVERED_SUFFIXES = (".jsonl", ".json", ".md", ".markdown", ".txt")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
SUPPORTED = (
    "Claude Code and Codex CLI sessions (.jsonl), ChatGPT exports (conversations.json), "
    "Puffin's history.json and branch memory (.md), markdown (.md) and text (.txt), "
    "recognised by their content"
)

_PARSERS: dict[str, Callable[[Path], ParsedSource]] = {
    "claude-code": parse_claude_code,
    "codex": parse_codex,
    "chatgpt": parse_chatgpt,
    "puffin-history": parse_puffin_history,
    "puffin-memory": parse_branch_memory,
}
# How much of a file `detect_format` reads to judge a JSON document or a markdown title.
_HEAD_BYTES = 64 * 1024
# How many lines it reads before giving up on finding a session record, and how long one
# may be (a minified export is one line of hundreds of megabytes: never read whole here).
_SNIFF_LINES = 50
_SNIFF_LINE_BYTES = 4 * 1024 * 1024
# Record types that only Claude Code writes (some lines carry neither sessionId nor message).
_CLAUDE_CODE_TYPES = frozenset({"summary", "file-history-snapshot", "queue-operation"})
# A ChatGPT conversation's `mapping` of message nodes, each with its `children`.
_CHATGPT_MAPPING = re.compile(r'"mapping"\s*:\s*\{\s*"[^"\\]*"\s*:\s*\{')
_CHATGPT_CHILDREN = re.compile(r'"children"\s*:\s*\[')
# Puffin's history.json: `{"activeBranch": ..., "branches": {id: {"prompts": [...]}}}`.
_PUFFIN_BRANCHES = re.compile(r'"branches"\s*:\s*\{')
_PUFFIN_KEYS = re.compile(r'"(?:prompts|activeBranch)"\s*:')


def claude_projects_dir() -> Path:
    """Where Claude Code keeps its sessions: `$CLAUDE_CONFIG_DIR/projects` when that
    variable is set (as Claude Code itself reads it), else `~/.claude/projects`."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def codex_sessions_dir() -> Path:
    """Where the Codex CLI keeps its sessions: `$CODEX_HOME/sessions` when that variable is
    set (as Codex reads it), else `~/.codex/sessions`."""
    codex_home = os.environ.get("CODEX_HOME")
    if codex_home:
        return Path(codex_home).expanduser() / "sessions"
    return Path.home() / ".codex" / "sessions"


def session_folders() -> tuple[Path, ...]:
    """The folders coding assistants write their sessions to, which the startup check
    and the session watcher look in: Claude Code's projects, Codex's sessions."""
    return (claude_projects_dir(), codex_sessions_dir())


def detect_format(path: Path) -> str:
    """One of FORMATS for a file, judged by its content, then (for text) by its extension;
    UnsupportedFormat naming the file and what is supported otherwise."""
    require_regular_file(path)
    with path.open("rb") as stream:
        head = stream.read(_HEAD_BYTES).decode("utf-8", errors="replace").removeprefix("\ufeff")
    known = _format_by_content(path, head)
    if known is not None:
        return known
    shown = shown_path(path)
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".txt":
        return "text"
    if suffix == ".jsonl":
        if not head.strip():
            return "claude-code"  # an empty session file: imports as an empty transcript
        raise UnsupportedFormat(
            f"{shown}: not a Claude Code or Codex CLI session (its first JSON lines are "
            f"neither's records); supported: {SUPPORTED}"
        )
    if suffix == ".json":
        raise UnsupportedFormat(
            f"{shown}: not a ChatGPT export or a Puffin history.json (no conversations "
            f"of either in it); supported: {SUPPORTED}"
        )
    raise UnsupportedFormat(
        f"{shown}: unsupported file type {suffix or '(no extension)'!r}; supported: {SUPPORTED}"
    )


def _format_by_content(path: Path, head: str) -> str | None:
    if is_branch_memory(head):
        return "puffin-memory"
    # A session file's damaged first line is passed over; in a file named otherwise the
    # first line must say it (a README may quote a session's line further down).
    session = path.suffix.lower() == ".jsonl"
    start = head.lstrip()
    if not session and not start.startswith(("{", "[")):
        return None
    return _session_format(path, skip_damaged=session) or _document_format(start)


def _session_format(path: Path, *, skip_damaged: bool) -> str | None:
    """ "claude-code" or "codex" when the first readable JSON line is one's record (with
    `skip_damaged` False: the first line that is not blank)."""
    with path.open("rb") as stream:
        for _ in range(_SNIFF_LINES):
            raw = stream.readline(_SNIFF_LINE_BYTES)
            if not raw:
                break
            if len(raw) == _SNIFF_LINE_BYTES and not raw.endswith(b"\n"):
                if not skip_damaged:
                    return None
                _skip_rest_of_line(stream)  # too long to judge by: the next line may say
                continue
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8", errors="replace").removeprefix("\ufeff"))
            except (ValueError, RecursionError):  # not JSON, a 100,000-digit number, [[[[...
                if not skip_damaged:
                    return None
                continue
            if not isinstance(record, dict):
                return None
            judged = _record_format(record)
            if judged != "":
                return judged
    return None


def _record_format(record: dict[str, object]) -> str | None:
    """Whose record a JSON line is: "claude-code", "codex", None (neither), or "" when it
    names no type and the next line must say."""
    kind = record.get("type")
    if kind is None and isinstance(record.get("id"), str) and "instructions" in record:
        return "codex"  # the header of a rollout older than Codex 0.32
    if not isinstance(kind, str):
        return ""  # `"type": []`, such a rollout's state line: judge by the next line
    if kind in _CODEX_TYPES or "payload" in record:
        return "codex"
    if kind in _CODEX_ITEMS and ("role" in record or "call_id" in record):
        return "codex"  # a bare item of such a rollout
    if kind in _CLAUDE_CODE_TYPES or "sessionId" in record or "message" in record:
        return "claude-code"
    return None


def _skip_rest_of_line(stream: BinaryIO) -> None:
    while True:
        chunk = stream.readline(_SNIFF_LINE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


def _document_format(head: str) -> str | None:
    """ "chatgpt" or "puffin-history" when the start of a JSON document is one."""
    if _CHATGPT_MAPPING.search(head) and _CHATGPT_CHILDREN.search(head):
        return "chatgpt"
    if head.startswith("{") and _PUFFIN_BRANCHES.search(head) and _PUFFIN_KEYS.search(head):
        return "puffin-history"
    return None


def parse_source(path: Path, fmt: str | None = None) -> ParsedSource:
    """Read one file with the importer for `fmt` (detected when None)."""
    if not path.exists():
        raise FileNotFoundError(f"No such file: {shown_path(path)}")
    require_regular_file(path)
    fmt = fmt or detect_format(path)
    if fmt in _PARSERS:
        return _PARSERS[fmt](path)
    if fmt in ("markdown", "text"):
        return parse_text(path, source_kind=fmt)
    raise UnsupportedFormat(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")


def discover(paths: Sequence[Path]) -> list[Path]:
    """The files to import: each file as given, and from each folder every session,
    text and markdown file below it, and each .json file that is a ChatGPT export or a
    Puffin history (sorted; hidden folders and node_modules skipped).

    Only folders *below* a given one are checked for a leading dot, so the hidden
    `~/.claude/projects` itself can be given.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"No such file or folder: {path}")
        for file in [path] if path.is_file() else _walk(path):
            if file not in seen:
                seen.add(file)
                found.append(file)
    return found


def _walk(folder: Path) -> list[Path]:
    files: list[Path] = []
    for root, dirs, names in os.walk(folder):
        # Pruning in place keeps os.walk out of .git, node_modules and the like.
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS]
        files.extend(
            Path(root) / name
            for name in names
            if not name.startswith(".")
            and name.lower().endswith(DISCOVERED_SUFFIXES)
            and (not name.lower().endswith(".json") or _is_known(Path(root) / name))
        )
    # By full path text: a session file sorts before its own `<session>/subagents/` folder
    # ("." < "/"), so a parent is imported before its sub-agents.
    return sorted(files, key=str)


def _is_known(path: Path) -> bool:
    """A file a folder import takes: its content is one of the formats (a project's
    package.json or tsconfig.json is not)."""
    try:
        detect_format(path)
    except (UnsupportedFormat, OSError):
        return False
    return True
