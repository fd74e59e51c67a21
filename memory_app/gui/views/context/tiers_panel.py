"""The left side of the Context preview: the plan tier by tier, and Pin / Exclude.

The tree lists each tier's memories with their tokens and score (the breakdown on the
tooltip), what did not fit the budget, and the memories kept out; a rebuild keeps the
selection, the expanded tiers and the scroll position. Pin and Exclude (or Let back in)
change the store, offer an undo, then rebuild the preview: the rebuild is awaited, so
the task an action returns ends with the new preview shown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QIcon, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.budget import ContextEntry, TierPlan
from memory_app.domain.validation import ValidationError
from memory_app.gui.context import AppContext
from memory_app.gui.views.context.preview_data import ContextPreview, ExcludedMemory, let_back_in
from memory_app.gui.views.context.request_bar import ContextRequestBar
from memory_app.gui.views.context.tier_rows import (
    EXCLUDED_KEY,
    ROW_ROLE,
    SCORE,
    TEXT,
    TOKENS,
    empty_tier_note,
    entry_row,
    excluded_head,
    excluded_row,
    left_out_row,
    note_row,
    row_key,
    tier_head,
)
from memory_app.gui.widgets.tree_items import child_items, top_level_items
from memory_app.retrieval.context import ContextRequest
from memory_app.store.errors import StoreError

ACTION_ERRORS = (StoreError, ValidationError)


class TiersPanel(QWidget):
    """`tree` over `pin_button` and `exclude_button`.

    `controls` tells the project an action applies to; `rebuild` rebuilds the preview
    after a change; `show_message` reports a failure under the preview.
    """

    def __init__(
        self,
        context: AppContext,
        controls: ContextRequestBar,
        icons: dict[str, QIcon],
        *,
        rebuild: Callable[[], Awaitable[None]],
        show_message: Callable[..., None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self._controls = controls
        self._icons = icons
        self._rebuild = rebuild
        self._show_message = show_message
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("contextTiers")
        self.tree.setHeaderLabels(
            [self.tr("Injected, tier by tier"), self.tr("Tokens"), self.tr("Score")]
        )
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        for column in (TOKENS, SCORE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
            self.tree.headerItem().setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self.tree.currentItemChanged.connect(lambda *_: self.update_buttons())
        self.tree.itemDoubleClicked.connect(lambda item, _column: self._open(item))
        self.pin_button = QPushButton(self.tr("Pin"), self)
        self.pin_button.setObjectName("pinButton")
        self.pin_button.setIcon(self._icons["pin"])
        self.pin_button.clicked.connect(self.toggle_pin)
        self.exclude_button = QPushButton(self.tr("Exclude"), self)
        self.exclude_button.setObjectName("excludeButton")
        self.exclude_button.clicked.connect(self.toggle_exclusion)
        actions = QHBoxLayout()
        actions.addWidget(self.pin_button)
        actions.addWidget(self.exclude_button)
        actions.addStretch(1)
        layout.addWidget(self.tree, 1)
        layout.addLayout(actions)

    # -- showing ----------------------------------------------------------------------

    def show_preview(self, preview: ContextPreview) -> None:
        """Rebuild the tree, keeping the selection, the expanded tiers and the scroll."""
        selected = row_key(self.tree.currentItem())
        expanded = {
            item.data(0, ROW_ROLE): item.isExpanded() for item in top_level_items(self.tree)
        }
        scroll = self.tree.verticalScrollBar().value()
        self.tree.setUpdatesEnabled(False)
        self.tree.blockSignals(True)
        self.tree.clear()
        for tier in preview.plan.tiers:
            self._add_tier(tier, preview.request, expanded.get(tier.key, True))
        if preview.excluded:
            self._add_excluded(preview, expanded.get(EXCLUDED_KEY, False))
        reselect = self._find_row(selected)
        if reselect is not None:
            self.tree.setCurrentItem(reselect)
        self.tree.blockSignals(False)
        self.tree.verticalScrollBar().setValue(scroll)
        self.tree.setUpdatesEnabled(True)
        self.update_buttons()

    def _muted(self) -> QBrush:
        return QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText))

    def _add_tier(self, tier: TierPlan, request: ContextRequest, expanded: bool) -> None:
        head = tier_head(tier, self.tree.font())
        self.tree.addTopLevelItem(head)
        for entry in tier.entries:
            head.addChild(entry_row(entry, self._icons))
        if tier.left_out:
            head.addChild(left_out_row(tier.left_out, self._muted(), self.tree.font()))
        if not tier.entries and not tier.left_out:
            note = empty_tier_note(tier, request)
            head.addChild(note_row(note, self._muted(), self.tree.font()))
        head.setExpanded(expanded)

    def _add_excluded(self, preview: ContextPreview, expanded: bool) -> None:
        head = excluded_head(len(preview.excluded), self._muted(), self.tree.font())
        self.tree.addTopLevelItem(head)
        project = self._controls.project_label(preview.request.project)
        muted = self._muted()
        for item in preview.excluded:
            head.addChild(excluded_row(item, project, muted, self._icons))
        head.setExpanded(expanded)

    def _find_row(self, key: tuple[str, int] | None) -> QTreeWidgetItem | None:
        if key is None:
            return None
        for head in top_level_items(self.tree):
            for row in child_items(head):
                if row_key(row) == key:
                    return row
        return None

    # -- selection --------------------------------------------------------------------

    def selected(self) -> ContextEntry | ExcludedMemory | None:
        item = self.tree.currentItem()
        data = item.data(0, ROW_ROLE) if item is not None else None
        return data if isinstance(data, ContextEntry | ExcludedMemory) else None

    def selected_memory(self) -> ContextEntry | None:
        entry = self.selected()
        return entry if isinstance(entry, ContextEntry) and entry.item_id is not None else None

    def update_buttons(self) -> None:
        """Pin / Unpin and Exclude / Let back in, for the selected row."""
        entry = self.selected()
        memory = self.selected_memory()
        self.pin_button.setEnabled(memory is not None)
        pinned = memory is not None and memory.pinned
        self.pin_button.setText(self.tr("Unpin") if pinned else self.tr("Pin"))
        self.pin_button.setToolTip(
            self.tr("Unpin: take its place by score again (Ctrl+P)")
            if pinned
            else self.tr("Pin: always put this memory in Critical (Ctrl+P)")
        )
        back = isinstance(entry, ExcludedMemory)
        self.exclude_button.setEnabled(memory is not None or back)
        self.exclude_button.setText(self.tr("Let back in") if back else self.tr("Exclude"))
        self.exclude_button.setToolTip(self._exclude_tip(back))

    def _exclude_tip(self, back: bool) -> str:
        """What Exclude (or Let back in) does, naming the context of the project picked."""
        project = self._controls.project_label(self._controls.current_project())
        if project is None:
            return (
                self.tr("Let this memory back into every project's context (Ctrl+E)")
                if back
                else self.tr(
                    "Keep this memory out of every project's context and its CLAUDE.md export "
                    "(Ctrl+E or Del)"
                )
            )
        tip = (
            self.tr("Let this memory back into the context of {project} (Ctrl+E)")
            if back
            else self.tr(
                "Keep this memory out of the context of {project} and its CLAUDE.md export "
                "(Ctrl+E or Del)"
            )
        )
        return tip.format(project=project)

    def _open(self, item: QTreeWidgetItem) -> None:
        """Double-click: a memory opens in Memories, a conflict in Conflicts."""
        data = item.data(0, ROW_ROLE)
        if isinstance(data, ContextEntry) and data.conflict_id is not None:
            self.context.events.navigate.emit("conflicts", data.conflict_id)
        elif isinstance(data, ContextEntry | ExcludedMemory) and data.item_id is not None:
            self.context.events.navigate.emit("memories", data.item_id)

    # -- pinning ----------------------------------------------------------------------

    def toggle_pin(self) -> Any:
        memory = self.selected_memory()
        if memory is None or memory.item_id is None:
            return None
        return self.context.spawn(self._set_pinned(memory.item_id, not memory.pinned))

    async def _set_pinned(self, item_id: int, pinned: bool) -> None:
        try:
            await self.context.call(self.context.service.set_pinned, item_id, pinned)
        except ACTION_ERRORS as exc:
            self._show_message(
                self.tr("Could not change memory #{id}: {error}").format(id=item_id, error=exc),
                error=True,
            )
            return
        text = (
            self.tr("Pinned #{id}: it now always goes into Critical.")
            if pinned
            else self.tr("Unpinned #{id}: it takes its place by score again.")
        ).format(id=item_id)
        self.context.events.notify.emit(text, self._undo_pin)
        self.context.events.memories_changed.emit()
        await self._rebuild()

    def _undo_pin(self) -> None:
        self.context.spawn(self._undo_pin_async())

    async def _undo_pin_async(self) -> None:
        ids = await self.context.call(self.context.service.undo)
        self.context.events.notify.emit(
            self.tr("Undid the pin.") if ids else self.tr("Nothing to undo."), None
        )
        self.context.events.memories_changed.emit()
        await self._rebuild()

    # -- excluding --------------------------------------------------------------------

    def toggle_exclusion(self) -> Any:
        entry = self.selected()
        project = self._controls.current_project()
        if isinstance(entry, ExcludedMemory):
            return self.context.spawn(self._let_back_in(entry, project))
        memory = self.selected_memory()
        if memory is None or memory.item_id is None:
            return None
        return self.context.spawn(self._exclude(memory.item_id, project))

    def delete_selected(self) -> Any:
        """Delete on the tiers keeps the selected memory out of this context; the memory
        itself stays. Elsewhere it does nothing, so Delete in the preview text never
        drops a memory nobody is looking at."""
        if self.tree.hasFocus() and self.selected_memory() is not None:
            return self.toggle_exclusion()
        return None

    async def _exclude(self, item_id: int, project: str | None) -> None:
        service = self.context.service
        try:
            await self.context.call(service.set_context_exclusion, item_id, project, True)
        except ACTION_ERRORS as exc:
            self._show_message(
                self.tr("Could not exclude memory #{id}: {error}").format(id=item_id, error=exc),
                error=True,
            )
            return
        label = self._controls.project_label(project)
        text = (
            self.tr("Excluded #{id} from every project's context.").format(id=item_id)
            if label is None
            else self.tr("Excluded #{id} from the context of {project}.").format(
                id=item_id, project=label
            )
        )
        undo = ExcludedMemory(item_id, "", everywhere=project is None)
        self.context.events.notify.emit(
            text, lambda: self.context.spawn(self._let_back_in(undo, project))
        )
        await self._rebuild()

    async def _let_back_in(self, item: ExcludedMemory, project: str | None) -> None:
        try:
            await self.context.call(let_back_in, self.context.service, item, project)
        except ACTION_ERRORS as exc:
            self._show_message(
                self.tr("Could not let memory #{id} back in: {error}").format(
                    id=item.item_id, error=exc
                ),
                error=True,
            )
            return
        label = None if item.everywhere else self._controls.project_label(project)
        text = (
            self.tr("Let #{id} back into every project's context.").format(id=item.item_id)
            if label is None
            else self.tr("Let #{id} back into the context of {project}.").format(
                id=item.item_id, project=label
            )
        )
        undo_project = None if item.everywhere else project
        self.context.events.notify.emit(
            text, lambda: self.context.spawn(self._exclude(item.item_id, undo_project))
        )
        await self._rebuild()
