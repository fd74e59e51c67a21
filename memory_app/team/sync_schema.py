"""What a team store needs for sync (issue 20): a change sequence, tombstones and the
team's conflicts. Installed by `install(conn)` on a store the PostgreSQL dialect made;
idempotent, so `team init` can run it again on every upgrade.

- `memory_item.change_seq`: set from one sequence by a trigger whenever a shared field
  of a row changes (an insert, an edit, a status), so a pull asks "what changed after
  the change I saw last" and never compares clocks of different machines. Before it
  draws a number the trigger locks the one row of `team_sync_lock` until its transaction
  ends: writers of a team's shared rows commit in the order of their numbers, so a
  puller that has seen number N can never later meet a smaller one committed late. The
  lock is a row of the team's own schema, not an advisory lock: advisory locks are
  database-wide, and a member of another team could take one to stall this team's
  writes or watch them.
- `team_tombstone`: a memory deleted from the team store (a withdrawal) leaves its uid
  and a change number, so every machine that has it learns that it went. Members only
  read it (tenancy.py): the triggers write it.
- `team_conflict`: conflicting edits of one memory, named by a uid made from its
  members' uids (both versions are team memories), with the resolution, so a decision
  on one machine closes the conflict on every other.

Every change number comes from a trigger, whatever the writer gave: a member cannot
move the others' cursors past changes to come. The trigger functions are SECURITY
DEFINER (they take the lock and write tombstones, which members may not) with their
search_path pinned to pg_catalog and the store's schema, and name that schema's
objects in full, so nothing on the caller's path can stand in for them.

Row-level security (tenancy.py) only filters these rows: nothing here depends on it.
"""

from __future__ import annotations

from sqlalchemy import Connection

# The fields a team member edits, one list with the local side: a change to one of them
# is a change to pull.
from memory_app.domain.sharing import SHARED_COLUMNS

SEQUENCE = "team_change_seq"
# One row, locked by every change-numbering trigger until its transaction ends; no
# member has a privilege on it, so only the triggers (SECURITY DEFINER) can lock it.
LOCK_TABLE = "team_sync_lock"
TOMBSTONES = "team_tombstone"


def _changed(columns: tuple[str, ...]) -> str:
    new = ", ".join(f"NEW.{c}" for c in columns)
    old = ", ".join(f"OLD.{c}" for c in columns)
    return f"ROW({new}) IS DISTINCT FROM ROW({old})"


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _function(schema: str, name: str, body: str) -> str:
    """A trigger function that runs as its owner (the administrator who installed it),
    with a search_path no caller can change."""
    return f"""CREATE OR REPLACE FUNCTION {_q(schema)}.{name}() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, {_q(schema)}, pg_temp
    AS $$
    BEGIN
{body}
    END $$"""


