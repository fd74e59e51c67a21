"""Memories: the category browser, the memory table with search and filters, and the
editor (seed 000 §7.4, UX.md "Memories")."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import markdown
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.assets import icon_path
from memory_app.domain.records import NO_BRANCH, CategoryInfo, ItemQuery, MemoryRecord
from memory_app.domain.sharing import PERSONAL, TEAM
from memory_app.domain.validation import ValidationError
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.models.memory_table_model import (
    CATEGORY,
    CONFIDENCE,
    CONTENT,
    EXTRACTED,
    LAST_USED,
    PINNED,
    STATUS,
    USED,
    MemoryFilterProxy,
    MemoryTableModel,
)
from memory_app.gui.views.base import View
from memory_app.gui.widgets.category_dialogs import CategoryDialog, MergeCategoryDialog
from memory_app.gui.widgets.memory_editor import MemoryEditor
from memory_app.gui.widgets.publish_dialog import PublishDialog
from memory_app.gui.widgets.scroll_page import scroll_page
from memory_app.store.errors import NotFoundError

# No fixed debounce: a query starts on the next loop turn (after the instant narrowing of
# the loaded rows has painted); while one is running, keystrokes coalesce into a single
# next query. A 150 ms debounce alone used up the 100 ms keystroke-to-results budget.
SEARCH_DEBOUNCE_MS = 0
ALL = "__all__"


class MemoriesView(View):
    key = "memories"
    icon = "memories"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Memories")
        self.categories: list[CategoryInfo] = []
        self.model = MemoryTableModel(self._fetch, self._count, context.spawn, self)
        self.proxy = MemoryFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply_filters)
        self._pending_select: int | None = None
        self._search_pending = False
        # A search the store did not understand: (why, the text it was asked), shown in
        # the footer until a search is understood or the text changes.
        self._search_problem: tuple[str, str] | None = None
        # What was selected (and shown in the editor) when the rows were last replaced:
        # selected again afterwards where still listed, so a reload after an edit, an
        # undo or an import keeps the person's place and refreshes what they see.
        self._kept_selection: list[int] = []
        self._kept_editor: int | None = None
        self.category_dialog: CategoryDialog | MergeCategoryDialog | None = None

        splitter = QSplitter(self)
        splitter.addWidget(self._build_categories())
        splitter.addWidget(self._build_table())
        splitter.addWidget(self._build_editor())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([190, 720, 290])
        for index in range(3):
            splitter.setCollapsible(index, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.model.loaded.connect(self._loaded)
        self.model.refused.connect(self._search_refused)
        self.proxy.modelAboutToBeReset.connect(self._remember_selection)
        # Rows the instant filter hides: the selection label and the editor follow.
        self.proxy.rowsRemoved.connect(lambda *_: self._follow_list())
        self.proxy.layoutChanged.connect(lambda *_: self._follow_list())
        self.model.settled.connect(self._start_pending_search)
        self.model.rowsInserted.connect(lambda *_: self._update_footer())
        self.model.rowsRemoved.connect(lambda *_: self._update_footer())
        context.events.memories_changed.connect(self._memories_changed)
        self._started = False
        self._selection_changed()

    # -- building ---------------------------------------------------------------------

    def _build_categories(self) -> QWidget:
        panel = QWidget(self)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(8, 8, 4, 8)
        heading = QLabel("<b>{}</b>".format(self.tr("Categories")), panel)
        self.category_list = QTreeWidget(panel)
        self.category_list.setObjectName("categoryList")
        self.category_list.setRootIsDecorated(False)
        self.category_list.setHeaderHidden(True)
        self.category_list.setColumnCount(2)
        self.category_list.header().setStretchLastSection(False)
        self.category_list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.category_list.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.category_list.currentItemChanged.connect(lambda *_: self._category_changed())
        self.category_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.category_list.customContextMenuRequested.connect(self._category_menu)
        self.add_category_button = QToolButton(panel)
        self.add_category_button.setText(self.tr("Add…"))
        self.add_category_button.setObjectName("addCategory")
        self.add_category_button.setToolTip(
            self.tr("Add a category for memories to be filed under")
        )
        self.add_category_button.clicked.connect(self.add_category)
        self.rename_category_button = QToolButton(panel)
        self.rename_category_button.setText(self.tr("Rename…"))
        self.rename_category_button.setObjectName("renameCategory")
        self.rename_category_button.setToolTip(
            self.tr("Change the selected category's name and description")
        )
        self.rename_category_button.clicked.connect(self.rename_category)
        self.merge_category_button = QToolButton(panel)
        self.merge_category_button.setText(self.tr("Merge…"))
        self.merge_category_button.setObjectName("mergeCategory")
        self.merge_category_button.setToolTip(
            self.tr("Move every memory of the selected category into another one and remove it")
        )
        self.merge_category_button.clicked.connect(self.merge_category)
        category_buttons = QHBoxLayout()
        category_buttons.setSpacing(4)
        for button in (
            self.add_category_button,
            self.rename_category_button,
            self.merge_category_button,
        ):
            category_buttons.addWidget(button)
        category_buttons.addStretch(1)
        self.summary = QTextBrowser(panel)
        self.summary.setObjectName("categorySummary")
        self.summary.setOpenLinks(False)
        layout.addWidget(heading)
        layout.addWidget(self.category_list, 2)
        layout.addLayout(category_buttons)
        layout.addWidget(QLabel("<b>{}</b>".format(self.tr("Summary")), panel))
        layout.addWidget(self.summary, 3)
        return panel

    def _build_table(self) -> QWidget:
        panel = QWidget(self)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 8, 4, 4)
        layout.setSpacing(6)

        self.search = QLineEdit(panel)
        self.search.setObjectName("memorySearch")
        self.search.setPlaceholderText(self.tr("Search memories…  (Ctrl+F)"))
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(  # the syntax of domain/search_syntax.py, as one hint
            self.tr(
                "<p>Finds memories with all the words; the word you are typing also finds "
                "longer ones (<b>pyt…</b> finds pytest), and <b>word*</b> does anywhere. "
                '<b>"a phrase"</b> finds those words together; <b>-word</b> or '
                '<b>-"a phrase"</b> leaves them out. <b>category:</b>KEY (or category:"Its '
                "name\") and <b>project:</b>NAME (a project's folder or the folder's name) "
                "filter; -category: and -project: leave one out. Exclusions and filters "
                "alone list every other memory, newest first.</p>"
            )
        )
        self.search.textEdited.connect(self._search_edited)
        self.search.returnPressed.connect(self.apply_filters)
        self.status_filter = self._combo(
            panel,
            (
                (self.tr("Active"), ("active",)),
                (self.tr("Held for review"), ("held",)),
                (self.tr("Archived"), ("archived",)),
                (self.tr("Superseded"), ("superseded",)),
                (self.tr("Deleted"), ("deleted",)),
                (self.tr("Invalid"), ("invalid",)),
                (self.tr("All statuses"), ()),
            ),
            self.tr("Status"),
        )
        self.pinned_filter = self._combo(
            panel,
            (
                (self.tr("Pinned or not"), None),
                (self.tr("Pinned only"), True),
                (self.tr("Not pinned"), False),
            ),
            self.tr("Pinned"),
        )
        first = QHBoxLayout()
        first.setSpacing(6)
        first.addWidget(self.search, 1)
        first.addWidget(self.status_filter)
        first.addWidget(self.pinned_filter)
        layout.addLayout(first)

        self.date_filter = self._combo(
            panel,
            (
                (self.tr("Any time"), None),
                (self.tr("Last 7 days"), 7),
                (self.tr("Last 30 days"), 30),
                (self.tr("Last 90 days"), 90),
                (self.tr("Last year"), 365),
            ),
            self.tr("Extracted"),
        )
        self.min_confidence = self._spin(panel, 0.0, self.tr("Lowest confidence shown"))
        self.max_confidence = self._spin(panel, 1.0, self.tr("Highest confidence shown"))
        self.source_filter = QComboBox(panel)
        self.source_filter.setToolTip(self.tr("Only memories learnt from this conversation"))
        self.source_filter.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.source_filter.setMinimumContentsLength(10)
        self.source_filter.addItem(self.tr("Any conversation"), None)
        self.source_filter.currentIndexChanged.connect(lambda *_: self.apply_filters())
        # Seed 001's branch memory: the git branch a memory was learnt on.
        self.branch_filter = self._combo(
            panel,
            ((self.tr("Any branch"), None), (self.tr("No branch"), NO_BRANCH)),
            self.tr("Only memories learnt on this git branch"),
        )
        second = QHBoxLayout()
        second.setSpacing(6)
        second.addWidget(self.date_filter)
        second.addWidget(QLabel(self.tr("Confidence"), panel))
        second.addWidget(self.min_confidence)
        second.addWidget(QLabel("–", panel))
        second.addWidget(self.max_confidence)
        second.addWidget(self.source_filter, 1)
        second.addWidget(self.branch_filter)
        # Issue 20: personal memories (this store only) and team ones (published).
        self.sharing_filter = self._combo(
            panel,
            (
                (self.tr("Personal and team"), None),
                (self.tr("Personal"), PERSONAL),
                (self.tr("Team"), TEAM),
            ),
            self.tr("Personal memories (this computer only) or team memories (shared)"),
        )
        self.sharing_filter.setObjectName("sharingFilter")
        second.addWidget(self.sharing_filter)
        layout.addLayout(second)

        bulk = QHBoxLayout()
        bulk.setSpacing(6)
        self.selection_label = QLabel("", panel)
        self.pin_button = QPushButton(self.tr("Pin"), panel)
        self.unpin_button = QPushButton(self.tr("Unpin"), panel)
        self.move_button = QToolButton(panel)
        self.move_button.setText(self.tr("Move to"))
        self.move_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.move_menu = QMenu(self.move_button)
        self.move_button.setMenu(self.move_menu)
        self.delete_button = QPushButton(self.tr("Delete"), panel)
        self.delete_button.setToolTip(
            self.tr("Delete the selected memories (Del); undo with Ctrl+Z")
        )
        self.pin_button.clicked.connect(lambda: self.bulk_pin(True))
        self.unpin_button.clicked.connect(lambda: self.bulk_pin(False))
        self.delete_button.clicked.connect(self.delete_selected)
        # A memory held back for a possible secret: Keep releases it, Delete removes it.
        self.keep_button = QPushButton(self.tr("Keep"), panel)
        self.keep_button.setToolTip(
            self.tr(
                "Release the selected memories held for review (a possible secret): they "
                "join the context and exports"
            )
        )
        self.keep_button.clicked.connect(self.keep_selected)
        self.keep_button.setVisible(False)
        bulk.addWidget(self.selection_label, 1)
        for widget in (
            self.keep_button,
            self.pin_button,
            self.unpin_button,
            self.move_button,
            self.delete_button,
        ):
            bulk.addWidget(widget)
        layout.addLayout(bulk)

        self.table = QTableView(panel)
        self.table.setObjectName("memoryTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(CONTENT, QHeaderView.ResizeMode.Stretch)
        for column, width in (
            (CATEGORY, 136),
            (CONFIDENCE, 74),
            (USED, 48),
            (LAST_USED, 86),
            (EXTRACTED, 88),
            (STATUS, 80),
            (PINNED, 50),
        ):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(column, width)
        # Status has its own filter, and use counts matter once retrieval records use:
        # they start hidden so the content has room; the header's menu shows any column.
        for column in (USED, LAST_USED, STATUS):
            self.table.setColumnHidden(column, True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.model.pin_icon = QIcon(str(icon_path("pin")))
        self.model.team_icon = QIcon(str(icon_path("team")))
        # Publishing to the team: the context menu and a shortcut, both open the preview.
        self.publish_action = QAction(self.tr("Publish to Team…"), self)
        self.publish_action.setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.publish_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.publish_action.triggered.connect(lambda _checked=False: self.publish_selected())
        self.addAction(self.publish_action)
        self.publish_dialog: PublishDialog | None = None
        header.setSortIndicator(EXTRACTED, Qt.SortOrder.DescendingOrder)
        header.setSortIndicatorShown(True)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        layout.addWidget(self.table, 1)

        self.footer = QLabel("", panel)
        self.footer.setObjectName("memoryCount")
        self.footer.setWordWrap(True)  # a search not understood says why, at length
        layout.addWidget(self.footer)
        return panel

    def _build_editor(self) -> QWidget:
        self.editor = MemoryEditor(self)
        self.editor.save_requested.connect(self.save)
        self.editor.archive_requested.connect(
            lambda item_id, archived: self.set_archived([item_id], archived)
        )
        self.editor.source_requested.connect(
            lambda where: self.context.events.navigate.emit("sources", where)
        )
        self.editor.links.memory_requested.connect(
            lambda item_id: self.context.spawn(self._show_item(item_id, asked=True))
        )
        self.editor.links.add_requested.connect(
            lambda item_id, target, kind: self.context.spawn(self._add_link(item_id, target, kind))
        )
        scroll, _editor = scroll_page(self, content=self.editor)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(250)
        return scroll

    def _combo(self, parent: QWidget, choices: tuple[tuple[str, Any], ...], tip: str) -> QComboBox:
        combo = QComboBox(parent)
        combo.setToolTip(tip)
        for text, value in choices:
            combo.addItem(text, value)
        combo.currentIndexChanged.connect(lambda *_: self.apply_filters())
        return combo

    def _spin(self, parent: QWidget, value: float, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(parent)
        spin.setRange(0.0, 1.0)
        spin.setSingleStep(0.05)
        spin.setDecimals(2)
        spin.setValue(value)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda *_: self.apply_filters())
        return spin

    # -- loading ----------------------------------------------------------------------

    async def _fetch(self, query: ItemQuery, wanted: Callable[[], bool]) -> list[MemoryRecord]:
        service = self.context.service
        return await self.context.call(lambda: service.query_items(query) if wanted() else [])

    async def _count(self, query: ItemQuery, wanted: Callable[[], bool]) -> int:
        service = self.context.service
        return await self.context.call(lambda: service.count_items(query) if wanted() else 0)

    def activate(self, argument: Any = None) -> None:
        if isinstance(argument, int):
            self._pending_select = argument
        if not self._started:
            self._started = True
            self.apply_filters()
        elif isinstance(argument, int):
            self.context.spawn(self._show_item(argument, asked=True))
        self.context.spawn(self.reload())

    async def reload(self) -> None:
        """Categories with counts, the conversations for the source filter, the summary."""
        service = self.context.service
        self.categories = await self.context.call(service.categories)
        resources = await self.context.call(service.resources, limit=200)
        branches = await self.context.call(service.branches, statuses=None)
        self._fill_categories()
        self._fill_sources([(r.id, r.title or r.source_path or f"#{r.id}") for r in resources])
        self._fill_branches([name for name, _count in branches])
        self.editor.set_categories(self.categories)
        self._fill_move_menu()
        await self._show_summary()

    def _fill_categories(self) -> None:
        current = self.selected_category()
        self.category_list.blockSignals(True)
        self.category_list.clear()
        total = sum(c.item_count for c in self.categories)
        rows = [(ALL, self.tr("All memories"), total, self.tr("Every category"))]
        rows += [(c.key, c.name, c.item_count, c.description) for c in self.categories]
        items: dict[str, QTreeWidgetItem] = {}
        for key, name, count, description in rows:
            item = items[key] = QTreeWidgetItem([name, f"{count:,}"])
            item.setData(0, Qt.ItemDataRole.UserRole, key)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(0, description)
            self.category_list.addTopLevelItem(item)
        still_there = current in items
        self.category_list.setCurrentItem(items.get(current, items[ALL]))
        self.category_list.blockSignals(False)
        self.model.set_category_names({c.key: c.name for c in self.categories})
        self._category_buttons()
        if not still_there:  # merged away: show every category rather than none
            self.apply_filters()

    def _fill_sources(self, sources: list[tuple[int, str]]) -> None:
        current = self.source_filter.currentData()
        self.source_filter.blockSignals(True)
        self.source_filter.clear()
        self.source_filter.addItem(self.tr("Any conversation"), None)
        for ident, title in sources:
            self.source_filter.addItem(f"#{ident} {title}"[:60], ident)
        index = self.source_filter.findData(current) if current is not None else 0
        self.source_filter.setCurrentIndex(max(0, index))
        self.source_filter.blockSignals(False)

    def _fill_branches(self, branches: list[str]) -> None:
        """The branches memories were learnt on, after "Any branch" and "No branch"; the
        choice is kept while its branch is still there."""
        current = self.branch_filter.currentData()
        self.branch_filter.blockSignals(True)
        while self.branch_filter.count() > 2:
            self.branch_filter.removeItem(2)
        for name in branches:
            self.branch_filter.addItem(name, name)
        index = self.branch_filter.findData(current) if current is not None else 0
        self.branch_filter.setCurrentIndex(max(0, index))
        self.branch_filter.blockSignals(False)
        if current is not None and index < 0:  # its memories are gone: show every branch
            self.apply_filters()

    def _fill_move_menu(self) -> None:
        self.move_menu.clear()
        for category in self.categories:
            action = self.move_menu.addAction(category.name)
            action.triggered.connect(lambda _c=False, key=category.key: self.bulk_move(key))

    def selected_category(self) -> str:
        item = self.category_list.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else ALL

    def _category_changed(self) -> None:
        self._category_buttons()
        self.apply_filters()
        self.context.spawn(self._show_summary())

    async def _show_summary(self) -> None:
        key = self.selected_category()
        if key == ALL:
            lines = ["## {}".format(self.tr("All memories")), ""]
            lines += [f"- **{c.name}**: {c.item_count:,}" for c in self.categories]
            if not any(c.item_count for c in self.categories):
                nothing = self.tr("Nothing learnt yet. Import a conversation from File ▸ Import.")
                lines += ["", f"_{nothing}_"]
            text = "\n".join(lines)
        else:
            view = await self.context.call(self.context.service.get_category, key, limit=1)
            text = view.summary_markdown or "## {}\n\n_{}_".format(
                view.info.name, self.tr("No entries yet.")
            )
        self.summary.setHtml(markdown.markdown(text, extensions=["extra"]))

    # -- filters ----------------------------------------------------------------------

    def current_query(self) -> ItemQuery:
        days = self.date_filter.currentData()
        category = self.selected_category()
        return dataclasses.replace(
            self.model.query,
            text=self.search.text().strip(),
            category=None if category == ALL else category,
            statuses=tuple(self.status_filter.currentData()),
            pinned=self.pinned_filter.currentData(),
            min_confidence=self.min_confidence.value(),
            max_confidence=self.max_confidence.value(),
            since=datetime.now(UTC) - timedelta(days=days) if days else None,
            source_resource_id=self.source_filter.currentData(),
            branch=self.branch_filter.currentData(),
            sharing=self.sharing_filter.currentData(),
        )

    def apply_filters(self) -> None:
        self._search_timer.stop()
        query = self.current_query()
        if query.text and not any(ch.isalnum() for ch in query.text):
            query = dataclasses.replace(query, text="")
        if query.text:
            query = dataclasses.replace(query, sort_key=None)  # best match first
        self.model.set_query(query)

    def _search_edited(self, text: str) -> None:
        self.proxy.set_quick_filter(text)  # instant narrowing of what is loaded
        if self.model.busy:
            self._search_pending = True  # the next query starts when this one is done
        else:
            self._search_timer.start()  # the full-text query, on the next loop turn

    def _start_pending_search(self) -> None:
        if self._search_pending:
            self._search_pending = False
            self._search_timer.start()

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _loaded(self, total: int) -> None:
        # Keep narrowing by what was typed after this query was sent.
        typed = self.search.text().strip()
        self.proxy.set_quick_filter("" if typed == self.model.query.text else typed)
        problem = self._search_problem
        if problem is not None and (problem[1] != typed or self.model.query.text == typed):
            self._search_problem = None  # not what the field says any more
        self._update_footer()
        if self._pending_select is not None:
            ident, self._pending_select = self._pending_select, None
            self._kept_selection, self._kept_editor = [], None
            self.context.spawn(self._show_item(ident))
        else:
            self._restore_selection()

    def _search_refused(self, reason: str, text: str) -> None:
        """The store did not understand the search (an unknown category, a filter without
        its value): the list keeps the last answer and the footer says why. Nothing
        failed, so the app's status stays as it is."""
        self._search_problem = (reason, text)
        typed = self.search.text().strip()
        # The last answer whole, unless more was typed since (its search is on its way).
        self.proxy.set_quick_filter("" if typed in (text, self.model.query.text) else typed)
        self._update_footer()

    def _update_footer(self) -> None:
        if self._search_problem is not None:
            reason, _text = self._search_problem
            self.footer.setText(self.tr("Search not understood: {reason}").format(reason=reason))
            self.footer.setStyleSheet(text_style(ERROR, self.palette()))
            return
        self.footer.setStyleSheet("")
        shown, total = self.model.rowCount(), self.model.total
        if total == 0:
            query = self.model.query
            filtered = (
                query.text
                or query.category
                or query.pinned is not None
                or query.branch is not None
                or query.sharing is not None
            )
            self.footer.setText(
                self.tr("No memories match these filters.")
                if filtered
                else self.tr("No memories yet: import a conversation from File ▸ Import.")
            )
        else:
            counted = self._counted(total)
            if shown < total:
                counted = self.tr("{memories} · {loaded} loaded (scroll for more)").format(
                    memories=counted, loaded=f"{shown:,}"
                )
            self.footer.setText(counted)

    def _counted(self, total: int) -> str:
        """The footer's count in the words of the statuses listed ("3 archived memories")."""
        count = f"{total:,}"
        statuses = self.model.query.statuses
        if statuses == ("held",):
            text = self.tr("{count} memories held for review", "", total)
        elif statuses == ("archived",):
            text = self.tr("{count} archived memories", "", total)
        elif statuses == ("superseded",):
            text = self.tr("{count} superseded memories", "", total)
        elif statuses == ("deleted",):
            text = self.tr("{count} deleted memories", "", total)
        elif statuses == ("invalid",):
            text = self.tr("{count} invalid memories", "", total)
        elif statuses == ():
            text = self.tr("{count} memories of any status", "", total)
        else:
            text = self.tr("{count} memories", "", total)
        return text.format(count=count)

    # -- selection and editing --------------------------------------------------------

    def selected_records(self) -> list[MemoryRecord]:
        rows = {self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()}
        return [self.model.record(r) for r in sorted(rows)]

    def _selection_changed(self) -> None:
        records = self._update_selection_label()
        count = len(records)
        if count == 1:
            self.context.spawn(self._show_item(records[0].id))
        elif count > 1:
            self.editor.show_nothing(
                self.tr("%Ln memories selected: use Pin, Move to, Archive or Delete.", "", count)
            )
        else:
            self.editor.show_nothing()

    def _update_selection_label(self) -> list[MemoryRecord]:
        """The label and the bulk buttons as the table's selection really is."""
        records = self.selected_records()
        count = len(records)
        self.selection_label.setText(self.tr("%Ln selected", "", count) if count else "")
        for widget in (self.pin_button, self.unpin_button, self.move_button, self.delete_button):
            widget.setEnabled(count > 0)
        self.keep_button.setVisible(any(r.status == "held" for r in records))
        return records

    def _listed(self, item_id: int) -> bool:
        """Whether the memory is a row the table shows (loaded and not filtered out)."""
        row = self.model.row_of(item_id)
        return row is not None and self.proxy.mapFromSource(self.model.index(row, 0)).isValid()

    def _follow_list(self) -> None:
        """Rows left the list (the instant filter, a reload): the selection label says
        what is really selected, and the editor lets go of a memory no longer listed."""
        self._update_selection_label()
        record = self.editor.record
        if record is not None and not self._listed(record.id):
            self.editor.show_nothing()

    def _remember_selection(self) -> None:
        self._kept_selection = [r.id for r in self.selected_records()]
        self._kept_editor = self.editor.record.id if self.editor.record is not None else None

    def _restore_selection(self) -> None:
        """After the rows were replaced: select again what was selected and still is
        listed, which shows the editor's memory afresh (its history included); a memory
        that left the list leaves the editor too."""
        wanted = self._kept_selection or ([self._kept_editor] if self._kept_editor else [])
        self._kept_selection, self._kept_editor = [], None
        rows = [self.model.row_of(i) for i in wanted]
        indexes = [self.proxy.mapFromSource(self.model.index(r, 0)) for r in rows if r is not None]
        indexes = [i for i in indexes if i.isValid()]
        selection = self.table.selectionModel()
        if not indexes:
            self._selection_changed()  # nothing (left) selected: the editor empties
            return
        selection.blockSignals(True)
        selection.clearSelection()
        for index in indexes:
            selection.select(
                index,
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )
        selection.setCurrentIndex(indexes[0], QItemSelectionModel.SelectionFlag.NoUpdate)
        selection.blockSignals(False)
        self.table.viewport().update()
        self._selection_changed()

    async def _show_item(self, item_id: int, *, asked: bool = False) -> None:
        """Show a memory in the editor and select its row. `asked`: another view opened
        it (Sources, What the assistant saw), which overrides the current selection."""
        service = self.context.service
        selected_before = [r.id for r in self.selected_records()]
        record = await self.context.call(service.get_item, item_id)
        history = await self.context.call(service.item_history, item_id)
        selected = [r.id for r in self.selected_records()]
        if selected and selected != [item_id] and not (asked and selected == selected_before):
            return  # the person selected something else meanwhile
        self.editor.refresh(record, history)
        await self._show_links(item_id)
        row = self.model.row_of(item_id)
        if row is not None:
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            if index.isValid() and not self.table.selectionModel().isRowSelected(index.row()):
                self.table.selectionModel().blockSignals(True)
                self.table.selectionModel().select(
                    index,
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
                self.table.selectionModel().blockSignals(False)
                self.table.scrollTo(index)
                self._update_selection_label()

    async def _show_links(self, item_id: int) -> None:
        links = await self.context.call(self.context.service.memory_links, item_id)
        if self.editor.record is not None and self.editor.record.id == item_id:
            self.editor.links.show_links(item_id, links)

    async def _add_link(self, item_id: int, target: int, kind: str) -> None:
        try:
            await self.context.call(self.context.service.add_link, item_id, target, kind)
        except (ValidationError, NotFoundError) as exc:
            self.context.events.notify.emit(str(exc), None)
            return
        await self._show_links(item_id)
        self.context.events.notify.emit(
            self.tr("Linked memory #{number} to #{target}.").format(number=item_id, target=target),
            self._undo,
        )

    def save(self, item_id: int, changes: dict[str, Any]) -> None:
        self.context.spawn(self._save(item_id, changes))

    async def _save(self, item_id: int, changes: dict[str, Any]) -> None:
        service = self.context.service
        try:
            record = await self.context.call(service.edit_item, item_id, **changes)
        except ValidationError as exc:
            self.editor.show_errors(exc.errors)
            return
        history = await self.context.call(service.item_history, item_id)
        self.editor.show_record(record, history)
        self.model.update_record(record)
        self.context.events.notify.emit(
            self.tr("Saved memory #{number}.").format(number=item_id), self._undo
        )
        self.context.events.memories_changed.emit()

    # -- bulk actions -----------------------------------------------------------------

    def delete_selected(self) -> None:
        ids = [r.id for r in self.selected_records()]
        if ids:
            done = self.tr("Deleted %Ln memories.", "", len(ids))
            self.context.spawn(self._bulk(ids, "delete", {"status": "deleted"}, done))

    def keep_selected(self) -> None:
        ids = [r.id for r in self.selected_records() if r.status == "held"]
        if ids:
            done = self.tr("Kept %Ln memories.", "", len(ids))
            self.context.spawn(self._bulk(ids, "keep", {"status": "active"}, done))

    def bulk_pin(self, pinned: bool) -> None:
        ids = [r.id for r in self.selected_records()]
        if ids:
            if pinned:
                done = self.tr("Pinned %Ln memories.", "", len(ids))
            else:
                done = self.tr("Unpinned %Ln memories.", "", len(ids))
            action = "pin" if pinned else "unpin"
            self.context.spawn(self._bulk(ids, action, {"pinned": pinned}, done))

    def bulk_move(self, category: str) -> None:
        ids = [r.id for r in self.selected_records()]
        if ids:
            name = next((c.name for c in self.categories if c.key == category), category)
            done = self.tr("Moved to {category}: %Ln memories.", "", len(ids)).format(category=name)
            self.context.spawn(self._bulk(ids, "recategorize", {"category": category}, done))

    async def _bulk(self, ids: list[int], action: str, changes: dict[str, Any], done: str) -> None:
        """Apply `changes` to the memories `ids`, then say `done` (with an undo)."""
        await self.context.call(self.context.service.bulk_set, ids, action, **changes)
        self.context.events.notify.emit(done, self._undo)
        self.context.events.memories_changed.emit()

    def archive_selected(self, archived: bool = True) -> None:
        """Archive the selected active memories (or unarchive the archived ones)."""
        wanted = "active" if archived else "archived"
        ids = [r.id for r in self.selected_records() if r.status == wanted]
        if ids:
            self.set_archived(ids, archived)

    def set_archived(self, ids: list[int], archived: bool) -> None:
        self.context.spawn(self._set_archived(ids, archived))

    async def _set_archived(self, ids: list[int], archived: bool) -> None:
        try:
            changed = await self.context.call(self.context.service.set_archived, ids, archived)
        except ValidationError as exc:
            self.context.events.notify.emit("; ".join(exc.errors.values()), None)
            return
        if archived:
            done = self.tr("Archived %Ln memories.", "", len(changed))
        else:
            done = self.tr("Unarchived %Ln memories.", "", len(changed))
        self.context.events.notify.emit(done, self._undo)
        self.context.events.memories_changed.emit()

    # -- categories -------------------------------------------------------------------

    def _category_info(self, key: str) -> CategoryInfo | None:
        return next((c for c in self.categories if c.key == key), None)

    def _category_buttons(self) -> None:
        chosen = self.selected_category() != ALL
        self.rename_category_button.setEnabled(chosen)
        self.merge_category_button.setEnabled(chosen and len(self.categories) > 1)

    def add_category(self) -> None:
        dialog = CategoryDialog(self)
        dialog.submitted.connect(
            lambda name, description: self.context.spawn(
                self._add_category(dialog, name, description)
            )
        )
        self._open_dialog(dialog)

    async def _add_category(self, dialog: CategoryDialog, name: str, description: str) -> None:
        try:
            info = await self.context.call(self.context.service.add_category, name, description)
        except ValidationError as exc:
            dialog.show_error("; ".join(exc.errors.values()))
            return
        dialog.accept()
        self.context.events.notify.emit(
            self.tr("Added the category “{name}”.").format(name=info.name), self._undo
        )
        await self.reload()
        self._select_category(info.key)
        self.context.events.memories_changed.emit()

    def rename_category(self) -> None:
        info = self._category_info(self.selected_category())
        if info is None:
            return
        dialog = CategoryDialog(self, info)
        dialog.submitted.connect(
            lambda name, description: self.context.spawn(
                self._rename_category(dialog, info.key, name, description)
            )
        )
        self._open_dialog(dialog)

    async def _rename_category(
        self, dialog: CategoryDialog, key: str, name: str, description: str
    ) -> None:
        service = self.context.service
        try:
            info = await self.context.call(service.rename_category, key, name, description)
        except ValidationError as exc:
            dialog.show_error("; ".join(exc.errors.values()))
            return
        dialog.accept()
        self.context.events.notify.emit(
            self.tr("Saved the category “{name}”.").format(name=info.name), self._undo
        )
        self.context.events.memories_changed.emit()

    def merge_category(self) -> None:
        source = self._category_info(self.selected_category())
        if source is None or len(self.categories) < 2:
            return
        dialog = MergeCategoryDialog(self, source, self.categories)
        dialog.submitted.connect(
            lambda target: self.context.spawn(self._merge_category(dialog, source, target))
        )
        self._open_dialog(dialog)

    async def _merge_category(
        self, dialog: MergeCategoryDialog, source: CategoryInfo, target: str
    ) -> None:
        service = self.context.service
        try:
            moved = await self.context.call(service.merge_category, source.key, target)
        except ValidationError as exc:
            dialog.show_error("; ".join(exc.errors.values()))
            return
        dialog.accept()
        into = self._category_info(target)
        self.context.events.notify.emit(
            self.tr("Merged “{source}” into “{target}”: moved %Ln memories.", "", moved).format(
                source=source.name, target=into.name if into else target
            ),
            self._undo,
        )
        self._select_category(target)
        self.context.events.memories_changed.emit()

    def _open_dialog(self, dialog: CategoryDialog | MergeCategoryDialog) -> None:
        if self.category_dialog is not None:
            self.category_dialog.close()
        self.category_dialog = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda *_: self._dialog_closed(dialog))
        dialog.open()

    def _dialog_closed(self, dialog: QWidget) -> None:
        if self.category_dialog is dialog:
            self.category_dialog = None

    def _select_category(self, key: str) -> None:
        for index in range(self.category_list.topLevelItemCount()):
            item = self.category_list.topLevelItem(index)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == key:
                self.category_list.setCurrentItem(item)
                return

    def _category_menu(self, position: Any) -> None:
        item = self.category_list.itemAt(position)
        if item is not None:
            self.category_list.setCurrentItem(item)
        menu = QMenu(self)
        menu.addAction(self.tr("Add Category…"), self.add_category)
        if self.selected_category() != ALL:
            menu.addAction(self.tr("Rename…"), self.rename_category)
            merge = menu.addAction(self.tr("Merge Into…"), self.merge_category)
            merge.setEnabled(len(self.categories) > 1)
        menu.popup(self.category_list.viewport().mapToGlobal(position))

    def _undo(self) -> None:
        self.context.spawn(self._undo_async())

    async def _undo_async(self) -> None:
        service = self.context.service
        if not await self.context.call(service.can_undo):
            self.context.events.notify.emit(self.tr("Nothing to undo."), None)
            return
        ids = await self.context.call(service.undo)
        self.context.events.notify.emit(
            self.tr("Undid the last change to %Ln memories.", "", len(ids))
            if ids
            else self.tr("Undid the last change."),  # a category's: no memory changed
            None,
        )
        self.context.events.memories_changed.emit()

    def _memories_changed(self) -> None:
        if self._started:
            self.model.reload()
            self.context.spawn(self.reload())

    def _header_menu(self, position: Any) -> None:
        menu = QMenu(self)
        for column in range(1, self.model.columnCount()):
            title = self.model.headerData(column, Qt.Orientation.Horizontal)
            action = menu.addAction(str(title))
            action.setCheckable(True)
            action.setChecked(not self.table.isColumnHidden(column))
            action.toggled.connect(lambda shown, c=column: self.table.setColumnHidden(c, not shown))
        menu.popup(self.table.horizontalHeader().mapToGlobal(position))

    def _context_menu(self, position: Any) -> None:
        if not self.selected_records():
            return
        menu = QMenu(self)
        pin = QAction(self.tr("Pin"), menu)
        pin.triggered.connect(lambda: self.bulk_pin(True))
        unpin = QAction(self.tr("Unpin"), menu)
        unpin.triggered.connect(lambda: self.bulk_pin(False))
        delete = QAction(self.tr("Delete"), menu)
        delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        delete.triggered.connect(self.delete_selected)
        menu.addAction(pin)
        menu.addAction(unpin)
        menu.addMenu(self.move_menu).setText(self.tr("Move to"))
        statuses = {r.status for r in self.selected_records()}
        if "active" in statuses:
            menu.addAction(self.tr("Archive"), lambda: self.archive_selected(True))
        if "archived" in statuses:
            menu.addAction(self.tr("Unarchive"), lambda: self.archive_selected(False))
        menu.addSeparator()
        menu.addAction(self.publish_action)
        if any(r.sharing == TEAM for r in self.selected_records()):
            menu.addAction(self.tr("Make Personal Again"), self.unpublish_selected)
        menu.addSeparator()
        menu.addAction(delete)
        menu.popup(self.table.viewport().mapToGlobal(position))

    # -- team -------------------------------------------------------------------------

    def publish_selected(self) -> None:
        """Open the preview of what publishing the selected memories would send."""
        ids = [r.id for r in self.selected_records()]
        if not ids:
            return
        if self.publish_dialog is not None:
            self.publish_dialog.close()
        dialog = self.publish_dialog = PublishDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda *_: self._publish_dialog_closed(dialog))
        dialog.publish_requested.connect(lambda wanted: self.context.spawn(self._publish(wanted)))
        dialog.open()
        self.context.spawn(self._preview(dialog, ids))

    async def _preview(self, dialog: PublishDialog, ids: list[int]) -> None:
        service = self.context.service
        preview = await self.context.call(service.publish_preview, ids)
        if self.publish_dialog is dialog:
            dialog.show_preview(preview)

    async def _publish(self, ids: list[int]) -> None:
        service = self.context.service
        done = await self.context.call(service.publish, ids)
        count = len(done.published)
        self.context.events.notify.emit(
            self.tr("Published %Ln memories: they go to your team with the next sync.", "", count),
            self._undo,
        )
        self.context.events.memories_changed.emit()

    def _publish_dialog_closed(self, dialog: PublishDialog) -> None:
        if self.publish_dialog is dialog:
            self.publish_dialog = None

    def unpublish_selected(self) -> None:
        ids = [r.id for r in self.selected_records() if r.sharing == TEAM]
        if ids:
            self.context.spawn(self._unpublish(ids))

    async def _unpublish(self, ids: list[int]) -> None:
        changed = await self.context.call(self.context.service.unpublish, ids)
        self.context.events.notify.emit(
            self.tr("%Ln memories are personal again.", "", len(changed)), self._undo
        )
        self.context.events.memories_changed.emit()
