"""This store's link to a team store: `team connect`, `team status`, `team disconnect`.

Connecting logs in as the person (credentials.py finds the password), checks that the
login belongs to a team and that the store's schema is this app's, then keeps the URL
without its password, the team and the user in team_link (tables.py TeamLinkRow). The
local store never needs the server: status says when it cannot be reached, and the app
goes on working.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import or_
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from memory_app.domain.sharing import PERSONAL, TEAM
from memory_app.operations.common import new_group
from memory_app.store import repository as repo
from memory_app.store.database import Database
from memory_app.store.dialects.postgresql import PostgresDialect, explain_connection_error
from memory_app.store.errors import StoreError, TeamDatabaseError
from memory_app.store.tables import MemoryItemRow, TeamLinkRow
from memory_app.team import credentials


@dataclass(frozen=True)
class TeamLogin:
    """What the server said of a login: its team and the store's schema version."""

    user: str
    team: str
    schema_version: int


@contextmanager
def _explained(login: credentials.Login) -> Iterator[None]:
    try:
        yield
    except DBAPIError as exc:
        message = str(exc.orig)
        if "permission denied for database" in message:
            raise TeamDatabaseError(
                f"{login.user} may not connect to the team database {login.database!r}: "
                "it is not a member of any team there. Ask the team store's administrator "
                f"to run `memory-app team members ADMIN_URL --team TEAM --add {login.user}`; "
                "the local store keeps working."
            ) from None
        explained = explain_connection_error(exc.orig or exc)
        if explained is None:
            raise
        raise explained from None


def check_login(
    url: str, team: str | None = None, env: Mapping[str, str] | None = None
) -> TeamLogin:
    """Log in as the URL's user and check the team membership and the schema version;
    a TeamDatabaseError (clear, with what to do) when anything is wrong."""
    login = credentials.login_of(url)
    dialect = PostgresDialect()
    engine = dialect.create_engine(credentials.connect_url(url, env))
    try:
        with _explained(login):
            with engine.connect() as conn:
                store = conn.exec_driver_sql(
                    "SELECT to_regprocedure('memory_teams.my_team()') IS NOT NULL"
                ).scalar()
                if not store:
                    raise TeamDatabaseError(
                        f"The database {login.database!r} is not a team store: ask its "
                        "administrator to run `memory-app team init`; nothing was changed."
                    )
                mine = conn.exec_driver_sql("SELECT memory_teams.my_team()").scalar()
            if mine is None:
                raise TeamDatabaseError(
                    f"{login.user} is not a member of any team in {login.database!r}. Ask the "
                    "team store's administrator to add you (`memory-app team members "
                    f"ADMIN_URL --team TEAM --add {login.user}`); nothing was changed."
                )
            if team is not None and team != mine:
                raise TeamDatabaseError(
                    f"{login.user} is a member of team {mine!r}, not {team!r}; nothing was changed."
                )
            dialect.prepare(engine, None)  # refuses a store of a newer version
            with engine.connect() as conn:
                found = dialect._found_version(conn)
            if found < dialect.schema_version:
                raise TeamDatabaseError(
                    f"The team store is at schema version {found}, this app needs "
                    f"{dialect.schema_version}: ask the team store's administrator to run "
                    "`memory-app team init` again; nothing was changed."
                )
    finally:
        engine.dispose()
    return TeamLogin(user=login.user, team=str(mine), schema_version=found)