def _statements(schema: str) -> tuple[str, ...]:
    """The sync schema for the store in `schema`."""
    s = _q(schema)
    sequence = _lit(f"{s}.{SEQUENCE}")
    # Waits for the writers before it; raises rather than numbering without the lock.
    lock = f"""        PERFORM 1 FROM {s}.{LOCK_TABLE} WHERE id = 1 FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION '{LOCK_TABLE} has no row: run memory-app team init';
        END IF;"""
    return (
        f"CREATE SEQUENCE IF NOT EXISTS {s}.{SEQUENCE}",
        f"""CREATE TABLE IF NOT EXISTS {s}.{LOCK_TABLE} (
            id INTEGER PRIMARY KEY CHECK (id = 1)
        )""",
        f"INSERT INTO {s}.{LOCK_TABLE} (id) VALUES (1) ON CONFLICT DO NOTHING",
        f"REVOKE ALL ON {s}.{LOCK_TABLE} FROM PUBLIC",
        # -- memories: a number per change of a shared field
        f"ALTER TABLE {s}.memory_item ADD COLUMN IF NOT EXISTS change_seq BIGINT",
        f"CREATE INDEX IF NOT EXISTS memory_item_change_seq ON {s}.memory_item (change_seq)",
        # -- tombstones: what a pull needs to know of a memory that left the team store
        f"""CREATE TABLE IF NOT EXISTS {s}.{TOMBSTONES} (
            uid TEXT PRIMARY KEY,
            change_seq BIGINT NOT NULL,
            removed_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )""",
        f"CREATE INDEX IF NOT EXISTS team_tombstone_change_seq ON {s}.{TOMBSTONES} (change_seq)",
        _function(
            schema,
            "team_memory_changed",
            f"""        IF TG_OP = 'UPDATE' AND OLD.change_seq IS NOT NULL
                AND NOT ({_changed(SHARED_COLUMNS)}) THEN
            NEW.change_seq := OLD.change_seq;
            RETURN NEW;
        END IF;
{lock}
        NEW.change_seq := nextval({sequence}::regclass);
        IF TG_OP = 'INSERT' THEN
            DELETE FROM {s}.{TOMBSTONES} WHERE uid = NEW.uid;  -- published again
        END IF;
        RETURN NEW;""",
        ),
        _function(
            schema,
            "team_memory_removed",
            f"""{lock}
        DELETE FROM {s}.{TOMBSTONES} WHERE uid = OLD.uid;
        INSERT INTO {s}.{TOMBSTONES} (uid, change_seq)
            VALUES (OLD.uid, nextval({sequence}::regclass));
        RETURN OLD;""",
        ),
        # -- the team's conflicts and their resolutions
        f"""CREATE TABLE IF NOT EXISTS {s}.team_conflict (
            uid TEXT PRIMARY KEY,
            member_uids JSONB NOT NULL,
            category TEXT NOT NULL,
            reason TEXT,
            status TEXT NOT NULL DEFAULT 'unresolved',
            decision TEXT,
            notes TEXT,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            resolved_at TIMESTAMPTZ,
            change_seq BIGINT
        )""",
        f"CREATE INDEX IF NOT EXISTS team_conflict_change_seq ON {s}.team_conflict (change_seq)",
        _function(
            schema,
            "team_conflict_changed",
            f"""{lock}
        NEW.change_seq := nextval({sequence}::regclass);
        RETURN NEW;""",
        ),
        f"CREATE OR REPLACE TRIGGER memory_item_change_seq BEFORE INSERT OR UPDATE "
        f"ON {s}.memory_item FOR EACH ROW EXECUTE FUNCTION {s}.team_memory_changed()",
        f"CREATE OR REPLACE TRIGGER memory_item_tombstone AFTER DELETE ON {s}.memory_item "
        f"FOR EACH ROW EXECUTE FUNCTION {s}.team_memory_removed()",
        f"CREATE OR REPLACE TRIGGER team_conflict_change_seq BEFORE INSERT OR UPDATE "
        f"ON {s}.team_conflict FOR EACH ROW EXECUTE FUNCTION {s}.team_conflict_changed()",
    )


# What install() adds, for a check that a team store is ready for sync.
TABLES = (TOMBSTONES, "team_conflict", LOCK_TABLE)


def install(conn: Connection) -> None:
    """Add what sync needs to a team store (in the caller's transaction); running it
    again changes nothing. Rows already there get change numbers, so a store that held
    memories before sync was installed is pulled whole. The store is the one in the
    connection's current schema; its trigger functions belong to the caller."""
    schema = str(conn.exec_driver_sql("SELECT current_schema()").scalar())
    for statement in _statements(schema):
        conn.exec_driver_sql(statement)
    conn.exec_driver_sql(
        f"UPDATE {_q(schema)}.memory_item SET change_seq = "
        f"nextval({_lit(_q(schema) + '.' + SEQUENCE)}::regclass) WHERE change_seq IS NULL"
    )


def missing(conn: Connection) -> list[str]:
    """What of the sync schema a team store lacks (empty: ready)."""
    found = []
    column = conn.exec_driver_sql(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'memory_item' AND column_name = 'change_seq'"
    ).first()
    if column is None:
        found.append("memory_item.change_seq")
    for table in TABLES:
        if conn.exec_driver_sql(f"SELECT to_regclass('{table}')").scalar() is None:
            found.append(table)
    return found
