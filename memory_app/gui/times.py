"""Times as the window shows them: in full for tooltips, and times still to come.

(Times past are `memory_app.domain.humanize.relative_time`.)
"""

from __future__ import annotations

from datetime import UTC, datetime


def full_time(when: datetime) -> str:
    """A timestamp in full, in local time, for tooltips."""
    local = when.astimezone()
    return f"{local:%A} {local.day} {local:%B %Y, %H:%M}"


def upcoming_time(when: datetime, now: datetime | None = None) -> str:
    """ "in 5 min", "in 3 h", "in 2 days": a time still to come."""
    # Rounded, not floored: a run five hours away reads "in 5 h" a moment later too.
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds < 60:
        return "due now"
    if seconds < 3570:
        return f"in {max(1, round(seconds / 60))} min"
    if seconds < 84600:
        return f"in {round(seconds / 3600)} h"
    days = round(seconds / 86400)
    return "in 1 day" if days == 1 else f"in {days} days"
