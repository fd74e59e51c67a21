"""PostgreSQL: the shared team store (issue 20), through psycopg 3.

The same SQLModel tables as SQLite, with JSONB for JSON and `timestamp with time zone`
for times (store/types.py). Full-text search is a stored, generated `tsvector` column
with a GIN index on memory_item (content weight A, tags B, context C) and on resource
(title A, text B), ranked with ts_rank_cd weighted like SQLite's bm25 (fts_query.py
MEMORY_RANK: content 1.0, tags and context 0.5). The text search configuration is a copy
of `english` without its stop-word list: the store leaves out stop words itself
(fts_query.py STOP_WORDS), as on SQLite, so a search for "the" alone still finds it.

Migrations: PostgreSQL has no `user_version`, so `store_schema_version` holds the
version, with the same numbers as SQLite's (dialects/sqlite.py MIGRATIONS). A new
database is created whole from the current models at the current version. When a
version is appended to SQLite's MIGRATIONS, append its PostgreSQL step to UPGRADES here
(step N brings N-1 to N, in one transaction); a test checks both engines agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, make_url, text
from sqlalchemy.engine import URL
from sqlmodel import SQLModel

from memory_app.store import tables  # noqa: F401  (registers the tables on the metadata)
from memory_app.store.dialects import pg_bm25, pg_connect
from memory_app.store.dialects.base import TextHits
from memory_app.store.dialects.item_sql import item_filters, newest_item_ids
from memory_app.store.dialects.pg_tsquery import scored_operands, to_tsquery_text
from memory_app.store.errors import (
    DatabaseTooNewError,
    StoreError,
    TeamDatabaseError,
)
from memory_app.store.fts_query import MAX_TERMS, TABLE_COLUMNS, match_expression
from memory_app.store.search_match import CompiledSearch

# The version a PostgreSQL store starts at: created whole from the models. Versions
# after it are UPGRADES, in order.
BASELINE_VERSION = 10
UPGRADES: tuple[Callable[[Connection], None], ...] = ()

SEARCH_CONFIG = "memory_english"
VERSION_TABLE = "store_schema_version"
# One migrator at a time per database (an arbitrary constant: "memory" in ASCII).
_MIGRATION_LOCK = 0x6D656D6F7279
# A migration, a bulk load and a re-index may take longer than the connection's limits
# (pg_connect.py: seconds): they raise them, for their own transaction, to these (ms).
LONG_WORK_LIMITS = {"statement_timeout": 30 * 60_000, "lock_timeout": 2 * 60_000}

_CONFIG_DDL = (
    # english's snowball stemmer without its stop-word file.
    f"CREATE TEXT SEARCH DICTIONARY {SEARCH_CONFIG}_stem "
    "(TEMPLATE = pg_catalog.snowball, Language = english)",
    f"CREATE TEXT SEARCH CONFIGURATION {SEARCH_CONFIG} (COPY = pg_catalog.english)",
    f"ALTER TEXT SEARCH CONFIGURATION {SEARCH_CONFIG} "
    f"ALTER MAPPING REPLACE english_stem WITH {SEARCH_CONFIG}_stem",
)

_MEMORY_VECTOR = (
    f"setweight(to_tsvector('{SEARCH_CONFIG}', coalesce(content, '')), 'A') || "
    f"setweight(jsonb_to_tsvector('{SEARCH_CONFIG}', tags, '[\"string\"]'), 'B') || "
    f"setweight(to_tsvector('{SEARCH_CONFIG}', coalesce(context, '')), 'C')"
)
_RESOURCE_VECTOR = (
    f"setweight(to_tsvector('{SEARCH_CONFIG}', coalesce(title, '')), 'A') || "
    f"setweight(to_tsvector('{SEARCH_CONFIG}', coalesce(text, '')), 'B')"
)
_SEARCH_INDEXES = {
    "memory_item_search": "CREATE INDEX memory_item_search ON memory_item USING gin (search)",
    "resource_search": "CREATE INDEX resource_search ON resource USING gin (search)",
}

# ts_rank_cd's weights are listed {D, C, B, A}: content (A) 1.0, tags (B) and context (C)
# 0.5, like SQLite's bm25(memory_fts, 1.0, 0.5, 0.5). Normalization 1 divides by 1 +
# the log of the memory's length, the nearest to bm25's length normalization (measured:
# benchmarks/team_search.py ranking agreement).
MEMORY_WEIGHTS = "{0.1, 0.5, 0.5, 1.0}"
RANK_NORMALIZATION = 1
# How memories are ranked: "bm25" (dialects/pg_bm25.py, word rarity included, measured
# closest to SQLite) or "ts_rank_cd" (the benchmark's comparison).
RANKING = "bm25"
_RESOURCE_WEIGHTS = "{0.1, 0.1, 1.0, 1.0}"  # title and text alike, as bm25's defaults

# Every change to memories, conflicts and context exclusions bumps the generation that
# cached retrievals compare (seed 002 §2.7), as SQLite's triggers do: once per statement.
_GENERATION_TABLES = ("memory_item", "conflict", "conflict_member", "context_exclusion")
_GENERATION_DDL = (
    "CREATE TABLE store_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL)",
    "INSERT INTO store_generation (id, value) VALUES (1, 0)",
    """CREATE FUNCTION store_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE store_generation SET value = value + 1 WHERE id = 1;
        RETURN NULL;
    END $$""",
    *(
        f"CREATE TRIGGER {table}_generation AFTER INSERT OR UPDATE OR DELETE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION store_generation_bump()"
        for table in _GENERATION_TABLES
    ),
)


def _create_schema(conn: Connection) -> None:
    """A new store at BASELINE_VERSION: the models' tables and what PostgreSQL needs
    beyond them (search configuration, search columns and indexes, generation)."""
    exists = conn.exec_driver_sql(
        "SELECT 1 FROM pg_ts_config WHERE cfgname = %(name)s", {"name": SEARCH_CONFIG}
    ).first()
    if exists is None:
        for ddl in _CONFIG_DDL:
            conn.exec_driver_sql(ddl)
    SQLModel.metadata.create_all(conn)
    conn.exec_driver_sql(
        f"ALTER TABLE memory_item ADD COLUMN search tsvector "
        f"GENERATED ALWAYS AS ({_MEMORY_VECTOR}) STORED"
    )
    conn.exec_driver_sql(
        f"ALTER TABLE resource ADD COLUMN search tsvector "
        f"GENERATED ALWAYS AS ({_RESOURCE_VECTOR}) STORED"
    )
    for ddl in (*_SEARCH_INDEXES.values(), *_GENERATION_DDL, pg_bm25.STATS_DDL):
        conn.exec_driver_sql(ddl)
    _create_stats_upkeep(conn)
    pg_bm25.refresh_stats(conn)


def _create_stats_upkeep(conn: Connection) -> None:
    """The triggers that keep search_term_stats exact (dialects/pg_bm25.py)."""
    conn.exec_driver_sql("DROP FUNCTION IF EXISTS search_term_stats_upkeep() CASCADE")
    for ddl in pg_bm25.TRIGGER_DDL:
        conn.exec_driver_sql(ddl)


def _where_you_are(url: URL) -> str:
    """The database named for a person: user, host, port and name, never the password."""
    host = url.host or (url.query.get("host") if url.query else None) or "the local socket"
    port = f":{url.port}" if url.port else ""
    return f"database {url.database!r} on {host}{port}"


class PostgresDialect:
    name = "postgresql"
    schema_version = BASELINE_VERSION + len(UPGRADES)

    def create_engine(self, url: str) -> Engine:
        parsed = make_url(url)
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        # Timeouts a desktop app can wait (pg_connect.py); the URL's own parameters win.
        parsed, args = pg_connect.connect_args(parsed)
        return create_engine(
            parsed,
            pool_pre_ping=True,  # a connection the server dropped is replaced, not failed
            connect_args=args,
        )

    # -- opening and migrations ---------------------------------------------------------

    def _found_version(self, conn: Connection) -> int:
        table = conn.exec_driver_sql(f"SELECT to_regclass('{VERSION_TABLE}')").scalar()
        if table is None:
            return 0
        found = conn.exec_driver_sql(f"SELECT version FROM {VERSION_TABLE}").scalar()
        return int(found or 0)

    def prepare(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """Reach the server and refuse a store written by a newer version; nothing is
        written. A server has no file to check: its own recovery guards the data."""
        with engine.connect() as conn:
            found = self._found_version(conn)
            if found > self.schema_version:
                raise DatabaseTooNewError(_where_you_are(engine.url), found, self.schema_version)
            if found == 0 and _has_table(conn, "memory_item"):
                raise TeamDatabaseError(
                    f"The {_where_you_are(engine.url)} holds a memory_item table but no "
                    f"{VERSION_TABLE}: it was not made by Memory Curator. Use an empty "
                    "database; nothing was changed."
                )
        return None

    def check_integrity(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """What is missing from the store's structure (None when whole): the version and
        the search columns and indexes the app cannot work without."""
        with engine.connect() as conn:
            problems = self._structure_problems(conn)
        if not problems:
            return None
        return (
            f"The {_where_you_are(engine.url)} is incomplete ({'; '.join(problems)}). Ask "
            "the team store's administrator to run `memory-app team init` again."
        )

    def _structure_problems(self, conn: Connection) -> list[str]:
        """What the store cannot work without; a missing search index is not among them
        (check_search_index reports it, the monthly re-index rebuilds it)."""
        problems = []
        if self._found_version(conn) == 0:
            problems.append(f"no {VERSION_TABLE}")
        problems.extend(p for p in self.check_search_index(conn) if "index" not in p)
        return problems

    def explain_error(
        self, error: BaseException, path: Path | None, backup_dir: Path | None
    ) -> StoreError | None:
        return explain_connection_error(getattr(error, "orig", error))

    def migrate(self, engine: Engine, backup_dir: Path | None) -> int:
        """Create a new store, or bring an older one up to schema_version, in one
        transaction. A store already current is only read: no lock, so nobody can make
        opening it wait (an advisory lock is open to every role of the database, a
        team's members included). An upgrade locks the version table, which only its
        owner may; a new store, which has no members yet, an advisory lock (two apps
        creating it at once wait for each other)."""
        with engine.begin() as conn:
            found = self._found_version(conn)
            if found == self.schema_version:
                return found
            if found > self.schema_version:
                raise DatabaseTooNewError(_where_you_are(engine.url), found, self.schema_version)
            pg_connect.allow_longer(conn, LONG_WORK_LIMITS)
            if found == 0:
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
            else:
                conn.exec_driver_sql(f"LOCK TABLE {VERSION_TABLE} IN EXCLUSIVE MODE")
            found = self._found_version(conn)  # another app may have done it meanwhile
            if found > self.schema_version:
                raise DatabaseTooNewError(_where_you_are(engine.url), found, self.schema_version)
            if found == self.schema_version:
                return found
            if found == 0:
                _create_schema(conn)
                conn.exec_driver_sql(
                    f"CREATE TABLE {VERSION_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), "
                    "version INTEGER NOT NULL)"
                )
                conn.exec_driver_sql(
                    f"INSERT INTO {VERSION_TABLE} (id, version) VALUES (1, {BASELINE_VERSION})"
                )
                start = BASELINE_VERSION
            else:
                start = found
            for version in range(start + 1, self.schema_version + 1):
                UPGRADES[version - BASELINE_VERSION - 1](conn)
            conn.exec_driver_sql(
                f"UPDATE {VERSION_TABLE} SET version = {self.schema_version} WHERE id = 1"
            )
        return found

    # -- full-text search -------------------------------------------------------------

    def memory_hits(self, match: str, name: str = "q") -> TextHits:
        query = f"to_tsquery('{SEARCH_CONFIG}', :{name})"
        table = f"memory_item AS ft CROSS JOIN {query} AS {name}_tsq"
        params = {name: to_tsquery_text(match)}
        if RANKING == "bm25":
            scored = pg_bm25.bm25(SEARCH_CONFIG, MEMORY_WEIGHTS, scored_operands(match), name)
            table, rank = f"{table} {scored.tables}", f"-({scored.score})"
            params.update(scored.params)
        else:
            rank = f"-ts_rank_cd('{MEMORY_WEIGHTS}', ft.search, {name}_tsq, {RANK_NORMALIZATION})"
        return TextHits(
            table=table,
            id="ft.id",
            rank=rank,
            condition=f"ft.search @@ {name}_tsq",
            params=params,
        )

    def search_item_ids(
        self,
        conn: Connection,
        query: str,
        *,
        limit: int,
        offset: int = 0,
        category: str | None = None,
        statuses: tuple[str, ...] = ("active",),
        match_any: bool = False,
    ) -> list[tuple[int, float]]:
        match = match_expression(query, match_any=match_any, columns=TABLE_COLUMNS)
        return self._ranked(conn, match, [], {}, limit, offset, category, statuses)

    def search_items(
        self,
        conn: Connection,
        search: CompiledSearch,
        *,
        limit: int,
        offset: int = 0,
        category: str | None = None,
        statuses: tuple[str, ...] = ("active",),
    ) -> list[tuple[int, float]]:
        # Ranked searches read the item through the index's alias, `ft`.
        conditions = search.conditions("m" if search.match is None else "ft", self)
        where = [sql for sql, _ in conditions]
        params = {k: v for _, values in conditions for k, v in values.items()}
        if search.match is not None:
            return self._ranked(
                conn, search.match, where, params, limit, offset, category, statuses
            )
        return newest_item_ids(
            conn, where, params, limit=limit, offset=offset, category=category, statuses=statuses
        )

    def _ranked(
        self,
        conn: Connection,
        match: str,
        where: list[str],
        extra: dict[str, Any],
        limit: int,
        offset: int,
        category: str | None,
        statuses: tuple[str, ...],
    ) -> list[tuple[int, float]]:
        hits = self.memory_hits(match)
        params: dict[str, Any] = {**extra, **hits.params, "limit": limit, "offset": offset}
        filters = item_filters(where, params, category, statuses, "ft")
        sql = (
            f"SELECT ft.id, {hits.rank} AS rank FROM {hits.table} "
            f"WHERE {hits.condition}{filters} ORDER BY rank, ft.id LIMIT :limit OFFSET :offset"
        )
        return [(row[0], -row[1]) for row in conn.execute(text(sql), params)]

    def search_resource_ids(self, conn: Connection, query: str, *, limit: int) -> list[int]:
        tsquery = to_tsquery_text(match_expression(query))
        sql = (
            f"SELECT id FROM resource, to_tsquery('{SEARCH_CONFIG}', :q) AS q "
            f"WHERE search @@ q ORDER BY ts_rank_cd('{_RESOURCE_WEIGHTS}', search, q, "
            f"{RANK_NORMALIZATION}) DESC, id LIMIT :limit"
        )
        return [row[0] for row in conn.execute(text(sql), {"q": tsquery, "limit": limit})]

    @contextmanager
    def bulk_loading(self, conn: Connection) -> Iterator[None]:
        """Drop the memory search index, let the caller insert, then build it once (GIN
        builds faster in one pass than row by row). The search column itself is computed
        on insert. Inside the caller's transaction: a failure restores the index."""
        pg_connect.allow_longer(conn, LONG_WORK_LIMITS)
        conn.exec_driver_sql("DROP INDEX IF EXISTS memory_item_search")
        for trigger in pg_bm25.TRIGGER_NAMES:  # counted once at the end instead
            conn.exec_driver_sql(f"ALTER TABLE memory_item DISABLE TRIGGER {trigger}")
        yield
        for trigger in pg_bm25.TRIGGER_NAMES:
            conn.exec_driver_sql(f"ALTER TABLE memory_item ENABLE TRIGGER {trigger}")
        pg_bm25.refresh_stats(conn)
        conn.exec_driver_sql(_SEARCH_INDEXES["memory_item_search"])
        # Bulk inserts name their ids (repository.bulk_add_items): the id sequence moves
        # past them so the next ordinary insert does not collide.
        conn.exec_driver_sql(
            "SELECT setval(pg_get_serial_sequence('memory_item', 'id'), "
            "coalesce(max(id), 1), max(id) IS NOT NULL) FROM memory_item"
        )

    def rebuild_search_index(self, conn: Connection) -> None:
        """Recreate missing search indexes and rebuild both (monthly re-index); the
        search columns are generated, so they cannot drift from their text."""
        pg_connect.allow_longer(conn, LONG_WORK_LIMITS)
        present = _indexes(conn)
        for name, ddl in _SEARCH_INDEXES.items():
            if name in present:
                conn.exec_driver_sql(f"REINDEX INDEX {name}")
            else:
                conn.exec_driver_sql(ddl)
        if not _has_table(conn, pg_bm25.STATS_TABLE):
            conn.exec_driver_sql(pg_bm25.STATS_DDL)
        if _missing_triggers(conn):
            _create_stats_upkeep(conn)
        pg_bm25.refresh_stats(conn)
        conn.exec_driver_sql("UPDATE store_generation SET value = value + 1 WHERE id = 1")

    def check_search_index(self, conn: Connection) -> list[str]:
        problems = []
        for table in ("memory_item", "resource"):
            column = conn.exec_driver_sql(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND table_name = %(t)s AND column_name = 'search'",
                {"t": table},
            ).first()
            if column is None:
                problems.append(f"{table}: no search column")
        present = _indexes(conn)
        problems.extend(f"missing index {name}" for name in _SEARCH_INDEXES if name not in present)
        if not _has_table(conn, "store_generation"):
            problems.append("no store_generation table")
        if not _has_table(conn, pg_bm25.STATS_TABLE):
            problems.append(f"missing index statistics {pg_bm25.STATS_TABLE}")
        problems.extend(f"missing index trigger {name}" for name in _missing_triggers(conn))
        return problems

    # -- pieces of the store's own queries ------------------------------------------------

    def document_frequencies(self, conn: Connection, words: Sequence[str]) -> list[int]:
        """Read from search_term_stats (a count through the GIN index took 19 ms for a
        word in a tenth of 100,000 memories); a word of several lexemes ("fetch_email")
        counts as its rarest."""
        chosen = list(words)[:MAX_TERMS]
        if not chosen:
            return []
        sql = text(
            "SELECT w.n, coalesce(min(coalesce(s.docs, 0)), 0) "
            "FROM unnest(CAST(:words AS text[])) WITH ORDINALITY AS w(word, n) "
            f"LEFT JOIN LATERAL unnest(tsvector_to_array(to_tsvector('{SEARCH_CONFIG}', "
            "w.word))) AS l(x) ON TRUE "
            f"LEFT JOIN {pg_bm25.STATS_TABLE} AS s ON s.lexeme = l.x GROUP BY w.n ORDER BY w.n"
        )
        return [int(row[1]) for row in conn.execute(sql, {"words": chosen})]

    def json_list_has_any(self, column: str, names: Sequence[str]) -> str:
        return (
            f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({column}) AS e(value) "
            f"WHERE e.value IN ({', '.join(names)}))"
        )

    def day_of(self, column: str) -> str:
        return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"

    def database_problems(self, conn: Connection) -> list[str]:
        """The server guards its own pages; what is checked is the store's structure."""
        return self._structure_problems(conn)

    def refresh_decay(
        self, conn: Connection, decay: Callable[[datetime | None, datetime, int], float]
    ) -> int:
        """The formula runs here, in Python: read the live unpinned memories, write back
        the factors that changed, in batches."""
        rows = conn.execute(
            text(
                "SELECT id, last_accessed_at, extracted_at, access_count, decay_factor "
                "FROM memory_item WHERE status IN ('active', 'archived') AND NOT pinned"
            )
        ).all()
        changed = []
        for item_id, last_used, extracted, uses, current in rows:
            factor = decay(last_used, extracted, uses)
            if factor != current:
                changed.append({"id": item_id, "f": factor})
        if changed:
            conn.execute(text("UPDATE memory_item SET decay_factor = :f WHERE id = :id"), changed)
        return len(changed)


def _has_table(conn: Connection, name: str) -> bool:
    return conn.exec_driver_sql(f"SELECT to_regclass('{name}')").scalar() is not None


def _missing_triggers(conn: Connection) -> list[str]:
    rows = conn.exec_driver_sql(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass('memory_item')"
    )
    present = {row[0] for row in rows}
    return [name for name in pg_bm25.TRIGGER_NAMES if name not in present]


def _indexes(conn: Connection) -> set[str]:
    rows = conn.exec_driver_sql(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
    )
    return {row[0] for row in rows}


# -- errors a person can act on ---------------------------------------------------------------


def explain_connection_error(error: BaseException) -> StoreError | None:
    """A clear StoreError for a server that cannot be reached, refuses the login, lacks
    the database or denies a permission; None for any other error."""
    try:
        import psycopg
        from psycopg import errors as pg_errors
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    if not isinstance(error, psycopg.Error):
        return None
    message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    lowered = message.lower()
    if isinstance(error, pg_errors.InsufficientPrivilege):
        return TeamDatabaseError(
            f"The team database refused this user a permission ({message}). Ask the "
            "team store's administrator for access; nothing was changed."
        )
    first_line = (str(error).strip().splitlines() or [""])[0]  # without the statement
    if isinstance(error, pg_errors.LockNotAvailable):
        return TeamDatabaseError(
            "The team database is busy: another session holds what this needs (its "
            "administrator running `memory-app team init`, say) and it was not free within "
            f"the lock timeout ({first_line}). The local store keeps working; try again later."
        )
    if isinstance(error, pg_errors.QueryCanceled | pg_errors.IdleInTransactionSessionTimeout):
        return TeamDatabaseError(
            f"The team database did not answer in time ({first_line}). The local store keeps "
            "working; try again later."
        )
    if not isinstance(error, psycopg.OperationalError):
        return None
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return TeamDatabaseError(
            f"The team database refused the login: wrong password or user "
            f"({message}). Check the password in the keyring or ~/.pgpass; "
            "the local store keeps working."
        )
    if "does not exist" in lowered and "database" in lowered:
        return TeamDatabaseError(
            "The team database does not exist on the server. Create it (or run "
            "`memory-app team init`) and try again; the local store keeps working."
        )
    if "does not exist" in lowered and "role" in lowered:
        return TeamDatabaseError(
            f"The user of the team database does not exist on the server ({message}). "
            "Ask the team store's administrator for an account; the local store keeps working."
        )
    if "permission denied" in lowered or "not permitted" in lowered:
        return TeamDatabaseError(
            f"The team database refused the connection ({message}). Ask the team "
            "store's administrator for access; the local store keeps working."
        )
    return TeamDatabaseError(
        f"Cannot reach the team database ({message}). Check that the server is "
        "running and reachable; the local store keeps working, try again later."
    )
