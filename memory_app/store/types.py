"""Column types that keep values exactly as the domain means them, on either engine."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import DateTime, String, TypeDecorator, TypeEngine

# JSON values (lists, dicts): JSON text on SQLite, JSONB on PostgreSQL (indexable,
# compared by value). Python sees the same lists and dicts on both.
JSON_VALUE: TypeEngine[Any] = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware datetimes: sortable ISO-8601 UTC text on SQLite, `timestamp with
    time zone` on PostgreSQL; read back as aware UTC datetimes on both.

    SQLite's DateTime drops the zone and hands back naive values, which then compare
    wrongly against aware ones; storing fixed-width UTC text keeps order and zone.
    PostgreSQL compares that same text (a bound parameter, as raw SQL passes it) against
    its timestamps after casting it, so queries written for the text form work there too.
    """

    impl = String(32)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(DateTime(timezone=True))
        return dialect.type_descriptor(String(32))

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}")
        if dialect.name == "postgresql":
            if value.tzinfo is None:
                raise ValueError("naive datetime: timestamps must be timezone-aware")
            return value.astimezone(UTC)
        return to_db_time(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return from_db_time(value)


def to_db_time(value: datetime) -> str:
    """The stored text form of a datetime, for raw SQL comparisons (PostgreSQL casts it
    to its timestamp when compared with a timestamp column)."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: timestamps must be timezone-aware")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_db_time(value: str | datetime) -> datetime:
    """The datetime of a stored value, as raw SQL or an aggregate returns it: SQLite's
    text, or PostgreSQL's timestamp (aware, in the session's zone: made UTC)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    # fromisoformat is C code and reads the trailing Z; strptime was 10x slower.
    return datetime.fromisoformat(value)
