"""Dashboard: the store at a glance (seed 000 §7.2), each number a way into its view."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFont, QHideEvent, QIcon, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStackedLayout,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.assets import icon_path
from memory_app.domain.records import ActivityEntry, CategoryInfo, DashboardData, Stats
from memory_app.gui.context import AppContext
from memory_app.gui.times import full_time, relative_time, upcoming_time
from memory_app.gui.views.base import View
from memory_app.gui.widgets.scroll_page import scroll_page
from memory_app.gui.widgets.stat_card import StatCard
from memory_app.gui.widgets.tree_items import top_level_items
from memory_app.gui.widgets.welcome import WelcomePanel

MARGIN = 20
SPACING = 12

# Card key → the view and argument that clicking it opens (captions: `card_captions()`).
CARDS: dict[str, tuple[str, Any]] = {
    "items": ("memories", None),
    "categories": ("memories", None),
    "resources": ("sources", None),
    "conflicts": ("conflicts", None),
    "last_memorized": ("sources", None),
    "next_maintenance": ("maintenance", None),
}
CHARTS_MODULE = "memory_app.gui.widgets.charts"
CHART_STRETCH = (4, 3, 3)  # category names need the most room
CHART_MIN_HEIGHT = 230  # the charts own minimum, so nothing moves when they arrive
ACTIVITY_ICONS = {"import": "sources", "change": "memories", "maintenance": "maintenance"}


def _is_empty(data: DashboardData) -> bool:
    """Nothing imported yet: the dashboard shows its welcome page."""
    return not any(data.stats.items_by_status.values()) and data.stats.resources == 0


class CardRow(QWidget):
    """The stat cards: one row when there is room, otherwise rows of three (or two)."""

    def __init__(self, cards: list[StatCard], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards = cards
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(SPACING)
        self.columns = 0
        self._arrange(len(cards))

    def columns_for(self, width: int) -> int:
        widest = max(card.minimumSizeHint().width() for card in self.cards)
        for columns in (len(self.cards), 3, 2):
            if columns * widest + (columns - 1) * SPACING <= width:
                return columns
        return 1

    def _arrange(self, columns: int) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        for card in self.cards:
            self.grid.removeWidget(card)
        for column in range(len(self.cards)):
            self.grid.setColumnStretch(column, 1 if column < columns else 0)
        for index, card in enumerate(self.cards):
            self.grid.addWidget(card, index // columns, index % columns)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange(self.columns_for(event.size().width()))

    def minimumSizeHint(self) -> QSize:
        # Narrow enough for one column, so the scroll area decides the width.
        hint = super().minimumSizeHint()
        widest = max(card.minimumSizeHint().width() for card in self.cards)
        return QSize(widest, hint.height())


class DashboardView(View):
    """Cards, three charts and recent activity; a welcome page while the store is empty.

    Every number comes from `service.dashboard()` (with `service.categories()` for the
    chart's names and order), run on the database worker, and is refreshed while the
    view is visible whenever memories or sources change.
    """

    key = "dashboard"
    icon = "dashboard"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Dashboard")
        self.data: DashboardData | None = None
        self._categories: list[CategoryInfo] | None = None
        self._loading = False
        self._reload_again = False

        self.welcome = WelcomePanel(context, self)
        self.welcome.setObjectName("dashboardWelcome")

        self.scroll_area, content = scroll_page(self, "dashboardScroll")
        content.setObjectName("dashboardContent")

        self.cards: dict[str, StatCard] = {}
        captions = self.card_captions()
        for key, target in CARDS.items():
            card = StatCard(captions[key], content)
            card.setObjectName(f"{key}Card")
            card.clicked.connect(lambda target=target: self.context.events.navigate.emit(*target))
            self.cards[key] = card
        self.card_row = CardRow(list(self.cards.values()), content)

        # The charts (pyqtgraph and numpy: a third of a second to import) are built on
        # the first load, after the window has painted; until then they hold a place.
        self._chart_host = content
        self._charts_layout = charts = QHBoxLayout()
        charts.setSpacing(SPACING)
        self._placeholders: list[QWidget] = []
        for stretch in CHART_STRETCH:
            placeholder = QWidget(content)
            placeholder.setMinimumHeight(CHART_MIN_HEIGHT)
            charts.addWidget(placeholder, stretch)
            self._placeholders.append(placeholder)
        self.category_chart: Any = None
        self.weekly_chart: Any = None
        self.confidence_chart: Any = None

        heading = QLabel(self.tr("Recent activity"), content)
        heading.setObjectName("activityHeading")
        font = QFont(heading.font())
        font.setWeight(QFont.Weight.DemiBold)
        heading.setFont(font)
        self.activity = QTreeWidget(content)
        self.activity.setObjectName("activityList")
        self.activity.setRootIsDecorated(False)
        self.activity.setUniformRowHeights(True)
        self.activity.setHeaderHidden(True)
        self.activity.setColumnCount(2)
        self.activity.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.activity.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.activity.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.activity.setIconSize(QSize(16, 16))
        header = self.activity.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.activity.itemActivated.connect(self._open_activity)
        self.no_activity = QLabel(
            self.tr("Nothing yet: import a conversation from File ▸ Import"), content
        )
        self.no_activity.setObjectName("noActivity")
        self.no_activity.setWordWrap(True)
        self.activity_pages = QStackedLayout()
        self.activity_pages.addWidget(self.no_activity)
        self.activity_pages.addWidget(self.activity)

        column = QVBoxLayout(content)
        column.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        column.setSpacing(SPACING)
        column.addWidget(self.card_row)
        self.usage = QLabel("", content)
        self.usage.setObjectName("modelUsage")
        self.usage.setToolTip(
            self.tr("Model calls made by the Claude extractor; costs are estimates.")
        )
        self.usage.hide()
        column.addWidget(self.usage)
        column.addSpacing(SPACING)
        column.addLayout(charts)
        column.addSpacing(SPACING)
        column.addWidget(heading)
        column.addLayout(self.activity_pages)
        column.addStretch(1)

        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.scroll_area)
        self.pages.addWidget(self.welcome)

        # Relative times ("5 min ago") go stale while the page is open.
        self._clock = QTimer(self)
        self._clock.setInterval(60_000)
        self._clock.timeout.connect(self._refresh_times)
        context.events.memories_changed.connect(self._store_changed)
        context.events.sources_changed.connect(self._store_changed)

    # -- words ------------------------------------------------------------------------

    def card_captions(self) -> dict[str, str]:
        """Card key → its caption."""
        return {
            "items": self.tr("Memories"),
            "categories": self.tr("Categories"),
            "resources": self.tr("Conversations processed"),
            "conflicts": self.tr("Open conflicts"),
            "last_memorized": self.tr("Last memorized"),
            "next_maintenance": self.tr("Next maintenance"),
        }

    def kept_aside(self) -> tuple[tuple[str, str], ...]:
        """How the memories card explains what is kept but not counted
        (records.COUNTED_STATUSES): (status, words placing the {count})."""
        return (
            ("held", self.tr("{count} held for review")),
            ("archived", self.tr("{count} archived")),
            ("superseded", self.tr("{count} superseded")),
            ("invalid", self.tr("{count} marked invalid")),
            ("deleted", self.tr("{count} deleted")),
        )

    def items_tooltip(self, stats: Stats) -> str:
        """What the memories card counts, and what the store keeps beside it."""
        lines = [
            self.tr(
                "%Ln active memories: the ones search and the assistant's context use"
                " ({pinned} pinned).",
                "",
                stats.items,
            ).format(pinned=f"{stats.pinned:,}")
        ]
        aside = [
            words.format(count=f"{stats.items_by_status.get(status, 0):,}")
            for status, words in self.kept_aside()
            if stats.items_by_status.get(status, 0)
        ]
        if aside:
            lines.append(self.tr("Also kept, not counted: {kinds}.").format(kinds=", ".join(aside)))
        lines.append(self.tr("Open Memories."))
        return "\n".join(lines)

    # -- loading ----------------------------------------------------------------------

    async def reload(self) -> None:
        if self._loading:
            # Changes arrived while a load was under way: load once more afterwards.
            self._reload_again = True
            return
        self._loading = True
        try:
            while True:
                self._reload_again = False
                if self.category_chart is None:  # import off the GUI thread, build on it
                    await self.context.call(importlib.import_module, CHARTS_MODULE)
                    await self._build_charts_gradually()
                data = await self.context.call(self.context.service.dashboard)
                categories = await self.context.call(self.context.service.categories)
                self._categories = categories
                if _is_empty(data):
                    await self.welcome.load()
                self.show_data(data)
                if not self._reload_again:
                    break
        finally:
            self._loading = False

    def _store_changed(self) -> None:
        if self.isVisible():
            self.context.spawn(self.reload())

    # -- showing ----------------------------------------------------------------------

    _CHART_CLASSES = ("CategoryBarChart", "WeeklyAddedChart", "ConfidenceHistogram")
    _CHART_ATTRIBUTES = ("category_chart", "weekly_chart", "confidence_chart")

    def _build_chart(self, number: int) -> None:
        """Build chart `number` in place of its placeholder (15-25 ms of GUI-thread work)."""
        if getattr(self, self._CHART_ATTRIBUTES[number]) is not None:
            return
        charts = importlib.import_module(CHARTS_MODULE)
        chart = getattr(charts, self._CHART_CLASSES[number])(self._chart_host)
        placeholder = self._placeholders[number]
        index = self._charts_layout.indexOf(placeholder)
        self._charts_layout.takeAt(index)
        placeholder.deleteLater()
        self._charts_layout.insertWidget(index, chart, CHART_STRETCH[number])
        setattr(self, self._CHART_ATTRIBUTES[number], chart)

    async def _build_charts_gradually(self) -> None:
        """One chart per loop turn, so building them never stalls the window for long."""
        for number in range(len(self._CHART_CLASSES)):
            self._build_chart(number)
            await asyncio.sleep(0)

    def _install_charts(self) -> None:
        for number in range(len(self._CHART_CLASSES)):
            self._build_chart(number)

    def show_data(self, data: DashboardData) -> None:
        """Fill every card, chart and list from `data` (no I/O)."""
        self._install_charts()
        self.data = data
        self._show_usage(data)
        stats = data.stats
        if _is_empty(data):
            self.pages.setCurrentWidget(self.welcome)
            return
        self.pages.setCurrentWidget(self.scroll_area)

        self.cards["items"].set_value(f"{stats.items:,}", self.items_tooltip(stats))
        self.cards["categories"].set_value(f"{stats.categories:,}", self.tr("Open Memories."))
        self.cards["resources"].set_value(f"{stats.resources:,}", self.tr("Open Sources."))
        self.cards["conflicts"].set_value(
            f"{stats.conflicts_open:,}",
            self.tr("Contradicting memories waiting for your decision.\nOpen Conflicts.")
            if stats.conflicts_open
            else self.tr("No contradictions to resolve.\nOpen Conflicts."),
        )
        self._show_times()

        counts, names = self._category_counts(data)
        self.category_chart.set_data(counts, names)
        self.weekly_chart.set_data(
            data.weekly_added,
            empty_text=self.tr("Nothing added in these weeks") if stats.items else None,
        )
        self.confidence_chart.set_data(data.confidence_histogram)
        self._show_activity(data.activity)

    def _show_usage(self, data: DashboardData) -> None:
        usage = data.usage
        if usage is None or usage.runs == 0:
            self.usage.hide()
            return
        tokens = usage.input_tokens + usage.output_tokens
        cost = f"${usage.cost_usd:,.2f}" if usage.cost_usd >= 0.01 else self.tr("under $0.01")
        text = self.tr("Claude: {runs} · {requests} · {tokens} · {cost} estimated").format(
            runs=self.tr("%Ln extraction runs", "", usage.runs),
            requests=self.tr("%Ln requests", "", usage.requests),
            # The count chooses the word; the number keeps its thousands separators.
            tokens=self.tr("{count} tokens", "", tokens).format(count=f"{tokens:,}"),
            cost=cost,
        )
        if usage.errors:
            text = self.tr("{usage} · {count} failed").format(usage=text, count=usage.errors)
        self.usage.setText(text)
        self.usage.show()

    def _show_times(self) -> None:
        if self.data is None:
            return
        last = self.data.stats.last_memorized
        self.cards["last_memorized"].set_value(
            relative_time(last),
            self.tr("Last import: {time}.\nOpen Sources.").format(time=full_time(last))
            if last
            else self.tr("Nothing imported yet."),
        )
        upcoming = self.data.next_maintenance
        if upcoming is None:
            self.cards["next_maintenance"].set_value(
                self.tr("Not scheduled"),
                self.tr(
                    "Every maintenance job is switched off.\nOpen Maintenance to switch them on."
                ),
            )
        else:
            self.cards["next_maintenance"].set_value(
                upcoming_time(upcoming),
                self.tr("{time}.\nOpen Maintenance.").format(time=full_time(upcoming)),
            )

    def _category_counts(self, data: DashboardData) -> tuple[dict[str, int], dict[str, str]]:
        """Counts in the categories' own order, empty categories included, with names."""
        by_category = data.stats.items_by_category
        categories = sorted(self._categories or [], key=lambda c: (c.position, c.name))
        counts = {c.key: by_category.get(c.key, 0) for c in categories}
        for key, count in by_category.items():
            counts.setdefault(key, count)
        return counts, {c.key: c.name for c in categories}

    def _show_activity(self, entries: tuple[ActivityEntry, ...]) -> None:
        self.activity.clear()
        for entry in sorted(entries, key=lambda e: e.at, reverse=True):
            row = QTreeWidgetItem([entry.text, relative_time(entry.at)])
            row.setIcon(0, QIcon(str(icon_path(ACTIVITY_ICONS.get(entry.kind, "dashboard")))))
            row.setToolTip(0, entry.text)
            row.setToolTip(1, full_time(entry.at))
            row.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            row.setData(0, Qt.ItemDataRole.UserRole, entry)
            self.activity.addTopLevelItem(row)
        self.activity_pages.setCurrentWidget(self.activity if entries else self.no_activity)
        # Every entry shows; the page scrolls, the list does not.
        rows = self.activity.topLevelItemCount()
        row_height = self.activity.sizeHintForRow(0) if rows else 0
        frame = 2 * self.activity.frameWidth()
        self.activity.setFixedHeight(rows * row_height + frame + 2)

    def _refresh_times(self) -> None:
        if self.data is None or not self.isVisible():
            return
        self._show_times()
        for row in top_level_items(self.activity):
            entry: ActivityEntry = row.data(0, Qt.ItemDataRole.UserRole)
            row.setText(1, relative_time(entry.at))

    # -- navigation -------------------------------------------------------------------

    def _open_activity(self, row: QTreeWidgetItem, column: int = 0) -> None:
        entry: ActivityEntry = row.data(0, Qt.ItemDataRole.UserRole)
        if entry.kind == "import" and entry.resource_id is not None:
            self.context.events.navigate.emit("sources", entry.resource_id)
        elif entry.kind == "change" and entry.item_id is not None:
            self.context.events.navigate.emit("memories", entry.item_id)
        elif entry.kind == "maintenance":
            self.context.events.navigate.emit("maintenance", None)

    # -- Qt ---------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._clock.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self._clock.stop()
        super().hideEvent(event)
