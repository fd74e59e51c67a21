"""The engine-specific operations the store needs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

from memory_app.store.errors import StoreError
from memory_app.store.search_match import CompiledSearch


@dataclass(frozen=True)
class TextHits:
    """The SQL pieces of a full-text match on the memory index, for a query to join:
    `FROM {table} ... WHERE {condition}` gives the matching memories, `{id}` their id and
    `{rank}` their relevance, lower is better; `params` holds the bound match, which
    `table` or `condition` names."""

    table: str
    id: str
    rank: str
    condition: str
    params: dict[str, Any] = field(default_factory=dict)


class Dialect(Protocol):
    name: str
    schema_version: int

    def create_engine(self, url: str) -> Engine: ...

    def prepare(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """Check the store before anything writes to it: raises StoreError for one that
        cannot be used; returns why it is damaged (None when healthy)."""
        ...

    def check_integrity(self, engine: Engine, backup_dir: Path | None) -> str | None:
        """Why the store is damaged now (None when healthy); bounded in time."""
        ...

    def explain_error(
        self, error: BaseException, path: Path | None, backup_dir: Path | None
    ) -> StoreError | None:
        """A person's message for an engine error about the file (full disk, damage...);
        None when the error is not about the file."""
        ...

    def migrate(self, engine: Engine, backup_dir: Path | None) -> int:
        """Bring the schema to `schema_version`; returns the version found before."""
        ...

    def search_item_ids(
        self,
        conn: Connection,
        query: str,
        *,
        limit: int,
        offset: int = 0,
        category: str | None = None,
        statuses: tuple[str, ...] = ("active",),
        match_any: bool = False,
    ) -> list[tuple[int, float]]:
        """Item ids best first, with their relevance (higher is better)."""
        ...

    def search_items(
        self,
        conn: Connection,
        search: CompiledSearch,
        *,
        limit: int,
        offset: int = 0,
        category: str | None = None,
        statuses: tuple[str, ...] = ("active",),
    ) -> list[tuple[int, float]]:
        """Item ids for a query in the search syntax, best first with their relevance;
        newest first with relevance 0 when it has no words to rank by."""
        ...

    def search_resource_ids(self, conn: Connection, query: str, *, limit: int) -> list[int]: ...

    def bulk_loading(self, conn: Connection) -> AbstractContextManager[None]:
        """Inside this, item inserts skip per-row index upkeep; the index is rebuilt after."""
        ...

    def check_search_index(self, conn: Connection) -> list[str]:
        """Problems found in the full-text index (empty when healthy)."""
        ...

    def rebuild_search_index(self, conn: Connection) -> None:
        """Rebuild and optimize the full-text indexes from their tables."""
        ...

    # -- engine-specific pieces of the store's own queries -------------------------------

    def memory_hits(self, match: str, name: str = "q") -> TextHits:
        """The memories matching a match expression (fts_query.py and search_match.py
        write it in FTS5's syntax), the match bound as `:name`."""
        ...

    def document_frequencies(self, conn: Connection, words: Sequence[str]) -> list[int]:
        """How many memories each query word (as typed, lower-cased) is indexed in."""
        ...

    def json_list_has_any(self, column: str, names: Sequence[str]) -> str:
        """SQL true when the JSON list in `column` holds one of the bound `:names`."""
        ...

    def day_of(self, column: str) -> str:
        """SQL for the UTC day (YYYY-MM-DD text) of a timestamp column."""
        ...

    def database_problems(self, conn: Connection) -> list[str]:
        """The database's own consistency check, read only (empty when healthy)."""
        ...

    def refresh_decay(
        self, conn: Connection, decay: Callable[[datetime | None, datetime, int], float]
    ) -> int:
        """Set every live, unpinned memory's decay_factor to `decay(last used,
        extracted, uses)` where it changed; returns how many changed."""
        ...
