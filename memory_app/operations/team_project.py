"""A local project folder as a team names it: its git remote's repository ("acme/shop").

Folders differ from laptop to laptop and name the person (`/home/ana/code/shop`); the
repository a team clones is the same for all of them. Asked of git itself, so worktrees,
submodules and `includeIf` configurations answer as git would; without git, or without a
remote, the project has no team name and is not sent.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from memory_app.domain.sharing import team_project_name

GIT_TIMEOUT_SECONDS = 5


@lru_cache(maxsize=256)
def remote_url(folder: str) -> str | None:
    """The URL of the folder's `origin` remote (else its first remote), or None."""
    git = shutil.which("git")
    if git is None or not Path(folder).is_dir():
        return None

    def run(*args: str) -> str:
        done = subprocess.run(
            [git, "-C", folder, *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        url = run("config", "--get", "remote.origin.url")
        if not url:
            names = run("remote").split()
            url = run("config", "--get", f"remote.{names[0]}.url") if names else ""
    except (OSError, subprocess.SubprocessError):
        return None
    return url or None


def team_project(folder: str | None) -> tuple[str | None, str | None]:
    """(the team's name for the project, a note on what became of the local one)."""
    if not folder:
        return None, None
    name = team_project_name(remote_url(folder))
    if name is None:
        return None, "project left out: no git remote names it for the team"
    return name, f"project sent as {name} (its git remote), not as a folder of this machine"
