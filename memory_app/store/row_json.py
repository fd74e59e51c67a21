"""Table rows as JSON values and back, column by column.

The file mirror (store/mirror_*.py) writes and reads rows through these two functions
only, driven by the SQLModel table's columns and each column's type: a column added to a
table (a migration plus a field on the model) is written, read back and checked without a
change here or in the mirror. What a column holds decides its JSON form: times are ISO
8601 text with their zone, JSON columns stay JSON, the rest are JSON's own scalars.
Numbers are checked against what the database can hold (whole numbers within 64 bits,
finite reals), so a hand-edited file is refused with its field, not by the database.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, Float, Integer, String
from sqlmodel import SQLModel

from memory_app.store.tables import table_of
from memory_app.store.types import UTCDateTime

# SQLite's INTEGER (and PostgreSQL's BIGINT): a signed 64-bit whole number.
SMALLEST_INTEGER = -(2**63)
LARGEST_INTEGER = 2**63 - 1


class FieldProblem(ValueError):
    """One field of a row that cannot be stored: its name and what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def columns(model: type[SQLModel], skip: Collection[str] = ()) -> list[Column[Any]]:
    """The model's table columns, in table order, without `skip`."""
    return [c for c in table_of(model).columns if c.name not in skip]


def encode(value: Any) -> Any:
    """A column value as JSON: times as ISO text, tuples as lists, the rest unchanged."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [encode(v) for v in value]
    return value


def row_json(
    model: type[SQLModel], values: Mapping[str, Any], skip: Collection[str] = ()
) -> dict[str, Any]:
    """Every column of a row (a Core row mapping or a dict) as JSON values."""
    return {c.name: encode(values[c.name]) for c in columns(model, skip)}


def decode_row(
    model: type[SQLModel],
    data: Mapping[str, Any],
    *,
    skip: Collection[str] = (),
    required: Collection[str] = (),
) -> dict[str, Any]:
    """The column values of `data` (JSON values keyed by column name), checked against
    each column's type and nullability; a column missing from `data` takes the model's
    default, so a file written before a column existed still reads. Keys that are no
    column are left out (`unknown_keys` names them). Raises FieldProblem."""
    fields = model.model_fields
    out: dict[str, Any] = {}
    for column in columns(model, skip):
        name = column.name
        if name not in data:
            field = fields.get(name)
            if name in required or field is None or field.is_required():
                raise FieldProblem(name, "missing")
            out[name] = field.get_default(call_default_factory=True)
            continue
        out[name] = _decode(column, data[name])
    return out


def unknown_keys(
    model: type[SQLModel], data: Mapping[str, Any], extra: Collection[str] = ()
) -> list[str]:
    """Keys of `data` that are neither a column of the model nor in `extra`: written by
    a store with columns this one lacks."""
    known = {c.name for c in columns(model)} | set(extra)
    return sorted(k for k in data if k not in known)


def _decode(column: Column[Any], value: Any) -> Any:
    name, kind = column.name, column.type
    if value is None:
        if column.nullable and not column.primary_key:
            return None
        raise FieldProblem(name, "must have a value (null given)")
    if isinstance(kind, UTCDateTime):
        return _time(name, value)
    if isinstance(kind, JSON):
        return value
    if isinstance(kind, Boolean):
        if not isinstance(value, bool):
            raise FieldProblem(name, f"must be true or false, got {value!r}")
        return value
    if isinstance(kind, Integer):
        if not isinstance(value, int) or isinstance(value, bool):
            raise FieldProblem(name, f"must be a whole number, got {value!r}")
        if not SMALLEST_INTEGER <= value <= LARGEST_INTEGER:
            raise FieldProblem(
                name, f"must be a whole number from {SMALLEST_INTEGER} to {LARGEST_INTEGER}"
            )
        return value
    if isinstance(kind, Float):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise FieldProblem(name, f"must be a number, got {value!r}")
        try:
            real = float(value)
        except OverflowError:
            real = math.inf
        if not math.isfinite(real):
            raise FieldProblem(name, "must be a finite number")
        return real
    if isinstance(kind, String) and not isinstance(value, str):
        raise FieldProblem(name, f"must be text, got {value!r}")
    return value


def _time(name: str, value: Any) -> datetime:
    if not isinstance(value, str):
        raise FieldProblem(name, f"must be an ISO 8601 time, got {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise FieldProblem(name, f"{value!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise FieldProblem(name, f"{value!r} has no time zone (write it as UTC, ending +00:00)")
    return moment
