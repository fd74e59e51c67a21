"""Pull: the team store's changes into this store, by change number (issue 20).

Each batch is read from the team store, then written here in one local transaction
together with the cursor, so an interrupted pull resumes after the last batch stored and
never skips or repeats one. Per memory, matched by uid:

- new here: added as a team memory at that change number;
- here, not edited since: takes the team's version;
- here, edited since its base and the team's version changed too: a conflict
  (sync_conflicts.py), both versions kept, unless both say the same;
- gone from the team store (a tombstone): a copy that was only pulled is deleted here
  (status `deleted`, restorable by undo like any deletion); one edited here stays as a
  personal memory, so nothing typed here is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from memory_app.domain.sharing import PERSONAL, TEAM, new_uid
from memory_app.operations.common import new_group
from memory_app.operations.team import is_local_folder, shared_project
from memory_app.store import repository as repo
from memory_app.store.database import Database
from memory_app.store.tables import CategoryRow, MemoryItemRow, TeamLinkRow
from memory_app.team import sync_conflicts
from memory_app.team.sync_rows import (
    TeamConflict,
    TeamMemory,
    read_changes,
    same_fields,
    what_leaves,
)

ACTION = sync_conflicts.ACTION


@dataclass
class PullReport:
    changes: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    conflicts: list[int] = field(default_factory=list)  # local conflict ids opened
    conflicts_pulled: int = 0
    batch_seconds: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def pull(
    db: Database,
    connect: Callable[[], Any],
    *,
    batch: int,
    report: PullReport,
    max_batches: int | None = None,
) -> None:
    """Pull every change after this store's cursor, `batch` at a time; `connect()`
    opens a team transaction (a context manager giving a Connection)."""
    done = 0
    projects = _ProjectNames(db)
    while max_batches is None or done < max_batches:
        started = time.perf_counter()
        with db.reading() as session:
            link = session.get(TeamLinkRow, 1)
            cursor = link.pull_cursor if link is not None else 0
        with connect() as conn:
            changes = read_changes(conn, cursor, batch)
        if not changes:
            return
        with db.writing() as session:
            _apply(session, changes, projects, report, _data_dir(db))
            link = session.get(TeamLinkRow, 1)
            if link is not None:
                link.pull_cursor = changes[-1].change_seq
                session.add(link)
        report.changes += len(changes)
        report.batch_seconds.append(time.perf_counter() - started)
        done += 1
        if len(changes) < batch:
            return


def _data_dir(db: Database) -> Path | None:
    return db.backup_dir.parent if db.backup_dir is not None else None


class _ProjectNames:
    """A team's project name ("acme/shop") to this machine's folder of it: the local
    project whose git remote has that name. Without one the name itself is kept."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._folders: dict[str, str] | None = None

    def local(self, name: str | None, current: str | None = None) -> str | None:
        if name is None:
            return None
        if current is not None and shared_project(current)[0] == name:
            return current
        if self._folders is None:
            with self._db.reading() as session:
                found = session.exec(
                    select(MemoryItemRow.project)
                    .where(col(MemoryItemRow.project).is_not(None))
                    .distinct()
                ).all()
            self._folders = {}
            for folder in found:
                if not folder or not is_local_folder(folder):
                    continue  # a team's name already, kept as pulled
                team_name = shared_project(folder)[0]
                if team_name is not None:
                    self._folders.setdefault(team_name, folder)
        return self._folders.get(name, name)


def _apply(
    session: Session,
    changes: list[TeamMemory | TeamConflict],
    projects: _ProjectNames,
    report: PullReport,
    data_dir: Path | None,
) -> None:
    group = new_group("team_sync")
    uids = [c.uid for c in changes if isinstance(c, TeamMemory)]
    rows = {
        r.uid: r
        for r in session.exec(select(MemoryItemRow).where(col(MemoryItemRow.uid).in_(uids))).all()
    }
    known_categories = set(session.exec(select(CategoryRow.key)).all())
    for change in changes:
        if isinstance(change, TeamConflict):
            take = version_taker(projects)
            if sync_conflicts.apply_pulled(session, change, group, take, report.notes):
                report.conflicts_pulled += 1
            continue
        if change.fields is not None and change.fields["category"] not in known_categories:
            _add_category(session, change)
            known_categories.add(change.fields["category"])
        row = rows.get(change.uid)
        if row is None:
            if change.fields is not None:
                rows[change.uid] = _add(session, change, projects, group)
                report.added += 1
            continue
        _merge(session, row, change, projects, report, data_dir, group, rows)


