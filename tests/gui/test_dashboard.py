"""The dashboard against a real store: its numbers, its links, its welcome page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QImage
from sqlmodel import select

from memory_app.domain.records import DashboardData, Stats
from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.views.dashboard import DashboardView
from memory_app.gui.widgets.charts import (
    NO_DATA,
    CategoryBarChart,
    ConfidenceHistogram,
    WeeklyAddedChart,
    abbreviate,
    count_ticks,
    fit_labels,
    week_label,
)
from memory_app.gui.widgets.stat_card import StatCard
from memory_app.store.tables import MemoryItemRow
from tests.helpers import ScriptedExtractor, conversation

ITEMS = [
    ExtractedItem("coding_preferences", "Use tabs for indentation in Go files", 0.92),
    ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.81),
    ExtractedItem("coding_preferences", "Type hints on every public function", 0.77),
    ExtractedItem("architectural_decisions", "SQLite is the only store, no server", 0.88),
    ExtractedItem("bug_patterns", "Timezone-naive datetimes broke the weekly chart", 0.95),
    ExtractedItem("implementation_notes", "Imports run on their own worker thread", 0.99),
]


def fill_store(context: AppContext, samples_dir: Path) -> None:
    """Two scripted conversations and one real Claude Code sample file."""
    context.service.extractor = ScriptedExtractor(ITEMS[:4])
    context.service.memorize(
        conversation(("A long enough message to pass the gate.", "Sure thing."), session="a")
    )
    context.service.extractor = ScriptedExtractor(ITEMS[4:])
    context.service.memorize(
        conversation(("Another message that is long enough to pass.", "Noted."), session="b")
    )
    report = context.service.import_paths([samples_dir / "claude-code" / "spotter_short.jsonl"])
    assert report.resources_added == 1


def make_view(qtbot, context: AppContext, *, shown: bool = False) -> DashboardView:
    view = DashboardView(context)
    qtbot.addWidget(view)
    if shown:
        view.resize(1000, 700)
        view.show()
        qtbot.waitExposed(view)
    return view


def test_the_numbers_match_the_store(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path
) -> None:
    fill_store(context, samples_dir)
    # One memory from long ago: it counts in the totals but not in the last 12 weeks.
    with context.service.db.writing() as session:
        old = session.exec(select(MemoryItemRow).where(MemoryItemRow.id == 1)).one()
        old.extracted_at = datetime.now(UTC) - timedelta(weeks=30)
    view = make_view(qtbot, context)
    view.activate()
    settle()

    stats = context.service.get_stats()
    assert stats.items >= len(ITEMS)
    assert view.pages.currentWidget() is view.scroll_area
    assert view.cards["items"].value() == f"{stats.items:,}"
    assert view.cards["categories"].value() == f"{stats.categories:,}"
    assert view.cards["resources"].value() == f"{stats.resources:,}" == "3"
    assert view.cards["conflicts"].value() == f"{stats.conflicts_open:,}"
    assert view.cards["last_memorized"].value() == "just now"
    assert view.cards["last_memorized"].toolTip().startswith("Last import: ")
    # A fresh store has never been maintained: the first runs are due at once.
    assert view.cards["next_maintenance"].value() == "due now"
    assert "Open Maintenance" in view.cards["next_maintenance"].toolTip()

    # Every category is drawn, in the configured order, empty ones as zero.
    chart = view.category_chart
    assert chart.has_data()
    assert {k: v for k, v in chart.data.items() if v} == stats.items_by_category
    assert list(chart.data)[:2] == ["coding_preferences", "architectural_decisions"]
    assert chart.data["project_conventions"] == stats.items_by_category.get(
        "project_conventions", 0
    )
    assert len(chart.labels) == len(chart.data)

    assert sum(view.confidence_chart.data) == stats.items_by_status["active"]
    assert len(view.confidence_chart.data) == 10
    assert view.confidence_chart.data[9] >= 2  # 0.95 and 0.99

    weeks = view.weekly_chart.data
    assert len(weeks) == 12
    assert weeks == sorted(weeks)
    assert sum(n for _, n in weeks) == stats.items - 1
    assert weeks[-1][1] == stats.items - 1  # everything else was added this week
    assert view.weekly_chart.labels[-1] == (11, week_label(weeks[-1][0]))

    # Recent activity: the three imports, newest first.
    data = view.data
    assert data is not None
    assert view.activity_pages.currentWidget() is view.activity
    assert view.activity.topLevelItemCount() == len(data.activity) == 3
    times = [
        view.activity.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole).at
        for i in range(view.activity.topLevelItemCount())
    ]
    assert times == sorted(times, reverse=True)
    assert view.activity.topLevelItem(0).text(1) == "just now"


def test_next_maintenance_follows_the_schedule(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path
) -> None:
    fill_store(context, samples_dir)
    service = context.service
    for job in service.maintenance_schedule():
        if job.schedule.kind != "weekly":
            service.set_schedule(replace(job.schedule, enabled=False))
    service.run_maintenance("weekly")  # a real run: dry runs do not count for the schedule
    view = make_view(qtbot, context)
    view.activate()
    settle()
    assert view.cards["next_maintenance"].value() == "in 7 days"

    for job in service.maintenance_schedule():
        service.set_schedule(replace(job.schedule, enabled=False))
    view.activate()
    settle()
    assert view.cards["next_maintenance"].value() == "Not scheduled"
    assert "switched off" in view.cards["next_maintenance"].toolTip()


def test_an_empty_store_shows_the_welcome_page(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    assert view.pages.currentWidget() is view.welcome
    assert "Welcome to Memory Curator" in view.welcome.title.text()
    assert "~/.claude/projects" in view.welcome.history_note.text()
    assert "API key" in view.welcome.claude_card.text.text()
    # Importing is asked of the app (the Sources view imports, the dashboard stays shown).
    button = view.welcome.folder_button
    assert button.text().replace("&", "") == "Import Folder…"
    with qtbot.waitSignal(context.events.import_requested, timeout=1000) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["folder"]


def test_conversations_without_memories_show_zeros_and_empty_charts(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    context.service.extractor = ScriptedExtractor([])
    result = context.service.memorize(
        conversation(("A long enough message to pass the gate.", "Sure thing."))
    )
    assert result.status == "empty"
    view = make_view(qtbot, context)
    view.activate()
    settle()
    assert view.pages.currentWidget() is view.scroll_area
    assert view.cards["items"].value() == "0"
    assert view.cards["resources"].value() == "1"
    for chart in (view.category_chart, view.weekly_chart, view.confidence_chart):
        assert not chart.has_data()
        assert chart.note_text() == NO_DATA


@pytest.mark.parametrize(
    ("card", "target"),
    [
        ("items", ("memories", None)),
        ("categories", ("memories", None)),
        ("resources", ("sources", None)),
        ("conflicts", ("conflicts", None)),
        ("last_memorized", ("sources", None)),
        ("next_maintenance", ("maintenance", None)),
    ],
)
def test_clicking_a_card_opens_its_view(
    qtbot,
    context: AppContext,
    settle: Callable[..., None],
    samples_dir: Path,
    card: str,
    target: tuple[str, None],
) -> None:
    fill_store(context, samples_dir)
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    widget = view.cards[card]
    assert widget.isVisible()
    with qtbot.waitSignal(context.events.navigate, timeout=1000) as blocker:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    assert tuple(blocker.args) == target


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space])
def test_a_focused_card_opens_its_view_from_the_keyboard(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path, key: Qt.Key
) -> None:
    fill_store(context, samples_dir)
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    card = view.cards["conflicts"]
    assert card.focusPolicy() & Qt.FocusPolicy.TabFocus
    assert card.cursor().shape() == Qt.CursorShape.PointingHandCursor
    card.setFocus()
    qtbot.waitUntil(card.hasFocus)
    with qtbot.waitSignal(context.events.navigate, timeout=1000) as blocker:
        qtbot.keyClick(card, key)
    assert blocker.args == ["conflicts", None]


def test_a_card_is_a_keyboard_button(qtbot) -> None:
    card = StatCard("Total memories")
    qtbot.addWidget(card)
    card.set_value("1,234", "Open Memories.")
    assert card.focusPolicy() == Qt.FocusPolicy.StrongFocus
    assert card.accessibleName() == "Total memories"
    assert card.toolTip() == "Open Memories."
    assert card.value() == "1,234"
    clicks: list[bool] = []
    card.clicked.connect(lambda: clicks.append(True))
    qtbot.keyClick(card, Qt.Key.Key_A)  # other keys do nothing
    qtbot.mouseClick(card, Qt.MouseButton.RightButton)
    assert clicks == []
    qtbot.keyClick(card, Qt.Key.Key_Space)
    assert clicks == [True]


def test_activity_entries_open_what_they_changed(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path
) -> None:
    fill_store(context, samples_dir)
    context.service.set_pinned(2, True)  # a change a person made
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    entries = {
        view.activity.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole).kind: i
        for i in range(view.activity.topLevelItemCount())
    }
    assert set(entries) == {"import", "change"}
    change_row = view.activity.topLevelItem(entries["change"])
    import_row = view.activity.topLevelItem(entries["import"])
    import_entry = import_row.data(0, Qt.ItemDataRole.UserRole)

    view.activity.setFocus()
    view.activity.setCurrentItem(change_row)
    with qtbot.waitSignal(context.events.navigate, timeout=1000) as blocker:
        qtbot.keyClick(view.activity, Qt.Key.Key_Return)
    assert blocker.args == ["memories", 2]

    centre = view.activity.visualItemRect(import_row).center()
    viewport = view.activity.viewport()
    with qtbot.waitSignal(context.events.navigate, timeout=1000) as blocker:
        # A double click is a press and release, then a double-click event.
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == ["sources", import_entry.resource_id]


def test_changes_reload_the_numbers_while_visible(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path
) -> None:
    fill_store(context, samples_dir)
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    before = context.service.get_stats().items
    assert view.cards["items"].value() == f"{before:,}"

    context.service.extractor = ScriptedExtractor(
        [ExtractedItem("bug_patterns", "Flaky test from a shared temporary folder", 0.9)]
    )
    result = context.service.memorize(
        conversation(("Yet another long enough message to pass.", "Sure thing."), session="c")
    )
    assert result.status == "success"
    context.events.memories_changed.emit()
    settle()
    assert view.cards["items"].value() == f"{before + 1:,}"
    assert view.cards["resources"].value() == "4"

    # Hidden, it does not load; the next activation does.
    view.hide()
    context.service.forget(1)
    context.events.sources_changed.emit()
    assert context.tasks.running == 0
    assert view.cards["items"].value() == f"{before + 1:,}"
    view.show()
    view.activate()
    settle()
    assert view.cards["items"].value() == f"{context.service.get_stats().items:,}"


def test_the_dashboard_renders_to_an_image(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path, tmp_path: Path
) -> None:
    fill_store(context, samples_dir)
    view = make_view(qtbot, context, shown=True)
    view.activate()
    settle()
    qtbot.wait(50)
    path = tmp_path / "dashboard.png"
    assert view.grab().save(str(path))
    image = QImage(str(path))
    assert (image.width(), image.height()) == (1000, 700)
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colours) > 20
    # Nothing is cut off horizontally: the content fits the scroll area's width.
    assert view.scroll_area.horizontalScrollBar().maximum() == 0


def test_the_minimum_size_does_not_clip(
    qtbot, context: AppContext, settle: Callable[..., None], samples_dir: Path
) -> None:
    fill_store(context, samples_dir)
    view = make_view(qtbot, context, shown=True)
    view.resize(700, 520)
    view.activate()
    settle()
    qtbot.wait(50)
    assert view.scroll_area.horizontalScrollBar().maximum() == 0
    for card in view.cards.values():
        assert card.width() >= card.minimumSizeHint().width()
    for chart in (view.category_chart, view.weekly_chart, view.confidence_chart):
        assert chart.height() >= 200


def test_charts_are_read_only(qtbot) -> None:
    for chart in (CategoryBarChart(), WeeklyAddedChart(), ConfidenceHistogram()):
        qtbot.addWidget(chart)
        item = chart.plot.getPlotItem()
        assert chart.view_box.state["mouseEnabled"] == [False, False]
        assert not chart.view_box.menuEnabled()
        assert not item.menuEnabled()
        assert item.buttonsHidden  # the "A" auto-range button
        assert not item.autoBtn.isVisible()
        assert chart.plot.focusPolicy() == Qt.FocusPolicy.NoFocus


def test_charts_show_a_note_without_data(qtbot) -> None:
    bars = CategoryBarChart()
    weekly = WeeklyAddedChart()
    histogram = ConfidenceHistogram()
    for chart in (bars, weekly, histogram):
        qtbot.addWidget(chart)
    bars.set_data({})
    weekly.set_data([])
    histogram.set_data([0] * 10)
    assert not any(c.has_data() for c in (bars, weekly, histogram))
    now = datetime(2026, 6, 8, tzinfo=UTC)
    weekly.set_data([(now - timedelta(weeks=1), 0), (now, 0)], empty_text="Nothing lately")
    assert weekly.note_text() == "Nothing lately"
    weekly.set_data([(now - timedelta(weeks=1), 2), (now, 3)])
    assert weekly.has_data()
    assert weekly.data[-1] == (now.date(), 3)
    bars.set_data({"bug_patterns": 4, "my_own": 1}, {"bug_patterns": "Bug patterns"})
    assert bars.has_data()
    assert bars.data == {"bug_patterns": 4, "my_own": 1}
    assert bars._names["my_own"] == "My own"


def test_show_data_fills_the_view_without_a_store(qtbot, context: AppContext) -> None:
    view = make_view(qtbot, context)
    now = datetime.now(UTC)
    stats = Stats(
        items=3,
        items_by_status={"active": 3},
        items_by_category={"coding_preferences": 3},
        resources=1,
        categories=5,
        conflicts_open=2,
        last_memorized=now - timedelta(minutes=5),
    )
    data = DashboardData(
        stats=stats,
        weekly_added=tuple((now - timedelta(weeks=11 - i), 0) for i in range(12)),
        confidence_histogram=(0,) * 8 + (3, 0),
        activity=(),
        next_maintenance=now + timedelta(hours=3),
    )
    view.show_data(data)
    assert view.cards["conflicts"].value() == "2"
    assert view.cards["last_memorized"].value() == "5 min ago"
    assert view.cards["next_maintenance"].value() == "in 3 h"
    assert not view.weekly_chart.has_data()
    assert view.weekly_chart.note_text() == "Nothing added in these weeks"
    assert view.activity_pages.currentWidget() is view.no_activity
    assert "File ▸ Import" in view.no_activity.text()


def test_count_ticks_are_whole_numbers() -> None:
    assert count_ticks(0) == ([0, 1], 1)
    assert count_ticks(1) == ([0, 1], 1)
    assert count_ticks(7) == ([0, 2, 4, 6, 8], 8)
    assert count_ticks(123) == ([0, 50, 100, 150], 150)


def test_labels_shrink_until_they_fit(qtbot) -> None:
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    metrics = QFontMetrics(chart.font())
    names = ["Coding preferences", "Architectural decisions", "Bug patterns"]
    assert fit_labels(names, 1000, metrics) == (names, 1)
    wrapped, lines = fit_labels(names, metrics.horizontalAdvance("Architectural") + 1, metrics)
    assert lines == 2 and wrapped[0] == "Coding\npreferences"
    short, lines = fit_labels(names, metrics.horizontalAdvance("Arch.") + 1, metrics)
    assert lines == 1
    assert short[1] == "Arch."
    assert all(
        metrics.horizontalAdvance(label) <= metrics.horizontalAdvance("Arch.") + 1
        for label in short
    )
    assert abbreviate("Implementation") == "Impl."
    assert abbreviate("Bug") == "Bug"
    assert week_label(datetime(2026, 6, 8)) == "Jun 8"


def test_model_usage_and_cost_are_shown_once_claude_ran(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    from memory_app.domain.usage import CallUsage
    from memory_app.store import usage as usage_store
    from tests.helpers import conversation as chat

    context.service.memorize(chat(("We always use async/await, never .then() chains.", "Ok!")))
    view = DashboardView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    assert view.usage.isHidden()  # the offline extractor costs nothing: no line
    with context.service.db.writing() as session:
        usage_store.record_run(
            session,
            CallUsage("extract", "claude-haiku-4-5", 2, 1000, 200),
            extractor="claude",
        )
    view.activate()
    settle()
    assert not view.usage.isHidden()
    assert view.usage.text() == (
        "Claude: 1 extraction run · 2 requests · 1,200 tokens · under $0.01 estimated"
    )
