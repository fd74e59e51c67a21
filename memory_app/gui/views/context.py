"""Context: exactly what an assistant would be handed for a task, tier by tier, within a
token budget (UX.md "Context"). Memories can be pinned or kept out from here, and the
CLAUDE.md block is exported only after its diff has been seen. A second tab shows what
Claude Code's recall hooks did hand the assistant, live (widgets/injections_panel.py).

The preview is a preview, not a use: it never counts as access to the memories it shows.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QPalette,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedLayout,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.assets import icon_path
from memory_app.domain.budget import MAX_BUDGET, MIN_BUDGET, ContextEntry, ContextPlan, TierPlan
from memory_app.domain.scoring import ScoreBreakdown
from memory_app.domain.validation import ValidationError
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.views.base import View
from memory_app.gui.widgets.diff_dialog import DiffDialog, plural
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.gui.widgets.injections_panel import InjectionsPanel
from memory_app.gui.widgets.tree_items import child_items, top_level_items
from memory_app.retrieval.claude_md_export import ClaudeMdExport
from memory_app.retrieval.context import ContextRequest
from memory_app.retrieval.export_file import ExportError
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError, StoreError

REFRESH_DEBOUNCE_MS = 250  # typing a task rebuilds the preview once the typing pauses
DEFAULT_BUDGET = 2000
TEXT, TOKENS, SCORE = range(3)
ROW_ROLE = Qt.ItemDataRole.UserRole  # the ContextEntry / ExcludedMemory, or a tier key
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
EXCLUDED_KEY = "excluded"
# Errors an export can end in; each says which file and that nothing changed.
EXPORT_ERRORS = (ExportError, ValueError, OSError)
ACTION_ERRORS = (StoreError, ValidationError)
TAB_KEY = "context/tab"  # the tab shown last: the preview, or INJECTIONS
INJECTIONS = "injections"  # also the navigation argument that opens that tab


@dataclass(frozen=True)
class ExcludedMemory:
    """A memory kept out of this context; `everywhere`: out of every project's context."""

    item_id: int
    content: str
    everywhere: bool


@dataclass(frozen=True)
class ContextPreview:
    """What the view shows for one request, loaded in one trip to the worker."""

    request: ContextRequest
    plan: ContextPlan
    excluded: tuple[ExcludedMemory, ...]


def load_preview(service: MemoryService, request: ContextRequest) -> ContextPreview:
    """The plan and the memories kept out of it (runs on the database worker)."""
    plan = service.build_context(request)  # record_access stays off: a preview is not a use
    everywhere = service.context_exclusions(None)
    excluded = []
    for item_id in sorted(service.context_exclusions(request.project)):
        try:
            record = service.get_item(item_id)
        except NotFoundError:
            continue
        if record.status != "deleted":
            content = " ".join(record.content.split())
            excluded.append(ExcludedMemory(item_id, content, item_id in everywhere))
    return ContextPreview(request, plan, tuple(excluded))


def let_back_in(service: MemoryService, item: ExcludedMemory, project: str | None) -> None:
    """Undo an exclusion wherever it was made, so the memory really comes back."""
    service.set_context_exclusion(item.item_id, project, False)
    if item.everywhere and project is not None:
        service.set_context_exclusion(item.item_id, None, False)


def project_labels(paths: list[str]) -> dict[str, str]:
    """Short names for the picker: the folder name, or its last two parts when two
    projects share a folder name."""
    names = [PurePath(p).name or p for p in paths]
    labels = {}
    for path, name in zip(paths, names, strict=True):
        if names.count(name) > 1:
            name = "/".join(PurePath(path).parts[-2:])
        labels[path] = name
    return labels


def breakdown_tooltip(entry: ContextEntry, breakdown: ScoreBreakdown) -> str:
    """The entry's text and how its score is made up, one component a row."""
    rows = "".join(
        f"<tr><td>{name}</td><td align='right'>&nbsp;&nbsp;{value:.2f}</td></tr>"
        for name, value in breakdown.components().items()
    )
    pinned = "<br><i>Pinned: always in Critical.</i>" if entry.pinned else ""
    return (
        f"<p>{html.escape(entry.text)}</p>"
        f"<b>score {breakdown.total:.3f}</b>{pinned}<table>{rows}</table>"
        f"<p>{entry.tokens} tokens</p>"
    )


