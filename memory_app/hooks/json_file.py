"""Careful changes to the JSON files Claude Code shares with the person and other tools
(`settings.json`, `.mcp.json`, `~/.claude.json`), for `memory-app hooks install`.

Pure standard library. A file that is not a JSON object is refused rather than guessed
at; an unchanged file is not even rewritten; before a change the previous file is copied
to `NAME.bak-memory-app` beside it; every write is atomic (a temp file, then a rename);
and when a change gives back the settings the backup holds, the backup's own bytes are
written, so install then uninstall returns the person's file byte for byte.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

BACKUP_SUFFIX = ".bak-memory-app"


class SettingsFileError(Exception):
    """The settings file cannot be read or changed safely; nothing was written."""


def load(path: Path, section: str) -> tuple[bytes | None, dict[str, Any]]:
    """The file's bytes (None: no file) and its object; `section` must be an object too
    when present ("hooks", "mcpServers")."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise SettingsFileError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = _parse(raw)  # an empty file (`touch`) holds no settings yet
    except ValueError as exc:
        raise SettingsFileError(
            f"{path} is not valid JSON ({exc}); fix it or move it aside, nothing was changed"
        ) from exc
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} does not hold a JSON object; nothing was changed")
    if not isinstance(data.get(section, {}), dict):
        raise SettingsFileError(f'"{section}" in {path} is not an object; nothing was changed')
    return raw, data


def copy(data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy to change, compared with the original to see whether to write."""
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def backup_path(path: Path) -> Path:
    """Beside the real file: a symlinked settings file stays a symlink."""
    target = Path(os.path.realpath(path))
    return target.with_name(target.name + BACKUP_SUFFIX)


def backup_data(path: Path) -> dict[str, Any] | None:
    """What the file held before our last change to it (None: no readable backup)."""
    try:
        data = _parse(backup_path(path).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def save(path: Path, original: bytes | None, new: dict[str, Any]) -> Path | None:
    """Write `new` over the file that held `original` (None: none did); returns the
    backup written, if any. Raises SettingsFileError when it cannot write."""
    target = Path(os.path.realpath(path))
    backup = backup_path(path)
    content = _restored(backup, new)
    if content is None:
        content = (json.dumps(new, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        if _current(target) != original:  # Claude Code rewrites ~/.claude.json often
            raise SettingsFileError(
                f"{target} changed while it was being updated; nothing was written: "
                "run the command again"
            )
        if original is not None:
            write_atomic(backup, original)
        write_atomic(target, content)
    except OSError as exc:
        raise SettingsFileError(f"cannot write {exc.filename or target}: {exc.strerror}") from exc
    return backup if original is not None else None


def _current(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def remove(path: Path, *, with_backup: bool) -> None:
    """Delete a file that held only our entries (and its backup, holding no more)."""
    try:
        if with_backup:
            backup_path(path).unlink(missing_ok=True)
        Path(os.path.realpath(path)).unlink(missing_ok=True)
    except OSError as exc:
        raise SettingsFileError(f"cannot remove {exc.filename or path}: {exc.strerror}") from exc


def _restored(backup: Path, new: dict[str, Any]) -> bytes | None:
    """The backup's exact bytes when they hold the same settings as `new`, so that
    `install` then `uninstall` gives back the person's file byte for byte, with its own
    layout, rather than our re-indented copy of it."""
    try:
        before = backup.read_bytes()
        return before if _parse(before) == new else None
    except (OSError, ValueError):
        return None


def _parse(raw: bytes) -> Any:
    return json.loads(raw) if raw.strip() else {}  # an empty file holds no settings


def write_atomic(path: Path, content: bytes) -> None:
    """Temp file beside it, then os.replace: Claude Code never reads half a file. An
    existing file keeps its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
