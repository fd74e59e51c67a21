"""Help > Keyboard Shortcuts: every shortcut the window defines, read from the window itself.

The list is collected from the live QActions (menus and the window), the QShortcuts of each
view and the Alt mnemonics of its buttons, so it cannot drift from what the keys do. A
QShortcut says what it does through its What's This text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.gui.widgets.tree_items import child_items, top_level_items

if TYPE_CHECKING:  # the window imports this module
    from memory_app.gui.main_window import MainWindow

# In the list as English keys; the dialog shows them translated (_group_name, _description).
WINDOW_GROUP = "Window"  # actions on the window that no menu shows
UNDESCRIBED = "(no description)"
KEYS, ACTION = range(2)
KEYS_WIDTH = 190  # px: the widest common binding ("Ctrl+Shift+I") with room to spare


@dataclass(frozen=True)
class Shortcut:
    """One key binding as the dialog lists it."""

    group: str  # the menu ("File", "Edit", …) or the view ("Conflicts", …), or WINDOW_GROUP
    keys: str  # as the platform writes it, e.g. "Ctrl+Shift+I"; several joined by ", "
    description: str


def plain(text: str) -> str:
    """Menu or button text without its mnemonic marker ("Import &Files…" → "Import Files…")."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def key_text(sequences: Iterable[QKeySequence]) -> str:
    return ", ".join(
        s.toString(QKeySequence.SequenceFormat.NativeText) for s in sequences if not s.isEmpty()
    )


def _menu_actions(menu: QMenu) -> Iterator[QAction]:
    for action in menu.actions():
        submenu = action.menu()
        if isinstance(submenu, QMenu):
            yield from _menu_actions(submenu)
        elif not action.isSeparator():
            yield action


def collect_shortcuts(window: MainWindow) -> list[Shortcut]:
    """Every shortcut of the window: its menus in menu-bar order, then each view's own."""
    found: list[Shortcut] = []
    seen: set[int] = set()

    def add(group: str, keys: str, description: str) -> None:
        entry = Shortcut(group, keys, description or UNDESCRIBED)
        if keys and entry not in found:
            found.append(entry)

    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        if not isinstance(menu, QMenu):
            continue
        for action in _menu_actions(menu):
            seen.add(id(action))
            add(plain(menu_action.text()), key_text(action.shortcuts()), plain(action.text()))
    for action in window.actions():
        if id(action) not in seen:
            seen.add(id(action))
            add(WINDOW_GROUP, key_text(action.shortcuts()), plain(action.text()))
    for view in window.views:
        add_view_shortcuts(view, view.title, seen, add)
    return found


def add_view_shortcuts(
    view: QWidget, group: str, seen: set[int], add: Callable[[str, str, str], None]
) -> None:
    """A view's own actions, its QShortcuts and the mnemonics of its shown buttons."""
    for action in view.findChildren(QAction):
        if id(action) not in seen:
            seen.add(id(action))
            add(group, key_text(action.shortcuts()), plain(action.text()))
    for shortcut in view.findChildren(QShortcut):
        add(group, key_text(shortcut.keys()), shortcut.whatsThis())
    for button in view.findChildren(QAbstractButton):
        # Alt+letter from the button's "&" works only while the button is shown.
        if button.isVisibleTo(view) and not button.shortcut().isEmpty():
            add(group, key_text([button.shortcut()]), plain(button.text()))


class ShortcutsDialog(QDialog):
    """The shortcuts grouped by menu and view, filtered as one types."""

    def __init__(self, shortcuts: Sequence[Shortcut], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard Shortcuts"))
        self.setObjectName("shortcutsDialog")
        self.shortcuts = list(shortcuts)
        self.search = QLineEdit(self)
        self.search.setObjectName("shortcutSearch")
        self.search.setPlaceholderText(self.tr("Search shortcuts (keys or what they do)"))
        self.search.setClearButtonEnabled(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("shortcutList")
        self.tree.setHeaderLabels([self.tr("Keys"), self.tr("Action")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setSectionResizeMode(KEYS, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self._fill()
        # Wide enough for the usual keys; a long list of alternatives is elided (its
        # tooltip has them all) rather than push the descriptions out of sight.
        self.tree.resizeColumnToContents(KEYS)
        self.tree.setColumnWidth(KEYS, min(self.tree.columnWidth(KEYS), KEYS_WIDTH))
        self.search.textChanged.connect(self.filter)
        self.resize(640, 640)

    def _fill(self) -> None:
        groups: dict[str, QTreeWidgetItem] = {}
        for entry in self.shortcuts:
            group = groups.get(entry.group)
            if group is None:
                group = QTreeWidgetItem(self.tree, [self._group_name(entry.group)])
                font = group.font(KEYS)
                font.setBold(True)
                group.setFont(KEYS, font)
                group.setFirstColumnSpanned(True)
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                groups[entry.group] = group
            description = self._description(entry.description)
            row = QTreeWidgetItem(group, [entry.keys, description])
            row.setToolTip(KEYS, entry.keys)
            row.setToolTip(ACTION, description)
            row.setData(KEYS, Qt.ItemDataRole.UserRole, entry)
        self.tree.expandAll()

    def _group_name(self, group: str) -> str:
        return self.tr("Window") if group == WINDOW_GROUP else group

    def _description(self, description: str) -> str:
        return self.tr("(no description)") if description == UNDESCRIBED else description

    def filter(self, text: str) -> None:
        """Show the shortcuts whose keys, action or group contain every typed word."""
        words = text.lower().split()
        for group in top_level_items(self.tree):
            shown = 0
            for row in child_items(group):
                haystack = f"{row.text(KEYS)} {row.text(ACTION)} {group.text(KEYS)}".lower()
                hidden = not all(word in haystack for word in words)
                row.setHidden(hidden)
                shown += not hidden
            group.setHidden(shown == 0)

    def listed(self) -> list[Shortcut]:
        """The shortcuts shown now (after the search)."""
        return [
            row.data(KEYS, Qt.ItemDataRole.UserRole)
            for group in top_level_items(self.tree)
            if not group.isHidden()
            for row in child_items(group)
            if not row.isHidden()
        ]
