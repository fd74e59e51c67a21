"""Errors the store raises, each with a message a person can act on."""

from __future__ import annotations


class StoreError(Exception):
    """Base class for database problems."""


class DatabaseTooNewError(StoreError):
    """The database was written by a newer version of the app; opening it could lose data."""

    def __init__(self, path: str, found: int, supported: int) -> None:
        super().__init__(
            f"{path} uses schema version {found}, but this version of Memory Curator "
            f"understands up to {supported}. Upgrade Memory Curator; the database was "
            "left untouched."
        )
        self.found = found
        self.supported = supported


class DatabaseFileError(StoreError):
    """The database file or its folder cannot be used as it is (not a database, cut off,
    read-only, disk full...); the message says what is wrong and what to do."""


class DatabaseDamagedError(DatabaseFileError):
    """SQLite's integrity check failed: reading may still work, but writing is refused so
    the damage cannot spread into what a backup could still restore."""


class TeamDatabaseError(StoreError):
    """The team's PostgreSQL database cannot be used now: unreachable, a refused login, a
    missing database, role or permission, or one not made by this app; the message says
    which and what to do. The local store is not affected."""


class UnsupportedDatabaseError(StoreError):
    """The database URL names an engine the app cannot use (yet)."""


class NotFoundError(StoreError, LookupError):
    """No row with that id."""

    def __init__(self, what: str, ident: object) -> None:
        super().__init__(f"no {what} with id {ident}")
        self.what = what
        self.ident = ident


class EmptyQueryError(StoreError, ValueError):
    """A search query with no searchable words in it."""
