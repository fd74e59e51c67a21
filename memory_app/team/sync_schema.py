"""What a team store needs for sync (issue 20): a change sequence, tombstones and the
team's conflicts. Installed by `install(conn)` on a store the PostgreSQL dialect made;
idempotent, so `team init` can run it again on every upgrade.

- `memory_item.change_seq`: set from one sequence by a trigger whenever a shared field
  of a row changes (an insert, an edit, a status), so a pull asks "what changed after
  the change I saw last" and never compares clocks of different machines. The trigger
  takes a transaction-level advisory lock (one per team schema) before it draws a
  number: writers of a team's shared rows commit in the order of their numbers, so a
  puller that has seen number N can never later meet a smaller one committed late.
- `team_tombstone`: a memory deleted from the team store (a withdrawal) leaves its uid
  and a change number, so every machine that has it learns that it went.
- `team_conflict`: conflicting edits of one memory, named by a uid made from its
  members' uids (both versions are team memories), with the resolution, so a decision
  on one machine closes the conflict on every other.

Row-level security (tenancy.py) only filters these rows: nothing here depends on it.
"""

from __future__ import annotations

from sqlalchemy import Connection

SEQUENCE = "team_change_seq"
# Serializes writers of one team's shared rows so change numbers are committed in order
# ("sync" in ASCII; the second key is the team schema's hash).
CHANGE_LOCK = 0x73796E63

# The fields a team member edits: a change to one of them is a change to pull.
SHARED_COLUMNS = (
    "content",
    "context",
    "category",
    "type",
    "confidence",
    "importance",
    "scope",
    "project",
    "branch",
    "tags",
    "status",
    "valid_from",
    "valid_until",
)


def _changed(columns: tuple[str, ...]) -> str:
    new = ", ".join(f"NEW.{c}" for c in columns)
    old = ", ".join(f"OLD.{c}" for c in columns)
    return f"ROW({new}) IS DISTINCT FROM ROW({old})"


_STATEMENTS = (
    f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE}",
    # -- memories: a number per change of a shared field
    "ALTER TABLE memory_item ADD COLUMN IF NOT EXISTS change_seq BIGINT",
    "CREATE INDEX IF NOT EXISTS memory_item_change_seq ON memory_item (change_seq)",
    f"""CREATE OR REPLACE FUNCTION team_memory_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' AND OLD.change_seq IS NOT NULL
                AND NOT ({_changed(SHARED_COLUMNS)}) THEN
            NEW.change_seq := OLD.change_seq;
            RETURN NEW;
        END IF;
        PERFORM pg_advisory_xact_lock({CHANGE_LOCK}, hashtext(TG_TABLE_SCHEMA));
        NEW.change_seq := nextval('{SEQUENCE}');
        IF TG_OP = 'INSERT' THEN
            DELETE FROM team_tombstone WHERE uid = NEW.uid;  -- published again
        END IF;
        RETURN NEW;
    END $$""",
    # -- tombstones: what a pull needs to know of a memory that left the team store
    """CREATE TABLE IF NOT EXISTS team_tombstone (
        uid TEXT PRIMARY KEY,
        change_seq BIGINT NOT NULL,
        removed_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    "CREATE INDEX IF NOT EXISTS team_tombstone_change_seq ON team_tombstone (change_seq)",
    f"""CREATE OR REPLACE FUNCTION team_memory_removed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_advisory_xact_lock({CHANGE_LOCK}, hashtext(TG_TABLE_SCHEMA));
        DELETE FROM team_tombstone WHERE uid = OLD.uid;
        INSERT INTO team_tombstone (uid, change_seq) VALUES (OLD.uid, nextval('{SEQUENCE}'));
        RETURN OLD;
    END $$""",
    # -- the team's conflicts and their resolutions
    """CREATE TABLE IF NOT EXISTS team_conflict (
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
    "CREATE INDEX IF NOT EXISTS team_conflict_change_seq ON team_conflict (change_seq)",
    f"""CREATE OR REPLACE FUNCTION team_conflict_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_advisory_xact_lock({CHANGE_LOCK}, hashtext(TG_TABLE_SCHEMA));
        NEW.change_seq := nextval('{SEQUENCE}');
        RETURN NEW;
    END $$""",
    "CREATE OR REPLACE TRIGGER memory_item_change_seq BEFORE INSERT OR UPDATE ON memory_item "
    "FOR EACH ROW EXECUTE FUNCTION team_memory_changed()",
    "CREATE OR REPLACE TRIGGER memory_item_tombstone AFTER DELETE ON memory_item "
    "FOR EACH ROW EXECUTE FUNCTION team_memory_removed()",
    "CREATE OR REPLACE TRIGGER team_conflict_change_seq BEFORE INSERT OR UPDATE ON team_conflict "
    "FOR EACH ROW EXECUTE FUNCTION team_conflict_changed()",
)

# What install() adds, for a check that a team store is ready for sync.
TABLES = ("team_tombstone", "team_conflict")


def install(conn: Connection) -> None:
    """Add what sync needs to a team store (in the caller's transaction); running it
    again changes nothing. Rows already there get change numbers, so a store that held
    memories before sync was installed is pulled whole."""
    for statement in _STATEMENTS:
        conn.exec_driver_sql(statement)
    conn.exec_driver_sql(
        f"UPDATE memory_item SET change_seq = nextval('{SEQUENCE}') WHERE change_seq IS NULL"
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
