"""A team store that is busy or gone keeps the app waiting seconds, not without end
(issue 20): every connection carries a lock, statement and idle-transaction limit and
TCP keepalives; the URL's own parameters override them; a sync and `team status` held
up by an administrator's lock fail with a clear message. Real server."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine

from memory_app.cli import main
from memory_app.store.database import Database
from memory_app.store.dialects import pg_connect
from memory_app.store.dialects.postgresql import LONG_WORK_LIMITS, PostgresDialect
from memory_app.store.errors import TeamDatabaseError
from memory_app.store.tables import TeamLinkRow
from memory_app.team import tenancy
from memory_app.team.sync import SyncFailed, sync
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql

TEAM = "kilo"


@pytest.fixture(scope="module")
def team(postgres_server: ThrowawayServer) -> Iterator[tuple[ThrowawayServer, str, str, str]]:
    database = f"limits_{secrets.token_hex(3)}"
    admin_url = postgres_server.create_database(database)
    person = f"kim_{database}"
    tenancy.init_team(admin_url, TEAM, [person])
    password = secrets.token_urlsafe(12)
    postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    yield postgres_server, database, person, password
    postgres_server.drop_database(database)
    postgres_server.admin(f"DROP ROLE IF EXISTS {person}")


@pytest.fixture
def person_url(team: tuple[ThrowawayServer, str, str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The person's URL as team_link keeps it (no password: libpq reads PGPASSWORD)."""
    server, database, person, password = team
    monkeypatch.setenv("PGPASSWORD", password)
    return server.url(database, user=person).replace("+psycopg", "")


@pytest.fixture
def administrator_holds(
    team: tuple[ThrowawayServer, str, str, str],
) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A second session, as an administrator migrating the store would: the team's
    memories and schema version locked until the test ends."""
    server, database, _person, _password = team
    schema = tenancy.team_names(database, TEAM).schema
    conn = psycopg.connect(host=str(server.folder), port=server.port, dbname=database,
                           user="memory_admin")  # fmt: skip
    conn.execute(
        f"LOCK TABLE {schema}.memory_item, {schema}.store_schema_version "  # type: ignore[arg-type]
        "IN ACCESS EXCLUSIVE MODE"
    )
    yield conn
    conn.rollback()
    conn.close()


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'memory.db'}")
    yield db
    db.close()


def _settings(engine: Engine, *names: str) -> dict[str, str]:
    with engine.connect() as conn:
        return {name: str(conn.exec_driver_sql(f"SHOW {name}").scalar()) for name in names}


def _parameters(engine: Engine) -> dict[str, str]:
    """The libpq parameters the connection was opened with."""
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert isinstance(raw, psycopg.Connection)
        return dict(raw.info.get_parameters())


LIMITS = ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "timezone")


def test_every_connection_carries_limits_a_desktop_app_can_wait(
    team: tuple[ThrowawayServer, str, str, str],
) -> None:
    server, database, _person, _password = team
    engine = PostgresDialect().create_engine(server.url(database))
    try:
        assert _settings(engine, *LIMITS) == {
            "statement_timeout": "30s",
            "lock_timeout": "10s",
            "idle_in_transaction_session_timeout": "1min",
            "timezone": "UTC",
        }
        found = _parameters(engine)
        assert {k: found.get(k) for k in pg_connect.CONNECT_PARAMETERS} == {
            k: str(v) for k, v in pg_connect.CONNECT_PARAMETERS.items()
        }
        assert found["application_name"] == "memory-curator"
    finally:
        engine.dispose()


def test_the_urls_own_parameters_win(team: tuple[ThrowawayServer, str, str, str]) -> None:
    server, database, _person, _password = team
    url = (
        f"{server.url(database)}?connect_timeout=20&keepalives_idle=60&lock_timeout=2s"
        "&options=-c%20statement_timeout%3D5min"
    )
    engine = PostgresDialect().create_engine(url)
    try:
        assert _settings(engine, *LIMITS) == {
            "statement_timeout": "5min",
            "lock_timeout": "2s",
            "idle_in_transaction_session_timeout": "1min",
            "timezone": "UTC",
        }
        found = _parameters(engine)
        assert (found["connect_timeout"], found["keepalives_idle"]) == ("20", "60")
        assert found["tcp_user_timeout"] == "30000"  # not given: the app's own
    finally:
        engine.dispose()


def test_a_limit_in_the_url_must_be_a_time(team: tuple[ThrowawayServer, str, str, str]) -> None:
    server, database, _person, _password = team
    with pytest.raises(TeamDatabaseError, match="lock_timeout='soon' is not a time"):
        PostgresDialect().create_engine(f"{server.url(database)}?lock_timeout=soon")


@pytest.mark.parametrize(
    ("given", "during"),
    [
        ("", ("30min", "2min")),  # the app's limits are raised
        ("?statement_timeout=2h&lock_timeout=0", ("2h", "0")),  # longer or none: kept
    ],
)
def test_long_work_raises_its_own_limits_for_its_transaction(
    team: tuple[ThrowawayServer, str, str, str], given: str, during: tuple[str, str]
) -> None:
    """A migration (`team init`), a bulk load or a re-index may take minutes."""
    server, database, _person, _password = team
    engine = PostgresDialect().create_engine(server.url(database) + given)
    try:
        with engine.begin() as conn:
            pg_connect.allow_longer(conn, LONG_WORK_LIMITS)
            shown = tuple(
                str(conn.exec_driver_sql(f"SHOW {name}").scalar())
                for name in ("statement_timeout", "lock_timeout")
            )
        assert shown == during
        after = _settings(engine, "statement_timeout")["statement_timeout"]
        assert after == ("30s" if not given else "2h")  # only for that transaction
    finally:
        engine.dispose()


def test_a_sync_held_up_by_a_lock_fails_within_the_lock_timeout(
    person_url: str,
    local: Database,
    administrator_holds: psycopg.Connection[tuple[object, ...]],
) -> None:
    """The app's own lock timeout (no limit in the URL): before it, the sync waited
    for the statement timeout and blamed the network."""
    with local.writing() as session:
        session.add(TeamLinkRow(url=person_url, team_id=TEAM))
    with pytest.raises(SyncFailed) as failed:
        sync(local)
    assert failed.value.reason.startswith("The team database is busy")
    assert "lock timeout" in failed.value.reason and "LINE 1" not in failed.value.reason
    with local.reading() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None and link.last_error == failed.value.reason


def test_team_status_held_up_by_a_lock_says_the_store_is_busy(
    person_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    data = str(tmp_path / "data")
    url = f"{person_url}?lock_timeout=1s"  # the person's own, shorter limit
    assert main(["team", "connect", url, "--team", TEAM, "--json", "--data-dir", data]) == 0
    capsys.readouterr()
    request.getfixturevalue("administrator_holds")
    assert main(["team", "status", "--json", "--data-dir", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["reachable"] is False
    assert shown["problem"].startswith("The team database is busy")
    assert "lock timeout" in shown["problem"]