@dataclass
class ConnectReport:
    url: str
    team: str
    user: str
    schema_version: int
    password: str  # where the password is: url | keyring | pgpass | environment
    saved: str | None  # what became of a password typed in the URL
    # Memories an earlier team store had, made personal so none reaches this one.
    made_personal: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def connect(
    db: Database,
    url: str,
    team: str | None = None,
    *,
    save_password: bool = True,
    env: Mapping[str, str] | None = None,
) -> ConnectReport:
    """Check the login and keep the link (never the password) in the local store."""
    password = credentials.find_password(url, env)
    checked = check_login(url, team, env)
    kept_url = credentials.without_password(url)
    login = credentials.login_of(url)
    saved = None
    if password.source == "url":
        if not save_password:
            saved = "not kept: give it again, or keep it in the keyring or ~/.pgpass"
        else:
            try:
                credentials.save_password(login, password.value or "")
                saved = "kept in the system keyring"
            except credentials.TeamCredentialsError as exc:
                saved = f"not kept ({exc}): put it in ~/.pgpass (mode 0600)"
    with db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        if link is not None and (link.url != kept_url or link.team_id != checked.team):
            raise TeamDatabaseError(
                f"This store is already connected to team {link.team_name!r} at "
                f"{link.url}: run `memory-app team disconnect` first; nothing was changed."
            )
        made_personal = 0
        if link is None:
            # No link, yet memories with a team store's change number: they came from a
            # store this one was connected to before (a backup, an older version's
            # disconnect). Never the new team's: they stay here, personal.
            made_personal = _make_personal(
                session,
                col(MemoryItemRow.team_seq).is_not(None),
                "from an earlier team store: personal, not sent to the newly connected one",
            )
            link = TeamLinkRow(id=1, url=kept_url)
        link.team_id = checked.team
        link.team_name = checked.team
        link.user_name = checked.user
        link.last_error = None
        session.add(link)
    return ConnectReport(
        url=kept_url,
        team=checked.team,
        user=checked.user,
        schema_version=checked.schema_version,
        password=password.source,
        saved=saved,
        made_personal=made_personal,
    )


def link_of(db: Database) -> TeamLinkRow | None:
    with db.reading() as session:
        return session.get(TeamLinkRow, 1)


def status(
    db: Database, *, check: bool = True, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The link, its last sync and error, and (with `check`) whether the server answers
    now; an unreachable server is a status, not an error."""
    link = link_of(db)
    if link is None:
        return {"connected": False}
    found: dict[str, Any] = {
        "connected": True,
        "url": link.url,
        "team": link.team_name,
        "user": link.user_name,
        "connected_at": link.connected_at.isoformat(),
        "last_sync_at": link.last_sync_at.isoformat() if link.last_sync_at else None,
        "last_error": link.last_error,
        "pull_cursor": link.pull_cursor,
    }
    if check:
        try:
            check_login(link.url, link.team_id, env)
            found["reachable"] = True
            found["problem"] = None
        except StoreError as exc:
            found["reachable"] = False
            found["problem"] = str(exc)
    return found


def disconnect(db: Database, *, forget_password: bool = False) -> dict[str, Any]:
    """Forget the link, and make this team's memories personal (kept here, with no sync
    state left), so a store connected to another team later never sends them there;
    optionally forget the password kept in the keyring too."""
    with db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        if link is None:
            raise TeamDatabaseError("This store is not connected to a team store.")
        url, team = link.url, link.team_name
        session.delete(link)
        made_personal = _make_personal(
            session,
            or_(
                col(MemoryItemRow.sharing) == TEAM,
                col(MemoryItemRow.team_seq).is_not(None),
                col(MemoryItemRow.team_dirty),
            ),
            f"disconnected from team {team or url}: kept here as a personal memory",
        )
    forgot = forget_password and credentials.forget_password(credentials.login_of(url))
    return {
        "disconnected": url,
        "password_forgotten": forgot,
        "made_personal": made_personal,
        "note": (
            f"{made_personal} team memor{'y' if made_personal == 1 else 'ies'} stay in this "
            "store as personal ones; publish them again to share them with a team"
        ),
    }


def _make_personal(session: Session, which: Any, note: str) -> int:
    """The memories `which` selects become personal with no sync state (one undoable
    step); returns how many."""
    rows = session.exec(select(MemoryItemRow).where(which)).all()
    group = new_group("team_disconnect")
    for row in rows:
        repo.change_item(
            session, row, {"sharing": PERSONAL, "team_seq": None, "team_dirty": False},
            actor="team", action="team_disconnect", group_id=group, note=note,
        )  # fmt: skip
    return len(rows)
