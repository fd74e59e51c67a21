"""The password of a team store's login: never in the database, never in team_link.

Where it comes from, in order (`find_password`):

1. the URL, when a person typed it on the command line, as `USER:PASSWORD@` or
   `?password=` (`team connect` then saves it in the keyring and keeps the URL without
   it, and without a `?sslpassword=`);
2. the system keyring, under the service `memory-app-team` and the name
   `user@host:port/database` (the approach of extract/credentials.py: optional, a
   locked or missing keyring is "not there");
3. a `.pgpass` file (PGPASSFILE, else ~/.pgpass), which libpq reads itself when the
   connection has no password: here it is only looked at, to say clearly when the file
   has no line for this login or libpq would ignore it (group or world readable);
4. PGPASSWORD, which libpq also reads itself.

None of these: TeamCredentialsError naming the three ways to give one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError

from memory_app.extract.credentials import _keyring
from memory_app.store.errors import TeamDatabaseError

KEYRING_SERVICE = "memory-app-team"
DEFAULT_PORT = 5432


class TeamCredentialsError(TeamDatabaseError):
    """No password for a team store login could be found, or it could not be saved."""


@dataclass(frozen=True)
class Login:
    """Who connects where, as libpq matches a .pgpass line: host, port, database, user."""

    host: str
    port: int
    database: str
    user: str

    @property
    def name(self) -> str:
        return f"{self.user}@{self.host}:{self.port}/{self.database}"


def parse(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise TeamDatabaseError(
            "not a database URL: write postgresql://USER@HOST:PORT/DATABASE"
        ) from None
    if parsed.get_backend_name() not in ("postgresql", "postgres"):
        raise TeamDatabaseError(
            f"a team store URL starts with postgresql://, not {parsed.drivername}://"
        )
    if not parsed.username:
        raise TeamDatabaseError(
            "the team store URL names no user: write postgresql://USER@HOST:PORT/DATABASE"
        )
    return parsed


def login_of(url: str | URL) -> Login:
    """The login a URL names; a unix socket counts as `localhost`, as libpq does."""
    parsed = parse(url) if isinstance(url, str) else url
    host = parsed.host or ""
    if not host or host.startswith("/"):
        host = "localhost"
    user = parsed.username or ""
    return Login(host, parsed.port or DEFAULT_PORT, parsed.database or user, user)


# Query parameters libpq takes secrets from (`?password=`, the client key's `?sslpassword=`):
# they never stay in a URL that is kept.
SECRET_PARAMETERS = ("password", "sslpassword")


def without_password(url: str) -> str:
    """The URL to keep: everything but the password, in the user part or the query."""
    parsed = parse(url)
    # URL.set() leaves a field alone when given None: replace it on the named tuple.
    parsed = parsed._replace(password=None).difference_update_query(SECRET_PARAMETERS)
    return parsed.render_as_string(hide_password=False)


def typed_password(url: str) -> str | None:
    """A password typed in the URL: `USER:PASSWORD@` or `?password=` (libpq takes both)."""
    parsed = parse(url)
    if parsed.password:
        return str(parsed.password)
    query = parsed.query.get("password")
    if isinstance(query, tuple):  # given twice: libpq takes the last
        query = query[-1] if query else None
    return query or None


# -- the keyring ---------------------------------------------------------------------------


def keyring_password(login: Login) -> str | None:
    module = _keyring()
    if module is None:
        return None
    try:
        found = module.get_password(KEYRING_SERVICE, login.name)
    except Exception:  # a locked or broken keyring is a keyring without it
        return None
    return found or None


def save_password(login: Login, password: str) -> None:
    """Keep the password in the system keyring; TeamCredentialsError when there is none."""
    module = _keyring()
    if module is None:
        raise TeamCredentialsError("no system keyring is available")
    try:
        module.set_password(KEYRING_SERVICE, login.name, password)
    except Exception as exc:
        raise TeamCredentialsError(
            f"the system keyring refused the password ({type(exc).__name__})"
        ) from None


def forget_password(login: Login) -> bool:
    """Remove a kept password; False when there was none (or no keyring)."""
    module = _keyring()
    if module is None:
        return False
    try:
        module.delete_password(KEYRING_SERVICE, login.name)
    except Exception:
        return False
    return True


# -- .pgpass --------------------------------------------------------------------------------


def pgpass_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    named = env.get("PGPASSFILE")
    return Path(named) if named else Path(env.get("HOME") or Path.home()) / ".pgpass"


def _fields(line: str) -> list[tuple[str, bool]]:
    """A .pgpass line's fields, unescaped, each with whether it is the wildcard `*`."""
    fields: list[tuple[str, bool]] = []
    current: list[str] = []
    escaped_any = False
    chars = iter(line)
    for char in chars:
        if char == "\\":
            current.append(next(chars, ""))
            escaped_any = True
        elif char == ":" and len(fields) < 4:
            text = "".join(current)
            fields.append((text, text == "*" and not escaped_any))
            current, escaped_any = [], False
        else:
            current.append(char)
    text = "".join(current)
    fields.append((text, False))
    return fields


