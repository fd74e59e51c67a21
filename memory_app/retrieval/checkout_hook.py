"""A git post-checkout hook that runs the branch export again, so CLAUDE.md's managed
block follows every `git checkout` / `git switch` without anyone remembering to."""

from __future__ import annotations

import os
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from memory_app.retrieval.export_file import ExportError, read_text_file, write_atomically
from memory_app.retrieval.git_checkout import GitError, run_git

# In every hook this app writes: a post-checkout hook without it is someone else's.
HOOK_MARK = "# memory-curator: CLAUDE.md's managed block follows the checked-out branch"


@dataclass(frozen=True)
class HookResult:
    path: Path
    message: str


def hook_path(top: Path) -> Path:
    """Where git looks for the repository's post-checkout hook (core.hooksPath and
    worktrees included)."""
    done = run_git(top, "rev-parse", "--git-path", "hooks/post-checkout")
    if done.returncode != 0:
        raise GitError(f"git cannot say where the hooks of {top} are: {done.stderr.strip()}")
    path = Path(done.stdout.strip())
    return path if path.is_absolute() else top / path


def script(arguments: list[str], python: str | None = None) -> str:
    command = shlex.join([python or sys.executable, "-m", "memory_app", *arguments])
    return (
        "#!/bin/sh\n"
        f"{HOOK_MARK}.\n"
        "# Written by `memory-app export claude-md --branches --install-hook`; delete this\n"
        "# file to stop it. A failed export never fails the checkout.\n"
        '[ "$3" = 1 ] || exit 0  # a checkout of files, not of a branch\n'
        f"{command} || echo 'memory-curator: the branch memory export failed' >&2\n"
        "exit 0\n"
    )


def install(top: Path, arguments: list[str], *, dry_run: bool = False) -> HookResult:
    """Write (or update) this app's post-checkout hook; another hook is left alone."""
    path = hook_path(top)
    wanted = script(arguments)
    current = read_text_file(path)
    if current is not None and HOOK_MARK not in current.text:
        line = wanted.splitlines()[-2]
        raise ExportError(
            f"{path} is another post-checkout hook (left as it is); to have the block follow "
            f"the branch, add this line to it: {line}"
        )
    if current is not None and current.text == wanted:
        return HookResult(path, f"The post-checkout hook {path} is already installed.")
    if dry_run:
        return HookResult(path, f"Would install the post-checkout hook {path}.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot make the hooks folder {path.parent}: {exc}") from exc
    write_atomically(path, wanted)
    mode = stat.S_IMODE(path.stat().st_mode)
    os.chmod(path, mode | (mode & 0o444) >> 2)  # executable by whoever may read it
    return HookResult(
        path, f"Installed the post-checkout hook {path}: the block now follows git checkout."
    )
