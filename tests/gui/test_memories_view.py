"""The Memories view driven like a person would: search, filter, edit, delete, undo."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.models.memory_table_model import PAGE, MemoryTableModel
from memory_app.gui.views.memories import MemoriesView
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow
from tests.helpers import ScriptedExtractor, conversation

ITEMS = [
    ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.95, tags=("python",)),
    ExtractedItem("coding_preferences", "Use async/await, never .then() chains", 0.85),
    ExtractedItem("bug_patterns", "Flaky tests came from a shared event loop", 0.78),
    ExtractedItem("project_conventions", "Tests mirror the package layout", 0.9),
    ExtractedItem("architectural_decisions", "Use SQLite with FTS5 for local search", 0.88),
]


def open_view(
    qtbot, context: AppContext, settle: Callable[..., None], items: list[ExtractedItem]
) -> MemoriesView:
    """The view, shown, over a store that learnt `items` from one conversation."""
    context.service.extractor = ScriptedExtractor(items)
    context.service.memorize(
        conversation(("A long enough conversation about our rules.", "Noted, thanks."))
    )
    memories = MemoriesView(context)
    qtbot.addWidget(memories)
    memories.resize(1200, 700)
    memories.show()
    memories.activate()
    settle()
    return memories


@pytest.fixture
def view(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MemoriesView]:
    yield open_view(qtbot, context, settle, list(ITEMS))


def shown(view: MemoriesView) -> list[str]:
    proxy = view.proxy
    return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]


def select_rows(view: MemoriesView, *rows: int) -> None:
    selection = view.table.selectionModel()
    selection.clearSelection()
    for row in rows:
        selection.select(
            view.proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )


def row_of(view: MemoriesView, content: str) -> int:
    return shown(view).index(content)


def test_models_pass_the_model_tester(qtmodeltester, view: MemoriesView) -> None:
    assert view.model.rowCount() == 5
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.proxy)


def test_categories_with_counts_and_a_rendered_summary(
    view: MemoriesView, settle: Callable[..., None]
) -> None:
    tree = view.category_list
    rows = [
        (tree.topLevelItem(i).text(0), tree.topLevelItem(i).text(1))
        for i in range(tree.topLevelItemCount())
    ]
    assert rows[0] == ("All memories", "5")
    assert ("Coding preferences", "2") in rows
    tree.setCurrentItem(tree.topLevelItem(rows.index(("Coding preferences", "2"))))
    settle()
    assert sorted(shown(view)) == [
        "Prefer pathlib over os.path",
        "Use async/await, never .then() chains",
    ]
    html = view.summary.toHtml()
    assert "Key Facts" in html and "Prefer pathlib over os.path" in html
    assert "**" not in view.summary.toPlainText()  # markdown was rendered, not shown raw


def test_search_narrows_the_table_while_typing(
    qtbot, view: MemoriesView, settle: Callable[..., None], run_until: Callable[..., None]
) -> None:
    qtbot.keyClicks(view.search, "tests")
    # The loaded rows narrow at once, before the debounced full-text query runs.
    assert sorted(shown(view)) == [
        "Flaky tests came from a shared event loop",
        "Tests mirror the package layout",
    ]
    run_until(lambda: view.model.query.text == "tests" and not view.model.busy)
    settle()
    assert view.model.total == 2
    assert view.footer.text() == "2 memories"
    view.search.clear()
    view.apply_filters()
    settle()
    assert len(shown(view)) == 5


def test_filters_combine(view: MemoriesView, settle: Callable[..., None]) -> None:
    view.min_confidence.setValue(0.86)
    settle()
    assert len(shown(view)) == 3
    view.category_list.setCurrentItem(view.category_list.topLevelItem(1))  # coding prefs
    settle()
    assert shown(view) == ["Prefer pathlib over os.path"]
    view.pinned_filter.setCurrentIndex(1)  # pinned only
    settle()
    assert shown(view) == []
    assert view.footer.text() == "No memories match these filters."


def test_sorting_asks_the_store(view: MemoriesView, settle: Callable[..., None]) -> None:
    view.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)  # confidence
    settle()
    assert view.model.query.sort_key == "confidence"
    values = [float(view.proxy.index(r, 2).data()) for r in range(view.proxy.rowCount())]
    assert values == sorted(values)


def test_edit_a_memory_and_see_it_saved(
    qtbot, view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    select_rows(view, row_of(view, "Prefer pathlib over os.path"))
    settle()
    editor = view.editor
    assert editor.record is not None
    item_id = editor.record.id
    editor.ui.content.setPlainText("Prefer pathlib over os.path, always")
    editor.ui.tags.setText("python, files")
    editor.ui.pinned.setChecked(True)
    qtbot.mouseClick(editor.ui.save, Qt.MouseButton.LeftButton)
    settle()
    stored = context.service.get_item(item_id)
    assert stored.content == "Prefer pathlib over os.path, always"
    assert stored.tags == ("files", "python")
    assert stored.pinned
    assert "Prefer pathlib over os.path, always" in shown(view)
    history = [editor.ui.history.item(i).text() for i in range(editor.ui.history.count())]
    assert history[-1].endswith("user · update: content, tags, pinned")


def test_invalid_edits_are_marked_next_to_the_field(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    select_rows(view, 0)
    settle()
    editor = view.editor
    item_id = editor.record.id
    before = context.service.get_item(item_id)
    editor.ui.content.setPlainText("   ")
    editor.ui.hasValidFrom.setChecked(True)
    editor.ui.hasValidUntil.setChecked(True)
    editor.ui.validUntil.setDateTime(editor.ui.validFrom.dateTime().addDays(-2))
    editor.request_save()
    settle()
    assert editor.error_text("content") == "content must not be empty"
    assert "valid until must not be before valid from" in editor.error_text("valid_until")
    assert editor.error_text("confidence") == ""
    assert context.service.get_item(item_id) == before


def test_delete_and_undo(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    notes: list[tuple[str, object]] = []
    context.events.notify.connect(lambda text, undo: notes.append((text, undo)))
    row = row_of(view, "Tests mirror the package layout")
    item_id = view.model.record(view.proxy.mapToSource(view.proxy.index(row, 0)).row()).id
    select_rows(view, row)
    view.delete_selected()
    settle()
    assert "Tests mirror the package layout" not in shown(view)
    assert context.service.get_item(item_id).status == "deleted"
    text, undo = notes[-1]
    assert text == "Deleted 1 memory."
    assert callable(undo)
    undo()
    settle()
    assert context.service.get_item(item_id).status == "active"
    assert "Tests mirror the package layout" in shown(view)


def test_bulk_delete_pin_and_move(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    undos: list[object] = []
    context.events.notify.connect(lambda _text, undo: undos.append(undo))
    select_rows(view, 0, 1, 2)
    assert view.selection_label.text() == "3 selected"
    ids = [r.id for r in view.selected_records()]
    view.bulk_pin(True)
    settle()
    assert all(context.service.get_item(i).pinned for i in ids)
    select_rows(view, *[row_of(view, context.service.get_item(i).content) for i in ids[:2]])
    view.bulk_move("implementation_notes")
    settle()
    assert {context.service.get_item(i).category for i in ids[:2]} == {"implementation_notes"}
    select_rows(view, *range(len(shown(view))))
    view.delete_selected()
    settle()
    assert shown(view) == []
    assert context.service.get_stats().items_by_status == {"deleted": 5}
    undos[-1]()  # the Undo button of the transient message
    settle()
    assert len(shown(view)) == 5
    assert context.service.get_stats().items_by_status == {"active": 5}


def test_the_model_loads_lazily(qtbot, context: AppContext, settle: Callable[..., None]) -> None:
    now = datetime.now(UTC)
    rows = [
        MemoryItemRow(
            category=DEFAULT_CATEGORIES[n % 5].key,
            content=f"Generated memory number {n}",
            content_key="",
            confidence=0.8,
            extracted_at=now - timedelta(minutes=n),
            updated_at=now,
        )
        for n in range(1000)
    ]
    with context.service.db.writing() as session:
        repo.bulk_add_items(session, context.service.db.dialect, rows, actor="system", group_id="t")
    view = MemoriesView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    model: MemoryTableModel = view.model
    assert model.total == 1000
    assert model.rowCount() == PAGE
    assert model.canFetchMore()
    model.fetchMore()
    model.fetchMore()  # re-entry while the page is loading is ignored
    settle()
    assert model.rowCount() == 2 * PAGE
    assert model.record(0).content == "Generated memory number 0"
    assert "1,000 memories · 400 loaded" in view.footer.text()


def test_navigating_to_a_memory_opens_it_and_its_source_link_works(
    qtbot, view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    item = context.service.search("pathlib")[0]
    view.activate(item.id)
    settle()
    assert view.editor.record is not None and view.editor.record.id == item.id
    assert f"Open conversation #{item.source_resource_id}" in view.editor.ui.source.text()
    with qtbot.waitSignal(context.events.navigate) as blocker:
        view.editor.ui.source.linkActivated.emit(
            f"source:{item.source_resource_id}:{item.turn_start or -1}:{item.turn_end or -1}"
        )
    key, where = blocker.args
    assert key == "sources"
    assert where[0] == item.source_resource_id


def test_a_memory_held_for_a_possible_secret_is_reviewed_and_kept(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    token = "Zx8Qp2Lm" + "9Kv4Tr7W" + "y1Bn5Hd3Fs6Gj0"  # in pieces: scanners skip this file
    items = [
        ExtractedItem("project_conventions", f"Deploy staging with the key {token}", 0.9),
        ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.95),
    ]
    memories = open_view(qtbot, context, settle, items)
    assert shown(memories) == ["Prefer pathlib over os.path"]  # held back from Active
    labels = [memories.status_filter.itemText(i) for i in range(memories.status_filter.count())]
    memories.status_filter.setCurrentIndex(labels.index("Held for review"))
    settle()
    assert shown(memories) == [f"Deploy staging with the key {token}"]
    select_rows(memories, 0)
    settle()
    assert memories.keep_button.isVisibleTo(memories)
    memories.keep_button.click()
    settle()
    (held,) = [i for i in context.service.list_items(status=None, limit=10) if token in i.content]
    assert held.status == "active"
    assert shown(memories) == []  # it left the review queue
