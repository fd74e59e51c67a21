"""Everything that differs between database engines lives behind `Dialect`.

Full-text search, connection pragmas and migrations are engine-specific; the rest of the
store speaks plain SQLModel. A PostgreSQL dialect can be added beside SQLite's.
"""

from __future__ import annotations

from memory_app.store.dialects.base import Dialect
from memory_app.store.errors import UnsupportedDatabaseError


def dialect_for(url: str) -> Dialect:
    """The dialect that handles a database URL."""
    if url.startswith("sqlite"):
        from memory_app.store.dialects.sqlite import SqliteDialect

        return SqliteDialect()
    scheme = url.split(":", 1)[0]
    raise UnsupportedDatabaseError(
        f"database URL scheme {scheme!r} is not supported yet; use a sqlite:/// URL"
    )


__all__ = ["Dialect", "dialect_for"]
