"""Everything that differs between database engines lives behind `Dialect`.

Full-text search, connection pragmas and migrations are engine-specific; the rest of the
store speaks plain SQLModel. A PostgreSQL dialect can be added beside SQLite's.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import Connection

from memory_app.store.dialects.base import Dialect, TextHits
from memory_app.store.errors import UnsupportedDatabaseError

# postgresql:// alone means psycopg 3, the driver the app ships with.
POSTGRES_SCHEMES = ("postgresql", "postgresql+psycopg", "postgres")


def dialect_for(url: str) -> Dialect:
    """The dialect that handles a database URL."""
    scheme = url.split(":", 1)[0].lower()
    if scheme.startswith("sqlite"):
        return _named("sqlite")
    if scheme in POSTGRES_SCHEMES:
        return _named("postgresql")
    raise UnsupportedDatabaseError(
        f"database URL scheme {scheme!r} "
        "is not supported; use a sqlite:/// URL or a postgresql:// one"
    )


def dialect_of(conn: Connection) -> Dialect:
    """The dialect of an open connection, for store functions handed only a connection."""
    return _named(conn.dialect.name)


@cache
def _named(name: str) -> Dialect:
    if name == "sqlite":
        from memory_app.store.dialects.sqlite import SqliteDialect

        return SqliteDialect()
    if name == "postgresql":
        from memory_app.store.dialects.postgresql import PostgresDialect

        return PostgresDialect()
    raise UnsupportedDatabaseError(f"the {name} database engine is not supported")


__all__ = ["POSTGRES_SCHEMES", "Dialect", "TextHits", "dialect_for", "dialect_of"]
