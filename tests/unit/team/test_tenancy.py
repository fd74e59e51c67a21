"""Tenancy of a team store (issue 20): a member of team B cannot read, write or learn
the count of team A's memories, even with hand-written SQL on its own connection; a
member of A works on A's store through the unchanged MemoryService. Real server
(tests/postgres.py); two teams set up once per module by `team init`."""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import errors as pg_errors

from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from memory_app.team import tenancy
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql
_numbers = itertools.count(1)
A_MEMORIES = 40


@dataclass
class Teams:
    server: ThrowawayServer
    database: str
    ana: str  # member of alpha
    bob: str  # member of beta
    password: str
    alpha_role: str
    beta_role: str

    def url(self, user: str) -> str:
        return self.server.url(self.database, user=user, password=self.password)

    def connect(self, user: str) -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1",
            port=self.server.port,
            dbname=self.database,
            user=user,
            password=self.password,
            autocommit=True,
        )


def _service(url: str, folder: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(folder, db_url=url, env={}))


@pytest.fixture(scope="module")
def teams(
    postgres_server: ThrowawayServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Teams]:
    n = next(_numbers)
    database = f"tenancy_{n}_{secrets.token_hex(3)}"
    admin_url = postgres_server.create_database(database)
    ana, bob = f"ana_{database}", f"bob_{database}"
    alpha = tenancy.init_team(admin_url, "alpha", [ana])
    beta = tenancy.init_team(admin_url, "beta", [bob])
    password = secrets.token_urlsafe(12)
    for person in (ana, bob):
        postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    found = Teams(postgres_server, database, ana, bob, password, alpha.role, beta.role)
    service = _service(found.url(ana), tmp_path_factory.mktemp("ana"))
    try:
        for i in range(A_MEMORIES):
            service.remember(f"Alpha convention number {i}: deploys go through the queue")
    finally:
        service.close()
    postgres_server.admin("ANALYZE", database=database)
    yield found
    postgres_server.drop_database(database)
    for person in (ana, bob):
        postgres_server.admin(f"DROP ROLE IF EXISTS {person}")


def _denied(conn: psycopg.Connection, sql: str) -> None:
    with pytest.raises(pg_errors.InsufficientPrivilege):
        conn.execute(sql)


def _one(conn: psycopg.Connection, sql: str) -> object:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return row[0]


# -- a member of A works as usual -------------------------------------------------------------


def test_a_member_uses_the_unchanged_service_on_the_team_store(
    teams: Teams, tmp_path: Path
) -> None:
    service = _service(teams.url(teams.ana), tmp_path)
    try:
        found = service.search("alpha convention queue", limit=100)
        assert len(found) == A_MEMORIES
        _, added = service.remember("Alpha reviews need two approvals")
        edited = service.edit_item(added.id, content="Alpha reviews need one approval")
        assert edited.content == "Alpha reviews need one approval"
        assert [h.action for h in service.item_history(added.id)][-1] != ""
        assert len(service.item_history(added.id)) >= 2
        assert service.search("approval")[0].id == added.id
    finally:
        service.close()
    with teams.connect(teams.ana) as conn:
        row = conn.execute(
            "SELECT team_id, user_id FROM memory_item WHERE id = %s", (added.id,)
        ).fetchone()
        assert row == ("alpha", teams.ana)  # filled by the defaults, not by the app
        authors = conn.execute("SELECT DISTINCT user_id FROM audit_event").fetchall()
        assert authors == [(teams.ana,)]


def test_b_sees_an_empty_store_through_the_service(teams: Teams, tmp_path: Path) -> None:
    service = _service(teams.url(teams.bob), tmp_path)
    try:
        assert service.search("alpha convention queue") == []
        assert service.get_stats().items == 0
    finally:
        service.close()


# -- a member of B learns nothing of A --------------------------------------------------------


def test_b_cannot_read_or_count_a_rows(teams: Teams) -> None:
    with teams.connect(teams.bob) as conn:
        assert _one(conn, "SELECT count(*) FROM memory_item") == 0
        assert _one(conn, "SELECT count(*) FROM memory_item WHERE team_id = 'alpha'") == 0
        assert _one(conn, "SELECT count(*) FROM audit_event") == 0
        _denied(conn, "SELECT count(*) FROM team_alpha.memory_item")
        _denied(conn, "SELECT * FROM memory_teams.member")
        assert _one(conn, "SELECT memory_teams.member_of('alpha')") is False
        # A setting of the person's choosing changes nothing: no policy reads one.
        conn.execute("SET app.team_id = 'alpha'")
        conn.execute("SET app.anything = 'alpha'")
        assert _one(conn, "SELECT count(*) FROM memory_item") == 0


