"""Settings' "Claude Code" section: whether Claude Code recalls and captures through this
app (the hooks, the MCP server, the /mem command), for the user's every project, with
Install and Remove.

The files are read and written by `memory_app.hooks.setup` (the same code as `memory-app
hooks install|uninstall|status`), on the database worker: small files, but never on the
GUI thread. A file that cannot be changed safely (not JSON, another tool's entry under our
name) is refused there with a message, shown here; nothing is written then.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.translations import translate
from memory_app.gui.widgets.welcome import home_relative
from memory_app.hooks.settings_file import SettingsFileError
from memory_app.hooks.setup import (
    LABELS,
    ClaudeCodeSetup,
    Part,
    paths,
    setup_install,
    setup_status,
    setup_uninstall,
)

PARTS = ("hooks", "mcp", "command")
# The removal's question, in English (shown translated: see `ClaudeCodePanel.remove`).
CONFIRM_TITLE = "Remove Memory Curator from Claude Code?"


def _command(text: str) -> str:
    """A command as the hint shows it: monospace, never broken over two lines."""
    return f'<code style="white-space: nowrap">{text}</code>'


def home_abbreviated(text: str) -> str:
    """A message with the home folder written as `~`, as the paths above are."""
    home = str(Path.home())
    return text.replace(home + os.sep, "~" + os.sep) if home != os.sep else text


def part_label(name: str) -> str:
    """ "MCP server": a part's name as the section shows it."""
    labels = {
        "hooks": translate("ClaudeCodePanel", "Hooks (recall and capture)"),
        "mcp": translate("ClaudeCodePanel", "MCP server"),
        "command": translate("ClaudeCodePanel", "/mem command"),
    }
    return labels.get(name) or LABELS.get(name, name)


def describe_part(part: Part) -> str:
    """The state a part is shown with."""
    if not part.installed:
        return translate("ClaudeCodePanel", "Not installed")
    if not part.current:
        return translate("ClaudeCodePanel", "⚠ Outdated: Install updates it")
    return translate("ClaudeCodePanel", "✓ Installed")


