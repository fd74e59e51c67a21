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

from sqlmodel import Session, col, select

from memory_app.domain.publishing import (
    LocalMemory,
    OutgoingMemory,
    PublishPreview,
    SourceTurn,
    outgoing,
)
from memory_app.domain.rendering import turn_text
from memory_app.domain.sharing import PERSONAL, TEAM
from memory_app.domain.validation import ValidationError
from memory_app.operations.common import ServiceState, new_group
from memory_app.operations.team_project import team_project
from memory_app.privacy_gate import why_excluded
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow, ResourceRow, TurnRow


class TeamOperations(ServiceState):
    def publish_preview(
        self, item_ids: Sequence[int], *, with_source: bool = False
    ) -> PublishPreview:
        """What publishing these memories would send, and which cannot go and why;
        changes nothing."""
        return PublishPreview(self._outgoing(item_ids, with_source), with_source, dry_run=True)

    def publish(self, item_ids: Sequence[int], *, with_source: bool = False) -> PublishPreview:
        """Record the sendable memories as team memories, to leave with the next sync;
        the blocked ones stay personal. One undoable step."""
        memories = self._outgoing(item_ids, with_source)
        wanted = [m.item_id for m in memories if m.sendable and not m.already_team]
        if wanted:
            group = new_group("publish")
            with self.db.writing() as session:
                for item_id in wanted:
                    row = repo.get_item(session, item_id)
                    repo.change_item(
                        session, row, {"sharing": TEAM}, actor="user", action="publish",
                        group_id=group,
                        note="with its cited turns" if with_source else None,
                    )  # fmt: skip
        return PublishPreview(memories, with_source, dry_run=False, published=tuple(wanted))

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

    def _outgoing(self, item_ids: Sequence[int], with_source: bool) -> tuple[OutgoingMemory, ...]:
        if not item_ids:
            raise ValidationError({"ids": "name at least one memory to publish"})
        data_dir = self._data_dir()
        out = []
        with self.db.reading() as session:
            rows = repo.items_by_ids(session, item_ids)
            for item_id in dict.fromkeys(item_ids):
                row = rows.get(item_id) or repo.get_item(session, item_id)
                project, note = team_project(row.project)
                turns = _cited_turns(session, row) if with_source else ()
                out.append(
                    outgoing(
                        _local(row),
                        project=project,
                        project_note=note,
                        excluded=why_excluded(data_dir, row.project),
                        source=turns,
                    )
                )
        return tuple(out)

    def _data_dir(self) -> Path | None:
        """The data folder (the backups folder's parent, as config.Settings makes it):
        its deny lists keep projects out of memory, and so out of the team's."""
        backups = self.db.backup_dir
        return backups.parent if backups is not None else None


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


def _cited_turns(session: Session, row: MemoryItemRow) -> tuple[SourceTurn, ...]:
    """The turns the memory cites (turn_start..turn_end), and no other."""
    if row.source_resource_id is None or row.turn_start is None:
        return ()
    resource = session.get(ResourceRow, row.source_resource_id)
    if resource is None:
        return ()
    end = row.turn_end if row.turn_end is not None else row.turn_start
    turns = session.exec(
        select(TurnRow)
        .where(
            TurnRow.resource_id == resource.id,
            col(TurnRow.position) >= row.turn_start,
            col(TurnRow.position) <= end,
        )
        .order_by(col(TurnRow.position))
    ).all()
    return tuple(
        SourceTurn(t.position, t.speaker, turn_text(resource.text[t.start : t.end])) for t in turns
    )
