"""Who may see what in a team store (issue 20, "Tenancy"), set up by `team init`.

Layout, in one PostgreSQL database that can hold several teams:

- `memory_teams` (schema, the administrator's): the teams and their members (tables no
  member may read), the policy functions (SECURITY DEFINER, so members call them but
  cannot change them) and the store's text search configuration.
- `team_<name>` (schema, one per team): the whole store, made by the PostgreSQL dialect
  and the sync schema (sync_schema.py). Only the team's role has USAGE on it, so the
  other teams' tables cannot even be named, and every table, sequence and statistic in
  it counts only that team's rows: the id and change sequences, the planner's estimates
  and EXPLAIN describe one team, never the database.
- Rows: every table of a team schema (but the version and generation counters and the
  sync lock row) carries
  `team_id` (default: the schema's team) and `user_id` (default: the login that wrote
  it), with row-level security enabled AND forced: a member reads and writes only rows
  of a team it belongs to, inserts only as itself. Defence in depth: a grant given by
  mistake still shows no other team's row. Members only read team_tombstone and draw
  no change number themselves: the sync triggers (sync_schema.py) write both.
- Roles: one NOLOGIN role per team holding the privileges, and login roles for people,
  granted to their team's role; each person's search_path in this database names their
  team's schema, so the unchanged repository code finds the store's tables by their
  plain names. Roles are cluster-wide, so a team's role is named by the database's exact
  name (a readable part and a hash: `memory_<database>_<hash>_<team>`) and marked by a
  comment naming its team and database; `team init` refuses a role marked for another.
- Authorship: `user_id` is the login that first wrote the row; an edit keeps it (a
  trigger refuses changing `user_id` or `team_id`), and the history (audit_event) has a
  row per edit, each with its own writer.
- Counts: the per-table statistics PUBLIC could read anyway (pg_class reltuples and
  relpages, the pg_stat* views and pg_stat_get_* functions, the size functions) are
  revoked from PUBLIC in this database (`_HARDENING`): with them a member could read
  another team's row count without reading a row. What remains tells activity, never a
  count: the cluster-wide transaction id and WAL position (txid_current,
  pg_current_wal_lsn) grow with every team's writes, and pg_locks shows which tables a
  transaction holds open right now. Neither sync nor `team init` takes an
  advisory lock (database-wide, anyone may take one): changes are numbered under a row lock in the
  team's schema (sync_schema.py), and administrators serialize on `memory_teams.team`.
  Foreign keys are checked without row-level security, but each team's keys point into
  its own schema, so they cannot probe another team's rows.

Names are not hidden: a member can list the other teams' schemas and the names of their
tables (pg_namespace, pg_class), the teams' roles and who belongs to them (pg_roles,
pg_auth_members) and each person's search_path (pg_db_role_setting). Revoking these
catalogs breaks psql and SQLAlchemy's reflection, and they tell who is in which team,
never a row or a count. Use one database per team where even that must stay private.

Why the whole store and not just memory_item: the unchanged MemoryService writes its
history (audit_event), conflicts, links, categories and summaries beside a memory when a
member uses it on the team store, and sync adds tombstones and team conflicts; every
one of them says something about the team's memories. Conversations (resource,
resource_turn) never reach the team store: publishing sends a memory without its source.

Needs a superuser: creating roles, and revoking PUBLIC's rights on system catalogs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, Engine, event, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError

from memory_app.store.dialects.postgresql import _CONFIG_DDL, PostgresDialect
from memory_app.store.errors import StoreError
from memory_app.team.credentials import connect_url

SHARED_SCHEMA = "memory_teams"
# Tables of a team schema that hold no team's rows: the schema version (read only for
# members) and the change generation counter (one row the triggers bump).
UNFILTERED = ("store_schema_version", "store_generation")
# Tables of the local store only (a store's link to its team store): in a team store
# they stay empty, and row-level security with no policy keeps members out of them.
LOCAL_ONLY = ("team_link",)
# Tables of the sync schema (sync_schema.py) that members may not write: the tombstones
# (only its triggers add them: a forged one would move every cursor, a deleted one hide
# a withdrawal) and the lock row the triggers number changes under (no privilege at all).
READ_ONLY = ("team_tombstone",)
NO_ACCESS = ("team_sync_lock",)
# Only the triggers draw change numbers (as the administrator who installed them).
_TRIGGERS_ONLY_SEQUENCES = ("team_change_seq",)
_TEAM_NAME = re.compile(r"^[a-z][a-z0-9_]{0,29}$")
_PERSON = re.compile(r"^[a-z_][a-z0-9_.-]{0,62}$")


class TeamSetupError(StoreError):
    """`team init` or `team members` cannot do what was asked; nothing was changed."""


@dataclass(frozen=True)
class TeamNames:
    """How one team is named in the database: its id, schema and role."""

    team: str
    schema: str
    role: str


def team_names(database: str, team: str) -> TeamNames:
    """The names of a new team in a database; TeamSetupError for a name PostgreSQL or a
    person would trip on. The role is cluster-wide: its name carries a hash of the
    database's exact name, so `Team-DB` and `team_db`, or two long names alike in their
    first characters, never share one (a team already recorded keeps its own role)."""
    if not _TEAM_NAME.match(team):
        raise TeamSetupError(
            f"team name {team!r}: use lowercase letters, digits and _, starting with a "
            "letter, at most 30 characters"
        )
    readable = re.sub(r"[^a-z0-9_]", "_", database.lower())[:16]
    digest = hashlib.sha256(database.encode("utf-8")).hexdigest()[:8]
    # At most 7 + 16 + 1 + 8 + 1 + 30 = 63 characters, PostgreSQL's limit.
    role = f"memory_{readable}_{digest}_{team}"
    return TeamNames(team=team, schema=f"team_{team}", role=role)


def _role_comment(names: TeamNames, database: str) -> str:
    return f"memory-app: role of team {names.team} in database {database}"


def check_person(name: str) -> str:
    if not _PERSON.match(name):
        raise TeamSetupError(
            f"role name {name!r}: use lowercase letters, digits, _, . and -, starting "
            "with a letter or _"
        )
    return name


def _q(name: str) -> str:
    """A quoted identifier (names are checked by team_names/check_person first)."""
    return '"' + name.replace('"', '""') + '"'


def _lit(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass
class InitReport:
    """What `team init` did; `changes` is empty when it found everything in place."""

    team: str
    schema: str
    role: str
    database: str
    schema_version: int
    previous_version: int
    sync_installed: bool
    members: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- the shared schema: teams, members, policy functions ---------------------------------

_SHARED_DDL = (
    f"""CREATE TABLE IF NOT EXISTS {SHARED_SCHEMA}.team (
        team_id TEXT PRIMARY KEY,
        schema_name TEXT NOT NULL UNIQUE,
        role_name TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    f"""CREATE TABLE IF NOT EXISTS {SHARED_SCHEMA}.member (
        role_name TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES {SHARED_SCHEMA}.team (team_id),
        added_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    f"REVOKE ALL ON {SHARED_SCHEMA}.team, {SHARED_SCHEMA}.member FROM PUBLIC",
    # Whether the login of this session belongs to a team: session_user, not
    # current_user, so SET ROLE changes nothing.
    f"""CREATE OR REPLACE FUNCTION {SHARED_SCHEMA}.member_of(team TEXT) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
        SELECT EXISTS (SELECT 1 FROM {SHARED_SCHEMA}.member m
                       WHERE m.team_id = team AND m.role_name = session_user)
    $$""",
    f"""CREATE OR REPLACE FUNCTION {SHARED_SCHEMA}.my_team() RETURNS TEXT
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
        SELECT m.team_id FROM {SHARED_SCHEMA}.member m WHERE m.role_name = session_user
    $$""",
    f"REVOKE ALL ON FUNCTION {SHARED_SCHEMA}.member_of(TEXT), {SHARED_SCHEMA}.my_team() "
    "FROM PUBLIC",
)

# Refuses an edit that changes a row's author or team (row-level security's WITH CHECK
# sees only the new row, so it cannot tell an author from a rewritten one).
_KEEP_AUTHOR = f"""CREATE OR REPLACE FUNCTION {SHARED_SCHEMA}.keep_author() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog AS $$
    BEGIN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE =
            'an edit keeps the author (user_id) and team (team_id) of a row of '
            || TG_TABLE_NAME;
    END $$"""

# Statistics PUBLIC may read by default, each of which tells a table's row count without
# reading a row. Revoked in this database only (catalogs are per database).
_STATS_FUNCTIONS = """
    SELECT p.oid::regprocedure::text FROM pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::regnamespace
      AND (starts_with(p.proname, 'pg_stat_get_') OR p.proname IN (
           'pg_relation_size', 'pg_total_relation_size', 'pg_table_size',
           'pg_indexes_size', 'pg_database_size', 'pg_tablespace_size',
           'pg_sequence_last_value'))
      AND has_function_privilege('public', p.oid, 'EXECUTE')
"""
_STATS_VIEWS = """
    SELECT c.oid::regclass::text FROM pg_class c
    WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
      AND starts_with(c.relname, 'pg_stat')
      AND has_table_privilege('public', c.oid, 'SELECT')
"""
# pg_class stays readable but for its size estimates (psql, SQLAlchemy and the
# information_schema views read the other columns).
_PG_CLASS_HIDDEN = ("reltuples", "relpages", "relallvisible")


def _harden_statistics(conn: Connection) -> list[str]:
    changes = []
    for (function,) in conn.exec_driver_sql(_STATS_FUNCTIONS).all():
        conn.exec_driver_sql(f"REVOKE EXECUTE ON FUNCTION {function} FROM PUBLIC")
        changes.append(f"revoked {function} from PUBLIC")
    for (view,) in conn.exec_driver_sql(_STATS_VIEWS).all():
        conn.exec_driver_sql(f"REVOKE ALL ON {view} FROM PUBLIC")
        changes.append(f"revoked {view} from PUBLIC")
    table_wide = conn.exec_driver_sql(
        "SELECT has_table_privilege('public', 'pg_catalog.pg_class', 'SELECT')"
    ).scalar()
    if table_wide:
        columns = [
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT attname FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_class'::regclass "
                "AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
            )
            if row[0] not in _PG_CLASS_HIDDEN
        ]
        conn.exec_driver_sql("REVOKE SELECT ON pg_catalog.pg_class FROM PUBLIC")
        conn.exec_driver_sql(
            f"GRANT SELECT ({', '.join(columns)}) ON pg_catalog.pg_class TO PUBLIC"
        )
        changes.append("pg_class size estimates hidden from PUBLIC")
    return changes


def _lock_tenancy(conn: Connection) -> None:
    """One administrator at a time changes the teams of a database, until the
    transaction ends. A table only administrators may lock (an advisory lock, open to
    every login, would let a member stall `team init` for good); members' policy
    functions read memory_teams.member, which this lock leaves alone."""
    conn.exec_driver_sql(f"LOCK TABLE {SHARED_SCHEMA}.team IN SHARE ROW EXCLUSIVE MODE")


def _ensure_shared(conn: Connection, database: str) -> list[str]:
    """The shared schema (made here the first time, then locked: see _lock_tenancy)."""
    changes = []
    if not _exists(conn, "SELECT 1 FROM pg_namespace WHERE nspname = %(n)s", n=SHARED_SCHEMA):
        conn.exec_driver_sql(f"CREATE SCHEMA {SHARED_SCHEMA}")
        conn.exec_driver_sql(f"REVOKE ALL ON SCHEMA {SHARED_SCHEMA} FROM PUBLIC")
        for ddl in _CONFIG_DDL:
            conn.exec_driver_sql(f"SET LOCAL search_path = {SHARED_SCHEMA}")
            conn.exec_driver_sql(ddl)
        conn.exec_driver_sql("RESET search_path")
        for ddl in _SHARED_DDL:
            conn.exec_driver_sql(ddl)
        changes.append(f"created schema {SHARED_SCHEMA}")
    _lock_tenancy(conn)
    keep_author = f"SELECT to_regprocedure('{SHARED_SCHEMA}.keep_author()')"
    if conn.exec_driver_sql(keep_author).scalar() is None:
        conn.exec_driver_sql(_KEEP_AUTHOR)
        changes.append(f"created {SHARED_SCHEMA}.keep_author()")
    if _exists(
        conn,
        "SELECT 1 FROM pg_database WHERE datname = current_database() "
        "AND has_database_privilege('public', oid, 'CONNECT')",
    ):
        # Only team members (and the administrator) may connect at all.
        conn.exec_driver_sql(f"REVOKE ALL ON DATABASE {_q(database)} FROM PUBLIC")
        changes.append(f"revoked CONNECT and TEMP on {database} from PUBLIC")
    changes += _harden_statistics(conn)
    return changes


def _exists(conn: Connection, sql: str, **params: Any) -> bool:
    return conn.exec_driver_sql(sql, params).first() is not None


# -- one team ---------------------------------------------------------------------------


def _recorded_names(conn: Connection, database: str, team: str) -> TeamNames:
    """The team's names, with the role recorded for it when there is one (a team made
    before roles were named by a hash keeps its role)."""
    names = team_names(database, team)
    if conn.exec_driver_sql(f"SELECT to_regclass('{SHARED_SCHEMA}.team')").scalar() is None:
        return names
    recorded = conn.exec_driver_sql(
        f"SELECT role_name FROM {SHARED_SCHEMA}.team WHERE team_id = %(t)s", {"t": team}
    ).scalar()
    return names if recorded is None else replace(names, role=str(recorded))


def _claim_role(conn: Connection, names: TeamNames, database: str) -> list[str]:
    """The team's role, made and marked here, or found marked as this team's; a role of
    another team or database is refused, nothing changed."""
    other = conn.exec_driver_sql(
        f"SELECT team_id FROM {SHARED_SCHEMA}.team WHERE role_name = %(r)s AND team_id <> %(t)s",
        {"r": names.role, "t": names.team},
    ).scalar()
    mark = _role_comment(names, database)
    refused = (
        f"role {names.role} already belongs to {{}}, not to team {names.team!r} of "
        f"database {database!r}; nothing was changed. Drop or rename that role, or choose "
        "another team name."
    )
    if other is not None:
        raise TeamSetupError(refused.format(f"team {other!r} of this database"))
    found = conn.exec_driver_sql(
        "SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = %(r)s",
        {"r": names.role},
    ).first()
    if found is None:
        conn.exec_driver_sql(f"CREATE ROLE {_q(names.role)} NOLOGIN")
        conn.exec_driver_sql(f"COMMENT ON ROLE {_q(names.role)} IS {_lit(mark)}")
        return [f"created role {names.role}"]
    if found[0] == mark:
        return []
    recorded_here = _exists(
        conn,
        f"SELECT 1 FROM {SHARED_SCHEMA}.team WHERE role_name = %(r)s AND team_id = %(t)s",
        r=names.role,
        t=names.team,
    )
    if found[0] is None and recorded_here:
        # Made by an earlier version, which left no mark: it is this team's.
        conn.exec_driver_sql(f"COMMENT ON ROLE {_q(names.role)} IS {_lit(mark)}")
        return [f"marked role {names.role} as team {names.team}'s"]
    what = found[0] or "a role memory-app did not make"
    raise TeamSetupError(refused.format(repr(what)))


def _ensure_team(conn: Connection, names: TeamNames, database: str) -> list[str]:
    changes = _claim_role(conn, names, database)
    if not _exists(conn, "SELECT 1 FROM pg_namespace WHERE nspname = %(n)s", n=names.schema):
        conn.exec_driver_sql(f"CREATE SCHEMA {_q(names.schema)}")
        conn.exec_driver_sql(f"REVOKE ALL ON SCHEMA {_q(names.schema)} FROM PUBLIC")
        changes.append(f"created schema {names.schema}")
    found = _exists(conn, f"SELECT 1 FROM {SHARED_SCHEMA}.team WHERE team_id = %(t)s", t=names.team)
    if not found:
        conn.exec_driver_sql(
            f"INSERT INTO {SHARED_SCHEMA}.team (team_id, schema_name, role_name) "
            "VALUES (%(t)s, %(s)s, %(r)s)",
            {"t": names.team, "s": names.schema, "r": names.role},
        )
        changes.append(f"recorded team {names.team}")
    for privilege, target in (
        ("CONNECT", f"DATABASE {_q(database)}"),
        ("USAGE", f"SCHEMA {SHARED_SCHEMA}"),
        ("USAGE", f"SCHEMA {_q(names.schema)}"),
    ):
        changes += _grant(conn, privilege, target, names.role)
    for function in ("member_of(TEXT)", "my_team()"):
        changes += _grant(conn, "EXECUTE", f"FUNCTION {SHARED_SCHEMA}.{function}", names.role)
    return changes


def _grant(conn: Connection, privilege: str, target: str, role: str) -> list[str]:
    kind, name = target.split(" ", 1)
    check = {
        "DATABASE": "has_database_privilege",
        "SCHEMA": "has_schema_privilege",
        "FUNCTION": "has_function_privilege",
    }[kind]
    plain = name.strip('"')
    # WITH GRANT OPTION-free direct check: does the role itself hold it (not via PUBLIC)?
    held = conn.exec_driver_sql(
        f"SELECT {check}(%(r)s, %(o)s, %(p)s)", {"r": role, "o": plain, "p": privilege}
    ).scalar()
    if held:
        return []
    conn.exec_driver_sql(f"GRANT {privilege} ON {target} TO {_q(role)}")
    return [f"granted {privilege} on {plain} to {role}"]


def _team_tables(conn: Connection, schema: str) -> list[str]:
    rows = conn.exec_driver_sql(
        "SELECT c.relname FROM pg_class c WHERE c.relnamespace = %(s)s::regnamespace "
        "AND c.relkind IN ('r', 'p') ORDER BY c.relname",
        {"s": schema},
    )
    return [row[0] for row in rows]


def _secure_tables(conn: Connection, names: TeamNames) -> list[str]:
    """team_id and user_id, forced row-level security and the team role's privileges on
    every table of the team's schema."""
    changes = []
    schema = _q(names.schema)
    team = _lit(names.team)
    member = f"(SELECT {SHARED_SCHEMA}.member_of({team}))"
    for table in _team_tables(conn, names.schema):
        qualified = f"{schema}.{_q(table)}"
        if table in LOCAL_ONLY:
            if not _row_security_forced(conn, names.schema, table):
                conn.exec_driver_sql(f"ALTER TABLE {qualified} ENABLE ROW LEVEL SECURITY")
                conn.exec_driver_sql(f"ALTER TABLE {qualified} FORCE ROW LEVEL SECURITY")
                changes.append(f"{table}: closed to members")
            continue
        if table in NO_ACCESS:
            continue  # no grant: only the sync triggers (SECURITY DEFINER) touch it
        if table in UNFILTERED:
            privileges = "SELECT" if table == "store_schema_version" else "SELECT, UPDATE"
            if not _table_privilege(conn, names.role, qualified, privileges):
                conn.exec_driver_sql(f"GRANT {privileges} ON {qualified} TO {_q(names.role)}")
                changes.append(f"granted {privileges} on {table}")
            continue
        columns = {
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT attname FROM pg_attribute WHERE attrelid = %(t)s::regclass "
                "AND attnum > 0 AND NOT attisdropped",
                {"t": f"{names.schema}.{table}"},
            )
        }
        if "team_id" not in columns:
            conn.exec_driver_sql(
                f"ALTER TABLE {qualified} ADD COLUMN team_id TEXT NOT NULL DEFAULT {team}"
            )
            changes.append(f"{table}: team_id")
        if "user_id" not in columns:
            conn.exec_driver_sql(
                f"ALTER TABLE {qualified} ADD COLUMN user_id TEXT NOT NULL "
                "DEFAULT (session_user)::text"
            )
            changes.append(f"{table}: user_id")
        if not _row_security_forced(conn, names.schema, table):
            conn.exec_driver_sql(f"ALTER TABLE {qualified} ENABLE ROW LEVEL SECURITY")
            conn.exec_driver_sql(f"ALTER TABLE {qualified} FORCE ROW LEVEL SECURITY")
            changes.append(f"{table}: row-level security forced")
        ours = f"team_id = {team} AND {member}"
        policies = {
            "team_select": f"FOR SELECT USING ({ours})",
            "team_insert": f"FOR INSERT WITH CHECK ({ours} AND user_id = session_user)",
            "team_update": f"FOR UPDATE USING ({ours}) WITH CHECK ({ours})",
            "team_delete": f"FOR DELETE USING ({ours})",
        }
        present = {
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT policyname FROM pg_policies WHERE schemaname = %(s)s AND tablename = %(t)s",
                {"s": names.schema, "t": table},
            )
        }
        for policy, body in policies.items():
            if policy not in present:
                conn.exec_driver_sql(f"CREATE POLICY {policy} ON {qualified} {body}")
                changes.append(f"{table}: policy {policy}")
        changes += _keep_author(conn, names, table)
        if table in READ_ONLY:
            changes += _read_only(conn, names, table)
            continue
        every = "SELECT, INSERT, UPDATE, DELETE"
        if not _table_privilege(conn, names.role, qualified, every):
            conn.exec_driver_sql(f"GRANT {every} ON {qualified} TO {_q(names.role)}")
            changes.append(f"granted {every} on {table}")
    sequences = conn.exec_driver_sql(
        "SELECT c.relname, has_sequence_privilege(%(r)s, c.oid, 'USAGE') FROM pg_class c "
        "WHERE c.relnamespace = %(s)s::regnamespace AND c.relkind = 'S'",
        {"s": names.schema, "r": names.role},
    ).all()
    for sequence, held in sequences:
        qualified = f"{schema}.{_q(sequence)}"
        if sequence in _TRIGGERS_ONLY_SEQUENCES:
            if held or _table_privilege(conn, names.role, qualified, "SELECT"):
                conn.exec_driver_sql(f"REVOKE ALL ON SEQUENCE {qualified} FROM {_q(names.role)}")
                changes.append(f"{sequence}: only the sync triggers draw from it")
        elif not held:
            conn.exec_driver_sql(f"GRANT USAGE, SELECT ON SEQUENCE {qualified} TO {_q(names.role)}")
            changes.append(f"granted USAGE on sequence {sequence}")
    return changes


