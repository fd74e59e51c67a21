"""This app's whole Claude Code setup in one place, for the Settings page and for
`memory-app hooks install|uninstall|status`: the hooks (settings_file.py), the `/mem`
command (slash_command.py) and, optionally, the MCP server (mcp_config.py).

Standard library only, like the rest of the package. Every file concerned is read before
any is written, so a file that cannot be changed safely (not JSON, another tool's `mem.md`
or server under our name) stops the whole install with a SettingsFileError and nothing
written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_app.hooks import mcp_config, settings_file, slash_command
from memory_app.hooks.command import EVENTS, hook_command
from memory_app.hooks.json_file import SettingsFileError

LABELS = {
    "hooks": "Hooks (recall and capture)",
    "mcp": "MCP server",
    "command": "/mem command",
}


@dataclass(frozen=True)
class Part:
    name: str  # "hooks" | "mcp" | "command"
    label: str  # LABELS[name]
    installed: bool
    current: bool  # installed and pointing at this interpreter/version
    path: Path  # the file it lives in


@dataclass(frozen=True)
class ClaudeCodeSetup:
    scope: str  # "user" or "project"
    parts: tuple[Part, ...]

    @property
    def installed(self) -> bool:
        """The hooks and the command are installed (the MCP server is optional)."""
        return all(p.installed for p in self.parts if p.name != "mcp")

    def part(self, name: str) -> Part:
        return next(p for p in self.parts if p.name == name)


@dataclass(frozen=True)
class Reports:
    """Each file's report: what it holds, and what a command changed in it."""

    hooks: settings_file.HooksReport
    command: slash_command.CommandReport
    mcp: mcp_config.McpReport

    @property
    def scope(self) -> str:
        return self.hooks.scope

    @property
    def changed(self) -> bool:
        return self.hooks.changed or self.command.changed or self.mcp.changed

    def setup(self) -> ClaudeCodeSetup:
        hooks = self.hooks.events
        return ClaudeCodeSetup(
            self.scope,
            (
                Part(
                    "hooks",
                    LABELS["hooks"],
                    installed=all(hooks.get(e) for e in EVENTS),
                    current=all(hooks.get(e) == hook_command(e) for e in EVENTS),
                    path=self.hooks.path,
                ),
                Part(
                    "mcp",
                    LABELS["mcp"],
                    self.mcp.installed,
                    self.mcp.current,
                    self.mcp.path,
                ),
                Part(
                    "command",
                    LABELS["command"],
                    self.command.installed,
                    self.command.current,
                    self.command.path,
                ),
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """The hooks' report as before, `installed` meaning the whole setup, plus the
        command's and the server's."""
        payload = self.hooks.to_json()
        payload["installed"] = self.setup().installed
        payload["changed"] = self.changed
        payload["command"] = self.command.to_json()
        payload["mcp"] = self.mcp.to_json()
        return payload


def paths(project: Path | None = None, env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Where each part lives for that scope (project None: the user's)."""
    return {
        "hooks": settings_file.settings_path(project, env),
        "mcp": mcp_config.mcp_path(project, env),
        "command": slash_command.command_path(project, env),
    }


def run(
    action: str,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    mcp: bool = False,
) -> Reports:
    """`install` (the MCP server too when `mcp`), `uninstall` (everything) or `status`."""
    if project is not None and not project.is_dir():
        raise SettingsFileError(f"no such project folder: {project}")
    scope = "project" if project is not None else "user"
    where = paths(project, env)
    found = Reports(
        settings_file.status(where["hooks"], scope),
        slash_command.status(where["command"], scope),
        _mcp_status(where["mcp"], scope, strict=mcp),
    )
    if action == "status":
        return found
    if action == "install":
        slash_command.refuse_foreign(found.command)
        if mcp:
            mcp_config.refuse_foreign(found.mcp)
        return Reports(
            settings_file.install(where["hooks"], scope),
            slash_command.install(where["command"], scope),
            mcp_config.install(where["mcp"], scope) if mcp else found.mcp,
        )
    if action == "uninstall":
        return Reports(
            settings_file.uninstall(where["hooks"], scope),
            slash_command.uninstall(where["command"], scope),
            # An unreadable ~/.claude.json holds no entry we could have added: left alone.
            found.mcp if found.mcp.error else mcp_config.uninstall(where["mcp"], scope),
        )
    raise ValueError(f"unknown action {action!r}; known: install, uninstall, status")


def _mcp_status(path: Path, scope: str, *, strict: bool) -> mcp_config.McpReport:
    """The server's registration; a file we will not change may be unreadable (Claude
    Code's own `~/.claude.json`): reported, not fatal."""
    try:
        return mcp_config.status(path, scope)
    except SettingsFileError as exc:
        if strict:
            raise
        return mcp_config.McpReport(scope, path, error=str(exc))


def setup_status(
    project: Path | None = None, env: Mapping[str, str] | None = None
) -> ClaudeCodeSetup:
    return run("status", project, env).setup()


def setup_install(
    project: Path | None = None, env: Mapping[str, str] | None = None, *, mcp: bool = True
) -> ClaudeCodeSetup:
    """Install the hooks and the `/mem` command, and register the MCP server when `mcp`
    (an existing registration is left as it is otherwise). Raises SettingsFileError."""
    return run("install", project, env, mcp=mcp).setup()


def setup_uninstall(
    project: Path | None = None, env: Mapping[str, str] | None = None
) -> ClaudeCodeSetup:
    """Remove all three, exactly what install added. Raises SettingsFileError."""
    return run("uninstall", project, env).setup()
