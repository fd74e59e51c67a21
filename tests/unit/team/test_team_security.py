"""What a member cannot do to a team store (issue 20, review findings): stall another
team's writes or `team init` with an advisory lock, forge or delete a tombstone, give a
change a number of its choosing, rewrite a row's author, or redirect the sync triggers
through its search_path; and what `team init` refuses: a role of another database.
Writers still commit in the order of their change numbers. Real server (tests/postgres.py)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import psycopg
import pytest
from psycopg import errors as pg_errors

from memory_app.team import tenancy
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql

# The advisory keys the team store used before (sync: "sync", tenancy: "team").
OLD_SYNC_LOCK = 0x73796E63
OLD_TENANCY_LOCK = 0x7465616D
FORGED = 9_000_000_000

_INSERT = (
    "INSERT INTO memory_item (content, content_key, category, type, confidence, importance, "
    "scope, tags, extracted_at, status, uid, sharing, team_dirty, pinned, access_count, "
    "reinforcement_count, decay_factor, injected_count, cited_count, ignored_count, "
    "updated_at{extra}) VALUES (%(c)s, %(c)s, 'general', 'fact', 0.5, 0.5, 'global', '[]', "
    "now(), 'active', %(c)s, 'team', false, false, 0, 0, 1.0, 0, 0, 0, now(){value}) "
    "RETURNING change_seq"
)


@dataclass
class Store:
    server: ThrowawayServer
    database: str
    admin_url: str
    ana: str  # alpha
    cy: str  # alpha
    bob: str  # beta
    password: str

    def connect(self, user: str) -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1",
            port=self.server.port,
            dbname=self.database,
            user=user,
            password=self.password,
            autocommit=True,
        )

    def admin(self) -> psycopg.Connection:
        return psycopg.connect(self.admin_url.replace("+psycopg", ""), autocommit=True)


@pytest.fixture(scope="module")
def store(postgres_server: ThrowawayServer) -> Iterator[Store]:
    database = f"security_{secrets.token_hex(3)}"
    admin_url = postgres_server.create_database(database)
    ana, cy, bob = (f"{p}_{database}" for p in ("ana", "cy", "bob"))
    tenancy.init_team(admin_url, "alpha", [ana, cy])
    tenancy.init_team(admin_url, "beta", [bob])
    password = secrets.token_urlsafe(12)
    for person in (ana, cy, bob):
        postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    found = Store(postgres_server, database, admin_url, ana, cy, bob, password)
    with found.connect(ana) as conn:
        conn.execute(
            "INSERT INTO category (key, name, description, default_type, position) "
            "VALUES ('general', 'General', '', 'fact', 0) ON CONFLICT DO NOTHING"
        )
    yield found
    postgres_server.drop_database(database)
    for person in (ana, cy, bob):
        postgres_server.admin(f"DROP ROLE IF EXISTS {person}")


def _remember(conn: psycopg.Connection, content: str, change_seq: int | None = None) -> int:
    extra, value = ("", "") if change_seq is None else (", change_seq", f", {change_seq}")
    row = conn.execute(_INSERT.format(extra=extra, value=value), {"c": content}).fetchone()
    assert row is not None
    return int(row[0])


def _uid() -> str:
    return f"m-{secrets.token_hex(4)}"


def _within(seconds: float, work: Callable[[], object]) -> bool:
    """Whether `work` finished within `seconds` (it runs on in the background if not)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # reported below
            errors.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    finished = done.wait(seconds)
    if errors:
        raise errors[0]
    return finished


# -- locks: nothing another team can take --------------------------------------------------