def _keep_author(conn: Connection, names: TeamNames, table: str) -> list[str]:
    """The trigger that keeps a row's user_id and team_id through edits."""
    if _exists(
        conn,
        "SELECT 1 FROM pg_trigger WHERE tgrelid = %(t)s::regclass AND tgname = 'team_keep_author'",
        t=f"{names.schema}.{table}",
    ):
        return []
    conn.exec_driver_sql(
        f"CREATE TRIGGER team_keep_author BEFORE UPDATE ON {_q(names.schema)}.{_q(table)} "
        "FOR EACH ROW WHEN (NEW.user_id IS DISTINCT FROM OLD.user_id "
        "OR NEW.team_id IS DISTINCT FROM OLD.team_id) "
        f"EXECUTE FUNCTION {SHARED_SCHEMA}.keep_author()"
    )
    return [f"{table}: an edit keeps its author"]


def _read_only(conn: Connection, names: TeamNames, table: str) -> list[str]:
    """Members read the table, and write it only through the sync triggers."""
    qualified = f"{_q(names.schema)}.{_q(table)}"
    changes = []
    if not _table_privilege(conn, names.role, qualified, "SELECT"):
        conn.exec_driver_sql(f"GRANT SELECT ON {qualified} TO {_q(names.role)}")
        changes.append(f"granted SELECT on {table}")
    writes = ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
    if any(_table_privilege(conn, names.role, qualified, w) for w in writes):
        conn.exec_driver_sql(f"REVOKE {', '.join(writes)} ON {qualified} FROM {_q(names.role)}")
        changes.append(f"{table}: members only read it")
    return changes


