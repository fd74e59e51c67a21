"""The changes maintenance proposes, waiting for a person: grouped by kind, each accepted
or rejected (a check box, A / R, or the buttons), with a before → after preview of the
selected one, and "Apply accepted" to apply them as one undoable group."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QBrush, QFont, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.maintenance import CHANGE_KINDS, CHANGE_TITLES, ProposedChange
from memory_app.gui.colours import SUCCESS, text_colour
from memory_app.gui.translations import translate
from memory_app.gui.widgets.change_preview import PreviewColours, change_html, decision_word
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.gui.widgets.tree_items import child_items, top_level_items

CHANGE, DECISION = range(2)
CHANGE_ROLE = Qt.ItemDataRole.UserRole  # the ProposedChange, or the kind on a group row
CHECK_STATES = {
    "accepted": Qt.CheckState.Checked,
    "rejected": Qt.CheckState.Unchecked,
    "pending": Qt.CheckState.PartiallyChecked,
}


def group_title(kind: str) -> str:
    """The heading of a kind of change in the list."""
    titles = {
        "merge": translate("ChangesetPanel", "Merge duplicates"),
        "archive": translate("ChangesetPanel", "Archive"),
        "compress": translate("ChangesetPanel", "Compress into the category summary"),
        "mark_invalid": translate("ChangesetPanel", "Mark invalid"),
    }
    return titles.get(kind, kind)


class ChangesetPanel(QWidget):
    """The pending changeset with its preview.

    Signals:
        decided(object, str): the person accepted, rejected or reset these change ids.
        apply_requested: apply every accepted change.
    """

    decided = Signal(object, str)
    apply_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changeset")
        self.changes: list[ProposedChange] = []
        self.origins: dict[int, str] = {}  # run id → "proposed by … 3 h ago"
        self._filling = False
        self._busy = False
        self._previewed: ProposedChange | None = None

        self.main = QWidget(self)
        self.tree = QTreeWidget(self.main)
        self.tree.setObjectName("changesetTree")
        self.tree.setAccessibleName(self.tr("Proposed changes"))
        self.tree.setHeaderLabels([self.tr("Proposed change"), self.tr("Decision")])
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(CHANGE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(DECISION, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.itemSelectionChanged.connect(self._selection_changed)

        self.preview = QTextBrowser(self.main)
        self.preview.setObjectName("changePreview")
        self.preview.setAccessibleName(self.tr("Preview of the selected change"))
        self.preview.setOpenLinks(False)
        self.preview.setPlaceholderText(self.tr("Select a change to see what it would do."))

        self.accept_button = self._button(
            self.tr("&Accept"), self.tr("Accept the selected changes (A)")
        )
        self.accept_button.clicked.connect(lambda: self.decide_selected("accepted"))
        self.reject_button = self._button(
            self.tr("&Reject"), self.tr("Reject the selected changes (R)")
        )
        self.reject_button.clicked.connect(lambda: self.decide_selected("rejected"))
        self.accept_all_button = self._button(
            self.tr("Accept All"), self.tr("Accept every change listed")
        )
        self.accept_all_button.clicked.connect(lambda: self.decide_all("accepted"))
        self.reject_all_button = self._button(
            self.tr("Reject All"), self.tr("Reject every change listed")
        )
        self.reject_all_button.clicked.connect(lambda: self.decide_all("rejected"))
        self.apply_button = self._button(
            self.tr("A&pply Accepted"),
            self.tr("Apply the accepted changes as one group you can undo (Ctrl+Return)"),
        )
        self.apply_button.setObjectName("applyAccepted")
        self.apply_button.clicked.connect(self.apply_requested)
        self.counts = QLabel(self.main)
        self.counts.setObjectName("changesetCounts")

        left = QWidget(self.main)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 4, 0)
        left_layout.addWidget(self.tree, 1)
        decide = QHBoxLayout()
        for button in (
            self.accept_button,
            self.reject_button,
            self.accept_all_button,
            self.reject_all_button,
        ):
            decide.addWidget(button)
        decide.addStretch(1)
        left_layout.addLayout(decide)
        right = QWidget(self.main)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 0, 0, 0)
        right_layout.addWidget(self.preview, 1)
        apply_row = QHBoxLayout()
        apply_row.addWidget(self.counts, 1)
        apply_row.addWidget(self.apply_button)
        right_layout.addLayout(apply_row)
        splitter = QSplitter(self.main)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        main_layout = QVBoxLayout(self.main)
        main_layout.setContentsMargins(0, 0, 0, 0)
        main_layout.addWidget(splitter)

        self.empty = EmptyState(
            icon="maintenance",
            title=self.tr("No changes waiting for review"),
            text=self.tr(
                "When a job runs as a dry run, or on its schedule without “apply without "
                "review”, the merges, archives and fixes it proposes wait here for you to "
                "accept or reject."
            ),
            parent=self,
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.main)
        self.pages.addWidget(self.empty)
        self.pages.setCurrentWidget(self.empty)

        # Listed in Help > Keyboard Shortcuts with what they do.
        self._shortcut(
            "A",
            lambda: self.decide_selected("accepted"),
            self.tr("Accept the selected changes (in the list)"),
        )
        self._shortcut(
            "R",
            lambda: self.decide_selected("rejected"),
            self.tr("Reject the selected changes (in the list)"),
        )
        self._update_buttons()

    def _button(self, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, self.main)
        button.setToolTip(tip)
        return button

    def _shortcut(self, keys: str, slot: Callable[[], object], what: str) -> None:
        # Scoped to the list: a letter typed elsewhere in the view means nothing here.
        shortcut = QShortcut(QKeySequence(keys), self.tree)
        shortcut.setWhatsThis(what)
        shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        shortcut.activated.connect(slot)

    # -- showing --------------------------------------------------------------------------

    def show_changes(
        self, changes: Sequence[ProposedChange], origins: dict[int, str] | None = None
    ) -> None:
        """Show these changes (keeping the selection and the open groups where possible)."""
        selected = {c.id for c in self.selected_changes()}
        current = self.current_change()
        collapsed = {
            item.data(0, CHANGE_ROLE)
            for item in self._groups()
            if not item.isExpanded() and item.childCount()
        }
        scroll = self.tree.verticalScrollBar().value()
        self.changes = list(changes)
        self.origins = dict(origins or {})
        self._filling = True
        self.tree.setUpdatesEnabled(False)
        self.tree.clear()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for kind in (*CHANGE_KINDS, *sorted({c.kind for c in changes} - set(CHANGE_KINDS))):
            members = [c for c in self.changes if c.kind == kind]
            if not members:
                continue
            heading = self.tr("{group} ({count})").format(
                group=group_title(kind), count=f"{len(members):,}"
            )
            group = QTreeWidgetItem([heading, ""])
            group.setData(0, CHANGE_ROLE, kind)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            group.setFont(CHANGE, bold)
            self.tree.addTopLevelItem(group)
            for change in members:
                group.addChild(self._change_row(change))
            group.setExpanded(kind not in collapsed)
        for item in self._rows():
            change = item.data(0, CHANGE_ROLE)
            if change.id in selected:
                item.setSelected(True)
            if current is not None and change.id == current.id:
                # NoUpdate: the current row comes back without undoing the selection above.
                self.tree.setCurrentItem(item, CHANGE, QItemSelectionModel.SelectionFlag.NoUpdate)
        self.tree.verticalScrollBar().setValue(scroll)
        self.tree.setUpdatesEnabled(True)
        self._filling = False
        self.pages.setCurrentWidget(self.main if self.changes else self.empty)
        if not self.selected_changes() and self.changes:
            first = next(iter(self._rows()))
            self.tree.setCurrentItem(first)
        self._selection_changed()

    def _change_row(self, change: ProposedChange) -> QTreeWidgetItem:
        row = QTreeWidgetItem([self.row_title(change), ""])
        row.setData(0, CHANGE_ROLE, change)
        row.setFlags(
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsUserCheckable
        )
        row.setToolTip(CHANGE, f"{change.title}\n{change.reason}")
        self._show_decision(row, change.decision)
        return row

    def _show_decision(self, row: QTreeWidgetItem, decision: str) -> None:
        row.setCheckState(CHANGE, CHECK_STATES.get(decision, Qt.CheckState.Unchecked))
        row.setText(DECISION, decision_word(decision))
        palette = self.tree.palette()
        if decision == "accepted":
            colour = text_colour(SUCCESS, palette)  # green, readable on this palette
        elif decision == "rejected":
            colour = palette.color(QPalette.ColorRole.PlaceholderText)
        else:
            colour = palette.color(QPalette.ColorRole.Text)
        row.setForeground(DECISION, QBrush(colour))
        font = QFont(self.tree.font())
        font.setStrikeOut(decision == "rejected")  # not by colour alone
        row.setFont(CHANGE, font)
        row.setToolTip(
            DECISION,
            {
                "accepted": self.tr("Accepted: applied with “Apply Accepted”"),
                "rejected": self.tr("Rejected: left as it is"),
                "pending": self.tr("Not decided yet: tick to accept, tick again to reject"),
            }.get(decision, ""),
        )

    def row_title(self, change: ProposedChange) -> str:
        """A row's words: what is kept for a merge ("… (+1 duplicate)"), else the title
        without the kind its group already names ("Archive: x" → "x")."""
        if change.kind == "merge" and change.item_ids:
            kept = change.before.get(str(change.item_ids[0]), {}).get("content")
            if kept:
                extra = len(change.item_ids) - 1
                return self.tr("{memory} (+%Ln duplicates)", "", extra).format(
                    memory=" ".join(str(kept).split())
                )
        prefix = CHANGE_TITLES.get(change.kind, "") + ": "  # the store's English titles
        text = change.title[len(prefix) :] if change.title.startswith(prefix) else change.title
        return " ".join(text.split())

    def show_preview(self, change: ProposedChange | None) -> None:
        if change is None:
            self.preview.clear()
            return
        colours = PreviewColours.from_palette(self.preview.palette())
        scroll = self.preview.verticalScrollBar().value()
        self.preview.setHtml(change_html(change, colours, self.origins.get(change.run_id, "")))
        self.preview.verticalScrollBar().setValue(scroll if change is self._previewed else 0)
        self._previewed = change

    # -- reading the tree -----------------------------------------------------------------

    def _groups(self) -> list[QTreeWidgetItem]:
        return top_level_items(self.tree)

    def _rows(self) -> list[QTreeWidgetItem]:
        return [row for group in self._groups() for row in child_items(group)]

    def row_of(self, change_id: int) -> QTreeWidgetItem | None:
        return next(
            (r for r in self._rows() if r.data(0, CHANGE_ROLE).id == change_id),
            None,
        )

    def selected_changes(self) -> list[ProposedChange]:
        picked = [
            item.data(0, CHANGE_ROLE)
            for item in self.tree.selectedItems()
            if isinstance(item.data(0, CHANGE_ROLE), ProposedChange)
        ]
        return sorted(picked, key=lambda c: c.id)

    def current_change(self) -> ProposedChange | None:
        item = self.tree.currentItem()
        data = item.data(0, CHANGE_ROLE) if item is not None else None
        return data if isinstance(data, ProposedChange) else None

    def counts_by_decision(self) -> dict[str, int]:
        counts = {"pending": 0, "accepted": 0, "rejected": 0}
        for change in self.changes:
            counts[change.decision] = counts.get(change.decision, 0) + 1
        return counts

    # -- deciding -------------------------------------------------------------------------

    def decide_selected(self, decision: str) -> None:
        ids = [c.id for c in self.selected_changes()]
        current = self.current_change()
        if not ids and current is not None:
            ids = [current.id]
        self._decide(ids, decision)

    def decide_all(self, decision: str) -> None:
        self._decide([c.id for c in self.changes], decision)

    def _decide(self, ids: list[int], decision: str) -> None:
        """Show the decision at once and tell the view to store it."""
        ids = [i for i in ids if any(c.id == i and c.decision != decision for c in self.changes)]
        if not ids or self._busy:
            return
        self.set_decisions(ids, decision)
        self.decided.emit(ids, decision)

    def set_decisions(self, ids: Sequence[int], decision: str) -> None:
        wanted = set(ids)
        self.changes = [
            replace(c, decision=decision) if c.id in wanted else c for c in self.changes
        ]
        by_id = {c.id: c for c in self.changes}
        self._filling = True
        for row in self._rows():
            change = by_id.get(row.data(0, CHANGE_ROLE).id)
            if change is not None and change.id in wanted:
                row.setData(0, CHANGE_ROLE, change)
                self._show_decision(row, decision)
        self._filling = False
        self._selection_changed()

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        """The person clicked a check box: ticked accepts, unticked rejects."""
        if self._filling or column != CHANGE:
            return
        change = item.data(0, CHANGE_ROLE)
        if not isinstance(change, ProposedChange):
            return
        state = item.checkState(CHANGE)
        decision = "accepted" if state == Qt.CheckState.Checked else "rejected"
        if self._busy:  # put the box back: nothing can be decided while applying
            self._filling = True
            item.setCheckState(CHANGE, CHECK_STATES.get(change.decision, state))
            self._filling = False
            return
        self._decide([change.id], decision)

    def set_busy(self, busy: bool) -> None:
        """While changes are being applied (or a job runs) nothing can be decided."""
        self._busy = busy
        self._update_buttons()

    # -- state ----------------------------------------------------------------------------

    def _selection_changed(self) -> None:
        self.show_preview(self.current_change() or next(iter(self.selected_changes()), None))
        self._update_buttons()

    def _update_buttons(self) -> None:
        counts = self.counts_by_decision()
        chosen = bool(self.selected_changes()) or self.current_change() is not None
        free = not self._busy
        self.accept_button.setEnabled(free and chosen)
        self.reject_button.setEnabled(free and chosen)
        self.accept_all_button.setEnabled(free and counts["accepted"] < len(self.changes))
        self.reject_all_button.setEnabled(free and counts["rejected"] < len(self.changes))
        self.apply_button.setEnabled(free and counts["accepted"] > 0)
        parts = [self.tr("%Ln changes", "", len(self.changes))]
        if counts["accepted"]:
            parts.append(self.tr("%Ln accepted", "", counts["accepted"]))
        if counts["rejected"]:
            parts.append(self.tr("%Ln rejected", "", counts["rejected"]))
        if counts["pending"]:
            parts.append(self.tr("%Ln pending", "", counts["pending"]))
        self.counts.setText(" · ".join(parts))
        self.apply_button.setText(
            self.tr("A&pply %Ln Accepted", "", counts["accepted"])
            if counts["accepted"]
            else self.tr("A&pply Accepted")
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "tree"):
            self.show_preview(self.current_change())