def test_b_cannot_write_a_rows_or_move_rows_there(teams: Teams) -> None:
    with teams.connect(teams.bob) as conn:
        moved = conn.execute("UPDATE memory_item SET content = 'x' WHERE team_id = 'alpha'")
        assert moved.rowcount == 0
        assert conn.execute("DELETE FROM memory_item WHERE team_id = 'alpha'").rowcount == 0
        _denied(conn, "UPDATE team_alpha.memory_item SET content = 'x'")
        _denied(conn, "DELETE FROM team_alpha.memory_item")
        insert = (
            "INSERT INTO memory_item (content, content_key, category, type, confidence, "
            "importance, scope, tags, extracted_at, status, uid, sharing, team_dirty, pinned, "
            "access_count, reinforcement_count, decay_factor, injected_count, cited_count, "
            "ignored_count, updated_at{extra}) "
            "VALUES ('b', '{uid}', 'general', 'fact', 0.5, 0.5, 'global', '[]', now(), 'active', "
            "'{uid}', 'team', false, false, 0, 0, 1.0, 0, 0, 0, now(){value})"
        )
        conn.execute(
            "INSERT INTO category (key, name, description, default_type, position) "
            "VALUES ('general', 'General', '', 'fact', 0) ON CONFLICT DO NOTHING"
        )
        _denied(conn, insert.format(extra=", team_id", value=", 'alpha'", uid="u1"))
        _denied(conn, insert.format(extra=", user_id", value=f", '{teams.ana}'", uid="u2"))
        conn.execute(insert.format(extra="", value="", uid="u3"))  # its own team: fine
        assert _one(conn, "SELECT count(*) FROM memory_item") == 1
        _denied(conn, "UPDATE memory_item SET team_id = 'alpha'")  # moving it out
        _denied(conn, "ALTER TABLE memory_item DISABLE ROW LEVEL SECURITY")
        _denied(conn, "ALTER TABLE memory_item NO FORCE ROW LEVEL SECURITY")
        _denied(conn, "DROP POLICY team_select ON memory_item")
        _denied(conn, "CREATE OR REPLACE FUNCTION memory_teams.member_of(team TEXT) "
                      "RETURNS boolean LANGUAGE sql AS $$ SELECT true $$")  # fmt: skip
        conn.execute("DELETE FROM memory_item")
    with teams.connect(teams.ana) as conn:
        assert _one(conn, "SELECT count(*) FROM memory_item WHERE content = 'x'") == 0
        assert int(str(_one(conn, "SELECT count(*) FROM memory_item"))) >= A_MEMORIES


def test_b_cannot_become_a(teams: Teams) -> None:
    with teams.connect(teams.bob) as conn:
        _denied(conn, f"SET ROLE {teams.alpha_role}")
        _denied(conn, "SET ROLE memory_admin")
        _denied(conn, "SET SESSION AUTHORIZATION memory_admin")
        # Its own team's role is allowed, and still shows only its own team's rows.
        conn.execute(f"SET ROLE {teams.beta_role}")
        assert _one(conn, "SELECT count(*) FROM memory_item") == 0
        conn.execute("RESET ROLE")
        # Naming A's schema first finds nothing: without USAGE it is left out of the path.
        conn.execute("SET search_path = team_alpha, memory_teams")
        with pytest.raises(pg_errors.UndefinedTable):
            conn.execute("SELECT count(*) FROM memory_item")


def test_b_cannot_learn_a_count_from_the_statistics(teams: Teams) -> None:
    with teams.connect(teams.bob) as conn:
        oid = _one(
            conn,
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'team_alpha' AND c.relname = 'memory_item'",
        )
        # The catalog's names stay readable (psql, SQLAlchemy), its size estimates do not.
        _denied(conn, f"SELECT reltuples FROM pg_class WHERE oid = {oid}")
        _denied(conn, f"SELECT relpages FROM pg_class WHERE oid = {oid}")
        _denied(conn, "SELECT * FROM pg_class")
        for view in ("pg_stat_user_tables", "pg_stat_all_tables", "pg_statio_all_tables",
                     "pg_stat_xact_all_tables", "pg_stat_database", "pg_stats"):  # fmt: skip
            _denied(conn, f"SELECT * FROM {view}")
        for function in (
            "pg_stat_get_live_tuples",
            "pg_stat_get_tuples_inserted",
            "pg_stat_get_numscans",
            "pg_stat_get_xact_tuples_inserted",
            "pg_relation_size",
            "pg_total_relation_size",
            "pg_table_size",
        ):
            _denied(conn, f"SELECT {function}({oid})")
        _denied(conn, "SELECT pg_database_size(current_database())")
        _denied(conn, "SELECT pg_sequence_last_value('team_alpha.memory_item_id_seq')")
        _denied(conn, "SELECT last_value FROM team_alpha.memory_item_id_seq")
        _denied(conn, "EXPLAIN SELECT * FROM team_alpha.memory_item")


