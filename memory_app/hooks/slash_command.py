"""The `/mem` command in Claude Code: a custom slash command, `mem.md`, that `memory-app
hooks install` writes beside the hooks and `hooks uninstall` removes.

It is named `/mem`, not `/memory`: `/memory` is Claude Code's built-in command for
editing the CLAUDE.md memory files, and a custom command cannot take a built-in's name.

Claude Code reads custom commands from `DIR/.claude/commands/NAME.md` (project scope) and
`~/.claude/commands/NAME.md` (user scope; `$CLAUDE_CONFIG_DIR/commands/` when that
variable is set, as for settings.json). The file is markdown with a YAML frontmatter
(`description`, `argument-hint`, and `allowed-tools`, here `Bash(...)` for our one
command so that it runs without a permission prompt); `$ARGUMENTS` stands for what the
person typed after `/mem`, and a "!`command`" is run before the prompt is sent, its
output taking its place. Ours runs `<the hooks' interpreter> -m memory_app slash
$ARGUMENTS` (cli.py) and asks Claude to show that output as it is and do nothing else.

The file carries `MARKER`, so we only ever overwrite or remove our own file: another
`mem.md` at that path is refused with an error and left untouched.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_app.hooks import json_file
from memory_app.hooks.json_file import SettingsFileError

NAME = "mem"
MARKER = "<!-- memory-curator /mem command"
ACTIONS_HINT = "list [query] | pin ID | forget ID | off | on | why"


def slash_cli(python: str | None = None) -> str:
    """The shell command the file runs, before `$ARGUMENTS`."""
    return f"{shlex.quote(python or sys.executable)} -m memory_app slash"


def command_text(python: str | None = None) -> str:
    cli = slash_cli(python)
    return (
        "---\n"
        "description: \"Memory Curator: list, pin or forget this project's memories, pause "
        'them, see why they were recalled"\n'
        f'argument-hint: "{ACTIONS_HINT}"\n'
        f"allowed-tools: Bash({cli}:*)\n"
        "disable-model-invocation: true\n"
        "---\n"
        f"{MARKER}: written by `memory-app hooks install`, removed by "
        "`memory-app hooks uninstall` -->\n"
        "\n"
        f'!`{cli} "$ARGUMENTS"`\n'
        "\n"
        "Show the output above to the user exactly as it is, as your whole reply. Do "
        "nothing else: no tool calls, no commentary, no follow-up.\n"
    )


def command_path(project: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Project scope: `DIR/.claude/commands/mem.md`. User scope:
    `$CLAUDE_CONFIG_DIR/commands/mem.md`, else `~/.claude/commands/mem.md`."""
    if project is not None:
        return project / ".claude" / "commands" / f"{NAME}.md"
    env = os.environ if env is None else env
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    base = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    return base / "commands" / f"{NAME}.md"


@dataclass
class CommandReport:
    """What a command found or did, for the CLI's text and `--json`."""

    scope: str
    path: Path
    installed: bool = False  # our file is there
    current: bool = False  # ... and it is what this version and interpreter write
    foreign: bool = False  # another file of that name: left alone
    changed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": f"/{NAME}",
            "path": str(self.path),
            "installed": self.installed,
            "current": self.current,
            "foreign": self.foreign,
            "changed": self.changed,
        }


def install(path: Path, scope: str = "user") -> CommandReport:
    """Write our file, or bring it up to date; refuse to replace someone else's."""
    report = status(path, scope)
    refuse_foreign(report)
    if not report.current:
        try:
            json_file.write_atomic(path, command_text().encode("utf-8"))
        except OSError as exc:
            raise SettingsFileError(f"cannot write {exc.filename or path}: {exc.strerror}") from exc
        report.changed = True
    report.installed = report.current = True
    return report


def refuse_foreign(report: CommandReport) -> None:
    """Raise when another file holds the path, which we never replace."""
    if report.foreign:
        raise SettingsFileError(
            f"{report.path} is another command named /{NAME}, not this app's; "
            "nothing was changed (rename or remove it first)"
        )


def uninstall(path: Path, scope: str = "user") -> CommandReport:
    """Remove our file; another file of that name stays."""
    report = status(path, scope)
    if report.installed:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise SettingsFileError(f"cannot remove {path}: {exc.strerror}") from exc
        report.installed = report.current = False
        report.changed = True
    return report


def status(path: Path, scope: str = "user") -> CommandReport:
    """Whether our file is there and current, read only."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return CommandReport(scope, path)
    except OSError as exc:
        raise SettingsFileError(f"cannot read {path}: {exc.strerror}") from exc
    if MARKER.encode("utf-8") not in content:
        return CommandReport(scope, path, foreign=True)
    current = content == command_text().encode("utf-8")
    return CommandReport(scope, path, installed=True, current=current)