def test_another_teams_advisory_locks_stall_neither_writes_nor_team_init(store: Store) -> None:
    carl = f"carl_{store.database}"
    with store.connect(store.bob) as bob, store.connect(store.ana) as ana:
        bob.execute("SELECT pg_advisory_lock(%s, hashtext('team_alpha'))", (OLD_SYNC_LOCK,))
        bob.execute("SELECT pg_advisory_lock(%s)", (OLD_TENANCY_LOCK,))
        bob.execute("SELECT pg_advisory_lock(%s, hashtext('public'))", (OLD_SYNC_LOCK,))
        ana.execute("SET statement_timeout = '5s'")
        seq = _remember(ana, _uid())  # before the fix: waits for bob, then is cancelled
        ana.execute("DELETE FROM memory_item WHERE change_seq = %s", (seq,))
        try:
            assert _within(30, lambda: tenancy.change_members(store.admin_url, "alpha", [carl]))
            assert _within(30, lambda: tenancy.init_team(store.admin_url, "alpha"))
        finally:
            bob.execute("SELECT pg_advisory_unlock_all()")
            store.server.admin(f"DROP OWNED BY {carl}", database=store.database)
            store.server.admin(f"DROP ROLE IF EXISTS {carl}")
        # What the store locks instead is out of every member's reach.
        for sql in (
            "LOCK TABLE team_alpha.team_sync_lock",
            "SELECT * FROM team_alpha.team_sync_lock FOR UPDATE",
            "LOCK TABLE memory_teams.team",
        ):
            with pytest.raises(pg_errors.InsufficientPrivilege), bob.transaction():
                bob.execute(sql)
        for sql in (
            "LOCK TABLE team_sync_lock",
            "SELECT * FROM team_sync_lock FOR UPDATE",
            "LOCK TABLE memory_teams.team IN SHARE ROW EXCLUSIVE MODE",
        ):
            with pytest.raises(pg_errors.InsufficientPrivilege), ana.transaction():
                ana.execute(sql)


_LAST_CHANGE = (
    "SELECT max(change_seq) FROM (SELECT change_seq FROM memory_item UNION ALL "
    "SELECT change_seq FROM team_tombstone UNION ALL SELECT change_seq FROM team_conflict) x"
)


def test_writers_of_a_team_commit_in_the_order_of_their_change_numbers(store: Store) -> None:
    """A writer that drew number N holds the team's lock until it commits: one that
    would draw a larger number waits, so a pull that saw N+1 never meets N later. The
    same for a withdrawal (its tombstone) and a team conflict."""
    late_uid = _uid()
    with store.connect(store.ana) as ana, store.connect(store.cy) as cy:
        doomed = _remember(ana, late_uid)
        writes: list[Callable[[psycopg.Connection], object]] = [
            lambda c: _remember(c, _uid()),
            lambda c: c.execute("DELETE FROM memory_item WHERE uid = %s", (late_uid,)),
            lambda c: c.execute(
                "INSERT INTO team_conflict (uid, member_uids, category) VALUES (%s, '[]', 'g')",
                (_uid(),),
            ),
        ]
        for write in writes:
            ana.execute("BEGIN")
            first = _remember(ana, _uid())
            cy.execute("SET lock_timeout = '300ms'")
            with pytest.raises(pg_errors.LockNotAvailable), cy.transaction():
                write(cy)
            cy.execute("RESET lock_timeout")
            waited: list[int] = []

            def second(
                write: Callable[[psycopg.Connection], object] = write, waited: list[int] = waited
            ) -> None:
                with cy.transaction():
                    write(cy)
                    last = cy.execute(_LAST_CHANGE).fetchone()
                    waited.append(int(last[0]) if last else 0)

            thread = threading.Thread(target=second)
            thread.start()
            time.sleep(0.3)
            assert not waited  # still waiting for ana's commit
            ana.execute("COMMIT")
            thread.join(10)
            assert waited and waited[0] > first > doomed


# -- forged sync rows -----------------------------------------------------------------------