def test_b_estimates_and_ids_do_not_move_with_a(teams: Teams, tmp_path: Path) -> None:
    """B's own table is B's alone: the planner's estimate and the next id are the same
    before and after A adds rows (a shared table would show A's growth in both)."""

    def look() -> tuple[int, int]:
        with teams.connect(teams.bob) as conn:
            plan = str(_one(conn, "EXPLAIN SELECT * FROM memory_item"))
            rows = int(re.search(r"rows=(\d+)", plan).group(1))  # type: ignore[union-attr]
            conn.execute("BEGIN")
            next_id = int(_one(conn, "SELECT nextval('memory_item_id_seq')"))  # type: ignore[call-overload]
            conn.execute("ROLLBACK")
            return rows, next_id

    before = look()
    service = _service(teams.url(teams.ana), tmp_path)
    try:
        for i in range(60):
            service.remember(f"Another alpha rule {i} about the release train")
    finally:
        service.close()
    teams.server.admin("ANALYZE", database=teams.database)
    after = look()
    assert after[0] == before[0]
    assert after[1] == before[1] + 1  # only B's own draw moved it


# -- team init ---------------------------------------------------------------------------


def test_init_again_changes_nothing(teams: Teams) -> None:
    admin_url = teams.server.url(teams.database)

    def catalog() -> list[tuple[object, ...]]:
        with psycopg.connect(admin_url.replace("+psycopg", "")) as conn:
            return (
                conn.execute(
                    "SELECT n.nspname, c.relname, c.relacl::text, c.relrowsecurity, "
                    "c.relforcerowsecurity FROM pg_class c JOIN pg_namespace n ON "
                    "n.oid = c.relnamespace WHERE n.nspname IN ('team_alpha', 'team_beta', "
                    "'memory_teams', 'pg_catalog') ORDER BY 1, 2"
                ).fetchall()
                + conn.execute(
                    "SELECT schemaname, tablename, policyname, qual, with_check FROM pg_policies "
                    "ORDER BY 1, 2, 3"
                ).fetchall()
            )

    before = catalog()
    again = tenancy.init_team(admin_url, "alpha", [teams.ana])
    assert again.changes == []
    assert again.members == [teams.ana]
    assert catalog() == before


def test_init_refuses_a_login_of_another_team_and_a_non_superuser(teams: Teams) -> None:
    admin_url = teams.server.url(teams.database)
    with pytest.raises(tenancy.TeamSetupError, match="already a member of team 'beta'"):
        tenancy.init_team(admin_url, "alpha", [teams.bob])
    with pytest.raises(tenancy.TeamSetupError, match="is not a superuser"):
        tenancy.init_team(teams.url(teams.ana), "alpha")
    with pytest.raises(tenancy.TeamSetupError, match="team name 'Bad Name'"):
        tenancy.init_team(admin_url, "Bad Name")


def test_init_on_an_unreachable_server_says_so(postgres_server: ThrowawayServer) -> None:
    from memory_app.store.errors import TeamDatabaseError

    url = postgres_server.url("nothing_here").replace(str(postgres_server.port), "1")
    with pytest.raises(TeamDatabaseError, match="Cannot reach the team database"):
        tenancy.init_team(url, "alpha")


def test_init_refuses_a_store_of_a_newer_version(postgres_database: str) -> None:
    from memory_app.store.errors import DatabaseTooNewError

    tenancy.init_team(postgres_database, "gamma")
    name = postgres_database.rsplit("/", 1)[1]
    with psycopg.connect(postgres_database.replace("+psycopg", "")) as conn:
        conn.execute("UPDATE team_gamma.store_schema_version SET version = 999")
    with pytest.raises(DatabaseTooNewError, match="schema version 999"):
        tenancy.init_team(postgres_database, "gamma")
    assert name


def test_members_are_added_and_removed(teams: Teams) -> None:
    admin_url = teams.server.url(teams.database)
    carl = f"carl_{teams.database}"
    try:
        listed, changes = tenancy.change_members(admin_url, "alpha", add=[carl])
        assert carl in listed and any("created login role" in c for c in changes)
        listed, _ = tenancy.change_members(admin_url, "alpha", remove=[carl])
        assert carl not in listed
        with pytest.raises(tenancy.TeamSetupError, match="no team 'nope'"):
            tenancy.change_members(admin_url, "nope", add=[carl])
    finally:
        teams.server.admin(f"DROP ROLE IF EXISTS {carl}")
