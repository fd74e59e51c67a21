"""What SessionStart adds from predictive context: memories about the files the project's
latest conversation edited, and about the checked-out branch (read from .git/HEAD, no
git process: the hook's budget is tens of milliseconds).

Standard library only, like the rest of the hook (runtime.py).
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime

from memory_app.domain.file_signals import EDIT_TOOLS, tool_touch
from memory_app.hooks.recall import Line, line
from memory_app.retrieval.predict import Signals, predict
from memory_app.store.project_match import folder_in_project

PREDICTED_LIMIT = 8
RECENT_FILES = 5  # the latest conversation's last edited files
MAX_PARENTS = 40  # folders walked up looking for .git


def git_branch(folder: str) -> str | None:
    """The branch checked out in the repository holding `folder`, from its HEAD file
    (a worktree's `.git` file points at its own); None when detached or not in one."""
    current = os.path.abspath(folder) if folder else ""
    for _ in range(MAX_PARENTS):
        if not current:
            return None
        dot_git = os.path.join(current, ".git")
        if os.path.isdir(dot_git):
            return _head_branch(os.path.join(dot_git, "HEAD"))
        if os.path.isfile(dot_git):
            with open(dot_git, encoding="utf-8") as pointer:
                target = pointer.read().strip()
            if not target.startswith("gitdir:"):
                return None
            gitdir = os.path.join(current, target[len("gitdir:") :].strip())
            return _head_branch(os.path.join(gitdir, "HEAD"))
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def _head_branch(head: str) -> str | None:
    try:
        with open(head, encoding="utf-8") as file:
            text = file.read().strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return text[len(prefix) :] or None if text.startswith(prefix) else None


def recent_files(conn: sqlite3.Connection, project: str) -> list[str]:
    """The files the project's latest conversation edited, the last edited first."""
    if not project:
        return []
    row = conn.execute(
        f"SELECT r.id, r.text FROM resource AS r WHERE {folder_in_project('r.project')} "
        "ORDER BY COALESCE(r.ended_at, r.started_at, r.imported_at) DESC LIMIT 1",
        {"project": project},
    ).fetchone()
    if row is None:
        return []
    resource_id, text = row
    turns = conn.execute(
        'SELECT position, start, "end" FROM resource_turn '
        "WHERE resource_id = ? AND kind = 'tool_use' ORDER BY position DESC",
        (resource_id,),
    )
    files: list[str] = []
    for position, start, end in turns:
        touch = tool_touch(position, text[start:end])
        if touch is not None and touch.tool in EDIT_TOOLS and touch.path not in files:
            files.append(touch.path)
            if len(files) == RECENT_FILES:
                break
    return files


def predicted_lines(
    conn: sqlite3.Connection, project: str, now: datetime, shown: set[int]
) -> list[Line]:
    """The predicted memories as context lines, leaving out those already `shown`."""
    files = tuple(recent_files(conn, project))
    signals = Signals(project=project or None, branch=git_branch(project), files=files)
    if signals.is_empty():
        return []
    found = predict(conn, signals, PREDICTED_LIMIT + len(shown), now)
    kept = [p for p in found if p.id not in shown][:PREDICTED_LIMIT]
    return [line(p.id, p.content, p.reasons[0] if p.reasons else "") for p in kept]