def test_a_member_cannot_forge_delete_or_renumber_a_tombstone(store: Store) -> None:
    uid = _uid()
    with store.connect(store.ana) as ana:
        _remember(ana, uid)
        ana.execute("DELETE FROM memory_item WHERE uid = %s", (uid,))  # a withdrawal
        row = ana.execute("SELECT change_seq FROM team_tombstone WHERE uid = %s", (uid,))
        gone = row.fetchone()
        assert gone is not None and gone[0] < FORGED  # the trigger wrote it for ana
        for sql in (
            f"INSERT INTO team_tombstone VALUES ('forged', {FORGED})",
            f"UPDATE team_tombstone SET change_seq = {FORGED}",
            "DELETE FROM team_tombstone",
            "TRUNCATE team_tombstone",
            "SELECT nextval('team_change_seq')",
            f"SELECT setval('team_change_seq', {FORGED})",
        ):
            with pytest.raises(pg_errors.InsufficientPrivilege):
                ana.execute(sql)
    with store.admin() as admin:
        assert admin.execute(
            "SELECT uid, change_seq FROM team_alpha.team_tombstone WHERE uid = %s", (uid,)
        ).fetchall() == [(uid, gone[0])]
        assert admin.execute(
            f"SELECT count(*) FROM team_alpha.team_tombstone WHERE change_seq >= {FORGED}"
        ).fetchone() == (0,)


def test_a_member_cannot_choose_a_change_number(store: Store) -> None:
    uid = _uid()
    with store.connect(store.ana) as ana:
        first = _remember(ana, uid, change_seq=FORGED)
        assert first < FORGED
        kept = ana.execute(
            "UPDATE memory_item SET change_seq = %s WHERE uid = %s RETURNING change_seq",
            (FORGED, uid),
        ).fetchone()
        assert kept == (first,)  # nothing shared changed: the number stays
        edited = ana.execute(
            "UPDATE memory_item SET change_seq = %s, content = 'edited' WHERE uid = %s "
            "RETURNING change_seq",
            (FORGED, uid),
        ).fetchone()
        assert edited is not None and first < edited[0] < FORGED
        conflict = _uid()
        made = ana.execute(
            "INSERT INTO team_conflict (uid, member_uids, category, change_seq) "
            "VALUES (%s, '[]', 'general', %s) RETURNING change_seq",
            (conflict, FORGED),
        ).fetchone()
        assert made is not None and made[0] < FORGED
        moved = ana.execute(
            "UPDATE team_conflict SET change_seq = %s WHERE uid = %s RETURNING change_seq",
            (FORGED, conflict),
        ).fetchone()
        assert moved is not None and made[0] < moved[0] < FORGED


def test_an_edit_keeps_the_rows_author(store: Store) -> None:
    """user_id is who first wrote a row: a teammate edits it (the app never names
    user_id) but cannot rewrite it, nor move the row to another team."""
    uid = _uid()
    with store.connect(store.ana) as ana, store.connect(store.cy) as cy:
        _remember(ana, uid)
        cy.execute("UPDATE memory_item SET content = 'cy edited it' WHERE uid = %s", (uid,))
        for sql in (
            "UPDATE memory_item SET user_id = %s WHERE uid = %s",
            "UPDATE memory_item SET user_id = %s, content = 'x' WHERE uid = %s",
        ):
            with pytest.raises(pg_errors.InsufficientPrivilege, match="keeps the author"):
                cy.execute(sql, (store.cy, uid))
        with pytest.raises(pg_errors.InsufficientPrivilege):
            cy.execute("UPDATE memory_item SET team_id = 'beta' WHERE uid = %s", (uid,))
        row = ana.execute("SELECT user_id, content FROM memory_item WHERE uid = %s", (uid,))
        assert row.fetchone() == (store.ana, "cy edited it")


def test_the_sync_triggers_ignore_the_callers_search_path(store: Store) -> None:
    """Even with a temporary schema (TEMP given by mistake), a member's own
    team_tombstone or team_change_seq cannot stand in for the team's."""
    role = tenancy.team_names(store.database, "alpha").role
    store.server.admin(f"GRANT TEMP ON DATABASE {store.database} TO {role}")
    try:
        uid = _uid()
        with store.connect(store.ana) as ana:
            ana.execute(f"CREATE TEMP SEQUENCE team_change_seq START {FORGED}")
            ana.execute("CREATE TEMP TABLE team_tombstone (uid TEXT, change_seq BIGINT)")
            ana.execute("CREATE TEMP TABLE team_sync_lock (id INTEGER)")
            ana.execute("SET search_path = pg_temp, team_alpha, memory_teams")
            assert _remember(ana, uid) < FORGED
            ana.execute("DELETE FROM memory_item WHERE uid = %s", (uid,))
            assert ana.execute("SELECT count(*) FROM pg_temp.team_tombstone").fetchone() == (0,)
        with store.admin() as admin:
            found = admin.execute(
                "SELECT change_seq FROM team_alpha.team_tombstone WHERE uid = %s", (uid,)
            ).fetchone()
            assert found is not None and found[0] < FORGED
    finally:
        store.server.admin(f"REVOKE TEMP ON DATABASE {store.database} FROM {role}")


