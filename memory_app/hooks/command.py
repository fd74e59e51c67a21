"""The command line a Claude Code hook entry runs, one per event."""

from __future__ import annotations

import shlex
import sys

# The events this app answers: recall on the first two, capture on the last two.
EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd", "PreCompact")
# Written into every entry this app adds, so `hooks uninstall` removes exactly its own.
MARKER = "-m memory_app.hooks"


def hook_command(event: str, python: str | None = None) -> str:
    """`<this interpreter> -m memory_app.hooks <event>`: the interpreter that has the app
    installed, so the hook works whatever the shell's PATH is."""
    if event not in EVENTS:
        raise ValueError(f"unknown hook event {event!r}; known: {', '.join(EVENTS)}")
    return f"{shlex.quote(python or sys.executable)} {MARKER} {event}"
