"""Times as the window shows them, in the person's language: times past ("5 min ago"),
times still to come ("in 3 h"), and in full for tooltips.

`relative_time` says what `memory_app.domain.humanize.relative_time` says (same rules and
thresholds), through Qt's translation; the window uses this one, the domain's stays for
the command line.
"""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QLocale, QObject


class TimeWords(QObject):
    """The words of times. A QObject because lupdate collects a counted phrase ("%Ln days
    ago", whose English singular the catalogue gives) only from `self.tr(text, "", n)`:
    it does not read the count of `translate(context, text, None, n)`.

    "min" and "h" are abbreviations, the same for one and for many: they are placed with
    `{count}` rather than as plural forms.
    """

    def ago(self, when: datetime | None, now: datetime | None = None) -> str:
        """ "just now", "5 min ago", "3 h ago", "2 days ago", else the date."""
        if when is None:
            return self.tr("never")
        seconds = ((now or datetime.now(UTC)) - when).total_seconds()
        if seconds < 60:
            return self.tr("just now")
        if seconds < 3600:
            return self.tr("{count} min ago").format(count=int(seconds // 60))
        if seconds < 86400:
            return self.tr("{count} h ago").format(count=int(seconds // 3600))
        days = int(seconds // 86400)
        if days < 30:
            return self.tr("%Ln days ago", "", days)
        return when.strftime("%Y-%m-%d")

    def ahead(self, when: datetime, now: datetime | None = None) -> str:
        """ "in 5 min", "in 3 h", "in 2 days": a time still to come."""
        # Rounded, not floored: a run five hours away reads "in 5 h" a moment later too.
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
        if seconds < 60:
            return self.tr("due now")
        if seconds < 3570:
            return self.tr("in {count} min").format(count=max(1, round(seconds / 60)))
        if seconds < 84600:
            return self.tr("in {count} h").format(count=round(seconds / 3600))
        return self.tr("in %Ln days", "", round(seconds / 86400))

    def full(self, when: datetime) -> str:
        """ "Monday 8 June 2026, 14:05", in local time; the names of the day and month
        in the locale's language."""
        local = when.astimezone()
        locale = QLocale()
        return self.tr("{weekday} {day} {month} {year}, {time}").format(
            weekday=locale.dayName(local.isoweekday()),
            day=local.day,
            month=locale.monthName(local.month),
            year=local.year,
            time=f"{local:%H:%M}",
        )


_WORDS = TimeWords()


def relative_time(when: datetime | None, now: datetime | None = None) -> str:
    """ "just now", "5 min ago", "3 h ago", "2 days ago", else the date; "never" for None."""
    return _WORDS.ago(when, now)


def full_time(when: datetime) -> str:
    """A timestamp in full, in local time, for tooltips."""
    return _WORDS.full(when)


def upcoming_time(when: datetime, now: datetime | None = None) -> str:
    """ "in 5 min", "in 3 h", "in 2 days": a time still to come."""
    return _WORDS.ahead(when, now)
