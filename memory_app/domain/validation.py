"""The validation rules of seed 000 §1, with errors that name the field and the fix."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.domain.categories import MEMORY_TYPES
from memory_app.domain.records import ITEM_STATUSES, SCOPES

MAX_CONTENT_CHARS = 4_000
# Clocks drift between machines that share a store; a minute in the future is not a lie.
CLOCK_SKEW = timedelta(minutes=5)


class ValidationError(ValueError):
    """One or more fields are invalid; `errors` maps each field to its reason."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


def parse_timestamp(value: str | datetime, field: str = "timestamp") -> datetime:
    """An aware datetime from ISO-8601 text (a trailing Z is accepted)."""
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                {field: f"{value!r} is not an ISO-8601 timestamp (e.g. 2026-01-31T12:00:00Z)"}
            ) from None
    if parsed.tzinfo is None:
        raise ValidationError({field: "timestamp needs a time zone (e.g. a trailing Z)"})
    return parsed


def validate_item_fields(
    values: Mapping[str, Any], known_categories: Collection[str], now: datetime | None = None
) -> None:
    """Check the fields present in `values`; raises ValidationError listing every problem."""
    now = now or datetime.now(UTC)
    errors: dict[str, str] = {}
    if "content" in values:
        content = values["content"]
        if not isinstance(content, str) or not content.strip():
            errors["content"] = "content must not be empty"
        elif len(content) > MAX_CONTENT_CHARS:
            errors["content"] = f"content is {len(content)} characters; at most {MAX_CONTENT_CHARS}"
    if "category" in values and values["category"] not in known_categories:
        known = ", ".join(sorted(known_categories))
        errors["category"] = f"unknown category {values['category']!r}; known: {known}"
    for name in ("confidence", "importance"):
        if name in values:
            number = values[name]
            if (
                not isinstance(number, int | float)
                or isinstance(number, bool)
                or math.isnan(number)
                or not 0.0 <= number <= 1.0
            ):
                errors[name] = f"{name} must be a number between 0 and 1, got {number!r}"
    if "type" in values and values["type"] not in MEMORY_TYPES:
        errors["type"] = f"unknown type {values['type']!r}; known: {', '.join(MEMORY_TYPES)}"
    if "scope" in values and values["scope"] not in SCOPES:
        errors["scope"] = f"scope must be one of {', '.join(SCOPES)}"
    if "status" in values and values["status"] not in ITEM_STATUSES:
        errors["status"] = f"status must be one of {', '.join(ITEM_STATUSES)}"
    if "tags" in values:
        tags = values["tags"]
        if not isinstance(tags, list | tuple) or not all(
            isinstance(t, str) and t.strip() for t in tags
        ):
            errors["tags"] = "tags must be a list of non-empty words"
    for name in ("extracted_at", "valid_from", "last_accessed_at"):
        stamp = values.get(name)
        if stamp is None:
            continue
        if not isinstance(stamp, datetime) or stamp.tzinfo is None:
            errors[name] = "must be a timezone-aware timestamp"
        elif stamp > now + CLOCK_SKEW:
            errors[name] = f"{stamp.isoformat()} is in the future"
    start, end = values.get("valid_from"), values.get("valid_until")
    if (
        isinstance(start, datetime)
        and isinstance(end, datetime)
        and start.tzinfo is not None
        and end.tzinfo is not None
        and end < start
    ):
        errors["valid_until"] = "valid until must not be before valid from"
    if errors:
        raise ValidationError(errors)