def version_taker(projects: _ProjectNames) -> sync_conflicts.Take:
    """How a conflict's resolution gives a member the team's version here (its
    statuses and validity, as the team's decision left them)."""

    def take(
        session: Session, row: MemoryItemRow, version: TeamMemory, group: str, note: str | None
    ) -> None:
        fields = version.fields or {}
        if session.get(CategoryRow, fields.get("category")) is None:
            _add_category(session, version)
        values = _values(version, projects, row.project)
        if values.get("status") == "active":
            values["superseded_by"] = None
        repo.change_item(
            session, row,
            {**values, "sharing": TEAM, "team_seq": version.change_seq, "team_dirty": False},
            actor="team", action=ACTION, group_id=group, note=note,
        )  # fmt: skip

    return take


def taker(db: Database) -> sync_conflicts.Take:
    """`version_taker` for a sync's push (the pull makes its own)."""
    return version_taker(_ProjectNames(db))


def _add_category(session: Session, change: TeamMemory) -> None:
    key = str((change.fields or {})["category"])
    name = change.category_name or key.replace("_", " ").capitalize()
    session.add(CategoryRow(key=key, name=name, position=1000))
    session.flush()


def _values(change: TeamMemory, projects: _ProjectNames, current: str | None) -> dict[str, Any]:
    values = dict(change.fields or {})
    values["project"] = projects.local(values.get("project"), current)
    return values


def _add(
    session: Session,
    change: TeamMemory,
    projects: _ProjectNames,
    group: str,
    current: str | None = None,
) -> MemoryItemRow:
    values: dict[str, Any] = _values(change, projects, current)
    if change.extracted_at is not None:
        values["extracted_at"] = change.extracted_at
    row = MemoryItemRow(
        **values,
        content_key="",
        uid=change.uid,
        sharing=TEAM,
        team_seq=change.change_seq,
        team_dirty=False,
        extractor="team",
    )
    return repo.add_item(session, row, actor="team", group_id=group)


def _merge(
    session: Session,
    row: MemoryItemRow,
    change: TeamMemory,
    projects: _ProjectNames,
    report: PullReport,
    data_dir: Path | None,
    group: str,
    rows: dict[str, MemoryItemRow],
) -> None:
    base = row.team_seq
    if base is not None and change.change_seq <= base:
        return  # this store has that version already (its own push, or an earlier pull)
    if base is None and not row.team_dirty:
        # A personal memory that never went to the team: not the team's to change.
        report.notes.append(f"#{row.id}: a personal memory here has team uid {row.uid}")
        return

    def change_row(values: dict[str, Any], note: str | None = None) -> None:
        repo.change_item(
            session, row, values, actor="team", action=ACTION, group_id=group, note=note
        )  # fmt: skip

    if change.fields is None:  # gone from the team store
        if base is None:
            return  # a version this store never held (its own withdrawal, then published again)
        if not row.team_dirty:
            change_row(
                {"status": "deleted", "sharing": PERSONAL, "team_seq": None, "team_dirty": False},
                "withdrawn from the team",
            )
            report.removed += 1
        else:  # edited here, or withdrawn here too: keep it here, personal
            change_row(
                {"sharing": PERSONAL, "team_seq": None, "team_dirty": False},
                "withdrawn from the team; the edit made here stays as a personal memory",
            )
        return
    values = _values(change, projects, row.project)
    if not row.team_dirty:
        change_row({**values, "sharing": TEAM, "team_seq": change.change_seq, "team_dirty": False})
        report.updated += 1
        return
    mine, _why = what_leaves(row, data_dir)
    if row.sharing == TEAM and mine is not None and same_fields(mine, change.fields):
        # The same edit on both sides, or a push of ours not recorded here: no conflict.
        change_row({"team_seq": change.change_seq, "team_dirty": False})
        return
    # Both changed: this machine's version becomes a team memory of its own (or stays
    # personal when it was being withdrawn), the team's comes in under the uid.
    withdrawing = row.sharing != TEAM
    change_row(
        {"uid": new_uid(), "team_seq": None, "team_dirty": not withdrawing},
        "changed on the team meanwhile: kept as its own memory",
    )
    team_copy = _add(session, change, projects, group, current=row.project)
    rows[change.uid] = team_copy
    if withdrawing:
        report.notes.append(
            f"#{row.id}: not withdrawn, someone changed it since; the team's version "
            f"came back as #{team_copy.id}"
        )
        report.added += 1
        return
    conflict = sync_conflicts.open_conflict(session, team_copy, row, group)
    report.conflicts.append(conflict.id or 0)
