"""Whether new Claude Code sessions are imported without being asked each time.

Nothing is imported behind a person's back: on a new store the first start asks (the
welcome page's Import button says yes, with "Keep importing new sessions automatically"),
and Settings can change the answer later. Until then the startup import and the folder
watching (`maintenance_scheduler.py`, `session_watcher.py`) do nothing.

The answer lives in QSettings under `KEY`: "true" or "false" once given, `UNDECIDED`
while the person has not answered. The key is absent only before the first start of a
version that asks: a store that already holds conversations then counts as a yes (those
users had automatic imports before, and keep them), an empty one as a question.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

from memory_app.gui.context import AppContext

KEY = "import/automatic"
UNDECIDED = "ask"
_YES = ("true", "1", "yes", "on")
_NO = ("false", "0", "no", "off")


def stored_choice(settings: QSettings) -> bool | None:
    """The person's answer: True, False, or None while it is not given."""
    value = settings.value(KEY)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
    return None


def first_start_choice(settings: QSettings, has_conversations: bool) -> bool:
    """Whether to import automatically now, settling the question for a store that predates
    it (see the module's docstring); False while the person has not answered."""
    if settings.value(KEY) is None:
        settings.setValue(KEY, True if has_conversations else UNDECIDED)
    return stored_choice(settings) is True


def set_auto_import(context: AppContext, on: bool, *, import_now: bool = True) -> None:
    """Record the person's answer and tell the scheduler and the views.

    `import_now` says whether the scheduler should look for new sessions at once; the
    welcome page says no, as its own import of the whole history is starting.
    """
    context.settings.setValue(KEY, on)
    context.events.auto_import_changed.emit(on, import_now)
