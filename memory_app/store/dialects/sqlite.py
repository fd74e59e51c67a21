"""SQLite: pragmas, FTS5 external-content indexes, and `user_version` migrations.

Measured choices (see docs/ARCHITECTURE.md): WAL plus a busy timeout removes "database is
locked" errors between a reader and a writer; FTS5 with the porter tokenizer answers a
top-10 query over 100k items in about a millisecond; migrations run in one
`BEGIN IMMEDIATE` transaction after a backup, because Alembic's batch mode silently
dropped FTS triggers.

Opening checks the file before anything writes to it (`prepare`): a file that is not a
store, a newer store or a damaged one is left byte for byte as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlmodel import SQLModel

from memory_app.store import tables  # noqa: F401  (registers the tables on the metadata)
from memory_app.store.dialects.base import TextHits
from memory_app.store.dialects.item_sql import item_filters, newest_item_ids
from memory_app.store.dialects.sqlite_health import (
    check_folder,
    damaged,
    explain,
    folder_error,
    integrity_problem,
    read_header,
)
from memory_app.store.errors import DatabaseFileError, DatabaseTooNewError, StoreError
from memory_app.store.file_modes import (
    private_database,
    private_file,
    private_folder,
    tighten_folder,
)
from memory_app.store.fts_query import MEMORY_RANK, TABLE_COLUMNS, match_expression
from memory_app.store.search_match import CompiledSearch
from memory_app.store.sqlite_driver import sqlite_connection
from memory_app.store.term_stats import (
    TOKENIZER,
    VOCAB_TABLE,
    default_stemmer,
    document_frequencies,
)
from memory_app.store.types import from_db_time

# Schema version 1's index (content and tags), kept as it was: migrations never change.
_V1_ITEM_FTS = f"""
CREATE VIRTUAL TABLE memory_fts USING fts5(
    content, tags, content='memory_item', content_rowid='id', tokenize='{TOKENIZER}'
)"""

_V1_ITEM_TRIGGERS = (
    """CREATE TRIGGER memory_item_ai AFTER INSERT ON memory_item BEGIN
        INSERT INTO memory_fts(rowid, content, tags) VALUES (new.id, new.content, new.tags);
    END""",
    """CREATE TRIGGER memory_item_ad AFTER DELETE ON memory_item BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, content, tags)
        VALUES ('delete', old.id, old.content, old.tags);
    END""",
    """CREATE TRIGGER memory_item_au AFTER UPDATE OF content, tags ON memory_item BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, content, tags)
        VALUES ('delete', old.id, old.content, old.tags);
        INSERT INTO memory_fts(rowid, content, tags) VALUES (new.id, new.content, new.tags);
    END""",
)
_V1_ITEM_TRIGGER_NAMES = ("memory_item_ai", "memory_item_ad", "memory_item_au")


# Version 2 adds the memory's context (why and where it was said) as a third column:
# retrieval searches it at half weight; measured on LoCoMo it is worth about nine points
# of recall@5 (see benchmarks/locomo.py). The Memories table searches content and tags.
_ITEM_FTS = f"""
CREATE VIRTUAL TABLE memory_fts USING fts5(
    content, tags, context, content='memory_item', content_rowid='id', tokenize='{TOKENIZER}'
)"""

_ITEM_TRIGGERS = (
    """CREATE TRIGGER memory_item_ai AFTER INSERT ON memory_item BEGIN
        INSERT INTO memory_fts(rowid, content, tags, context)
        VALUES (new.id, new.content, new.tags, new.context);
    END""",
    """CREATE TRIGGER memory_item_ad AFTER DELETE ON memory_item BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, content, tags, context)
        VALUES ('delete', old.id, old.content, old.tags, old.context);
    END""",
    # Only the indexed text re-indexes: access-count updates must not churn the index.
    """CREATE TRIGGER memory_item_au AFTER UPDATE OF content, tags, context ON memory_item BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, content, tags, context)
        VALUES ('delete', old.id, old.content, old.tags, old.context);
        INSERT INTO memory_fts(rowid, content, tags, context)
        VALUES (new.id, new.content, new.tags, new.context);
    END""",
    # Any change to the memories bumps the store's generation: cached retrievals (in this
    # process or another) compare it and are dropped when it moved (seed 002 §2.7).
    """CREATE TRIGGER memory_item_gen_ai AFTER INSERT ON memory_item BEGIN
        UPDATE store_generation SET value = value + 1 WHERE id = 1;
    END""",
    """CREATE TRIGGER memory_item_gen_au AFTER UPDATE ON memory_item BEGIN
        UPDATE store_generation SET value = value + 1 WHERE id = 1;
    END""",
    """CREATE TRIGGER memory_item_gen_ad AFTER DELETE ON memory_item BEGIN
        UPDATE store_generation SET value = value + 1 WHERE id = 1;
    END""",
)
_ITEM_TRIGGER_NAMES = (
    "memory_item_ai",
    "memory_item_ad",
    "memory_item_au",
    "memory_item_gen_ai",
    "memory_item_gen_au",
    "memory_item_gen_ad",
)
_GENERATION_TABLE = (
    "CREATE TABLE store_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)"
)
# Conflicts and context exclusions change what a context holds, so they count too.
_OTHER_GENERATION_TRIGGERS = tuple(
    f"""CREATE TRIGGER {table}_gen_{short} AFTER {event} ON {table} BEGIN
        UPDATE store_generation SET value = value + 1 WHERE id = 1;
    END"""
    for table in ("conflict", "conflict_member", "context_exclusion")
    for short, event in (("ai", "INSERT"), ("au", "UPDATE"), ("ad", "DELETE"))
)


_RESOURCE_FTS = f"""
CREATE VIRTUAL TABLE resource_fts USING fts5(
    title, text, content='resource', content_rowid='id', tokenize='{TOKENIZER}'
)"""

_RESOURCE_TRIGGERS = (
    """CREATE TRIGGER resource_ai AFTER INSERT ON resource BEGIN
        INSERT INTO resource_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
    END""",
    """CREATE TRIGGER resource_ad AFTER DELETE ON resource BEGIN
        INSERT INTO resource_fts(resource_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
    END""",
)


def _v1_initial_schema(conn: Connection) -> None:
    SQLModel.metadata.create_all(conn)
    for ddl in (_V1_ITEM_FTS, *_V1_ITEM_TRIGGERS, _RESOURCE_FTS, *_RESOURCE_TRIGGERS):
        conn.exec_driver_sql(ddl)


def _v2_retrieval(conn: Connection) -> None:
    """Context becomes searchable; a generation counter lets caches notice changes."""
    SQLModel.metadata.create_all(conn)  # context_exclusion, on stores made by version 1
    for name in _V1_ITEM_TRIGGER_NAMES:
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
    conn.exec_driver_sql("DROP TABLE IF EXISTS memory_fts")
    conn.exec_driver_sql(_GENERATION_TABLE)
    conn.exec_driver_sql("INSERT INTO store_generation (id, value) VALUES (1, 0)")
    for ddl in (_ITEM_FTS, *_ITEM_TRIGGERS, *_OTHER_GENERATION_TRIGGERS):
        conn.exec_driver_sql(ddl)
    conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
    # Read-only view of the index's terms and their document counts (store/term_stats).
    conn.exec_driver_sql(f"CREATE VIRTUAL TABLE {VOCAB_TABLE} USING fts5vocab(memory_fts, row)")


def _add_column(conn: Connection, table: str, column: str, ddl: str) -> None:
    """ALTER TABLE ADD COLUMN unless the column is there: version 1 creates the tables
    from the current models, so a new store already has every column."""
    present = {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}
    if column not in present:
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")


def _v3_maintenance(conn: Connection) -> None:
    """Maintenance: proposed changes and schedules, decay factors, category digests."""
    SQLModel.metadata.create_all(conn)  # maintenance_change, maintenance_schedule
    _add_column(conn, "memory_item", "decay_factor", "FLOAT NOT NULL DEFAULT 1.0")
    _add_column(conn, "category_summary", "digest", "VARCHAR NOT NULL DEFAULT ''")
    _add_column(conn, "maintenance_run", "group_id", "VARCHAR")


_RESOURCE_UPDATE_TRIGGER = """CREATE TRIGGER IF NOT EXISTS resource_au
AFTER UPDATE OF title, text ON resource
BEGIN
    INSERT INTO resource_fts(resource_fts, rowid, title, text)
    VALUES ('delete', old.id, old.title, old.text);
    INSERT INTO resource_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END"""


def _v4_usage_feedback(conn: Connection) -> None:
    """Seed 004's usage tracker (what the hooks injected, whether it was used), and a
    conversation that grows (captured at PreCompact, then whole at SessionEnd) keeps
    its search index current."""
    SQLModel.metadata.create_all(conn)  # injection, injection_memory
    for column in ("injected_count", "cited_count", "ignored_count"):
        _add_column(conn, "memory_item", column, "INTEGER NOT NULL DEFAULT 0")
    conn.exec_driver_sql(_RESOURCE_UPDATE_TRIGGER)


def _v5_branch_memory(conn: Connection) -> None:
    """Seed 001's branch memory: each memory keeps the git branch it was learnt on;
    memories already stored take the branch all their conversations recorded, if one."""
    from memory_app.store.branch_backfill import backfill_branches

    _add_column(conn, "memory_item", "branch", "VARCHAR")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_memory_item_branch ON memory_item (branch)")
    backfill_branches(conn)


def _v6_episodes(conn: Connection) -> None:
    """Seeds 003 and 004's episodes: each conversation told as goal, milestones,
    problems and outcome; the conversations already stored get theirs now (built
    offline from their turns: milliseconds each)."""
    from memory_app.episodes.store import build_episodes  # reads the store's tables

    SQLModel.metadata.create_all(conn)  # episode
    build_episodes(conn)


def _v7_links(conn: Connection) -> None:
    """Links between memories (seeds 000, 003 and 004): related, depends-on,
    contradicts, supersedes, part-of an episode; the stored memories get their
    discovered links now (offline and fast: memory_app/links/discover.py)."""
    from memory_app.links.discover import rebuild_links  # reads the store's tables

    SQLModel.metadata.create_all(conn)  # memory_link
    rebuild_links(conn)


def _v8_chunks(conn: Connection) -> None:
    """Seed 003's conversation chunks with progressive summaries: runs of about ten
    messages, each with an extractive summary and key topics. Only the table: the
    conversations already stored get their chunks when one is read (chunks/context.py
    `chunks_of` builds them on demand), not here, where a large store would hold startup
    for minutes and one conversation the builder cannot read would keep it closed."""
    SQLModel.metadata.create_all(conn)  # conversation_chunk


def _v9_episode_runs(conn: Connection) -> None:
    """Runs of sessions on one task told as one episode (episodes/runs.py), and room for
    Claude's reading of an episode; the stored episodes are joined into runs now."""
    from memory_app.episodes.store import rebuild_runs  # reads the store's tables

    _add_column(conn, "episode", "run_id", "INTEGER")
    _add_column(conn, "episode", "run_reason", "VARCHAR")
    _add_column(conn, "episode", "run_from_turn", "INTEGER")
    _add_column(conn, "episode", "enrichment", "JSON")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_episode_run_id ON episode (run_id)")
    rebuild_runs(conn)


def _v10_team_sharing(conn: Connection) -> None:
    """Personal and team memories (issue 20, domain/sharing.py): each memory gets its
    name across stores (a UUID, filled in now for the stored ones), its sharing
    (personal until a person publishes it) and its sync state; `team_link` holds this
    store's connection to a team store, if one is made."""
    from memory_app.domain.sharing import new_uid

    SQLModel.metadata.create_all(conn)  # team_link
    _add_column(conn, "memory_item", "uid", "VARCHAR")
    _add_column(conn, "memory_item", "sharing", "VARCHAR NOT NULL DEFAULT 'personal'")
    _add_column(conn, "memory_item", "team_seq", "BIGINT")
    _add_column(conn, "memory_item", "team_dirty", "BOOLEAN NOT NULL DEFAULT 0")
    ids = [row[0] for row in conn.exec_driver_sql("SELECT id FROM memory_item WHERE uid IS NULL")]
    if ids:
        conn.exec_driver_sql(
            "UPDATE memory_item SET uid = ? WHERE id = ?", [(new_uid(), i) for i in ids]
        )
    conn.exec_driver_sql(
        "CREATE UNIQUE INDEX IF NOT EXISTS ix_memory_item_uid ON memory_item (uid)"
    )
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_memory_item_sharing ON memory_item (sharing)"
    )