def _row_security_forced(conn: Connection, schema: str, table: str) -> bool:
    return bool(
        conn.exec_driver_sql(
            "SELECT relrowsecurity AND relforcerowsecurity FROM pg_class "
            "WHERE oid = %(t)s::regclass",
            {"t": f"{schema}.{table}"},
        ).scalar()
    )


def _table_privilege(conn: Connection, role: str, table: str, privileges: str) -> bool:
    wanted = ", ".join(p.strip() for p in privileges.split(","))
    held = conn.exec_driver_sql(
        "SELECT has_table_privilege(%(r)s, %(t)s, %(p)s)", {"r": role, "t": table, "p": wanted}
    ).scalar()
    # has_table_privilege with a list is "any of": check each one.
    if not held:
        return False
    return all(
        conn.exec_driver_sql(
            "SELECT has_table_privilege(%(r)s, %(t)s, %(p)s)", {"r": role, "t": table, "p": p}
        ).scalar()
        for p in wanted.split(", ")
    )


# -- members ------------------------------------------------------------------------------


def _search_path(names: TeamNames) -> str:
    return f"{_q(names.schema)}, {SHARED_SCHEMA}"


def _add_member(conn: Connection, names: TeamNames, person: str, database: str) -> list[str]:
    changes = []
    role = conn.exec_driver_sql(
        "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %(r)s", {"r": person}
    ).first()
    if role is None:
        conn.exec_driver_sql(f"CREATE ROLE {_q(person)} LOGIN")
        changes.append(f"created login role {person} (give it a password: \\password {person})")
    elif role[0]:
        raise TeamSetupError(
            f"{person} is a superuser or bypasses row-level security: it would see every "
            "team's memories. Give the person a role of their own; nothing was changed."
        )
    elsewhere = conn.exec_driver_sql(
        f"SELECT team_id FROM {SHARED_SCHEMA}.member WHERE role_name = %(r)s", {"r": person}
    ).scalar()
    if elsewhere is not None and elsewhere != names.team:
        raise TeamSetupError(
            f"{person} is already a member of team {elsewhere!r} in this database; a login "
            "belongs to one team per database. Remove it there first (team members "
            "--remove); nothing was changed."
        )
    if elsewhere is None:
        conn.exec_driver_sql(
            f"INSERT INTO {SHARED_SCHEMA}.member (role_name, team_id) VALUES (%(r)s, %(t)s)",
            {"r": person, "t": names.team},
        )
        changes.append(f"{person} joined team {names.team}")
    if not _exists(
        conn,
        "SELECT 1 FROM pg_auth_members m JOIN pg_roles t ON t.oid = m.roleid "
        "JOIN pg_roles p ON p.oid = m.member WHERE t.rolname = %(t)s AND p.rolname = %(p)s",
        t=names.role,
        p=person,
    ):
        conn.exec_driver_sql(f"GRANT {_q(names.role)} TO {_q(person)}")
        changes.append(f"granted role {names.role} to {person}")
    wanted = f"search_path={names.schema}, {SHARED_SCHEMA}"
    settings = conn.exec_driver_sql(
        "SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole "
        "JOIN pg_database d ON d.oid = s.setdatabase "
        "WHERE r.rolname = %(p)s AND d.datname = current_database()",
        {"p": person},
    ).scalar()
    if not settings or wanted not in settings:
        conn.exec_driver_sql(
            f"ALTER ROLE {_q(person)} IN DATABASE {_q(database)} "
            f"SET search_path = {_search_path(names)}"
        )
        changes.append(f"{person}'s search_path in {database}: {names.schema}")
    return changes


