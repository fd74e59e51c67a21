"""What an importer may open, and text it can safely store.

One bad file must never stop or hang an import: a FIFO named `*.jsonl` blocks the
reader forever and a link to `/dev/zero` never ends, so only regular files are read. A
file name that is not valid UTF-8, or a JSON string with half of a UTF-16 surrogate pair
(a truncated emoji in tool output), cannot be encoded for the database: both are shown
with U+FFFD in its place.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import ParseProblem

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape of a surrogate: only lines with one need the slower clean-up.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


# The importers' cap: a session, a history or a note file this large is refused unread
# (one JSON document is held several times its size while it is parsed).
MAX_FILE_BYTES = 200 * 1024 * 1024


def too_large(path: Path, source: str, limit: int = MAX_FILE_BYTES) -> ParseProblem | None:
    """The problem of a file over `limit` (its size and the limit, in MB), or None."""
    size = path.stat().st_size
    if size <= limit:
        return None
    megabytes = 1024 * 1024
    message = f"file too large ({size // megabytes} MB, limit {limit // megabytes} MB)"
    return ParseProblem(source, None, message)


class NotARegularFile(OSError):
    """A FIFO, a device, a socket: reading it could block or never end."""


class UnsupportedFormat(ValueError):
    """A file no importer can read (yet)."""


class UnreadableFile(UnsupportedFormat):
    """A file given as (or recognised as) one format whose content is not what that format
    holds: broken JSON, another shape. Nothing of it can be imported, so it is an error of
    that file, named with what is wrong."""


def require_regular_file(path: Path) -> None:
    """Raise NotARegularFile (naming the file) unless `path` is a regular file; nothing
    is opened, so a FIFO cannot block."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a folder"
            if stat.S_ISDIR(mode)
            else "not a regular file"
        )
        raise NotARegularFile(f"{shown_path(path)}: {kind}, not a regular file; skipped")


def shown_path(path: Path | str) -> str:
    """The path as valid UTF-8 text: undecodable bytes of its name become U+FFFD."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def valid_text(text: str) -> str:
    """The text with each lone surrogate replaced by U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def has_lone_surrogate(text: str) -> bool:
    return _LONE_SURROGATE.search(text) is not None


def without_lone_surrogates(value: Any) -> Any:
    """A decoded JSON value with every string (keys too) made valid."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {valid_text(k): without_lone_surrogates(v) for k, v in value.items()}
    return value