# -- role names -------------------------------------------------------------------------------


def test_role_names_differ_for_databases_alike() -> None:
    role = tenancy.team_names
    assert role("Team-DB", "alpha").role != role("team_db", "alpha").role
    long = "a" * 60
    assert role(long + "x", "alpha").role != role(long + "y", "alpha").role
    longest = role("d" * 63, "t" * 30).role
    assert len(longest) <= 63 and longest.endswith("_" + "t" * 30)


def test_init_refuses_a_role_of_another_database(store: Store) -> None:
    names = tenancy.team_names(store.database, "omega")
    store.server.admin(f"CREATE ROLE {names.role} NOLOGIN")
    try:
        store.server.admin(
            f"COMMENT ON ROLE {names.role} IS 'memory-app: role of team omega in database other'"
        )
        with pytest.raises(tenancy.TeamSetupError, match=r"in database other'.*nothing was"):
            tenancy.init_team(store.admin_url, "omega")
        store.server.admin(f"COMMENT ON ROLE {names.role} IS NULL")  # not one of ours
        with pytest.raises(tenancy.TeamSetupError, match="a role memory-app did not make"):
            tenancy.init_team(store.admin_url, "omega")
        with store.admin() as admin:
            assert admin.execute("SELECT to_regnamespace('team_omega')").fetchone() == (None,)
    finally:
        store.server.admin(f"DROP ROLE {names.role}")


def test_a_team_made_before_hashed_role_names_keeps_its_role(store: Store) -> None:
    legacy = f"memory_{store.database}_legacy"
    report = tenancy.init_team(store.admin_url, "legacy")
    with store.admin() as admin:
        admin.execute(f"ALTER ROLE {report.role} RENAME TO {legacy}")
        admin.execute(f"COMMENT ON ROLE {legacy} IS NULL")
        admin.execute("UPDATE memory_teams.team SET role_name = %s WHERE team_id = 'legacy'",
                      (legacy,))  # fmt: skip
    try:
        again = tenancy.init_team(store.admin_url, "legacy")
        assert again.role == legacy
        assert again.changes == [f"marked role {legacy} as team legacy's"]
        assert tenancy.init_team(store.admin_url, "legacy").changes == []
    finally:
        store.server.admin(f"DROP OWNED BY {legacy}", database=store.database)
        store.server.admin(f"DROP ROLE {legacy}")


def test_another_teams_advisory_lock_does_not_stall_opening_the_team_store(store: Store) -> None:
    """Opening a current store reads its version without a lock: the advisory lock a new
    store's creation takes is open to every role, so a member of another team holding it
    must not make a teammate's app wait. An upgrade locks what only the owner may."""
    from memory_app.store.database import Database
    from memory_app.store.dialects import postgresql

    url = store.server.url(store.database, user=store.ana, password=store.password)
    with store.connect(store.bob) as bob:
        bob.execute("SELECT pg_advisory_lock(%s)", (postgresql._MIGRATION_LOCK,))
        try:
            opened: list[int] = []

            def open_store() -> None:
                database = Database(url)
                opened.append(database.previous_version)
                database.close()

            assert _within(30, open_store)
            assert opened == [postgresql.PostgresDialect().schema_version]
        finally:
            bob.execute("SELECT pg_advisory_unlock_all()")
        with pytest.raises(pg_errors.InsufficientPrivilege), bob.transaction():
            bob.execute(f"LOCK TABLE team_beta.{postgresql.VERSION_TABLE} IN EXCLUSIVE MODE")
