"""Branch memory (seed 001 §7): which git branch a memory belongs to, and which memories a
branch sees.

A memory learnt on a feature branch may hold only there ("sessions live in Redis" while
that branch is unmerged), so a branch's context holds its own memories plus the *base*
ones: those learnt on no branch and those learnt on the repository's default branch. Other
branches' memories stay out, as Puffin's `activateBranch` (CLAUDE_base.md +
CLAUDE_{branch}.md) leaves them out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, count

# The default branch's usual names, for when no repository says which one it is.
DEFAULT_BASE_BRANCHES = ("main", "master")
# What a session records when it ran on no branch: Claude Code writes "" outside a git
# repository and "HEAD" on a detached checkout.
_NO_BRANCH = frozenset({"", "HEAD"})
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# The base memories' file is CLAUDE_base.md: no branch's file may take that name.
BASE_STEM = "base"


def learnt_branch(value: str | None) -> str | None:
    """The branch a memory keeps from its conversation; None when it ran on no branch."""
    if value is None:
        return None
    name = value.strip()
    return None if name in _NO_BRANCH else name


def seen_on(kept: str | None, again: str | None) -> str | None:
    """A memory's branch once it is learnt again (or merged with a duplicate) on branch
    `again`: said on two branches, or once on none, it holds beyond one branch and
    becomes base (None)."""
    return kept if kept == again else None


def sanitized(branch: str) -> str:
    """A branch name as part of a file name, as Puffin's `sanitizeBranchId` does: every
    character outside [A-Za-z0-9_-] becomes "_" (`feature/auth` -> `feature_auth`)."""
    return _UNSAFE.sub("_", branch)


def branch_file_names(branches: Iterable[str]) -> dict[str, str]:
    """`CLAUDE_{branch}.md` for each branch, every name distinct from the others and from
    CLAUDE_base.md, also where case does not count (macOS, Windows). Two names that
    sanitize alike (`feature/auth` and `feature_auth`) must not share a file: the one that
    sorts first keeps the plain name, the others get a short hash of their real name; a
    branch named `base` (or `Base`) always does, as the base file has that name."""
    names: dict[str, str] = {}
    taken = {BASE_STEM}
    for branch in sorted(set(branches)):
        plain = sanitized(branch)
        digest = hashlib.sha1(branch.encode("utf-8")).hexdigest()
        # A longer hash (then a count) when a branch is named like another's hashed name.
        candidates = chain(
            (plain, f"{plain}-{digest[:8]}", f"{plain}-{digest}"),
            (f"{plain}-{digest}-{n}" for n in count(2)),
        )
        stem = next(c for c in candidates if c.lower() not in taken)
        taken.add(stem.lower())
        names[branch] = f"CLAUDE_{stem}.md"
    return names


@dataclass(frozen=True)
class BranchScope:
    """Which memories a branch sees: those learnt on one of `branches`, plus, with
    `branchless`, those learnt on no branch."""

    branches: tuple[str, ...]
    branchless: bool = True

    @classmethod
    def working_on(cls, branch: str, base: tuple[str, ...] = DEFAULT_BASE_BRANCHES) -> BranchScope:
        """A branch's view: its own memories and the base ones."""
        return cls(tuple(dict.fromkeys((branch, *base))), branchless=True)

    @classmethod
    def base(cls, base: tuple[str, ...] = DEFAULT_BASE_BRANCHES) -> BranchScope:
        """The base memories: learnt on no branch or on the default branch."""
        return cls(tuple(dict.fromkeys(base)), branchless=True)

    @classmethod
    def only(cls, branch: str) -> BranchScope:
        """One branch's own memories, without the base ones."""
        return cls((branch,), branchless=False)

    def sees(self, branch: str | None) -> bool:
        """Whether a memory learnt on `branch` is in this view (what the SQL filter does)."""
        return self.branchless if branch is None else branch in self.branches