def pgpass_matches(line: str, login: Login) -> bool:
    line = line.rstrip("\r\n")
    if not line or line.startswith("#"):
        return False
    fields = _fields(line)
    if len(fields) < 5:
        return False
    wanted = (login.host, str(login.port), login.database, login.user)
    return all(
        wild or value == want for (value, wild), want in zip(fields[:4], wanted, strict=True)
    )


def pgpass_line(login: Login, env: Mapping[str, str] | None = None) -> tuple[Path, bool] | None:
    """The .pgpass file with a line for this login and whether libpq will read it (it
    ignores a file others may read); None when there is no such line."""
    path = pgpass_path(env)
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode
    except OSError:
        return None
    if not any(pgpass_matches(line, login) for line in text.splitlines()):
        return None
    private = stat.S_ISREG(mode) and not mode & (stat.S_IRWXG | stat.S_IRWXO)
    return path, private


# -- all together ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Password:
    """Where a login's password is: `value` when the app passes it, None when libpq
    reads it itself (a .pgpass line, PGPASSWORD)."""

    source: str  # url | keyring | pgpass | environment
    value: str | None = None

    def __repr__(self) -> str:
        return f"Password(source={self.source!r})"


def find_password(url: str, env: Mapping[str, str] | None = None) -> Password:
    """Where the password of this URL's login is, in the module's order."""
    env = os.environ if env is None else env
    typed = typed_password(url)
    if typed is not None:
        return Password("url", typed)
    login = login_of(url)
    kept = keyring_password(login)
    if kept is not None:
        return Password("keyring", kept)
    found = pgpass_line(login, env)
    if found is not None:
        path, private = found
        if not private:
            raise TeamCredentialsError(
                f"{path} has a line for {login.name}, but libpq ignores the file because "
                f"others may read it: run `chmod 600 {path}`."
            )
        return Password("pgpass")
    if env.get("PGPASSWORD"):
        return Password("environment")
    raise TeamCredentialsError(
        f"no password for {login.name}. Give it one of three ways: in the URL once "
        "(`memory-app team connect postgresql://USER:PASSWORD@HOST/DB` keeps it in the "
        f"system keyring), in the system keyring (service {KEYRING_SERVICE!r}, name "
        f"{login.name!r}), or as a line `HOST:PORT:DATABASE:USER:PASSWORD` in "
        f"{pgpass_path(env)} (mode 0600)."
    )


def connect_url(url: str, env: Mapping[str, str] | None = None) -> str:
    """The URL to connect with: the stored one with the keyring's password put in, or
    as it is when libpq finds the password itself. Never store what this returns."""
    password = find_password(url, env)
    if password.value is None:
        return url
    with_password = parse(url).difference_update_query(["password"]).set(password=password.value)
    return with_password.render_as_string(hide_password=False)
