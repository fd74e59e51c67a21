"""Column types that keep values exactly as the domain means them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.types import String, TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware datetimes stored as sortable ISO-8601 UTC text.

    SQLite's DateTime drops the zone and hands back naive values, which then compare
    wrongly against aware ones; storing fixed-width UTC text keeps order and zone.
    """

    impl = String(32)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}")
        return to_db_time(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return from_db_time(value)


def to_db_time(value: datetime) -> str:
    """The stored text form of a datetime, for raw SQL comparisons."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: timestamps must be timezone-aware")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_db_time(value: str) -> datetime:
    """The datetime of a stored text form (what aggregates return without the column type)."""
    # fromisoformat is C code and reads the trailing Z; strptime was 10x slower.
    return datetime.fromisoformat(value)
