"""Issue 17 in the window: one count of memories everywhere, category names from the
first paint, an editor and a selection label that follow the list, history after undo,
redo with Ctrl+Shift+Z, type / importance / scope, archive, and categories a person adds,
renames and merges."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from memory_app.domain.records import ItemQuery
from memory_app.extract.offline import OfflineExtractor
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.models.memory_table_model import CATEGORY
from memory_app.gui.views.memories import ALL, MemoriesView
from memory_app.gui.widgets.category_dialogs import CategoryDialog, MergeCategoryDialog
from tests.gui.test_memories_view import ITEMS, open_view, row_of, select_rows, shown
from tests.helpers import ScriptedExtractor
from tests.unit.test_conflicts_service import SPACES, SWITCHED, TABS, said


@pytest.fixture
def view(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MemoriesView]:
    yield open_view(qtbot, context, settle, list(ITEMS))


def select(view: MemoriesView, content: str) -> int:
    select_rows(view, row_of(view, content))
    record = view.selected_records()[0]
    return record.id


def highlighted(view: MemoriesView) -> list[str]:
    return sorted(
        view.proxy.index(i.row(), 0).data() for i in view.table.selectionModel().selectedRows()
    )


def category_rows(view: MemoriesView) -> dict[str, str]:
    tree = view.category_list
    return {
        tree.topLevelItem(i).text(0): tree.topLevelItem(i).text(1)
        for i in range(tree.topLevelItemCount())
    }


def press_ok(dialog: CategoryDialog | MergeCategoryDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


# -- counts ------------------------------------------------------------------------------


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.resize(1300, 800)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()


def test_every_count_agrees_after_conflict_resolutions(
    qtbot, context: AppContext, window: MainWindow, settle: Callable[..., None]
) -> None:
    service = context.service
    assert isinstance(service.extractor, OfflineExtractor)  # it reads the cues
    for number, (text, days) in enumerate(
        [(TABS, 40), (SPACES, 3), ("I prefer pathlib over os.path in Python code.", 2)]
    ):
        service.memorize(said(text, days, f"s{number}"))
    context.events.memories_changed.emit()
    window.navigate("conflicts")
    settle()
    conflicts = window.view("conflicts")
    conflicts.resolve("keep_newer")
    settle()
    service.memorize(said(SWITCHED, 1, "s9"))  # supersedes the spaces memory at once
    context.events.memories_changed.emit()
    settle()
    stats = service.get_stats()
    assert stats.items_by_status.get("superseded") == 2
    active = stats.items_by_status["active"]

    window.navigate("dashboard")
    settle()
    dashboard = window.view("dashboard")
    assert dashboard.cards["items"].value() == f"{active:,}"
    assert "2 superseded" in dashboard.cards["items"].toolTip()
    assert sum(dashboard.category_chart.data.values()) == active
    assert sum(dashboard.confidence_chart.data) == active
    assert sum(n for _, n in dashboard.weekly_chart.data) == active
    assert window.counts.text().startswith(f"{active:,} memor")

    window.navigate("memories")
    settle()
    memories: MemoriesView = window.view("memories")
    assert category_rows(memories)["All memories"] == f"{active:,}"
    assert memories.model.total == active
    assert memories.footer.text() == (f"{active} memories" if active != 1 else "1 memory")


# -- the table and the editor follow the list ----------------------------------------------


def test_the_category_column_shows_names_from_the_first_load(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    memories = open_view(qtbot, context, settle, list(ITEMS))
    names = {memories.proxy.index(r, CATEGORY).data() for r in range(memories.proxy.rowCount())}
    assert names == {
        "Coding preferences",
        "Bug patterns",
        "Project conventions",
        "Architectural decisions",
    }
    # The rows may arrive before the names: the column is told to repaint when they do.
    model = memories.model
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_: changed.append((first.column(), last.row())))
    model.set_category_names({**model.category_names, "bug_patterns": "Bugs"})
    assert changed == [(CATEGORY, model.rowCount() - 1)]
    assert "Bugs" in {memories.proxy.index(r, CATEGORY).data() for r in range(5)}


def test_the_editor_lets_go_of_a_deleted_memory(
    view: MemoriesView, settle: Callable[..., None]
) -> None:
    select(view, "Tests mirror the package layout")
    settle()
    assert view.editor.record is not None and view.editor.ui.save.isEnabled()
    view.delete_selected()
    settle()
    assert "Tests mirror the package layout" not in shown(view)
    assert view.editor.record is None
    assert not view.editor.ui.save.isEnabled()
    assert view.selection_label.text() == ""


def test_the_editor_lets_go_of_a_memory_a_filter_hides(
    qtbot, view: MemoriesView, settle: Callable[..., None]
) -> None:
    select(view, "Prefer pathlib over os.path")
    settle()
    assert view.editor.record is not None
    qtbot.keyClicks(view.search, "tests")  # the instant narrowing hides it at once
    assert view.editor.record is None
    assert not view.editor.ui.save.isEnabled()
    assert view.selection_label.text() == ""
    settle()
    view.search.clear()
    view.apply_filters()
    settle()

    # A category filter, through a reload of the rows.
    select(view, "Prefer pathlib over os.path")
    settle()
    assert view.editor.record is not None
    tree = view.category_list
    bugs = next(
        tree.topLevelItem(i)
        for i in range(tree.topLevelItemCount())
        if tree.topLevelItem(i).text(0) == "Bug patterns"
    )
    tree.setCurrentItem(bugs)
    settle()
    assert shown(view) == ["Flaky tests came from a shared event loop"]
    assert view.editor.record is None
    assert view.selection_label.text() == ""


def test_the_selection_survives_reloads_and_the_label_says_what_is_highlighted(
    qtbot, view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    select_rows(
        view,
        row_of(view, "Prefer pathlib over os.path"),
        row_of(view, "Tests mirror the package layout"),
        row_of(view, "Flaky tests came from a shared event loop"),
    )
    assert view.selection_label.text() == "3 selected"
    view.bulk_pin(True)  # the rows are reloaded: the same three stay selected
    settle()
    assert highlighted(view) == [
        "Flaky tests came from a shared event loop",
        "Prefer pathlib over os.path",
        "Tests mirror the package layout",
    ]
    assert view.selection_label.text() == "3 selected"
    qtbot.keyClicks(view.search, "mirror")  # two of them are hidden
    assert highlighted(view) == ["Tests mirror the package layout"]
    assert view.selection_label.text() == "1 selected"
    settle()
    assert view.selection_label.text() == f"{len(highlighted(view))} selected"

    # Something else changes the store: nothing selected stays nothing selected.
    view.search.clear()
    view.apply_filters()
    settle()
    view.table.selectionModel().clearSelection()
    context.events.memories_changed.emit()
    settle()
    assert highlighted(view) == [] and view.selection_label.text() == ""


def test_history_is_refreshed_after_undo(
    qtbot, view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    item_id = select(view, "Prefer pathlib over os.path")
    settle()
    editor = view.editor
    editor.ui.content.setPlainText("Prefer pathlib, always")
    qtbot.mouseClick(editor.ui.save, Qt.MouseButton.LeftButton)
    settle()
    assert editor.history_lines()[-1].endswith("user · update: content")
    view._undo()  # the Undo of the message that followed the save
    settle()
    assert context.service.get_item(item_id).content == "Prefer pathlib over os.path"
    assert editor.record is not None and editor.record.id == item_id
    assert editor.ui.content.toPlainText() == "Prefer pathlib over os.path"
    assert editor.history_lines()[-1].endswith("user · undo: content")
    assert highlighted(view) == ["Prefer pathlib over os.path"]


def test_unsaved_typing_survives_a_reload(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    item_id = select(view, "Prefer pathlib over os.path")
    settle()
    view.editor.ui.content.setPlainText("Half typed")
    context.service.set_pinned(item_id, True)  # an import, another window…
    context.events.memories_changed.emit()
    settle()
    assert view.editor.ui.content.toPlainText() == "Half typed"
    assert view.editor.history_lines()[-1].endswith("user · pin: pinned")


# -- redo --------------------------------------------------------------------------------


def test_ctrl_shift_z_redoes_what_ctrl_z_undid(
    qtbot, context: AppContext, window: MainWindow, settle: Callable[..., None]
) -> None:
    context.service.extractor = ScriptedExtractor(list(ITEMS))
    context.service.memorize(said("A long enough conversation about our rules.", 1, "r"))
    window.navigate("memories")
    settle()
    memories: MemoriesView = window.view("memories")
    assert window.redo_action.shortcut().toString() == "Ctrl+Shift+Z"
    assert "&Redo" in [a.text() for a in window.menuBar().actions()[1].menu().actions()]
    item_id = select(memories, "Prefer pathlib over os.path")
    settle()
    memories.editor.ui.content.setPlainText("Prefer pathlib, always")
    memories.editor.request_save()
    settle()
    notes: list[str] = []
    context.events.notify.connect(lambda text, _undo: notes.append(text))

    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert context.service.get_item(item_id).content == "Prefer pathlib over os.path"
    assert memories.editor.ui.content.toPlainText() == "Prefer pathlib over os.path"
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_Z, shift_ctrl)
    settle()
    assert context.service.get_item(item_id).content == "Prefer pathlib, always"
    assert memories.editor.ui.content.toPlainText() == "Prefer pathlib, always"
    assert memories.editor.history_lines()[-1].endswith("user · redo: content")
    assert notes == ["Undid the last change to 1 memory.", "Redid the change to 1 memory."]
    qtbot.keyClick(window, Qt.Key.Key_Z, shift_ctrl)
    settle()
    assert notes[-1] == "Nothing to redo."


# -- editing type, importance, scope; archive ----------------------------------------------


def test_the_editor_changes_type_importance_and_scope(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    item_id = select(view, "Prefer pathlib over os.path")
    settle()
    ui = view.editor.ui
    assert ui.type.currentData() == "preference"
    assert ui.scope.currentData() == context.service.get_item(item_id).scope
    scope = "session" if ui.scope.currentData() != "session" else "project"
    ui.type.setCurrentIndex(ui.type.findData("rule"))
    ui.importance.setValue(0.9)
    ui.scope.setCurrentIndex(ui.scope.findData(scope))
    assert view.editor.changes() == {"type": "rule", "importance": 0.9, "scope": scope}
    view.editor.request_save()
    settle()
    stored = context.service.get_item(item_id)
    assert (stored.type, stored.importance, stored.scope) == ("rule", 0.9, scope)
    assert view.editor.history_lines()[-1].endswith("update: type, importance, scope")

    # What the store refuses is said next to the field.
    view.save(item_id, {"type": "whim", "scope": "galaxy"})
    settle()
    assert view.editor.error_text("type").startswith("unknown type 'whim'")
    assert view.editor.error_text("scope").startswith("scope must be one of")
    assert view.editor.error_text("importance") == ""


def test_archive_and_unarchive_from_the_editor(
    qtbot, view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    item_id = select(view, "Use SQLite with FTS5 for local search")
    settle()
    button = view.editor.ui.archive
    assert button.isVisibleTo(view.editor) and button.text() == "&Archive"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settle()
    assert context.service.get_item(item_id).status == "archived"
    assert "Use SQLite with FTS5 for local search" not in shown(view)
    assert view.editor.record is None  # it left the Active list
    assert view.model.total == 4 and category_rows(view)["All memories"] == "4"

    labels = [view.status_filter.itemText(i) for i in range(view.status_filter.count())]
    view.status_filter.setCurrentIndex(labels.index("Archived"))
    settle()
    assert shown(view) == ["Use SQLite with FTS5 for local search"]
    assert view.footer.text() == "1 archived memory"
    select_rows(view, 0)
    settle()
    assert button.text() == "Un&archive"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settle()
    assert context.service.get_item(item_id).status == "active"
    assert shown(view) == []

    # From the table's selection too, and undoable.
    view.status_filter.setCurrentIndex(labels.index("Active"))
    settle()
    select_rows(view, 0, 1)
    view.archive_selected()
    settle()
    assert view.model.total == 3
    view._undo()
    settle()
    assert view.model.total == 5


# -- categories ----------------------------------------------------------------------------


def test_add_rename_and_merge_categories(
    view: MemoriesView, context: AppContext, settle: Callable[..., None]
) -> None:
    assert not view.rename_category_button.isEnabled()  # "All memories" is not one
    view.add_category_button.click()
    dialog = view.category_dialog
    assert isinstance(dialog, CategoryDialog) and dialog.isVisible()
    dialog.name.setText("Bug patterns")
    press_ok(dialog)
    settle()
    assert dialog.isVisible()  # refused, and said why
    assert "already a category" in dialog.error.text()
    dialog.name.setText("Testing notes")
    dialog.description.setPlainText("How we test.")
    press_ok(dialog)
    settle()
    assert view.category_dialog is None
    assert category_rows(view)["Testing notes"] == "0"
    assert view.selected_category() == "testing_notes"
    assert view.category_list.currentItem().toolTip(0) == "How we test."

    # Rename: the table's category column follows.
    view._select_category("bug_patterns")
    settle()
    view.rename_category_button.click()
    dialog = view.category_dialog
    assert isinstance(dialog, CategoryDialog) and dialog.name.text() == "Bug patterns"
    dialog.name.setText("Bugs we met")
    press_ok(dialog)
    settle()
    assert "Bugs we met" in category_rows(view)
    assert view.proxy.index(0, CATEGORY).data() == "Bugs we met"
    assert "Bugs we met" in view.summary.toPlainText()

    # Merge the bugs into the new category: the memory moves, the category goes.
    view.merge_category_button.click()
    dialog = view.category_dialog
    assert isinstance(dialog, MergeCategoryDialog)
    dialog.target.setCurrentIndex(dialog.target.findData("testing_notes"))
    press_ok(dialog)
    settle()
    rows = category_rows(view)
    assert "Bugs we met" not in rows and rows["Testing notes"] == "1"
    assert rows["All memories"] == "5"
    assert view.selected_category() == "testing_notes"
    assert shown(view) == ["Flaky tests came from a shared event loop"]
    assert context.service.count_items(ItemQuery(category="testing_notes")) == 1

    view._undo()  # the merge is taken back
    settle()
    rows = category_rows(view)
    assert rows["Bugs we met"] == "1" and rows["Testing notes"] == "0"


def test_the_category_menu_offers_the_same(view: MemoriesView, settle: Callable[..., None]) -> None:
    view.category_list.setCurrentItem(view.category_list.topLevelItem(0))
    assert view.selected_category() == ALL
    view._category_buttons()
    assert view.add_category_button.isEnabled()
    assert not view.merge_category_button.isEnabled()
    view.category_list.setCurrentItem(view.category_list.topLevelItem(1))
    assert view.rename_category_button.isEnabled() and view.merge_category_button.isEnabled()
    view.merge_category()
    assert isinstance(view.category_dialog, MergeCategoryDialog)
    first = view.category_dialog
    view.rename_category()  # one dialog at a time
    assert isinstance(view.category_dialog, CategoryDialog)
    assert not first.isVisible()
    view.category_dialog.reject()
    settle()
    assert view.category_dialog is None
