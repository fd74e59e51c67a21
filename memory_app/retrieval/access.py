"""Access recording that stays off the query path (seed 003 "Access Recording").

A retrieval only counts its results in memory; the counts are written in one batch
when the front end asks (after handing context over, at exit), so a query never waits
on a write lock. Pending counts are one integer per distinct memory, so they stay small.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


class AccessLog:
    def __init__(self) -> None:
        self._pending: Counter[int] = Counter()

    def note(self, item_ids: Iterable[int]) -> None:
        self._pending.update(item_ids)

    def drain(self) -> dict[int, int]:
        """The pending uses, forgotten here: the caller writes them."""
        drained = dict(self._pending)
        self._pending.clear()
        return drained

    def restore(self, uses: dict[int, int]) -> None:
        """Put back uses whose write failed, so they are tried again."""
        self._pending.update(uses)