def _remove_member(conn: Connection, names: TeamNames, person: str, database: str) -> list[str]:
    found = conn.exec_driver_sql(
        f"DELETE FROM {SHARED_SCHEMA}.member WHERE role_name = %(r)s AND team_id = %(t)s "
        "RETURNING role_name",
        {"r": person, "t": names.team},
    ).first()
    if found is None:
        raise TeamSetupError(f"{person} is not a member of team {names.team!r}; nothing changed.")
    conn.exec_driver_sql(f"REVOKE {_q(names.role)} FROM {_q(person)}")
    conn.exec_driver_sql(f"ALTER ROLE {_q(person)} IN DATABASE {_q(database)} RESET search_path")
    return [f"{person} left team {names.team}"]


def members(conn: Connection, team: str) -> list[str]:
    rows = conn.exec_driver_sql(
        f"SELECT role_name FROM {SHARED_SCHEMA}.member WHERE team_id = %(t)s ORDER BY role_name",
        {"t": team},
    )
    return [row[0] for row in rows]


# -- the administrator's connection -------------------------------------------------------


@contextmanager
def _admin(admin_url: str) -> Iterator[tuple[Engine, str]]:
    """An engine on the team database as a superuser, and the database's name."""
    engine = PostgresDialect().create_engine(connect_url(admin_url))
    try:
        with _explained(), engine.connect() as conn:
            row = conn.exec_driver_sql(
                "SELECT rolsuper, current_user, current_database() FROM pg_roles "
                "WHERE rolname = current_user"
            ).one()
        if not row[0]:
            raise TeamSetupError(
                f"{row[1]} is not a superuser: `team init` creates roles and revokes "
                "statistics from PUBLIC, which needs one (with Docker: the image's "
                "POSTGRES_USER). Nothing was changed."
            )
        yield engine, str(row[2])
    finally:
        engine.dispose()


