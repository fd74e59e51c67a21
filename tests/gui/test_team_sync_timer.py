"""Background team sync in the window (issue 20, offline first): a failure shows on the
status indicator and changes nothing; the next run against a reachable team store catches
up and clears it; a store with no team link is left alone."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
import qasync
from sqlalchemy import create_engine

from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.team_sync_timer import TeamSyncTimer
from memory_app.store.tables import MemoryItemRow, TeamLinkRow
from memory_app.team import sync_schema
from memory_app.team.sync import SyncReport
from tests.postgres import ADMIN, ThrowawayServer


@pytest.fixture
def team_url(postgres_server: ThrowawayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"team_{uuid.uuid4().hex[:8]}"
    engine = create_engine(postgres_server.create_database(name, template="store_template"))
    with engine.begin() as conn:
        sync_schema.install(conn)
    engine.dispose()
    monkeypatch.setenv("PGPASSWORD", postgres_server.password)  # libpq reads it
    yield f"postgresql://{ADMIN}@127.0.0.1:{postgres_server.port}/{name}"
    postgres_server.drop_database(name)


def run(loop: qasync.QEventLoop, timer: TeamSyncTimer) -> SyncReport | None:
    return loop.run_until_complete(asyncio.wait_for(timer.run(), timeout=30))


def test_a_store_without_a_team_link_is_not_synced(
    context: AppContext, loop: qasync.QEventLoop
) -> None:
    timer = TeamSyncTimer(context)
    assert run(loop, timer) is None
    assert context.status.state == StatusModel.READY


@pytest.mark.postgresql
def test_an_offline_sync_shows_on_the_indicator_and_the_next_one_clears_it(
    context: AppContext, loop: qasync.QEventLoop, team_url: str
) -> None:
    service = context.service
    with service.db.writing() as session:
        session.add(TeamLinkRow(url="postgresql://nobody@127.0.0.1:9/team"))
        session.add(
            MemoryItemRow(
                category="project_conventions", content="Logs are shipped as JSON lines",
                content_key="", confidence=0.9, sharing="team", team_dirty=True,
            )
        )  # fmt: skip
    timer = TeamSyncTimer(context)

    assert run(loop, timer) is None
    assert context.status.state == StatusModel.ERROR
    assert context.status.message.startswith("Team sync failed: Cannot reach the team database")

    with service.db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.url = team_url
    report = run(loop, timer)
    assert report is not None and report.push.published == 1
    assert context.status.state == StatusModel.READY
    assert context.status.message == "Team sync caught up"
