"""Sync between this store and the team store (issue 20): pull, push, pull again.

    pull   the team's changes after this store's cursor (sync_pull.py)
    push   this store's waiting changes, conflicts and resolutions (sync_push.py,
           sync_conflicts.py)
    again  when a push met a memory someone changed meanwhile: the pull brings that
           version and opens the conflict, the push sends what that leaves

Offline first: the team store is only ever reached here. Unreachable, a timeout, a
refused login, a server error: what was stored before the failure stays (each batch is
whole), the reason goes to team_link.last_error, and `SyncFailed` says it; the next sync
carries on from the cursor. Nothing else in the app waits for the server.

The password is never in the store: the URL kept in team_link has none;
credentials.connect_url adds the keyring's for this connection only, or leaves it to
libpq (~/.pgpass, PGPASSWORD). No password anywhere is a failed sync like any other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from memory_app.operations.common import new_group
from memory_app.store.database import Database
from memory_app.store.dialects.postgresql import PostgresDialect, explain_connection_error
from memory_app.store.errors import StoreError, TeamDatabaseError
from memory_app.store.tables import TeamLinkRow, utc_now
from memory_app.team import sync_conflicts, sync_schema
from memory_app.team.credentials import connect_url
from memory_app.team.sync_pull import PullReport, pull, taker
from memory_app.team.sync_push import PushReport, push

BATCH = 500
ROUNDS = 2  # pull+push, then once more when a push met a change made meanwhile


class NotConnectedError(TeamDatabaseError):
    """This store has no team link yet."""


class SyncFailed(TeamDatabaseError):
    """The team store could not be reached or refused; the local store is unchanged
    since the last whole batch and keeps working. `reason` is kept in last_error."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"Team sync failed: {reason}")
        self.reason = reason


@dataclass
class SyncReport:
    pull: PullReport = field(default_factory=PullReport)
    push: PushReport = field(default_factory=PushReport)
    conflicts_sent: int = 0
    merged_published: int = 0
    cursor: int = 0

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for part in (out["pull"], out["push"]):
            seconds = part.pop("batch_seconds")
            part["batches"] = len(seconds)
        out["push"]["not_sent"] = {str(k): v for k, v in self.push.not_sent.items()}
        return out


def open_team(url: str, env: Mapping[str, str] | None = None) -> Engine:
    """An engine on the team store, checked: reachable, not written by a newer version,
    and set up for sync. `url` is team_link's (no password)."""
    dialect = PostgresDialect()
    engine = dialect.create_engine(connect_url(url, env))
    try:
        dialect.prepare(engine, None)
        with engine.connect() as conn:
            missing = sync_schema.missing(conn)
        if missing:
            raise TeamDatabaseError(
                f"The team store is not set up for sync (missing {', '.join(missing)}). "
                "Ask its administrator to run `memory-app team init`; nothing was changed."
            )
    except BaseException:
        engine.dispose()
        raise
    return engine


def sync(
    db: Database,
    *,
    env: Mapping[str, str] | None = None,
    batch: int = BATCH,
    max_pull_batches: int | None = None,
) -> SyncReport:
    """One sync of this store with its team store; raises NotConnectedError or
    SyncFailed (with last_error kept) and otherwise records when it last succeeded."""
    with db.reading() as session:
        link = session.get(TeamLinkRow, 1)
        url = link.url if link is not None else None
    if url is None:
        raise NotConnectedError(
            "This store is not connected to a team store: run `memory-app team connect "
            "postgresql://USER@HOST/DATABASE` first."
        )
    report = SyncReport()
    try:
        engine = open_team(url, env)
    except (StoreError, SQLAlchemyError) as exc:
        raise _failed(db, exc) from exc
    try:
        _run(db, engine, batch, max_pull_batches, report)
    except (StoreError, SQLAlchemyError, OSError) as exc:
        raise _failed(db, exc) from exc
    finally:
        engine.dispose()
    with db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        if link is not None:
            link.last_sync_at = utc_now()
            link.last_error = None
            report.cursor = link.pull_cursor
            session.add(link)
    return report


def _run(
    db: Database, engine: Engine, batch: int, max_pull_batches: int | None, report: SyncReport
) -> None:
    @contextmanager
    def connect() -> Iterator[Connection]:
        with engine.begin() as conn:  # the engine's own limits apply (pg_connect.py)
            yield conn

    for _round in range(ROUNDS):
        pull(db, connect, batch=batch, report=report.pull, max_batches=max_pull_batches)
        if max_pull_batches is not None:
            return  # a partial pull (tests, the benchmark): nothing pushed yet
        with db.writing() as session:
            report.merged_published += sync_conflicts.publish_merged(
                session, new_group("team_sync")
            )
        stale_before = len(report.push.stale)
        # Resolutions first, each with its members: a member's status never goes as an
        # ordinary edit while the team may have decided otherwise.
        sent, held = sync_conflicts.push_resolutions(
            db, connect, _data_dir(db), taker(db), report.push, report.pull.notes
        )
        report.conflicts_sent += sent
        push(db, connect, batch=batch, report=report.push, skip=held)
        with connect() as conn, db.reading() as session:
            report.conflicts_sent += sync_conflicts.push(conn, session)
        if len(report.push.stale) == stale_before:
            return


def _data_dir(db: Database) -> Path | None:
    return db.backup_dir.parent if db.backup_dir is not None else None


def _failed(db: Database, exc: BaseException) -> SyncFailed:
    """The reason, kept in team_link.last_error, as the error to raise."""
    explained = exc if isinstance(exc, StoreError) else None
    if explained is None:
        explained = explain_connection_error(getattr(exc, "orig", exc))
    message = str(explained) if explained is not None else _plain(exc)
    try:
        with db.writing() as session:
            link = session.get(TeamLinkRow, 1)
            if link is not None:
                link.last_error = message
                session.add(link)
    except StoreError:
        pass  # a local store that cannot record it still reports it
    return SyncFailed(message)


def _plain(exc: BaseException) -> str:
    text = " ".join(str(getattr(exc, "orig", None) or exc).split())
    return (
        f"the team store answered with an error ({text[:300]}); the local store keeps "
        "working, try again later"
    )
