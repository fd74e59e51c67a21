"""A short-lived cache of retrievals (seed 002 §2.7: query fingerprint, TTL 2-5 minutes).

Entries remember the store generation they were computed at; a write anywhere (this
process, an import child process, the CLI) moves the generation and so drops them.
The TTL bounds how stale recency and validity may get between writes.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

DEFAULT_TTL_SECONDS = 120.0
DEFAULT_MAX_ENTRIES = 256

T = TypeVar("T")


@dataclass
class _Entry(Generic[T]):
    value: T
    generation: int
    stored_at: float


class QueryCache(Generic[T]):
    def __init__(
        self,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0 or max_entries < 1:
            raise ValueError("the cache needs a positive TTL and room for one entry")
        self.ttl = ttl_seconds
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[Hashable, _Entry[T]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, generation: int) -> T | None:
        entry = self._entries.get(key)
        if entry is None or entry.generation != generation or self._expired(entry):
            if entry is not None:
                del self._entries[key]
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry.value

    def put(self, key: Hashable, generation: int, value: T) -> None:
        self._entries[key] = _Entry(value, generation, self._clock())
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _expired(self, entry: _Entry[T]) -> bool:
        return self._clock() - entry.stored_at > self.ttl
