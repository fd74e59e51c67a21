"""The PostgreSQL dialect on a real server (tests/postgres.py): schema and versions, the
errors a person sees, search translated to tsquery, and types as the app expects them."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import Connection, text

from memory_app.config import resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store.database import Database
from memory_app.store.dialects import dialect_for
from memory_app.store.dialects.pg_bm25 import refresh_stats
from memory_app.store.dialects.pg_tsquery import MatchSyntaxError, to_tsquery_text
from memory_app.store.dialects.postgresql import (
    BASELINE_VERSION,
    UPGRADES,
    VERSION_TABLE,
    PostgresDialect,
)
from memory_app.store.dialects.sqlite import SqliteDialect
from memory_app.store.errors import DatabaseTooNewError, TeamDatabaseError
from memory_app.store.retrieval import generation
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql


# -- without a server ---------------------------------------------------------------------


def test_urls_choose_the_engine() -> None:
    for url in ("postgresql://u@h/db", "postgresql+psycopg://u@h/db", "postgres://u@h/db"):
        assert dialect_for(url).name == "postgresql"
    assert dialect_for("sqlite:///x.db").name == "sqlite"


def test_both_engines_are_at_the_same_schema_version() -> None:
    """Appending a version to SQLite's MIGRATIONS needs its PostgreSQL step in UPGRADES."""
    assert PostgresDialect.schema_version == BASELINE_VERSION + len(UPGRADES)
    assert PostgresDialect.schema_version == SqliteDialect.schema_version


@pytest.mark.parametrize(
    ("match", "tsquery"),
    [
        ('"pyt"*', "'pyt':*"),
        ('"fix"* AND ("tests"* OR "test")', "('fix':* & ('tests':* | 'test'))"),
        (
            '("use" AND "pytest fixtures") NOT ("flaky" OR "event loop")',
            "(('use' & ('pytest' <-> 'fixtures')) & !('flaky' | ('event' <-> 'loop')))",
        ),
        ('{content tags} : ("a" "b")', "('a':AB & 'b':AB)"),
        ('{content tags} : ("a b"*)', "('a':AB <-> 'b':*AB)"),
        ('"a" OR "b" "c"', "('a' | ('b' & 'c'))"),  # FTS5: AND binds tighter than OR
        ('"a" "b" NOT "c"', "('a' & ('b' & !'c'))"),  # and NOT tighter than AND
    ],
)
def test_match_expressions_become_tsquery(match: str, tsquery: str) -> None:
    assert to_tsquery_text(match) == tsquery


@pytest.mark.parametrize("broken", ['"a" AND', '("a"', '{nowhere} : ("a")', "a"])
def test_a_match_outside_the_grammar_is_refused(broken: str) -> None:
    with pytest.raises(MatchSyntaxError):
        to_tsquery_text(broken)


# -- on the server ------------------------------------------------------------------------


def test_a_new_database_becomes_a_store_at_the_current_version(postgres_database: str) -> None:
    db = Database(postgres_database)
    try:
        assert db.previous_version == 0
        with db.engine.connect() as conn:
            version = conn.execute(text(f"SELECT version FROM {VERSION_TABLE}")).scalar()
            assert version == db.dialect.schema_version
            assert db.dialect.check_search_index(conn) == []
            types = dict(
                conn.execute(
                    text(
                        "SELECT column_name, data_type FROM information_schema.columns "
                        "WHERE table_name = 'memory_item'"
                    )
                ).all()
            )
        assert types["tags"] == "jsonb"
        assert types["extracted_at"] == "timestamp with time zone"
        assert types["search"] == "tsvector"
        assert db.dialect.check_integrity(db.engine, None) is None
    finally:
        db.close()
    again = Database(postgres_database)  # opening again changes nothing
    assert again.previous_version == again.dialect.schema_version
    again.close()


def test_a_store_written_by_a_newer_version_is_refused_untouched(
    postgres_store_url: str,
) -> None:
    newer = PostgresDialect.schema_version + 1
    Database(postgres_store_url).close()
    with psycopg.connect(postgres_store_url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f"UPDATE {VERSION_TABLE} SET version = {newer}")  # type: ignore[arg-type]
    with pytest.raises(DatabaseTooNewError, match=f"schema version {newer}") as refused:
        Database(postgres_store_url)
    assert "Upgrade Memory Curator" in str(refused.value)
    with psycopg.connect(postgres_store_url.replace("+psycopg", ""), autocommit=True) as conn:
        assert conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchone() == (newer,)  # type: ignore[arg-type]


