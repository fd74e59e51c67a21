"""`memory-app hooks install --mcp`: `memory-app mcp` registered with Claude Code as the
MCP server `memory-curator`, served over stdio.

Claude Code reads MCP servers from the top-level `"mcpServers"` object of `DIR/.mcp.json`
(project scope, meant to be checked in; Claude Code asks each person to approve a
project's servers before it starts them) or of `~/.claude.json` (user scope: every
project), not from settings.json. With CLAUDE_CONFIG_DIR set, Claude Code keeps that file
in the folder the variable names, `$CLAUDE_CONFIG_DIR/.claude.json` (what its users
report; its own documentation says only that the variable moves its configuration and
data), and that is where this looks.

Our entry runs the interpreter the hooks run (command.py), `-m memory_app mcp`. Like the
hooks' commands it sets no environment of its own: the server inherits Claude Code's, so
it finds the same store as the hooks (MEMORY_APP_DATA_DIR or the platform's folder).

The same care as settings_file.py, through json_file.py: other servers and every other key
stay as they are and in their order, installing again changes nothing, the previous file
is backed up, writes are atomic, and a file that is not JSON is refused. `uninstall`
removes exactly our entry, and the `"mcpServers"` key when our entry was all it held and
the file had none before; a file that we created and that holds nothing else is deleted.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_app.hooks import json_file
from memory_app.hooks.json_file import SettingsFileError

SERVER_NAME = "memory-curator"
SECTION = "mcpServers"
MODULE_ARGS = ["-m", "memory_app", "mcp"]


def server_entry(python: str | None = None) -> dict[str, Any]:
    """Our entry: the interpreter the hooks run (not shell-quoted: Claude Code starts the
    command directly, with `args` as its arguments)."""
    return {"type": "stdio", "command": python or sys.executable, "args": list(MODULE_ARGS)}


def mcp_path(project: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Project scope: `DIR/.mcp.json`. User scope: `$CLAUDE_CONFIG_DIR/.claude.json`,
    else `~/.claude.json`."""
    if project is not None:
        return project / ".mcp.json"
    env = os.environ if env is None else env
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir).expanduser() / ".claude.json"
    return Path.home() / ".claude.json"


@dataclass
class McpReport:
    """What a command found or did, for the CLI's text and `--json`."""

    scope: str
    path: Path
    entry: dict[str, Any] | None = None  # our entry in the file (None: not registered)
    foreign: bool = False  # another server holds our name: left alone
    changed: bool = False
    backup: Path | None = None
    removed: bool = False  # the file held nothing but our entry and was deleted
    error: str | None = None  # the file could not be read (status only)

    @property
    def installed(self) -> bool:
        return self.entry is not None

    @property
    def current(self) -> bool:
        """Registered and running this interpreter."""
        return self.entry is not None and all(
            self.entry.get(k) == v for k, v in server_entry().items()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": SERVER_NAME,
            "path": str(self.path),
            "installed": self.installed,
            "current": self.current,
            "command": self.entry.get("command") if self.entry else None,
            "args": self.entry.get("args") if self.entry else None,
            "foreign": self.foreign,
            "changed": self.changed,
            "backup": str(self.backup) if self.backup else None,
            "removed": self.removed,
            "error": self.error,
        }


def install(path: Path, scope: str = "user") -> McpReport:
    """Add our entry, or bring it up to date in place (other keys of it kept)."""
    original, data = json_file.load(path, SECTION)
    report = _report(path, scope, data)
    refuse_foreign(report)
    new = json_file.copy(data)
    servers = new.setdefault(SECTION, {})
    servers[SERVER_NAME] = {**servers.get(SERVER_NAME, {}), **server_entry()}
    report.entry = servers[SERVER_NAME]
    if new != data:
        report.backup = json_file.save(path, original, new)
        report.changed = True
    return report


def refuse_foreign(report: McpReport) -> None:
    """Raise when another server holds our name, which we never replace."""
    if report.foreign:
        raise SettingsFileError(
            f'{report.path} already has another MCP server named "{SERVER_NAME}"; '
            "nothing was changed (rename or remove it first)"
        )


def uninstall(path: Path, scope: str = "user") -> McpReport:
    """Remove exactly our entry (another server under our name stays)."""
    original, data = json_file.load(path, SECTION)
    report = _report(path, scope, data)
    if report.entry is None:
        return report
    new = json_file.copy(data)
    servers = new[SECTION]
    del servers[SERVER_NAME]
    before = json_file.backup_data(path)  # the file before our last change, if known
    if not servers and (before is None or SECTION not in _without_ours(before)):
        del new[SECTION]  # we created the key
    report.entry = None
    report.changed = True
    if not new and (before is None or (before and not _without_ours(before))):
        json_file.remove(path, with_backup=before is not None)  # we created the file
        report.removed = True
    else:
        report.backup = json_file.save(path, original, new)
    return report


def status(path: Path, scope: str = "user") -> McpReport:
    """Whether our server is registered, read only."""
    _, data = json_file.load(path, SECTION)
    return _report(path, scope, data)


def _report(path: Path, scope: str, data: dict[str, Any]) -> McpReport:
    entry = data.get(SECTION, {}).get(SERVER_NAME)
    if entry is None:
        return McpReport(scope, path)
    if not _is_ours(entry):
        return McpReport(scope, path, foreign=True)
    return McpReport(scope, path, entry=entry)


def _is_ours(entry: Any) -> bool:
    """`<python> -m memory_app mcp`, or `memory-app mcp` as the README's `claude mcp add`
    line registers it."""
    if not isinstance(entry, dict) or not isinstance(entry.get("args", []), list):
        return False
    args = entry.get("args", [])
    command = str(entry.get("command", ""))
    return args[-3:] == MODULE_ARGS or (Path(command).stem == "memory-app" and args == ["mcp"])


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without our entry, and without the key when our entry was all it held."""
    servers = data.get(SECTION)
    if not isinstance(servers, dict) or not _is_ours(servers.get(SERVER_NAME)):
        return data
    rest = {k: v for k, v in data.items() if k != SECTION}
    others = {k: v for k, v in servers.items() if k != SERVER_NAME}
    return {**rest, SECTION: others} if others else rest
