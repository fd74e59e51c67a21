"""Publishing memories to the team and taking them back (issue 20, "Shared scope").

Publishing is an explicit act with a preview: `publish_preview` shows, per memory,
exactly what would leave the machine (domain/publishing.py); `publish` records the
sendable ones as team memories (sharing "team", a change to push) in one undoable step.
Nothing here talks to a server: the next sync sends what is recorded, so publishing
works offline and nothing waits on the network. `unpublish` makes a team memory
personal again; one that reached the team store stays marked for the sync to withdraw
(domain/sharing.py `pending_action`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory_app.domain.publishing import (
    LocalMemory,
    OutgoingMemory,
    PublishPreview,
    outgoing,
)
from memory_app.domain.sharing import PERSONAL, TEAM
from memory_app.domain.validation import ValidationError
from memory_app.operations.common import ServiceState, new_group
from memory_app.operations.team_project import team_project
from memory_app.privacy_gate import why_excluded
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow


class TeamOperations(ServiceState):
    def publish_preview(self, item_ids: Sequence[int]) -> PublishPreview:
        """What publishing these memories would send, and which cannot go and why;
        changes nothing."""
        return PublishPreview(self._outgoing(item_ids), dry_run=True)

    def publish(self, item_ids: Sequence[int]) -> PublishPreview:
        """Record the sendable memories as team memories, to leave with the next sync;
        the blocked ones stay personal. One undoable step."""
        memories = self._outgoing(item_ids)
        wanted = [m.item_id for m in memories if m.sendable and not m.already_team]
        if wanted:
            group = new_group("publish")
            with self.db.writing() as session:
                for item_id in wanted:
                    row = repo.get_item(session, item_id)
                    repo.change_item(
                        session, row, {"sharing": TEAM}, actor="user", action="publish",
                        group_id=group,
                    )  # fmt: skip
        return PublishPreview(memories, dry_run=False, published=tuple(wanted))

    def unpublish(self, item_ids: Sequence[int]) -> list[int]:
        """Make team memories personal again here; the next sync withdraws the ones the
        team store has. Returns the ids that changed."""
        group = new_group("unpublish")
        changed: list[int] = []
        with self.db.writing() as session:
            rows = repo.items_by_ids(session, item_ids)
            missing = [i for i in item_ids if i not in rows]
            if missing:
                repo.get_item(session, missing[0])  # raises NotFoundError
            for item_id in item_ids:
                row = rows[item_id]
                if row.sharing != TEAM:
                    continue
                # Never pushed: nothing to withdraw, so nothing left to sync either.
                never_sent = row.team_seq is None
                repo.change_item(
                    session, row, {"sharing": PERSONAL}, actor="user", action="unpublish",
                    group_id=group,
                )  # fmt: skip
                if never_sent:
                    row.team_dirty = False
                    session.add(row)
                changed.append(item_id)
        if not changed:
            raise ValidationError({"sharing": "none of these memories is a team memory"})
        return changed

    # -- what would be sent --------------------------------------------------------------

    def _outgoing(self, item_ids: Sequence[int]) -> tuple[OutgoingMemory, ...]:
        if not item_ids:
            raise ValidationError({"ids": "name at least one memory to publish"})
        data_dir = self._data_dir()
        out = []
        with self.db.reading() as session:
            rows = repo.items_by_ids(session, item_ids)
            for item_id in dict.fromkeys(item_ids):
                row = rows.get(item_id) or repo.get_item(session, item_id)
                project, note = shared_project(row.project)
                out.append(
                    outgoing(
                        _local(row),
                        project=project,
                        project_note=note,
                        excluded=why_excluded(data_dir, row.project),
                    )
                )
        return tuple(out)

    def _data_dir(self) -> Path | None:
        """The data folder (the backups folder's parent, as config.Settings makes it):
        its deny lists keep projects out of memory, and so out of the team's."""
        backups = self.db.backup_dir
        return backups.parent if backups is not None else None


def is_local_folder(project: str) -> bool:
    """Whether a memory's project names a folder of this machine (an absolute path, or
    one from the home folder) rather than a team's name for it ("acme/shop")."""
    return project.startswith(("~", ".")) or Path(project).is_absolute()


def shared_project(project: str | None) -> tuple[str | None, str | None]:
    """(the team's name for a memory's project, a note on what became of it).

    A folder of this machine goes under its git remote's name or not at all. Anything
    else already is the team's name: a memory pulled on a machine without a clone keeps
    "acme/shop", and an edit made there sends it back unchanged instead of wiping it
    for everyone. git is only ever asked about an absolute folder."""
    if not project:
        return None, None
    if not is_local_folder(project):
        return project, None
    folder = Path(project).expanduser()
    if not folder.is_absolute():
        return None, "project left out: not a folder of this machine nor a team's name"
    return team_project(str(folder))


def _local(row: MemoryItemRow) -> LocalMemory:
    return LocalMemory(
        item_id=row.id or 0,
        uid=row.uid,
        status=row.status,
        content=row.content,
        context=row.context,
        category=row.category,
        type=row.type,
        tags=tuple(row.tags),
        confidence=row.confidence,
        importance=row.importance,
        scope=row.scope,
        branch=row.branch,
        valid_from=row.valid_from,
        valid_until=row.valid_until,
        sharing=row.sharing,
    )