@contextmanager
def _explained() -> Iterator[None]:
    """Driver errors become the dialect's clear TeamDatabaseError messages."""
    from memory_app.store.dialects.postgresql import explain_connection_error

    try:
        yield
    except DBAPIError as exc:
        explained = explain_connection_error(exc.orig or exc)
        if explained is None:
            raise
        raise explained from None


def _team_engine(admin_url: str, names: TeamNames) -> Engine:
    """An administrator's engine whose connections work in the team's schema."""
    engine = PostgresDialect().create_engine(connect_url(admin_url))

    @event.listens_for(engine, "connect")
    def _in_team_schema(dbapi_conn: Any, _record: Any) -> None:
        with dbapi_conn.cursor() as cursor:
            cursor.execute(f"SET search_path = {_search_path(names)}")
        dbapi_conn.commit()

    return engine


def init_team(admin_url: str, team: str, people: Sequence[str] = ()) -> InitReport:
    """Create (or bring up to date) a team's store in the database of `admin_url`, a
    superuser's URL; running it again changes nothing."""
    for person in people:
        check_person(person)
    dialect = PostgresDialect()
    with _admin(admin_url) as (engine, database):
        team_names(database, team)  # a bad name fails before anything is made
        for attempt in (1, 2):
            try:
                with _explained(), engine.begin() as conn:
                    changes = _ensure_shared(conn, database)
                    names = _recorded_names(conn, database, team)
                    changes += _ensure_team(conn, names, database)
                break
            except (IntegrityError, ProgrammingError) as exc:
                # Two first `team init`s at once: the one that lost the race to create
                # memory_teams finds it made (and locks it) the second time.
                if attempt == 2 or not _created_meanwhile(exc):
                    raise
        team_engine = _team_engine(admin_url, names)
        try:
            with _explained():
                dialect.prepare(team_engine, None)
                previous = dialect.migrate(team_engine, None)
                if previous != dialect.schema_version:
                    changes.append(f"store schema {previous} -> {dialect.schema_version}")
                sync = _sync_schema()
                with team_engine.begin() as conn:
                    _lock_tenancy(conn)
                    if sync is not None:
                        missing = sync.missing(conn)
                        sync.install(conn)
                        if missing:
                            changes.append("sync schema: " + ", ".join(missing))
                    changes += _secure_tables(conn, names)
                    for person in people:
                        changes += _add_member(conn, names, person, database)
                    listed = members(conn, names.team)
        finally:
            team_engine.dispose()
    return InitReport(
        team=names.team,
        schema=names.schema,
        role=names.role,
        database=database,
        schema_version=dialect.schema_version,
        previous_version=previous,
        sync_installed=sync is not None,
        members=listed,
        changes=changes,
    )