class ClaudeCodePanel(QGroupBox):
    """The hooks, the MCP server and /mem: installed or not, where, and Install/Remove.

    Call `refresh()` (a coroutine) to read the state; the buttons refresh it after
    every action.

    Signals:
        changed(object): the `ClaudeCodeSetup` just read or written.
    """

    changed = Signal(object)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Claude Code"))
        self.setObjectName("claudeCodeGroup")
        self.context = context
        self.setup: ClaudeCodeSetup | None = None  # None: not read yet, or unreadable
        self._busy = False
        grid = QGridLayout(self)
        grid.setColumnStretch(2, 1)
        grid.setHorizontalSpacing(16)

        intro = QLabel(
            self.tr("In Claude Code's user settings, so every project of yours uses them:"), self
        )
        intro.setWordWrap(True)
        grid.addWidget(intro, 0, 0, 1, 3)

        self.states: dict[str, QLabel] = {}
        self.files: dict[str, QLabel] = {}
        where = paths()
        for row, name in enumerate(PARTS, start=1):
            label = QLabel(self.tr("{part}:").format(part=part_label(name)), self)
            state = QLabel(self.tr("Checking…"), self)
            state.setObjectName(f"{name}State")
            file = QLabel(home_relative(where[name]), self)
            file.setObjectName(f"{name}File")
            file.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse
                | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )
            file.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab, then select and copy
            file.setToolTip(str(where[name]))
            grid.addWidget(label, row, 0)
            grid.addWidget(state, row, 1)
            grid.addWidget(file, row, 2)
            self.states[name] = state
            self.files[name] = file

        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        self.install_button = QPushButton(self.tr("&Install"), self)
        self.install_button.setObjectName("installClaudeCode")
        self.install_button.setToolTip(
            self.tr("Add the hooks, the MCP server and /mem (or update them)")
        )
        self.install_button.clicked.connect(self.install)
        self.remove_button = QPushButton(self.tr("&Remove…"), self)
        self.remove_button.setObjectName("removeClaudeCode")
        self.remove_button.setToolTip(self.tr("Take out exactly what Install added"))
        self.remove_button.clicked.connect(self.remove)
        self.message = QLabel(self)
        self.message.setObjectName("claudeCodeMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons.addWidget(self.install_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.message, 1)
        grid.addLayout(buttons, len(PARTS) + 1, 0, 1, 3)

        hint = QLabel(self._hint(), self)
        hint.setObjectName("claudeCodeHint")
        hint.setTextFormat(Qt.TextFormat.RichText)
        hint.setWordWrap(True)
        hint.setMinimumWidth(360)  # wrapped labels in a layout shrink to a narrow column
        grid.addWidget(hint, len(PARTS) + 2, 0, 1, 3)
        self._enable()

    def _hint(self) -> str:
        """What the parts do and how to pause a project (rich text: the commands in code)."""
        return self.tr(
            "The hooks add the memories that match each prompt to it, and capture each "
            "session when it ends so that its memories are learned. The MCP server lets "
            "Claude search and add memories itself; {mem} lists, pins or forgets a "
            "project's memories. Claude Code picks up a change in its next session. To "
            "pause a project (nothing recalled, nothing captured), run {off} in its folder "
            "or type {mem_off}; {on} resumes it."
        ).format(
            mem=_command("/mem"),
            off=_command("memory-app off"),
            mem_off=_command("/mem off"),
            on=_command("memory-app on"),
        )

    def focus_chain(self) -> list[QWidget]:
        """The section's widgets in the order Tab visits them."""
        return [
            *(self.files[name] for name in PARTS),
            self.install_button,
            self.remove_button,
        ]

    # -- state ------------------------------------------------------------------------

    async def refresh(self) -> None:
        """Read the state of every part again."""
        try:
            setup = await self.context.call(setup_status)
        except (SettingsFileError, OSError) as exc:
            self.show_unknown(str(exc))
            return
        self.show_setup(setup)

    def show_unknown(self, error: str) -> None:
        """A file could not be read: the state is unknown, and the message says why."""
        self.setup = None
        for state in self.states.values():
            state.setText(self.tr("Unknown"))
        self._say(home_abbreviated(error), error=True)
        self._enable()

    def show_setup(self, setup: ClaudeCodeSetup) -> None:
        self.setup = setup
        for part in setup.parts:
            state = self.states.get(part.name)
            if state is None:
                continue
            state.setText(describe_part(part))
            self.files[part.name].setText(home_relative(part.path))
            self.files[part.name].setToolTip(str(part.path))
        self._say("")  # the last action's message or error is old news now
        self._enable()
        self.changed.emit(setup)

    def _enable(self) -> None:
        # Unknown (a file is unreadable): Install stays, to try again once it is fixed.
        setup = self.setup
        everything = setup is not None and all(p.installed and p.current for p in setup.parts)
        anything = setup is not None and any(p.installed for p in setup.parts)
        self.install_button.setEnabled(not self._busy and not everything)
        self.remove_button.setEnabled(not self._busy and anything)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(text_style(ERROR, self.palette()) if error else "")
        self.message.setText(text)

    # -- actions ----------------------------------------------------------------------

    def install(self) -> None:
        """Install every part (or bring an outdated one up to date)."""
        if self._busy:
            return
        self.context.spawn(
            self._change(
                setup_install,
                self.tr("Installing…"),
                self.tr("Installed. Claude Code picks it up in its next session."),
            )
        )

    def remove(self) -> None:
        """Remove every part, once confirmed."""
        if self._busy:
            return
        title = self.tr("Remove Memory Curator from Claude Code?")
        text = self.tr(
            "The hooks, the MCP server and the /mem command are taken out of Claude Code's "
            "user settings; everything else in those files stays as it is. Your memories "
            "stay in the store, and Install puts everything back."
        )
        if not self.context.dialogs.confirm(self, title, text):
            return
        self.context.spawn(
            self._change(
                setup_uninstall,
                self.tr("Removing…"),
                self.tr("Removed. Claude Code picks it up in its next session."),
            )
        )

    async def _change(self, action: Callable[[], ClaudeCodeSetup], doing: str, done: str) -> None:
        """Run `action`, saying `doing` meanwhile and `done` once it worked."""
        self._busy = True
        self._enable()
        self._say(doing)
        try:
            try:
                setup = await self.context.call(action)
            finally:
                self._busy = False
                self._enable()
        except (SettingsFileError, OSError) as exc:
            await self.refresh()  # what is there now (an unreadable file: unknown)
            self._say(home_abbreviated(str(exc)), error=True)
            return
        self.show_setup(setup)
        self._say(done)
