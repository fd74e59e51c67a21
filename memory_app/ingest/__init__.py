"""Importers: turn source files into normalized transcripts (`ParsedSource`).

`discover` expands the paths a person picks (a file, a project folder, the whole
`~/.claude/projects` tree) into files; `detect_format` says which importer reads a file,
refusing clearly what no importer understands yet (a Codex `.jsonl` must not be
mis-read as Claude Code); `parse_source` runs the importer.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from itertools import islice
from pathlib import Path

from memory_app.domain.transcripts import ParsedSource
from memory_app.ingest.claude_code import parse_claude_code
from memory_app.ingest.files import require_regular_file, shown_path
from memory_app.ingest.plain_text import parse_text

__all__ = [
    "FORMATS",
    "UnsupportedFormat",
    "claude_projects_dir",
    "detect_format",
    "discover",
    "parse_source",
]

FORMATS = ("claude-code", "markdown", "text")
DISCOVERED_SUFFIXES = (".jsonl", ".md", ".markdown", ".txt")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})

# How many lines `detect_format` reads before giving up on finding a JSON object.
_SNIFF_LINES = 50
# Record types that only Claude Code writes (some lines carry neither sessionId nor message).
_CLAUDE_CODE_TYPES = frozenset({"summary", "file-history-snapshot", "queue-operation"})
# Codex CLI rollout files (`~/.codex/sessions/**/rollout-*.jsonl`).
_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})


class UnsupportedFormat(ValueError):
    """A file no importer can read (yet)."""


def claude_projects_dir() -> Path:
    """Where Claude Code keeps its sessions: `$CLAUDE_CONFIG_DIR/projects` when that
    variable is set (as Claude Code itself reads it), else `~/.claude/projects`."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def detect_format(path: Path) -> str:
    """ "claude-code", "markdown" or "text" for a file; UnsupportedFormat otherwise."""
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".txt":
        return "text"
    if suffix == ".jsonl":
        _check_claude_code(path)
        return "claude-code"
    hint = " (ChatGPT exports are not supported yet)" if suffix == ".json" else ""
    raise UnsupportedFormat(
        f"{shown_path(path)}: unsupported file type {suffix or '(no extension)'!r}{hint}; "
        "supported: Claude Code sessions (.jsonl), text (.txt) and markdown (.md)"
    )


def _check_claude_code(path: Path) -> None:
    """Raise UnsupportedFormat unless the first readable JSON line is a Claude Code record."""
    require_regular_file(path)
    with path.open("rb") as stream:
        lines = [raw for raw in islice(stream, _SNIFF_LINES) if raw.strip()]
    if not lines:
        return  # an empty session file: imports as an empty transcript
    for raw in lines:
        try:
            record = json.loads(raw.decode("utf-8", errors="replace").removeprefix("\ufeff"))
        except (ValueError, RecursionError):  # not JSON, a 100,000-digit number, [[[[...
            continue
        if not isinstance(record, dict):
            break
        kind = record.get("type")
        if not isinstance(kind, str):
            continue  # `"type": []` names no record: judge by the next line
        if kind in _CODEX_TYPES or "payload" in record:
            raise UnsupportedFormat(
                f"{shown_path(path)}: this is a Codex CLI session; Codex is not supported yet"
            )
        if isinstance(kind, str) and (
            kind in _CLAUDE_CODE_TYPES or "sessionId" in record or "message" in record
        ):
            return
        break
    raise UnsupportedFormat(
        f"{shown_path(path)}: not a Claude Code session (its first JSON line is not a Claude"
        " Code record); other .jsonl formats are not supported yet"
    )


def parse_source(path: Path, fmt: str | None = None) -> ParsedSource:
    """Read one file with the importer for `fmt` (detected when None)."""
    if not path.exists():
        raise FileNotFoundError(f"No such file: {shown_path(path)}")
    require_regular_file(path)
    fmt = fmt or detect_format(path)
    if fmt == "claude-code":
        return parse_claude_code(path)
    if fmt in ("markdown", "text"):
        return parse_text(path, source_kind=fmt)
    raise UnsupportedFormat(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")


def discover(paths: Sequence[Path]) -> list[Path]:
    """The files to import: each file as given, and from each folder every session,
    text and markdown file below it (sorted; hidden folders and node_modules skipped).

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
            if not name.startswith(".") and name.lower().endswith(DISCOVERED_SUFFIXES)
        )
    # By full path text: a session file sorts before its own `<session>/subagents/` folder
    # ("." < "/"), so a parent is imported before its sub-agents.
    return sorted(files, key=str)