# Ordered steps: step N brings the schema from version N-1 to N. Append, never edit.
MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    _v1_initial_schema,
    _v2_retrieval,
    _v3_maintenance,
    _v4_usage_feedback,
    _v5_branch_memory,
    _v6_episodes,
    _v7_links,
    _v8_chunks,
    _v9_episode_runs,
    _v10_team_sharing,
)


def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # Take over transaction control from the sqlite3 module so BEGIN is ours to issue.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # Only pragmas that write nothing: WAL, which rewrites the header, is set once by
    # `migrate`, after the file was checked (it stays set in the file).
    for pragma in (
        "PRAGMA foreign_keys=ON",
        "PRAGMA busy_timeout=5000",
        "PRAGMA synchronous=NORMAL",
        # A larger page cache and memory-mapped reads: measured 20-30% faster ranking
        # over 100k items, where index pages are read again and again.
        "PRAGMA cache_size=-32768",
        "PRAGMA mmap_size=268435456",
    ):
        cursor.execute(pragma)
    cursor.close()


def _file_of(engine: Engine) -> Path | None:
    """The database file; None for an in-memory database."""
    name = engine.url.database
    return Path(name) if name and name != ":memory:" else None


def _on_begin(conn: Connection) -> None:
    # Writers ask for IMMEDIATE so a read lock is never upgraded mid-transaction, which
    # is the one case the busy timeout cannot resolve.
    mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
    conn.exec_driver_sql(f"BEGIN {mode}")