def _created_meanwhile(exc: DBAPIError) -> bool:
    """A duplicate object error: another transaction made it first."""
    return getattr(exc.orig, "sqlstate", None) in ("23505", "42P06", "42P07", "42710", "42723")


def _sync_schema() -> Any | None:
    """memory_app/team/sync_schema.py (the sync helper's), when present."""
    if importlib.util.find_spec("memory_app.team.sync_schema") is None:
        return None
    from memory_app.team import sync_schema

    return sync_schema


def _team_exists(conn: Connection, team: str) -> bool:
    if conn.exec_driver_sql(f"SELECT to_regclass('{SHARED_SCHEMA}.team')").scalar() is None:
        return False
    return _exists(conn, f"SELECT 1 FROM {SHARED_SCHEMA}.team WHERE team_id = %(t)s", t=team)


def change_members(
    admin_url: str, team: str, add: Sequence[str] = (), remove: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """Add and remove people of an existing team; returns (members now, changes)."""
    for person in (*add, *remove):
        check_person(person)
    with _admin(admin_url) as (engine, database):
        team_names(database, team)
        with _explained(), engine.begin() as conn:
            if not _team_exists(conn, team):
                raise TeamSetupError(
                    f"there is no team {team!r} in database {database!r}: create it with "
                    "`memory-app team init`."
                )
            _lock_tenancy(conn)
            names = _recorded_names(conn, database, team)
            changes: list[str] = []
            for person in remove:
                changes += _remove_member(conn, names, person, database)
            for person in add:
                changes += _add_member(conn, names, person, database)
            return members(conn, team), changes


def database_name(url: str) -> str:
    return make_url(url).database or ""
