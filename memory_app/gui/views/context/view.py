"""The Context view: its two tabs put together, and the preview kept up to date.

The preview tab is assembled from its parts (the request row, the tiers with Pin and
Exclude, the text an assistant would be given, a footer with the budget meter); the
other tab is `InjectionsPanel`. This module owns the cycle that ties them: a changed
request (debounced while typing) or store sends one request to the worker, and only the
answer to the newest request is shown.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontDatabase, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.budget import ContextEntry
from memory_app.domain.jobs import JobState
from memory_app.gui.claude_access import claude_ready
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.views.base import View
from memory_app.gui.views.context.claude_md import ClaudeMdExporter
from memory_app.gui.views.context.predicted_panel import PredictedPanel
from memory_app.gui.views.context.preview_data import (
    ContextPreview,
    ExcludedMemory,
    load_assisted_preview,
    load_preview,
)
from memory_app.gui.views.context.request_bar import RECENT_CONVERSATIONS, ContextRequestBar
from memory_app.gui.views.context.tier_rows import row_icons
from memory_app.gui.views.context.tiers_panel import TiersPanel
from memory_app.gui.widgets.diff_dialog import DiffDialog
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.gui.widgets.injections_panel import InjectionsPanel
from memory_app.retrieval.context import ContextRequest

REFRESH_DEBOUNCE_MS = 250  # typing a task rebuilds the preview once the typing pauses
TAB_KEY = "context/tab"  # the tab shown last: the preview, INJECTIONS or PREDICTED
INJECTIONS = "injections"  # also the navigation argument that opens that tab
PREDICTED = "predicted"  # likewise, for the memories predicted for a branch and files


class ContextView(View):
    key = "context"
    icon = "context"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Context")
        self.preview: ContextPreview | None = None
        self._serial = 0  # requests sent; an answer to an older one is dropped
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DEBOUNCE_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self._icons = row_icons()

        # Two tabs: what would be injected for a task, and what the hooks did inject.
        self.main = QTabWidget(self)
        self.main.setObjectName("contextTabs")
        self.main.setDocumentMode(True)
        self.preview_page = QWidget(self.main)
        column = QVBoxLayout(self.preview_page)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(8)
        self.controls = ContextRequestBar(context, self.preview_page)
        self.controls.edited.connect(self._refresh_timer.start)
        self.controls.project_changed.connect(self.refresh)
        self.controls.ask_claude.connect(self.ask_claude)
        self.claude_ready = False  # Claude configured (looked up on the worker on reload)
        self.asking = False  # "Ask Claude" waits for an answer
        column.addWidget(self.controls)
        splitter = QSplitter(self.preview_page)
        self.tiers = TiersPanel(
            context,
            self.controls,
            self._icons,
            rebuild=self._refresh,
            show_message=self.show_message,
            parent=self.preview_page,
        )
        splitter.addWidget(self.tiers)
        splitter.addWidget(self._build_preview())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([620, 420])
        splitter.setChildrenCollapsible(False)
        column.addWidget(splitter, 1)
        column.addLayout(self._build_footer())
        self.exporter = ClaudeMdExporter(context, self, self.show_message)
        # The parts' widgets, by the names the rest of the app (and its tests) use.
        self.task = self.controls.task
        self.project = self.controls.project
        self.budget = self.controls.budget
        self.tree = self.tiers.tree
        self.pin_button = self.tiers.pin_button
        self.exclude_button = self.tiers.exclude_button

        self.injections = InjectionsPanel(context, self.main)
        self.main.addTab(self.preview_page, self.tr("P&review"))
        self.main.setTabToolTip(
            0, self.tr("What an assistant would be given for a task (Ctrl+Tab)")
        )
        self.main.addTab(self.injections, self.tr("What the &assistant saw"))
        self.main.setTabToolTip(
            1, self.tr("What Claude Code's recall hooks gave the assistant, live (Ctrl+Tab)")
        )
        self.predicted = PredictedPanel(context, self.main)
        self.main.addTab(self.predicted, self.tr("Predic&ted"))
        self.main.setTabToolTip(
            2,
            self.tr(
                "The memories likely needed for a branch, some files and an error, before "
                "any prompt (Ctrl+Tab)"
            ),
        )
        shown = self.context.settings.value(TAB_KEY)
        if shown == INJECTIONS:
            self.main.setCurrentWidget(self.injections)
        elif shown == PREDICTED:
            self.main.setCurrentWidget(self.predicted)
        self.main.currentChanged.connect(self._tab_changed)

        self.empty = EmptyState(
            icon="context",
            title=self.tr("Nothing to hand an assistant yet"),
            text=self.tr(
                "Once conversations are imported, this view shows exactly what an assistant "
                "would be given for a task: tier by tier, within a token budget, with the "
                "CLAUDE.md change shown before anything is written."
            ),
            action=self.tr("Import Conversations…"),
            parent=self,
        )
        assert self.empty.button is not None
        self.empty.button.clicked.connect(
            lambda: self.context.events.navigate.emit("sources", "import")
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.main)
        self.pages.addWidget(self.empty)
        self._shortcut(
            "Ctrl+P", self.toggle_pin, self.tr("Pin or unpin the selected memory (preview)")
        )
        self._shortcut(
            "Ctrl+E",
            self.toggle_exclusion,
            self.tr("Exclude the selected memory, or let it back in"),
        )
        self.tiers.update_buttons()
        context.events.memories_changed.connect(self._store_changed)

    # -- building ---------------------------------------------------------------------

    def _build_preview(self) -> QWidget:
        """The text an assistant would be given, with Copy and the CLAUDE.md export."""
        panel = QWidget(self.preview_page)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 0, 0, 0)
        self.rendered = QPlainTextEdit(panel)
        self.rendered.setObjectName("contextPreview")
        self.rendered.setReadOnly(True)
        self.rendered.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.rendered.setToolTip(self.tr("Exactly the text an assistant would be given"))
        self.copy_button = QPushButton(self.tr("&Copy"), panel)
        self.copy_button.setToolTip(self.tr("Copy this text to the clipboard"))
        self.copy_button.clicked.connect(self.copy_preview)
        self.export_button = QPushButton(self.tr("E&xport to CLAUDE.md…"), panel)
        self.export_button.setObjectName("exportButton")
        self.export_button.setToolTip(
            self.tr(
                "Write the project's conventions, preferences, decisions and bug patterns into "
                "the managed block of a CLAUDE.md, after showing the change"
            )
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
        current = self.main.currentWidget()
        shown = {self.injections: INJECTIONS, self.predicted: PREDICTED}.get(current, "preview")
        self.context.settings.setValue(TAB_KEY, shown)

    # -- loading ----------------------------------------------------------------------

    def activate(self, argument: Any = None) -> None:
        """Shown; the argument INJECTIONS opens the tab of what the assistant saw, PREDICTED
        the predicted memories."""
        if argument == INJECTIONS:
            self.main.setCurrentWidget(self.injections)
        elif argument == PREDICTED:
            self.main.setCurrentWidget(self.predicted)
        super().activate(argument)

    async def reload(self) -> None:
        """Projects and whether anything is stored, then the preview."""
        service = self.context.service
        stats = await self.context.call(service.get_stats)
        projects = await self.context.call(service.projects)
        self.show_projects(projects)
        recent = await self.context.call(service.resources, limit=RECENT_CONVERSATIONS)
        self.controls.show_conversations(recent)
        self.claude_ready = await self.context.call(claude_ready, service)
        self.controls.set_claude(ready=self.claude_ready, asking=self.asking)
        stored = sum(stats.items_by_category.values())
        self.pages.setCurrentWidget(self.main if stored else self.empty)
        await self._refresh()

    def show_projects(self, projects: list[tuple[str, int]]) -> None:
        self.controls.show_projects(projects)
        self.predicted.show_projects(projects)

    def current_project(self) -> str | None:
        return self.controls.current_project()

    def current_request(self) -> ContextRequest:
        return self.controls.current_request()

    def refresh(self) -> Any:
        """Rebuild the preview now (typing waits for a pause first)."""
        self._refresh_timer.stop()
        self.controls.show_project_tip()
        return self.context.spawn(self._refresh())

    async def _refresh(self) -> None:
        self._serial += 1
        serial = self._serial
        request = self.current_request()
        try:
            preview = await self.context.call(load_preview, self.context.service, request)
        except LookupError as exc:  # the conversation picked was deleted meanwhile
            if serial == self._serial:
                self.show_message(str(exc), error=True)
                self.context.spawn(self.reload())  # the picker drops it, then asks again
            return
        if serial == self._serial:  # a newer request is under way: its answer wins
            self.show_preview(preview)

    def ask_claude(self) -> Any:
        """Build the preview with Claude's help (a task; None when Claude is not
        configured or already asked). A later change of the request shows the offline
        preview again: Claude is asked only when the button says so."""
        if not self.claude_ready or self.asking:
            return None
        self._refresh_timer.stop()
        self._serial += 1
        self.asking = True
        self.controls.set_claude(ready=True, asking=True)
        self.context.status.begin(self.tr("Asking Claude for the context"))
        return self.context.spawn(self._ask(self._serial, self.current_request()))

    async def _ask(self, serial: int, request: ContextRequest) -> None:
        service = self.context.service
        try:
            preview = await self.context.jobs.run(
                "assisted-context",
                lambda _state: load_assisted_preview(service, request),
                JobState(),
            )
        except Exception as exc:  # a store error: the window keeps working
            message = self.tr("Could not build the context with Claude: {error}").format(
                error=str(exc) or type(exc).__name__
            )
            self.show_message(message, error=True)
            self.context.status.fail(message)
            return
        finally:
            self.asking = False
            self.controls.set_claude(ready=self.claude_ready, asking=False)
        assistance = preview.assistance
        self.context.status.finish(
            self.tr("Claude was not used")
            if assistance is None or not assistance.used
            else self.tr("Claude helped build the context")
        )
        if serial == self._serial:  # the request was not changed meanwhile
            self.show_preview(preview)

    def _store_changed(self) -> None:
        if self.isVisible():
            self.context.spawn(self.reload())

    # -- showing ----------------------------------------------------------------------

    def show_preview(self, preview: ContextPreview) -> None:
        if preview == self.preview:
            return  # nothing new: keep the selection and scroll position as they are
        self.preview = preview
        self.tiers.show_preview(preview)

        self.controls.show_assistance(preview.assistance)
        plan = preview.plan
        text_scroll = self.rendered.verticalScrollBar().value()
        self.rendered.setPlainText(preview.render())
        self.rendered.verticalScrollBar().setValue(text_scroll)
        memories = len(plan.item_ids)
        conflicts = sum(1 for t in plan.tiers for e in t.entries if e.conflict_id is not None)
        parts = [
            self.tr("{used} of %Ln tokens used", "", plan.budget).format(used=preview.used),
            self.tr("%Ln memories", "", memories),
        ]
        if conflicts:
            parts.append(self.tr("%Ln open conflicts", "", conflicts))
        self.footer.setText(" · ".join(parts))
        self.meter.setRange(0, plan.budget)
        self.meter.setValue(min(preview.used, plan.budget))
        left = plan.budget - preview.used
        self.meter.setToolTip(self.tr("%Ln tokens of the budget left", "", left))

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(text_style(ERROR, self.palette()) if error else "")
        self.message.setToolTip(text)

    # -- actions (the tiers panel and the exporter do the work) -----------------------

    def selected(self) -> ContextEntry | ExcludedMemory | None:
        return self.tiers.selected()

    def selected_memory(self) -> ContextEntry | None:
        return self.tiers.selected_memory()

    def toggle_pin(self) -> Any:
        return self.tiers.toggle_pin()

    def toggle_exclusion(self) -> Any:
        return self.tiers.toggle_exclusion()

    def delete_selected(self) -> Any:
        """Delete (routed here by the main window) on the tiers keeps the selected memory
        out of this context; the memory itself stays. Elsewhere in the view it does nothing,
        so Delete in the preview text never drops a memory nobody is looking at."""
        return self.tiers.delete_selected()

    def copy_preview(self) -> None:
        QGuiApplication.clipboard().setText(self.rendered.toPlainText())
        used = self.preview.used if self.preview is not None else 0
        self.context.events.notify.emit(self.tr("Copied the context (%Ln tokens).", "", used), None)

    def export_claude_md(self) -> None:
        """Ask for the file here (a modal picker), then plan and show the diff off-thread."""
        self.exporter.export(self.current_project())

    def _settings_key(self, project: str | None) -> str:
        return self.exporter.settings_key(project)

    @property
    def diff_dialog(self) -> DiffDialog | None:
        """The CLAUDE.md diff being looked at, if any."""
        return self.exporter.diff_dialog
