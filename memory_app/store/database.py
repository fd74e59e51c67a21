"""One engine per database, opened and migrated in one place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from memory_app.store.dialects import Dialect, dialect_for


class Database:
    """The open database: its engine, its dialect, and units of work on it.

    Sessions are short-lived and never expire loaded rows on commit, so plain values can
    be copied out after the transaction ends.
    """

    def __init__(self, url: str, *, backup_dir: Path | None = None) -> None:
        self.url = url
        self.dialect: Dialect = dialect_for(url)
        self.engine: Engine = self.dialect.create_engine(url)
        self.previous_version = self.dialect.migrate(self.engine, backup_dir)
        self._writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")

    @property
    def path(self) -> Path | None:
        """The database file, for file-backed SQLite; None otherwise."""
        name = self.engine.url.database
        if self.dialect.name != "sqlite" or not name or name == ":memory:":
            return None
        return Path(name)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A unit of work that commits on success and rolls back on any error."""
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session

    def close(self) -> None:
        self.engine.dispose()
