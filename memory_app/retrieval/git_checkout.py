"""What git says about a working folder: its repository's top, the checked-out branch and
the default branch, asked of `git` itself (a subprocess), so worktrees, packed refs and
unborn branches are read the way git reads them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from memory_app.domain.branches import DEFAULT_BASE_BRANCHES

GIT_TIMEOUT_SECONDS = 30


class GitError(ValueError):
    """git cannot answer for this folder; the message names the folder and why."""


@dataclass(frozen=True)
class Checkout:
    top: Path  # the repository's top folder
    branch: str | None  # the checked-out branch; None on a detached HEAD
    default: str | None  # the repository's default branch, when it can be told

    @property
    def base(self) -> tuple[str, ...]:
        """The branches whose memories are base: the default branch, or when the
        repository does not say, the usual names."""
        return (self.default,) if self.default else DEFAULT_BASE_BRANCHES


def run_git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH): branch memory needs it") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git did not answer within {GIT_TIMEOUT_SECONDS} s in {folder}") from exc


def _answer(folder: Path, *args: str) -> str | None:
    """git's one-line answer, or None when it says no (a non-zero exit)."""
    done = run_git(folder, *args)
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def checkout_of(folder: Path) -> Checkout:
    """The repository holding `folder`; GitError when there is none."""
    if not folder.is_dir():
        raise GitError(f"{folder} is not a folder")
    done = run_git(folder, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or ["git found no repository"]
        raise GitError(
            f"{folder} is not in a git repository ({why[0]}): branch memory follows "
            "a git checkout; run it inside one, or export one branch with --branch NAME"
        )
    top = Path(done.stdout.strip())
    # symbolic-ref, not rev-parse: it also names a branch without commits yet, and says
    # no (rather than "HEAD") on a detached checkout.
    branch = _answer(top, "symbolic-ref", "--quiet", "--short", "HEAD")
    return Checkout(top=top, branch=branch, default=_default_branch(top))


def _default_branch(top: Path) -> str | None:
    """The branch the remote calls its HEAD; else the configured initial branch, or
    main or master, when the repository has it."""
    remote_head = _answer(top, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote_head is not None and "/" in remote_head:
        return remote_head.split("/", 1)[1]
    configured = _answer(top, "config", "--get", "init.defaultBranch")
    for name in (configured, *DEFAULT_BASE_BRANCHES):
        if name and _answer(top, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}"):
            return name
    return None
