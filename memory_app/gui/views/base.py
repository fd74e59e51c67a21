"""What the main window expects of a view."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from memory_app.gui.context import AppContext


class View(QWidget):
    """A page of the main window: a sidebar entry, a shortcut, and a refresh.

    Subclasses set `key` and `icon`, build their widgets in __init__ (where they also set
    `title`, the sidebar's word, translated: `self.title = self.tr("Memories")`), and load
    data in `reload()` (a coroutine run off the GUI thread through `context.call`).
    """

    key = ""
    title = ""  # set by each view in __init__, through self.tr()
    icon = ""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setObjectName(f"{self.key}View")
        # Set by a view once it has loaded: change notifications before that are left to
        # its first load (schedule_reload).
        self.loaded = False
        self._reload_wanted = False
        self._reload_running = False

    def activate(self, argument: Any = None) -> None:
        """The view was shown (with an optional navigation argument): refresh it."""
        self.context.spawn(self.reload())

    async def reload(self) -> None:
        """Load what the view shows; the base view has nothing to load."""

    def schedule_reload(self) -> None:
        """Coalesce change notifications into one reload at a time, once the view has
        loaded: a burst of imports or edits reloads it once more, not once each."""
        if not self.loaded:
            return
        self._reload_wanted = True
        if not self._reload_running:
            self._reload_running = True
            self.context.spawn(self._reload_while_wanted())

    async def _reload_while_wanted(self) -> None:
        try:
            while self._reload_wanted:
                self._reload_wanted = False
                await self.reload()
        finally:
            self._reload_running = False
