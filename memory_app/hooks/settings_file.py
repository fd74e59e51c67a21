"""`memory-app hooks install|uninstall|status`: this app's entries in Claude Code's
`settings.json`.

Pure standard library (json, os), so the command never loads the store. The file is
shared with the person and with other tools, hence the care: our entries are found by
`MARKER` and merged beside everyone else's without reordering them, a changed file is
first copied to `settings.json.bak-memory-app`, every write is atomic, and a file that is
not valid JSON is refused rather than guessed at (json_file.py, shared with the MCP
server's registration in mcp_config.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_app.hooks import json_file
from memory_app.hooks.command import EVENTS, MARKER, hook_command
from memory_app.hooks.json_file import BACKUP_SUFFIX as BACKUP_SUFFIX  # for the callers
from memory_app.hooks.json_file import SettingsFileError

# Which sessions each event fires for (Claude Code's matcher); None: the event has none.
MATCHERS: dict[str, str | None] = {
    "SessionStart": "startup|resume|clear|compact",
    "UserPromptSubmit": None,
    "SessionEnd": None,
    "PreCompact": "auto|manual",
}
# Seconds Claude Code waits before giving up on the hook; the hooks answer far sooner.
TIMEOUTS = {event: 10 for event in EVENTS}


@dataclass
class HooksReport:
    """What a command found or did, for the CLI's text and `--json`."""

    scope: str
    path: Path
    changed: bool = False
    backup: Path | None = None
    # event -> our command there (None: not installed)
    events: dict[str, str | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "path": str(self.path),
            "exists": self.path.exists(),
            "changed": self.changed,
            "backup": str(self.backup) if self.backup else None,
            "installed": all(self.events.get(e) for e in EVENTS),
            "events": {
                event: {
                    "installed": command is not None,
                    "command": command,
                    "current": command == hook_command(event),
                }
                for event, command in self.events.items()
            },
        }


def settings_path(project: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Project scope: `DIR/.claude/settings.json`. User scope: `$CLAUDE_CONFIG_DIR/
    settings.json`, else `~/.claude/settings.json`, where Claude Code itself looks."""
    if project is not None:
        return project / ".claude" / "settings.json"
    env = os.environ if env is None else env
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir).expanduser() / "settings.json"
    return Path.home() / ".claude" / "settings.json"


def install(path: Path, scope: str = "user") -> HooksReport:
    """Add our entry for every event, or bring an outdated one up to date in place."""
    original, data = _load(path)
    new = json_file.copy(data)  # compared with `data` below
    hooks = new.setdefault("hooks", {})
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        _check_list(groups, event)
        entry = {"type": "command", "command": hook_command(event), "timeout": TIMEOUTS[event]}
        ours = [h for g in groups for h in _handlers(g) if _is_ours(h)]
        if not ours:
            group: dict[str, Any] = {"matcher": MATCHERS[event]} if MATCHERS[event] else {}
            group["hooks"] = [entry]
            groups.append(group)
            continue
        ours[0].update(entry)  # same place: the order of other tools' hooks is kept
        if len(ours) > 1:  # a duplicate of ours (an old copy pasted twice) goes
            hooks[event] = _without_ours(groups, keep=ours[0])
    return _finish(path, scope, original, data, new)


def uninstall(path: Path, scope: str = "user") -> HooksReport:
    """Remove exactly our entries, plus a group or event that they alone filled."""
    original, data = _load(path)
    new = json_file.copy(data)
    hooks = new.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue  # not ours to judge
            kept = _without_ours(groups)
            if kept:
                hooks[event] = kept
            elif groups:
                del hooks[event]  # our entries were all it held
        if not hooks and data.get("hooks"):
            del new["hooks"]
    return _finish(path, scope, original, data, new)


def status(path: Path, scope: str = "user") -> HooksReport:
    """Which events carry our entry, read only."""
    _, data = _load(path)
    return HooksReport(scope, path, events=_our_commands(data))


def _finish(
    path: Path, scope: str, original: bytes | None, data: dict[str, Any], new: dict[str, Any]
) -> HooksReport:
    report = HooksReport(scope, path, events=_our_commands(new))
    if new == data:
        return report  # idempotent: the file is not even rewritten
    report.backup = json_file.save(path, original, new)
    report.changed = True
    return report


def _load(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    return json_file.load(path, "hooks")


def _check_list(groups: Any, event: str) -> None:
    if not isinstance(groups, list):
        raise SettingsFileError(f'"hooks.{event}" is not a list; nothing was changed')


def _without_ours(groups: list[Any], keep: Any = None) -> list[Any]:
    """`groups` without our handlers (but `keep`), dropping a group only when ours were
    all it held: another tool's group, even an empty one, stays."""
    kept = []
    for group in groups:
        handlers = _handlers(group)
        if any(_is_ours(h) and h is not keep for h in handlers):
            group["hooks"] = [h for h in handlers if h is keep or not _is_ours(h)]
            if not group["hooks"]:
                continue
        kept.append(group)
    return kept


def _handlers(group: Any) -> list[Any]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        return group["hooks"]
    return []


def _is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and MARKER in str(handler.get("command", ""))


def _our_commands(data: dict[str, Any]) -> dict[str, str | None]:
    hooks = data.get("hooks")
    found: dict[str, str | None] = {}
    for event in EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        groups = groups if isinstance(groups, list) else []
        commands = [h["command"] for g in groups for h in _handlers(g) if _is_ours(h)]
        found[event] = commands[0] if commands else None
    return found
