"""Personal and team memories (issue 20, "Shared scope"): the words and the sync state.

A memory is personal (this store only) or team (published to the team's store). Every
memory has a `uid`, a UUID that names it in every store it reaches; local ids differ
from store to store. What a sync needs per memory lives on the memory itself:

- `team_seq`: the team store's change sequence of the version last pulled or pushed, the
  base a local edit is made on (None: the team store has never had it);
- `team_dirty`: a local change the team store has not had yet.

Read together they say what the next sync does (`pending_action`); a withdrawal (a
memory unpublished after it reached the team) is a personal memory that still has a
`team_seq` and is dirty: the tombstone is the row itself, so nothing is lost if the
machine is offline for weeks.
"""

from __future__ import annotations

import re
import uuid

PERSONAL = "personal"
TEAM = "team"
SHARINGS = (PERSONAL, TEAM)

# What the next sync does for a memory (None: nothing).
PUSH = "push"  # publish it, or send a local edit made on base team_seq
WITHDRAW = "withdraw"  # unpublished after it reached the team: withdraw it there
# The fields that travel to the team store, in the team store's column order: a local
# change to one of them on a team memory is an edit to push, and the team store's
# trigger (team/sync_schema.py) numbers a change to one of them as a change to pull.
# One list for both sides, so an edit of a project or branch is never left behind.
# Pins, usage counts and the source conversation stay local.
SHARED_COLUMNS = (
    "content",
    "context",
    "category",
    "type",
    "confidence",
    "importance",
    "scope",
    "project",
    "branch",
    "tags",
    "status",
    "valid_from",
    "valid_until",
)
# ... and, locally, publishing or unpublishing it (its sharing) is one too.
SHARED_FIELDS = frozenset((*SHARED_COLUMNS, "sharing"))


def new_uid() -> str:
    """A memory's name across stores."""
    return str(uuid.uuid4())


def pending_action(sharing: str, team_seq: int | None, team_dirty: bool) -> str | None:
    """What the next sync must do for a memory in this state, if anything."""
    if sharing == TEAM:
        return PUSH if team_dirty or team_seq is None else None
    return WITHDRAW if team_dirty and team_seq is not None else None


# git remotes: scp-like `git@host:owner/repo.git`, or a URL `https://host/owner/repo.git`.
_SCP = re.compile(r"^[^/@:]+@[^/:]+:(?P<path>.+)$")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]+/(?P<path>.+)$", re.IGNORECASE)


def team_project_name(remote_url: str | None) -> str | None:
    """How a team names a project: its git remote's repository path ("acme/shop"),
    never a folder of one person's laptop (paths differ from machine to machine and say
    who the person is). The host, a port, credentials and `.git` are dropped; a local
    remote (a path on disk) names no project."""
    if not remote_url:
        return None
    url = remote_url.strip()
    found = _URL.match(url) or _SCP.match(url)
    if found is None:
        return None
    parts = [p for p in found.group("path").split("/") if p and p not in (".", "..")]
    if not parts:
        return None
    parts[-1] = parts[-1].removesuffix(".git")
    name = "/".join(parts[-2:]) if len(parts) >= 2 else parts[-1]
    return name or None


def marks_team_change(
    sharing_now: str, before: dict[str, object], changed: set[str] | dict[str, object]
) -> bool:
    """Whether a change to a memory is one the team store must get: a shared field of a
    team memory, or its sharing itself (published, or unpublished: a withdrawal)."""
    was_team = before.get("sharing") == TEAM
    if "sharing" in changed:
        return True
    return (sharing_now == TEAM or was_team) and bool(SHARED_FIELDS & set(changed))
