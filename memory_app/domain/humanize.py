"""Times and counts the way people say them."""

from __future__ import annotations

from datetime import UTC, datetime


def relative_time(when: datetime | None, now: datetime | None = None) -> str:
    """ "just now", "5 min ago", "3 h ago", "2 days ago", else the date."""
    if when is None:
        return "never"
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    if days < 30:
        return "1 day ago" if days == 1 else f"{days} days ago"
    return when.strftime("%Y-%m-%d")


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 memory", "2 memories", "1,204 changes": the count with the word that fits it
    (`many` defaults to `one` + "s")."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"