def test_a_database_of_something_else_is_refused(postgres_database: str) -> None:
    with psycopg.connect(postgres_database.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("CREATE TABLE memory_item (id integer)")
    with pytest.raises(TeamDatabaseError, match="not made by Memory Curator"):
        Database(postgres_database)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_a_clear_error() -> None:
    url = f"postgresql://someone:secret@127.0.0.1:{_closed_port()}/team"
    with pytest.raises(TeamDatabaseError, match="Cannot reach the team database") as refused:
        Database(url)
    assert "secret" not in str(refused.value)


def test_a_wrong_password_is_a_clear_error(postgres_server: ThrowawayServer) -> None:
    url = postgres_server.url("postgres", password="not-the-password")
    with pytest.raises(TeamDatabaseError, match="refused the login") as refused:
        Database(url)
    assert "not-the-password" not in str(refused.value)


def test_a_missing_database_is_a_clear_error(postgres_server: ThrowawayServer) -> None:
    with pytest.raises(TeamDatabaseError, match="does not exist on the server"):
        Database(postgres_server.url("no_such_store"))


def test_a_missing_permission_is_a_clear_error(
    postgres_server: ThrowawayServer, postgres_store_url: str
) -> None:
    database = postgres_store_url.rsplit("/", 1)[1]
    postgres_server.admin("DROP ROLE IF EXISTS visitor")
    postgres_server.admin("CREATE ROLE visitor LOGIN PASSWORD 'visitor-pw'")
    try:
        url = postgres_server.url(database, user="visitor", password="visitor-pw")
        with pytest.raises(TeamDatabaseError, match="refused this user a permission"):
            Database(url).close()
    finally:
        postgres_server.admin(f"REVOKE ALL ON DATABASE {database} FROM visitor")
        postgres_server.drop_database(database)
        postgres_server.admin("DROP ROLE visitor")


def test_search_weights_content_over_tags_and_keeps_times_aware(
    tmp_path_factory: pytest.TempPathFactory, postgres_store_url: str
) -> None:
    settings = resolve_settings(tmp_path_factory.mktemp("pg"), db_url=postgres_store_url, env={})
    service = MemoryService.open(settings, OfflineExtractor())
    try:
        _, in_tags = service.remember("Releases are cut on Thursdays")
        service.edit_item(in_tags.id, tags=["deploy"])
        _, in_content = service.remember("Deploy with the blue-green script")
        hits = [m.id for m in service.search("deploy")]
        assert hits == [in_content.id, in_tags.id]
        assert [m.id for m in service.search('"blue green" -thursdays')] == [in_content.id]
        record = service.get_item(in_content.id)
        assert record.extracted_at.tzinfo is not None
        assert record.extracted_at.utcoffset() == UTC.utcoffset(datetime.now(UTC))
        with service.db.reading() as session:
            before = generation(session.connection())
        service.edit_item(in_tags.id, content="Releases are cut on Fridays")
        with service.db.reading() as session:
            assert generation(session.connection()) > before
        assert [m.id for m in service.search("fridays")] == [in_tags.id]
    finally:
        service.close()


def _stats(conn: Connection) -> dict[str, tuple[int, int]]:
    rows = conn.execute(text("SELECT lexeme, docs, tokens FROM search_term_stats"))
    return {row[0]: (row[1], row[2]) for row in rows if row[1] or row[2]}


def test_word_counts_stay_exact_through_inserts_edits_and_deletes(
    tmp_path_factory: pytest.TempPathFactory, postgres_store_url: str
) -> None:
    """bm25's word rarity (dialects/pg_bm25.py) reads counts the triggers keep: after
    every kind of change they equal a count made again from the memories."""
    settings = resolve_settings(tmp_path_factory.mktemp("pg"), db_url=postgres_store_url, env={})
    service = MemoryService.open(settings, OfflineExtractor())
    try:
        _, first = service.remember("Deploy with the blue-green script")
        _, second = service.remember("Releases are cut on Thursdays")
        service.edit_item(second.id, content="Releases are cut on Fridays", tags=["deploy"])
        service.search("deploy")  # a use count changes, the words do not
        with service.db.writing() as session:
            conn = session.connection()
            conn.execute(text("DELETE FROM memory_item WHERE id = :id"), {"id": first.id})
            kept = _stats(conn)
            refresh_stats(conn)
            assert _stats(conn) == kept
        assert kept[""][0] == 1 and kept["friday"] == (1, 0) and "thursday" not in kept
        with service.db.reading() as session:
            assert service.db.dialect.document_frequencies(
                session.connection(), ["deploy", "fridays", "nothing"]
            ) == [1, 1, 0]
    finally:
        service.close()


def test_a_rare_word_outranks_a_common_one_as_on_sqlite(
    tmp_path_factory: pytest.TempPathFactory, postgres_store_url: str
) -> None:
    """ts_rank_cd ranked a memory holding only the common word of "pytest flaky" like
    one holding only the rare word; bm25 puts the rare one first on both engines."""
    found = {}
    for engine, url in (("sqlite", None), ("postgresql", postgres_store_url)):
        settings = resolve_settings(tmp_path_factory.mktemp(engine), db_url=url, env={})
        service = MemoryService.open(settings, OfflineExtractor())
        try:
            for n in range(6):
                service.remember(f"Run pytest with option number {n} for the suite")
            service.remember("A flaky fixture leaked state between suites")
            results = service.search("pytest flaky", limit=3)  # no memory has both
            found[engine] = results[0].content
        finally:
            service.close()
    assert found["postgresql"] == found["sqlite"] == "A flaky fixture leaked state between suites"
