"""One engine per database, opened and migrated in one place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from memory_app.store.dialects import Dialect, dialect_for
from memory_app.store.errors import DatabaseDamagedError


class Database:
    """The open database: its engine, its dialect, and units of work on it.

    Sessions are short-lived and never expire loaded rows on commit, so plain values can
    be copied out after the transaction ends. A store that fails its integrity check
    when opened stays readable, but `damage` says why and every write is refused. Engine
    errors about the file (a full disk, damage met while reading) become StoreErrors
    with a message a person can act on.
    """

    def __init__(self, url: str, *, backup_dir: Path | None = None) -> None:
        self.url = url
        self.backup_dir = backup_dir
        self.dialect: Dialect = dialect_for(url)
        self.engine: Engine = self.dialect.create_engine(url)
        try:
            with self._explained():
                self.damage = self.dialect.prepare(self.engine, backup_dir)
                self.previous_version = (
                    self.dialect.schema_version
                    if self.damage is not None
                    else self.dialect.migrate(self.engine, backup_dir)
                )
        except BaseException:
            self.engine.dispose()
            raise
        self._writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")

    @property
    def path(self) -> Path | None:
        """The database file, for file-backed SQLite; None otherwise."""
        name = self.engine.url.database
        if self.dialect.name != "sqlite" or not name or name == ":memory:":
            return None
        return Path(name)

    @contextmanager
    def _explained(self) -> Iterator[None]:
        """Engine errors about the file become the dialect's StoreError; any other
        error passes unchanged."""
        try:
            yield
        except Exception as exc:
            explained = self.dialect.explain_error(exc, self.path, self.backup_dir)
            if explained is None:
                raise
            raise explained from exc

    def check_integrity(self) -> None:
        """Run the bounded integrity check again (before maintenance writes); raises
        DatabaseDamagedError, and refuses every later write, when it fails."""
        with self._explained():
            self.damage = self.damage or self.dialect.check_integrity(self.engine, self.backup_dir)
        if self.damage is not None:
            raise DatabaseDamagedError(self.damage)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with self._explained(), Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A unit of work that commits on success and rolls back on any error; refused
        on a damaged store."""
        if self.damage is not None:
            raise DatabaseDamagedError(self.damage)
        with (
            self._explained(),
            Session(self._writer, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    def close(self) -> None:
        self.engine.dispose()
