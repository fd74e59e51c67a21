"""How long a PostgreSQL server may keep the app waiting (issue 20): a desktop app waits
seconds, not minutes, for a server that is busy, locked or gone.

Without limits a sync or `team status` waited without end on a lock (an administrator's
`team init` migrating the store) and a network dropping mid-query stalled for the
kernel's TCP retries (about 15 minutes). So every connection gets:

    connect_timeout      seconds to reach the server and log in
    keepalives_*         a silent, dead peer is noticed within idle + count × interval
    tcp_user_timeout     data unacknowledged this long (ms) drops the connection
    statement_timeout    one statement's limit
    lock_timeout         the wait for a lock another session holds
    idle_in_transaction_session_timeout   a transaction left open is ended by the server

The URL's own query parameters win: libpq's (`?connect_timeout=20`, `?options=-c
lock_timeout=60s`) and, shorter, the three server settings by name
(`?statement_timeout=5min`), which libpq does not know and are passed in `options`.
Long work that is expected to take longer (a migration, a re-index) raises its own
limit for its transaction (postgresql.py `allow_longer`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import URL

from memory_app.store.errors import TeamDatabaseError

# libpq connection parameters (keepalives and tcp_user_timeout are ignored on a unix
# socket, where neither applies).
CONNECT_PARAMETERS: Mapping[str, int] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,  # a dead peer is noticed within 10 + 3 × 5 = 25 s of silence
    "tcp_user_timeout": 30_000,  # milliseconds
}
# Server settings, sent in libpq's `options` at login.
SERVER_LIMITS: Mapping[str, str] = {
    "statement_timeout": "30s",
    "lock_timeout": "10s",
    "idle_in_transaction_session_timeout": "60s",
}
_FIXED_SETTINGS = "-c timezone=UTC"  # the store's times are read and written in UTC
APPLICATION_NAME = "memory-curator"

_TIME = re.compile(r"^\d+\s*(us|ms|s|min|h|d)?$")


def connect_args(url: URL) -> tuple[URL, dict[str, Any]]:
    """The URL to connect with and the driver's connect arguments: the defaults above,
    each replaced by the URL's own parameter of that name."""
    query = {key: _last(value) for key, value in url.query.items()}
    args: dict[str, Any] = {
        key: value for key, value in CONNECT_PARAMETERS.items() if key not in query
    }
    if "application_name" not in query:
        args["application_name"] = APPLICATION_NAME
    limits = dict(SERVER_LIMITS)
    for name in SERVER_LIMITS:
        if name in query:
            limits[name] = _checked_time(name, query[name])
    own = query.get("options", "")
    options = [_FIXED_SETTINGS]
    options += [f"-c {name}={value}" for name, value in limits.items()]
    if own:
        options.append(own)  # the URL's own settings after ours: the last one wins
    args["options"] = " ".join(options)
    return url.difference_update_query(["options", *SERVER_LIMITS]), args


def allow_longer(conn: Connection, limits: Mapping[str, int]) -> None:
    """Raise this transaction's limits (milliseconds) to at least `limits`; a setting
    already longer, or off (0), is kept."""
    for name, wanted in limits.items():
        current = conn.exec_driver_sql(
            "SELECT setting::bigint FROM pg_settings WHERE name = %(n)s", {"n": name}
        ).scalar()
        if current and int(current) < wanted:
            conn.exec_driver_sql(f"SET LOCAL {name} = {int(wanted)}")


def _last(value: str | tuple[str, ...]) -> str:
    return value[-1] if isinstance(value, tuple) else value


def _checked_time(name: str, value: str) -> str:
    """A time for a server setting (`30s`, `500ms`, `5min`, `0` for none), nothing else:
    the value goes into the login's options."""
    compact = value.strip().replace(" ", "")
    if not _TIME.match(compact):
        raise TeamDatabaseError(
            f"The database URL's {name}={value!r} is not a time: write it like 30s, "
            "500ms or 5min (0 for no limit)."
        )
    return compact