class SqliteDialect:
    name = "sqlite"
    schema_version = len(MIGRATIONS)

    def create_engine(self, url: str) -> Engine:
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 5})
        event.listen(engine, "connect", _on_connect)
        event.listen(engine, "begin", _on_begin)
        return engine

    # -- opening and migrations ---------------------------------------------------------

    def prepare(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """Check the store before anything writes to it; returns why it is damaged (None
        when healthy). Refuses (DatabaseFileError) a file that is not a whole SQLite
        database, one in a read-only folder, a newer store, and a damaged store that
        would need a migration. Makes the folder and files private (file_modes)."""
        path = _file_of(engine)
        if path is not None:
            try:
                if not path.parent.exists():
                    private_folder(path.parent)
            except OSError as exc:
                raise folder_error(path.parent, exc) from exc
            check_folder(path, backup_dir)
            header = read_header(path, backup_dir)
            if header is not None and header.user_version > self.schema_version:
                raise DatabaseTooNewError(str(path), header.user_version, self.schema_version)
            try:
                private_database(path)
            except OSError as exc:
                raise folder_error(path.parent, exc) from exc
            tighten_folder(backup_dir or path.parent / "backups")
        raw = engine.raw_connection()
        try:
            conn = raw.driver_connection
            assert isinstance(conn, sqlite3.Connection)
            # Read again through SQLite: a -wal file may hold a newer header.
            found = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if found > self.schema_version:
                raise DatabaseTooNewError(str(path or ":memory:"), found, self.schema_version)
            problem = integrity_problem(conn)
        except sqlite3.Error as exc:
            explained = explain(exc, path, backup_dir)
            if explained is None:
                raise
            raise explained from exc
        finally:
            raw.close()
        if problem is None:
            return None
        refusal = damaged(path, backup_dir, problem)
        if found != self.schema_version:  # migrating would write to it
            raise refusal
        return str(refusal)

    def check_integrity(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """Why the store is damaged now (None when healthy), with the bounded check."""
        raw = engine.raw_connection()
        try:
            conn = raw.driver_connection
            assert isinstance(conn, sqlite3.Connection)
            problem = integrity_problem(conn)
        finally:
            raw.close()
        return None if problem is None else str(damaged(_file_of(engine), backup_dir, problem))

    def explain_error(
        self, error: BaseException, path: Path | None, backup_dir: Path | None
    ) -> StoreError | None:
        return explain(getattr(error, "orig", error), path, backup_dir)

    def migrate(self, engine: Engine, backup_dir: Path | None) -> int:
        raw = engine.raw_connection()
        try:  # outside any transaction, as SQLite requires; a no-op once set
            sqlite_connection(raw).execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()
        with engine.connect() as conn:
            found = int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
        path = engine.url.database or ":memory:"
        if found > self.schema_version:
            raise DatabaseTooNewError(path, found, self.schema_version)
        if found == self.schema_version:
            return found
        if found > 0 and backup_dir is not None and path != ":memory:":
            self._backup(engine, Path(path), backup_dir, found)
        immediate = engine.execution_options(sqlite_begin="IMMEDIATE")
        with immediate.begin() as conn:
            # Re-read inside the lock: another process may have migrated meanwhile.
            current = int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
            for version in range(current + 1, self.schema_version + 1):
                MIGRATIONS[version - 1](conn)
            conn.exec_driver_sql(f"PRAGMA user_version = {self.schema_version}")
        return found

    @staticmethod
    def _backup(engine: Engine, path: Path, backup_dir: Path, version: int) -> Path:
        """Copy the store into `backup_dir` (0700, the copy 0600) before a migration."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = backup_dir / f"{path.stem}.v{version}.{stamp}.bak"
        try:
            private_folder(backup_dir)
            private_file(target)
        except OSError as exc:
            raise DatabaseFileError(
                f"Could not back up {path} before migrating it: the backups folder "
                f"{backup_dir} cannot be written ({exc.strerror or exc}). Make it a folder "
                "you may write to and try again; nothing was changed."
            ) from exc
        raw = engine.raw_connection()
        try:
            dest = sqlite3.connect(target)
            try:
                sqlite_connection(raw).backup(dest)
            finally:
                dest.close()
        except sqlite3.Error as exc:
            target.unlink(missing_ok=True)
            raise DatabaseFileError(
                f"Could not back up {path} to {target} before migrating it ({exc}): the disk "
                "may be full. Free some space and try again; nothing was changed."
            ) from exc
        finally:
            raw.close()
        return target

    # -- full-text search -------------------------------------------------------------

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
        return self._ranked_items(
            conn, match, [], {}, limit=limit, offset=offset, category=category, statuses=statuses
        )

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
        conditions = search.conditions("m", self)
        where = [sql for sql, _ in conditions]
        params = {k: v for _, values in conditions for k, v in values.items()}
        if search.match is not None:
            return self._ranked_items(
                conn,
                search.match,
                where,
                params,
                limit=limit,
                offset=offset,
                category=category,
                statuses=statuses,
            )
        # Only exclusions and filters: nothing to rank by, so the newest first.
        return newest_item_ids(
            conn, where, params, limit=limit, offset=offset, category=category, statuses=statuses
        )

    def _ranked_items(
        self,
        conn: Connection,
        match: str,
        where: list[str],
        extra: dict[str, Any],
        *,
        limit: int,
        offset: int,
        category: str | None,
        statuses: tuple[str, ...],
    ) -> list[tuple[int, float]]:
        params: dict[str, Any] = {**extra, "q": match, "limit": limit, "offset": offset}
        filters = item_filters(where, params, category, statuses)
        # First rank inside the index alone (twice as fast as ranking through the join),
        # keeping a generous head; only when filters thin that head out too much does
        # the exact query rank every match.
        params["head"] = min(max(50 * (limit + offset), 200), 5000)
        fast = (
            f"WITH f AS (SELECT rowid, {MEMORY_RANK} AS rank FROM memory_fts "
            "WHERE memory_fts MATCH :q ORDER BY rank LIMIT :head) "
            "SELECT m.id, f.rank, (SELECT count(*) FROM f) FROM f "
            f"JOIN memory_item AS m ON m.id = f.rowid WHERE 1 = 1{filters} "
            "ORDER BY f.rank LIMIT :limit OFFSET :offset"
        )
        rows = conn.execute(text(fast), params).all()
        head_was_full = not rows or rows[0][2] == params["head"]
        if len(rows) < limit and head_was_full:
            exact = (
                f"SELECT m.id, {MEMORY_RANK} AS rank FROM memory_fts "
                "JOIN memory_item AS m ON m.id = memory_fts.rowid "
                f"WHERE memory_fts MATCH :q{filters} "
                "ORDER BY rank LIMIT :limit OFFSET :offset"
            )
            rows = conn.execute(text(exact), params).all()
        # bm25 is lower-is-better and negative; flip it so higher means more relevant.
        return [(row[0], -row[1]) for row in rows]

    def search_resource_ids(self, conn: Connection, query: str, *, limit: int) -> list[int]:
        sql = (
            "SELECT rowid FROM resource_fts WHERE resource_fts MATCH :q "
            "ORDER BY bm25(resource_fts) LIMIT :limit"
        )
        rows = conn.execute(text(sql), {"q": match_expression(query), "limit": limit})
        return [row[0] for row in rows]

    @contextmanager
    def bulk_loading(self, conn: Connection) -> Iterator[None]:
        """Drop the item triggers, let the caller insert, then rebuild the index once.

        Measured on 100k rows: 12 s through the ORM with triggers, 2.2 s this way. Runs
        inside the caller's transaction, so a failure restores the triggers too.
        """
        for name in _ITEM_TRIGGER_NAMES:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        yield
        conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
        conn.exec_driver_sql("UPDATE store_generation SET value = value + 1 WHERE id = 1")
        for ddl in _ITEM_TRIGGERS:
            conn.exec_driver_sql(ddl)

    def rebuild_search_index(self, conn: Connection) -> None:
        """Recreate missing triggers, rebuild both indexes from their tables and merge
        their segments (monthly re-index); runs inside the caller's write transaction."""
        for name in _ITEM_TRIGGER_NAMES:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        for ddl in _ITEM_TRIGGERS:
            conn.exec_driver_sql(ddl)
        for table in ("memory_fts", "resource_fts"):
            conn.exec_driver_sql(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
            conn.exec_driver_sql(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        conn.exec_driver_sql("UPDATE store_generation SET value = value + 1 WHERE id = 1")

    def check_search_index(self, conn: Connection) -> list[str]:
        problems: list[str] = []
        for table in ("memory_fts", "resource_fts"):
            try:
                conn.exec_driver_sql(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            except Exception as exc:  # sqlite reports corruption as a generic error
                problems.append(f"{table}: {exc}")
        names = {
            row[0]
            for row in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='trigger'")
        }
        problems.extend(
            f"missing trigger {name}" for name in _ITEM_TRIGGER_NAMES if name not in names
        )
        return problems

    # -- pieces of the store's own queries ------------------------------------------------

    def memory_hits(self, match: str, name: str = "q") -> TextHits:
        condition = f"memory_fts MATCH :{name}"
        return TextHits("memory_fts", "memory_fts.rowid", MEMORY_RANK, condition, {name: match})

    def document_frequencies(self, conn: Connection, words: Sequence[str]) -> list[int]:
        return document_frequencies(conn, default_stemmer().stems(words))

    def json_list_has_any(self, column: str, names: Sequence[str]) -> str:
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value IN ({', '.join(names)}))"

    def day_of(self, column: str) -> str:
        return f"substr({column}, 1, 10)"  # times are stored as ISO-8601 UTC text

    def database_problems(self, conn: Connection) -> list[str]:
        return [row[0] for row in conn.exec_driver_sql("PRAGMA quick_check") if row[0] != "ok"]

    def refresh_decay(
        self, conn: Connection, decay: Callable[[datetime | None, datetime, int], float]
    ) -> int:
        """One UPDATE calling the formula through a function registered on the connection."""

        def from_text(last_used: str | None, extracted: str, uses: int) -> float:
            return decay(
                from_db_time(last_used) if last_used else None, from_db_time(extracted), uses
            )

        sqlite_connection(conn.connection).create_function(
            "memory_decay", 3, from_text, deterministic=True
        )
        result = conn.exec_driver_sql(
            "UPDATE memory_item SET decay_factor = "
            "memory_decay(last_accessed_at, extracted_at, access_count) "
            "WHERE status IN ('active', 'archived') AND pinned = 0 AND decay_factor != "
            "memory_decay(last_accessed_at, extracted_at, access_count)"
        )
        return int(result.rowcount or 0)