class ContextView(View):
    key = "context"
    title = "Context"
    icon = "context"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.preview: ContextPreview | None = None
        self.diff_dialog: DiffDialog | None = None
        self._serial = 0  # requests sent; an answer to an older one is dropped
        self._labels: dict[str, str] = {}
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DEBOUNCE_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self._icons = {name: QIcon(str(icon_path(name))) for name in ("pin", "conflicts")}
        # Rows without a pin or warning get an empty icon so every row's text lines up.
        blank = QPixmap(16, 16)
        blank.fill(Qt.GlobalColor.transparent)
        self._icons["blank"] = QIcon(blank)

        # Two tabs: what would be injected for a task, and what the hooks did inject.
        self.main = QTabWidget(self)
        self.main.setObjectName("contextTabs")
        self.main.setDocumentMode(True)
        self.preview_page = QWidget(self.main)
        column = QVBoxLayout(self.preview_page)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(8)
        column.addLayout(self._build_request_row())
        splitter = QSplitter(self.preview_page)
        splitter.addWidget(self._build_tiers())
        splitter.addWidget(self._build_preview())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([620, 420])
        splitter.setChildrenCollapsible(False)
        column.addWidget(splitter, 1)
        column.addLayout(self._build_footer())
        self.injections = InjectionsPanel(context, self.main)
        self.main.addTab(self.preview_page, "P&review")
        self.main.setTabToolTip(0, "What an assistant would be given for a task (Ctrl+Tab)")
        self.main.addTab(self.injections, "What the &assistant saw")
        self.main.setTabToolTip(
            1, "What Claude Code's recall hooks gave the assistant, live (Ctrl+Tab)"
        )
        if self.context.settings.value(TAB_KEY) == INJECTIONS:
            self.main.setCurrentWidget(self.injections)
        self.main.currentChanged.connect(self._tab_changed)

        self.empty = EmptyState(
            "context",
            "Nothing to hand an assistant yet",
            "Once conversations are imported, this view shows exactly what an assistant "
            "would be given for a task: tier by tier, within a token budget, with the "
            "CLAUDE.md change shown before anything is written.",
            action="Import Conversations…",
            parent=self,
        )
        assert self.empty.button is not None
        self.empty.button.clicked.connect(
            lambda: self.context.events.navigate.emit("sources", "import")
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.main)
        self.pages.addWidget(self.empty)
        self._shortcut("Ctrl+P", self.toggle_pin, "Pin or unpin the selected memory (preview)")
        self._shortcut(
            "Ctrl+E", self.toggle_exclusion, "Exclude the selected memory, or let it back in"
        )
        self._selection_changed()
        context.events.memories_changed.connect(self._store_changed)

    # -- building ---------------------------------------------------------------------

    def _build_request_row(self) -> QHBoxLayout:
        self.task = QLineEdit(self.preview_page)
        self.task.setObjectName("contextTask")
        self.task.setPlaceholderText("Describe the task, e.g. add retries to the importer")
        self.task.setClearButtonEnabled(True)
        self.task.textChanged.connect(lambda _text: self._refresh_timer.start())
        self.project = QComboBox(self.preview_page)
        self.project.setObjectName("contextProject")
        self.project.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.project.setMinimumContentsLength(14)
        self.project.addItem("All projects", None)
        self.project.currentIndexChanged.connect(lambda _index: self.refresh())
        self.budget = QSpinBox(self.preview_page)
        self.budget.setObjectName("contextBudget")
        self.budget.setRange(MIN_BUDGET, MAX_BUDGET)
        self.budget.setSingleStep(250)
        self.budget.setSuffix(" tokens")
        self.budget.setGroupSeparatorShown(True)
        self.budget.setToolTip(
            "How much context the assistant is given, estimated at four characters a token"
        )
        stored = self.context.settings.value("context/budget", DEFAULT_BUDGET)
        try:
            self.budget.setValue(int(stored))  # type: ignore[call-overload]  # QSettings: untyped
        except (TypeError, ValueError):
            self.budget.setValue(DEFAULT_BUDGET)
        self.budget.valueChanged.connect(self._budget_changed)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.task, 1)
        row.addSpacing(6)
        project_label = QLabel("&Project", self.preview_page)
        project_label.setBuddy(self.project)
        row.addWidget(project_label)
        row.addWidget(self.project)
        row.addSpacing(6)
        budget_label = QLabel("&Budget", self.preview_page)
        budget_label.setBuddy(self.budget)
        row.addWidget(budget_label)
        row.addWidget(self.budget)
        return row

    def _build_tiers(self) -> QWidget:
        panel = QWidget(self.preview_page)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 4, 0)
        self.tree = QTreeWidget(panel)
        self.tree.setObjectName("contextTiers")
        self.tree.setHeaderLabels(["Injected, tier by tier", "Tokens", "Score"])
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        for column in (TOKENS, SCORE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
            self.tree.headerItem().setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self.tree.currentItemChanged.connect(lambda *_: self._selection_changed())
        self.tree.itemDoubleClicked.connect(lambda item, _column: self._open(item))
        self.pin_button = QPushButton("Pin", panel)
        self.pin_button.setObjectName("pinButton")
        self.pin_button.setIcon(self._icons["pin"])
        self.pin_button.clicked.connect(self.toggle_pin)
        self.exclude_button = QPushButton("Exclude", panel)
        self.exclude_button.setObjectName("excludeButton")
        self.exclude_button.clicked.connect(self.toggle_exclusion)
        actions = QHBoxLayout()
        actions.addWidget(self.pin_button)
        actions.addWidget(self.exclude_button)
        actions.addStretch(1)
        layout.addWidget(self.tree, 1)
        layout.addLayout(actions)
        return panel

    def _build_preview(self) -> QWidget:
        panel = QWidget(self.preview_page)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 0, 0, 0)
        self.rendered = QPlainTextEdit(panel)
        self.rendered.setObjectName("contextPreview")
        self.rendered.setReadOnly(True)
        self.rendered.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.rendered.setToolTip("Exactly the text an assistant would be given")
        self.copy_button = QPushButton("&Copy", panel)
        self.copy_button.setToolTip("Copy this text to the clipboard")
        self.copy_button.clicked.connect(self.copy_preview)
        self.export_button = QPushButton("E&xport to CLAUDE.md…", panel)
        self.export_button.setObjectName("exportButton")
        self.export_button.setToolTip(
            "Write the project's conventions, preferences, decisions and bug patterns into "
            "the managed block of a CLAUDE.md, after showing the change"
        )
        self.export_button.clicked.connect(self.export_claude_md)
        actions = QHBoxLayout()
        actions.addWidget(self.copy_button)
        actions.addStretch(1)
        actions.addWidget(self.export_button)
        layout.addWidget(self.rendered, 1)
        layout.addLayout(actions)
        return panel

    def _build_footer(self) -> QHBoxLayout:
        self.meter = QProgressBar(self.preview_page)
        self.meter.setObjectName("budgetMeter")
        self.meter.setTextVisible(False)
        self.meter.setFixedWidth(160)
        self.meter.setMaximumHeight(12)
        self.footer = QLabel(self.preview_page)
        self.footer.setObjectName("contextFooter")
        self.message = QLabel(self.preview_page)
        self.message.setObjectName("contextMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.meter, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.footer)
        row.addSpacing(12)
        row.addWidget(self.message, 1)
        return row

    def _shortcut(self, keys: str, slot: Any, what: str) -> None:
        # Scoped to the preview tab: the same keys mean nothing (or something else)
        # elsewhere, and must not pin a memory of a hidden preview from the other tab.
        shortcut = QShortcut(QKeySequence(keys), self.preview_page)
        shortcut.setWhatsThis(what)  # listed in Help > Keyboard Shortcuts
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)

    def _tab_changed(self, _index: int) -> None:
        shown = INJECTIONS if self.main.currentWidget() is self.injections else "preview"
        self.context.settings.setValue(TAB_KEY, shown)

    # -- loading ----------------------------------------------------------------------

    def activate(self, argument: Any = None) -> None:
        """Shown; the argument INJECTIONS opens the tab of what the assistant saw."""
        if argument == INJECTIONS:
            self.main.setCurrentWidget(self.injections)
        super().activate(argument)

    async def reload(self) -> None:
        """Projects and whether anything is stored, then the preview."""
        service = self.context.service
        stats = await self.context.call(service.get_stats)
        projects = await self.context.call(service.projects)
        self.show_projects(projects)
        stored = sum(stats.items_by_category.values())
        self.pages.setCurrentWidget(self.main if stored else self.empty)
        await self._refresh()

    def show_projects(self, projects: list[tuple[str, int]]) -> None:
        current = self.current_project()
        self._labels = project_labels([path for path, _ in projects])
        self.project.blockSignals(True)
        self.project.clear()
        self.project.addItem("All projects", None)
        self.project.setItemData(0, "Every project's memories", Qt.ItemDataRole.ToolTipRole)
        for path, count in projects:
            self.project.addItem(f"{self._labels[path]} ({count:,})", path)
            self.project.setItemData(self.project.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        index = self.project.findData(current)
        self.project.setCurrentIndex(max(index, 0))
        self.project.blockSignals(False)
        self.project.setToolTip(current or "Every project's memories")

    def current_project(self) -> str | None:
        data = self.project.currentData()
        return data if isinstance(data, str) else None

    def current_request(self) -> ContextRequest:
        return ContextRequest(
            task=self.task.text().strip(),
            project=self.current_project(),
            budget=self.budget.value(),
        )

    def refresh(self) -> Any:
        """Rebuild the preview now (typing waits for a pause first)."""
        self._refresh_timer.stop()
        self.project.setToolTip(self.current_project() or "Every project's memories")
        return self.context.spawn(self._refresh())

    async def _refresh(self) -> None:
        self._serial += 1
        serial = self._serial
        request = self.current_request()
        preview = await self.context.call(load_preview, self.context.service, request)
        if serial == self._serial:  # a newer request is under way: its answer wins
            self.show_preview(preview)

    def _budget_changed(self, value: int) -> None:
        self.context.settings.setValue("context/budget", value)
        self._refresh_timer.start()

    def _store_changed(self) -> None:
        if self.isVisible():
            self.context.spawn(self.reload())

    # -- showing ----------------------------------------------------------------------

    def show_preview(self, preview: ContextPreview) -> None:
        if preview == self.preview:
            return  # nothing new: keep the selection and scroll position as they are
        selected = self._row_key(self.tree.currentItem())
        expanded = {
            item.data(0, ROW_ROLE): item.isExpanded() for item in top_level_items(self.tree)
        }
        scroll = self.tree.verticalScrollBar().value()
        self.preview = preview
        plan = preview.plan
        self.tree.setUpdatesEnabled(False)
        self.tree.blockSignals(True)
        self.tree.clear()
        for tier in plan.tiers:
            self._add_tier(tier, preview.request, expanded.get(tier.key, True))
        if preview.excluded:
            self._add_excluded(preview, expanded.get(EXCLUDED_KEY, False))
        reselect = self._find_row(selected)
        if reselect is not None:
            self.tree.setCurrentItem(reselect)
        self.tree.blockSignals(False)
        self.tree.verticalScrollBar().setValue(scroll)
        self.tree.setUpdatesEnabled(True)
        self._selection_changed()

        text_scroll = self.rendered.verticalScrollBar().value()
        self.rendered.setPlainText(plan.render())
        self.rendered.verticalScrollBar().setValue(text_scroll)
        memories = len(plan.item_ids)
        conflicts = sum(1 for t in plan.tiers for e in t.entries if e.conflict_id is not None)
        summary = (
            f"{plan.used:,} of {plan.budget:,} tokens used · "
            f"{plural(memories, 'memory', 'memories')}"
        )
        if conflicts:
            summary += f" · {plural(conflicts, 'open conflict')}"
        self.footer.setText(summary)
        self.meter.setRange(0, plan.budget)
        self.meter.setValue(min(plan.used, plan.budget))
        self.meter.setToolTip(f"{plan.remaining:,} tokens of the budget left")

    def _add_tier(self, tier: TierPlan, request: ContextRequest, expanded: bool) -> None:
        head = QTreeWidgetItem([tier.title, f"{tier.used:,} / {tier.allowance:,}", ""])
        head.setData(0, ROW_ROLE, tier.key)
        head.setFlags(Qt.ItemFlag.ItemIsEnabled)
        head.setToolTip(
            TOKENS,
            f"{tier.used:,} tokens used of this tier's {tier.share * 100:g}% share "
            f"({tier.allowance:,}); a tier that leaves some of its share unused passes it on",
        )
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for column in (TEXT, TOKENS):
            head.setFont(column, bold)
        head.setTextAlignment(TOKENS, RIGHT)
        self.tree.addTopLevelItem(head)
        for entry in tier.entries:
            head.addChild(self._entry_row(entry))
        if tier.left_out:
            head.addChild(self._left_out_row(tier.left_out))
        if not tier.entries and not tier.left_out:
            if tier.key == "relevant" and request.task:
                note = f"Nothing stored matches “{request.task}”"
            else:
                note = "Nothing for this tier"
            head.addChild(self._note_row(note))
        head.setExpanded(expanded)

    def _entry_row(self, entry: ContextEntry) -> QTreeWidgetItem:
        score = f"{entry.breakdown.total:.2f}" if entry.breakdown is not None else "—"
        row = QTreeWidgetItem([entry.text, f"{entry.tokens:,}", score])
        row.setData(0, ROW_ROLE, entry)
        for column in (TOKENS, SCORE):
            row.setTextAlignment(column, RIGHT)
        if entry.conflict_id is not None:
            row.setIcon(TEXT, self._icons["conflicts"])
            row.setToolTip(
                TEXT,
                f"<p>{html.escape(entry.text)}</p><p><b>Unresolved conflict "
                f"#{entry.conflict_id}</b>: the assistant is told to ask. Double-click to "
                "resolve it in Conflicts.</p>",
            )
        elif entry.breakdown is not None:
            row.setIcon(TEXT, self._icons["pin" if entry.pinned else "blank"])
            row.setToolTip(TEXT, breakdown_tooltip(entry, entry.breakdown))
            row.setToolTip(SCORE, entry.breakdown.describe())
        else:
            row.setIcon(TEXT, self._icons["blank"])
            row.setToolTip(TEXT, html.escape(entry.text))
        return row

    def _left_out_row(self, left_out: list[ContextEntry]) -> QTreeWidgetItem:
        row = self._note_row(f"{len(left_out):,} more did not fit the budget")
        shown = "".join(f"<li>{html.escape(e.text[:120])}</li>" for e in left_out[:5])
        more = f"<li>…and {len(left_out) - 5:,} more</li>" if len(left_out) > 5 else ""
        row.setToolTip(TEXT, f"A larger budget would also include:<ul>{shown}{more}</ul>")
        row.setText(TOKENS, f"{sum(e.tokens for e in left_out):,}")
        row.setTextAlignment(TOKENS, RIGHT)
        return row

    def _note_row(self, text: str) -> QTreeWidgetItem:
        row = QTreeWidgetItem([text, "", ""])
        row.setFlags(Qt.ItemFlag.ItemIsEnabled)
        muted = QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText))
        font = QFont(self.tree.font())
        font.setItalic(True)
        for column in range(3):
            row.setForeground(column, muted)
            row.setFont(column, font)
        return row

    def _add_excluded(self, preview: ContextPreview, expanded: bool) -> None:
        head = self._note_row(f"Excluded ({len(preview.excluded):,})")
        head.setData(0, ROW_ROLE, EXCLUDED_KEY)
        head.setText(TOKENS, "not injected")
        head.setToolTip(
            TEXT,
            "Memories kept out of this context and out of the CLAUDE.md export. "
            "Select one and choose Let back in (Ctrl+E).",
        )
        self.tree.addTopLevelItem(head)
        scope = self._scope_words(preview.request.project)
        muted = QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText))
        for item in preview.excluded:
            row = QTreeWidgetItem([f"#{item.item_id} {item.content}", "", ""])
            row.setData(0, ROW_ROLE, item)
            row.setIcon(TEXT, self._icons["blank"])
            row.setForeground(TEXT, muted)
            where = "every project's context" if item.everywhere else scope
            row.setToolTip(TEXT, f"<p>{html.escape(item.content)}</p><p>Excluded from {where}.</p>")
            head.addChild(row)
        head.setExpanded(expanded)

    # -- selection and actions --------------------------------------------------------

    def selected(self) -> ContextEntry | ExcludedMemory | None:
        item = self.tree.currentItem()
        data = item.data(0, ROW_ROLE) if item is not None else None
        return data if isinstance(data, ContextEntry | ExcludedMemory) else None

    def selected_memory(self) -> ContextEntry | None:
        entry = self.selected()
        return entry if isinstance(entry, ContextEntry) and entry.item_id is not None else None

    def _selection_changed(self) -> None:
        entry = self.selected()
        memory = self.selected_memory()
        self.pin_button.setEnabled(memory is not None)
        self.pin_button.setText("Unpin" if memory is not None and memory.pinned else "Pin")
        self.pin_button.setToolTip(
            "Unpin: take its place by score again (Ctrl+P)"
            if memory is not None and memory.pinned
            else "Pin: always put this memory in Critical (Ctrl+P)"
        )
        back = isinstance(entry, ExcludedMemory)
        self.exclude_button.setEnabled(memory is not None or back)
        self.exclude_button.setText("Let back in" if back else "Exclude")
        scope = self._scope_words(self.current_project())
        self.exclude_button.setToolTip(
            f"Let this memory back into {scope} (Ctrl+E)"
            if back
            else f"Keep this memory out of {scope} and its CLAUDE.md export (Ctrl+E or Del)"
        )

    def _row_key(self, item: QTreeWidgetItem | None) -> tuple[str, int] | None:
        data = item.data(0, ROW_ROLE) if item is not None else None
        if isinstance(data, ExcludedMemory):
            return ("excluded", data.item_id)
        if isinstance(data, ContextEntry) and data.item_id is not None:
            return ("memory", data.item_id)
        if isinstance(data, ContextEntry) and data.conflict_id is not None:
            return ("conflict", data.conflict_id)
        return None

    def _find_row(self, key: tuple[str, int] | None) -> QTreeWidgetItem | None:
        if key is None:
            return None
        for head in top_level_items(self.tree):
            for row in child_items(head):
                if self._row_key(row) == key:
                    return row
        return None

    def _scope_words(self, project: str | None) -> str:
        if project is None:
            return "every project's context"
        return f"the context of {self._labels.get(project, project)}"

    def toggle_pin(self) -> Any:
        memory = self.selected_memory()
        if memory is None or memory.item_id is None:
            return None
        return self.context.spawn(self._set_pinned(memory.item_id, not memory.pinned))

    async def _set_pinned(self, item_id: int, pinned: bool) -> None:
        try:
            await self.context.call(self.context.service.set_pinned, item_id, pinned)
        except ACTION_ERRORS as exc:
            self.show_message(f"Could not change memory #{item_id}: {exc}", error=True)
            return
        text = (
            f"Pinned #{item_id}: it now always goes into Critical."
            if pinned
            else f"Unpinned #{item_id}: it takes its place by score again."
        )
        self.context.events.notify.emit(text, self._undo_pin)
        self.context.events.memories_changed.emit()
        await self._refresh()

    def _undo_pin(self) -> None:
        self.context.spawn(self._undo_pin_async())

    async def _undo_pin_async(self) -> None:
        ids = await self.context.call(self.context.service.undo)
        self.context.events.notify.emit("Undid the pin." if ids else "Nothing to undo.", None)
        self.context.events.memories_changed.emit()
        await self._refresh()

    def toggle_exclusion(self) -> Any:
        entry = self.selected()
        project = self.current_project()
        if isinstance(entry, ExcludedMemory):
            return self.context.spawn(self._let_back_in(entry, project))
        memory = self.selected_memory()
        if memory is None or memory.item_id is None:
            return None
        return self.context.spawn(self._exclude(memory.item_id, project))

    def delete_selected(self) -> Any:
        """Delete (routed here by the main window) on the tiers keeps the selected memory
        out of this context; the memory itself stays. Elsewhere in the view it does nothing,
        so Delete in the preview text never drops a memory nobody is looking at."""
        if self.tree.hasFocus() and self.selected_memory() is not None:
            return self.toggle_exclusion()
        return None

    async def _exclude(self, item_id: int, project: str | None) -> None:
        service = self.context.service
        try:
            await self.context.call(service.set_context_exclusion, item_id, project, True)
        except ACTION_ERRORS as exc:
            self.show_message(f"Could not exclude memory #{item_id}: {exc}", error=True)
            return
        text = f"Excluded #{item_id} from {self._scope_words(project)}."
        undo = ExcludedMemory(item_id, "", everywhere=project is None)
        self.context.events.notify.emit(
            text, lambda: self.context.spawn(self._let_back_in(undo, project))
        )
        await self._refresh()

    async def _let_back_in(self, item: ExcludedMemory, project: str | None) -> None:
        try:
            await self.context.call(let_back_in, self.context.service, item, project)
        except ACTION_ERRORS as exc:
            self.show_message(f"Could not let memory #{item.item_id} back in: {exc}", error=True)
            return
        scope = "every project's context" if item.everywhere else self._scope_words(project)
        text = f"Let #{item.item_id} back into {scope}."
        undo_project = None if item.everywhere else project
        self.context.events.notify.emit(
            text, lambda: self.context.spawn(self._exclude(item.item_id, undo_project))
        )
        await self._refresh()

    def _open(self, item: QTreeWidgetItem) -> None:
        """Double-click: a memory opens in Memories, a conflict in Conflicts."""
        data = item.data(0, ROW_ROLE)
        if isinstance(data, ContextEntry) and data.conflict_id is not None:
            self.context.events.navigate.emit("conflicts", data.conflict_id)
        elif isinstance(data, ContextEntry | ExcludedMemory) and data.item_id is not None:
            self.context.events.navigate.emit("memories", data.item_id)

    def copy_preview(self) -> None:
        QGuiApplication.clipboard().setText(self.rendered.toPlainText())
        used = self.preview.plan.used if self.preview is not None else 0
        self.context.events.notify.emit(f"Copied the context ({used:,} tokens).", None)

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(text_style(ERROR, self.palette()) if error else "")
        self.message.setToolTip(text)

    # -- CLAUDE.md --------------------------------------------------------------------

    def export_claude_md(self) -> None:
        """Ask for the file here (a modal picker), then plan and show the diff off-thread."""
        project = self.current_project()
        path = self.context.dialogs.claude_md_path(self, self._export_start(project))
        if path is not None:
            self.context.spawn(self._plan_export(path, project))

    def _settings_key(self, project: str | None) -> str:
        # One remembered file per project; the path is quoted so its slashes make no groups.
        return "context/claude_md/" + quote(project or "*", safe="")

    def _export_start(self, project: str | None) -> Path:
        remembered = self.context.settings.value(self._settings_key(project))
        if isinstance(remembered, str) and remembered:
            return Path(remembered)
        if project is not None and Path(project).is_dir():
            return Path(project) / "CLAUDE.md"
        return Path.home() / "CLAUDE.md"

    async def _plan_export(self, path: Path, project: str | None) -> None:
        service = self.context.service
        self.show_message(f"Preparing the export to {path}…")
        try:
            export = await self.context.call(service.plan_claude_md, path, project=project)
        except EXPORT_ERRORS as exc:
            self.show_message(f"Cannot export: {exc}", error=True)
            return
        self.context.settings.setValue(self._settings_key(project), str(path))
        if not export.changed:
            count = plural(len(export.included), "memory", "memories")
            self.show_message(f"Already up to date: {path} holds these {count}.")
            return
        self.show_message("")
        dialog = DiffDialog(export, path, self)
        dialog.accepted.connect(lambda: self.context.spawn(self._write_export(export, path)))
        dialog.rejected.connect(lambda: self.show_message("Export cancelled; nothing written."))
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        self.diff_dialog = dialog
        dialog.open()

    def _dialog_closed(self, dialog: DiffDialog) -> None:
        if self.diff_dialog is dialog:
            self.diff_dialog = None
        dialog.deleteLater()

    async def _write_export(self, export: ClaudeMdExport, path: Path) -> None:
        try:
            await self.context.call(self.context.service.write_claude_md, export)
        except EXPORT_ERRORS as exc:
            self.show_message(f"Cannot export: {exc}", error=True)
            return
        self.show_message(f"Wrote {plural(len(export.included), 'memory', 'memories')} to {path}.")
