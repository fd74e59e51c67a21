"""The Context view on the demo store: the tiered preview, pin and exclude, and the
CLAUDE.md export with its diff shown before anything is written."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTreeWidgetItem

from memory_app.domain.budget import ContextEntry
from memory_app.domain.claude_md import BEGIN_MARKER, END_MARKER
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.views.context import ContextView, ExcludedMemory
from memory_app.gui.widgets.diff_dialog import ADDED, REMOVED, DiffDialog
from memory_app.retrieval.context import ContextRequest
from tests.small_store import build_small_store

TIERS = ["Critical", "Relevant to the task", "Background", "Index"]
TASK = "pytest fixtures"
FIXTURES = "Please use pytest fixtures instead of unittest setUp methods."


@pytest.fixture
def view(qtbot: Any, context: AppContext) -> ContextView:
    panel = ContextView(context)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    return panel


@pytest.fixture
def demo(context: AppContext) -> None:
    build_small_store(context.service)


def open_view(view: ContextView, settle: Callable[..., None]) -> None:
    view.activate()
    settle()


def type_task(
    qtbot: Any, view: ContextView, text: str, run_until: Callable[..., None], settle: Any
) -> None:
    qtbot.keyClicks(view.task, text)
    run_until(lambda: view.preview is not None and view.preview.request.task == text)
    settle()


def tier(view: ContextView, title: str) -> QTreeWidgetItem:
    tops = [view.tree.topLevelItem(i) for i in range(view.tree.topLevelItemCount())]
    return next(t for t in tops if t.text(0) == title or t.text(0).startswith(title))


def children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [item.child(i) for i in range(item.childCount())]


def memory_rows(view: ContextView) -> list[QTreeWidgetItem]:
    return [
        row
        for title in TIERS
        for row in children(tier(view, title))
        if isinstance(row.data(0, Qt.ItemDataRole.UserRole), ContextEntry)
        and row.data(0, Qt.ItemDataRole.UserRole).item_id is not None
    ]


def row_of(view: ContextView, content: str) -> QTreeWidgetItem:
    return next(row for row in memory_rows(view) if row.text(0).startswith(content))


def item_id(row: QTreeWidgetItem) -> int:
    return row.data(0, Qt.ItemDataRole.UserRole).item_id


def footer_tokens(view: ContextView) -> tuple[int, int]:
    match = re.match(r"([\d,]+) of ([\d,]+) tokens used", view.footer.text())
    assert match is not None, view.footer.text()
    return int(match[1].replace(",", "")), int(match[2].replace(",", ""))


# -- the preview ----------------------------------------------------------------------------


def test_an_empty_store_explains_itself(view: ContextView, settle: Callable[..., None]) -> None:
    open_view(view, settle)
    assert view.pages.currentWidget() is view.empty
    assert "task" in view.empty.text.text()


def test_typing_a_task_shows_what_would_be_injected_tier_by_tier(
    qtbot: Any,
    view: ContextView,
    context: AppContext,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    assert view.pages.currentWidget() is view.main
    sent = view._serial
    type_task(qtbot, view, TASK, run_until, settle)
    assert view._serial == sent + 1  # one rebuild for the whole word, not one per key
    assert [view.tree.topLevelItem(i).text(0) for i in range(4)] == TIERS
    relevant = tier(view, "Relevant to the task")
    row = row_of(view, FIXTURES)
    assert row.parent() is relevant
    assert "relevance" in row.toolTip(0) and "confidence" in row.toolTip(0)
    assert row.toolTip(2).startswith("score ")
    assert row.text(1) == str(row.data(0, Qt.ItemDataRole.UserRole).tokens)
    plan = view.preview.plan
    share = plan.tier("relevant")
    assert relevant.text(1) == f"{share.used:,} / {share.allowance:,}"
    used, budget = footer_tokens(view)
    assert used == plan.used <= budget == 2000
    assert view.meter.value() == plan.used and view.meter.maximum() == 2000
    # Exactly what would be injected, and the preview did not count as a use.
    expected = context.service.build_context(ContextRequest(task=TASK, budget=2000))
    assert view.rendered.toPlainText() == expected.render()
    assert context.service.get_item(item_id(row)).access_count == 0
    # A conflict is marked and is not something to pin or exclude.
    conflict = next(
        r
        for r in children(tier(view, "Critical"))
        if r.data(0, Qt.ItemDataRole.UserRole).conflict_id is not None
    )
    assert "Unresolved conflict" in conflict.toolTip(0) and not conflict.icon(0).isNull()
    view.tree.setCurrentItem(conflict)
    assert not view.pin_button.isEnabled() and not view.exclude_button.isEnabled()
    view.tree.setCurrentItem(row)
    assert view.pin_button.isEnabled() and view.exclude_button.isEnabled()


def test_a_task_nothing_matches_still_has_background_and_index(
    qtbot: Any,
    view: ContextView,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    type_task(qtbot, view, "zebra husbandry", run_until, settle)
    (note,) = children(tier(view, "Relevant to the task"))
    assert "Nothing stored matches" in note.text(0)
    assert memory_rows(view) and tier(view, "Background").childCount() > 0
    assert tier(view, "Index").childCount() == 2


def test_a_smaller_budget_holds_fewer_memories_and_stays_within_it(
    qtbot: Any,
    view: ContextView,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    type_task(qtbot, view, TASK, run_until, settle)
    before = len(memory_rows(view))
    view.budget.setValue(120)
    run_until(lambda: view.preview.request.budget == 120)
    settle()
    assert 0 < len(memory_rows(view)) < before
    used, budget = footer_tokens(view)
    assert used == view.preview.plan.used <= budget == 120
    left_out = [r for r in children(tier(view, "Background")) if "did not fit" in r.text(0)]
    assert left_out and "A larger budget would also include" in left_out[0].toolTip(0)
    assert int(view.context.settings.value("context/budget")) == 120  # remembered


def test_a_memory_shortened_to_fit_shows_its_level(
    qtbot: Any,
    view: ContextView,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    type_task(qtbot, view, TASK, run_until, settle)
    assert all(
        row.text(1) == str(row.data(0, Qt.ItemDataRole.UserRole).tokens)
        for row in memory_rows(view)
    )  # the full budget holds every memory in full: no level shown
    view.budget.setValue(120)
    run_until(lambda: view.preview.request.budget == 120)
    settle()
    shortened = [
        row for row in memory_rows(view) if row.data(0, Qt.ItemDataRole.UserRole).level != "full"
    ]
    assert shortened
    for row in shortened:
        entry = row.data(0, Qt.ItemDataRole.UserRole)
        assert row.text(1) == f"{entry.tokens} · {entry.level}"
        assert "Shown as its " + entry.level in row.toolTip(1)
        assert row.text(0) in view.rendered.toPlainText()
    assert view.preview.plan.used <= 120


def test_an_older_answer_never_replaces_a_newer_one(
    view: ContextView,
    demo: None,
    settle: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_view(view, settle)
    shown: list[str] = []
    original = view.show_preview
    monkeypatch.setattr(view, "show_preview", lambda p: (shown.append(p.request.task), original(p)))
    view.task.setText("celery")
    view.refresh()
    view.task.setText(TASK)
    view.refresh()
    settle()
    assert shown == [TASK]


def test_projects_are_offered_by_folder_name_with_the_full_path_on_hover(
    view: ContextView, context: AppContext, demo: None, settle: Callable[..., None]
) -> None:
    open_view(view, settle)
    projects = context.service.projects()
    assert view.project.count() == len(projects) + 1
    assert view.project.itemText(0) == "All projects"
    path, count = projects[0]
    assert view.project.itemText(1) == f"{Path(path).name} ({count})"
    assert view.project.itemData(1, Qt.ItemDataRole.ToolTipRole) == path
    view.project.setCurrentIndex(1)
    settle()
    assert view.preview.request.project == path
    assert view.project.toolTip() == path


# -- pin and exclude ------------------------------------------------------------------------


def test_pin_moves_a_memory_into_critical_and_unpin_takes_it_back(
    qtbot: Any,
    view: ContextView,
    context: AppContext,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    type_task(qtbot, view, TASK, run_until, settle)
    ident = item_id(row_of(view, FIXTURES))
    messages: list[tuple[str, Any]] = []
    context.events.notify.connect(lambda text, undo: messages.append((text, undo)))
    view.tree.setCurrentItem(row_of(view, FIXTURES))
    assert view.pin_button.text() == "Pin"
    qtbot.mouseClick(view.pin_button, Qt.MouseButton.LeftButton)
    settle()
    assert context.service.get_item(ident).pinned
    row = row_of(view, FIXTURES)
    assert row.parent() is tier(view, "Critical")
    assert view.tree.currentItem() is row  # still selected where it moved to
    assert view.pin_button.text() == "Unpin"
    assert "Critical" in messages[-1][0] and messages[-1][1] is not None
    qtbot.keyClick(view.tree, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert not context.service.get_item(ident).pinned
    assert row_of(view, FIXTURES).parent() is tier(view, "Relevant to the task")
    messages[0][1]()  # the first message's Undo: undoes the last change, the unpin
    settle()
    assert context.service.get_item(ident).pinned


def test_exclude_keeps_a_memory_out_of_the_projects_context_until_let_back_in(
    qtbot: Any,
    view: ContextView,
    context: AppContext,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    messages: list[str] = []
    context.events.notify.connect(lambda text, _undo: messages.append(text))
    type_task(qtbot, view, TASK, run_until, settle)
    ident = item_id(row_of(view, FIXTURES))
    project = context.service.get_item(ident).project
    assert project is not None
    view.project.setCurrentIndex(view.project.findData(project))
    settle()
    view.tree.setCurrentItem(row_of(view, FIXTURES))
    qtbot.mouseClick(view.exclude_button, Qt.MouseButton.LeftButton)
    settle()
    assert ident in context.service.context_exclusions(project)
    assert ident not in context.service.context_exclusions(None)  # only for this project
    assert FIXTURES not in view.rendered.toPlainText()
    assert all(item_id(r) != ident for r in memory_rows(view))
    excluded = tier(view, "Excluded (1)")
    (row,) = children(excluded)
    assert row.data(0, Qt.ItemDataRole.UserRole) == ExcludedMemory(ident, FIXTURES, False)
    assert "Excluded from the context of" in row.toolTip(0)
    assert "Excluded #" in messages[-1]

    view.tree.setCurrentItem(row)
    assert view.exclude_button.text() == "Let back in" and not view.pin_button.isEnabled()
    qtbot.keyClick(view.tree, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert context.service.context_exclusions(project) == frozenset()
    assert FIXTURES in view.rendered.toPlainText()
    assert view.tree.topLevelItemCount() == 4
    assert messages[-1].startswith("Let #")


def test_exclude_from_all_projects_and_through_delete(
    view: ContextView,
    context: AppContext,
    demo: None,
    settle: Callable[..., None],
    qtbot: Any,
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    type_task(qtbot, view, TASK, run_until, settle)
    ident = item_id(row_of(view, FIXTURES))
    view.tree.setCurrentItem(row_of(view, FIXTURES))
    view.rendered.setFocus()
    qtbot.waitUntil(view.rendered.hasFocus)
    assert view.delete_selected() is None  # Delete in the preview text drops nothing
    view.tree.setFocus()
    qtbot.waitUntil(view.tree.hasFocus)
    view.delete_selected()  # what the main window's Delete does in this view
    settle()
    assert ident in context.service.context_exclusions(None)
    (row,) = children(tier(view, "Excluded"))
    assert row.data(0, Qt.ItemDataRole.UserRole).everywhere
    assert "every project" in row.toolTip(0)


def test_in_the_main_window_delete_excludes_and_ctrl_p_pins(
    qtbot: Any,
    context: AppContext,
    demo: None,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    window = build_main_window(context)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.navigate("context")
    settle()
    view = window.current_view()
    assert isinstance(view, ContextView)
    type_task(qtbot, view, TASK, run_until, settle)
    ident = item_id(row_of(view, FIXTURES))
    view.tree.setFocus()
    view.tree.setCurrentItem(row_of(view, FIXTURES))
    qtbot.keyClick(view.tree, Qt.Key.Key_Delete)
    settle()
    assert ident in context.service.context_exclusions(None)
    other = memory_rows(view)[0]
    other_id = item_id(other)
    view.tree.setCurrentItem(other)
    qtbot.keyClick(view.tree, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert context.service.get_item(other_id).pinned
    assert window.toast.isVisible() and window.toast.undo_button.isVisible()
    window.close()


def test_copy_puts_the_injected_text_on_the_clipboard(
    view: ContextView, demo: None, settle: Callable[..., None]
) -> None:
    open_view(view, settle)
    view.copy_button.click()
    assert QGuiApplication.clipboard().text() == view.preview.plan.render()


# -- CLAUDE.md ------------------------------------------------------------------------------


@pytest.fixture
def claude_md(tmp_path: Path, context: AppContext) -> Path:
    path = tmp_path / "project" / "CLAUDE.md"
    path.parent.mkdir()
    path.write_text("# Mine\n", encoding="utf-8")
    context.dialogs.claude_md = path  # type: ignore[attr-defined]
    return path


def start_export(view: ContextView, settle: Callable[..., None]) -> DiffDialog | None:
    view.export_button.click()
    settle()
    return view.diff_dialog


def test_export_shows_the_diff_and_writes_only_after_confirming(
    view: ContextView,
    context: AppContext,
    demo: None,
    claude_md: Path,
    settle: Callable[..., None],
) -> None:
    open_view(view, settle)
    dialog = start_export(view, settle)
    assert dialog is not None and dialog.isVisible()
    diff = dialog.diff_view.toPlainText()
    assert "+" + BEGIN_MARKER in diff and "+" + END_MARKER in diff
    assert "+- " + FIXTURES in diff
    assert dialog.summary.text().startswith("Writes ")
    assert "left out by the size cap" in dialog.summary.text()
    assert "2 in unresolved conflicts left out" in dialog.summary.text()
    tints = {s.format.background().color().rgba() for s in dialog.diff_view.extraSelections()}
    assert ADDED.rgba() in tints and REMOVED.rgba() not in tints
    assert claude_md.read_text(encoding="utf-8") == "# Mine\n"  # nothing yet

    dialog.write_button.click()
    settle()
    text = claude_md.read_text(encoding="utf-8")
    assert text.startswith("# Mine\n") and BEGIN_MARKER in text and END_MARKER in text
    assert FIXTURES in text
    assert view.message.text().startswith("Wrote ")
    assert view.diff_dialog is None
    assert context.settings.value(view._settings_key(None)) == str(claude_md)

    assert start_export(view, settle) is None  # nothing new to write
    assert view.message.text().startswith("Already up to date")


def test_cancelling_the_export_writes_nothing(
    view: ContextView, demo: None, claude_md: Path, settle: Callable[..., None]
) -> None:
    open_view(view, settle)
    dialog = start_export(view, settle)
    assert dialog is not None
    dialog.reject()
    settle()
    assert claude_md.read_text(encoding="utf-8") == "# Mine\n"
    assert "nothing written" in view.message.text()


def test_export_reflects_exclusions_and_removed_lines_are_red(
    qtbot: Any,
    view: ContextView,
    context: AppContext,
    demo: None,
    claude_md: Path,
    settle: Callable[..., None],
    run_until: Callable[..., None],
) -> None:
    open_view(view, settle)
    start_export(view, settle).accept()  # type: ignore[union-attr]
    settle()
    type_task(qtbot, view, TASK, run_until, settle)
    view.tree.setCurrentItem(row_of(view, FIXTURES))
    view.toggle_exclusion()
    settle()
    dialog = start_export(view, settle)
    assert dialog is not None
    assert "-- " + FIXTURES in dialog.diff_view.toPlainText()
    tints = {s.format.background().color().rgba() for s in dialog.diff_view.extraSelections()}
    assert REMOVED.rgba() in tints
    dialog.accept()
    settle()
    assert FIXTURES not in claude_md.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b"# Mine\n<!-- memory-curator:begin -->\nhalf a block\n", "nothing was changed"),
        (b"# Mine \xff\xfe\n", "not UTF-8"),
    ],
    ids=["begin-without-end", "not-utf8"],
)
def test_a_file_that_cannot_be_exported_into_shows_why_and_stays_as_it_was(
    view: ContextView,
    demo: None,
    claude_md: Path,
    settle: Callable[..., None],
    content: bytes,
    error: str,
) -> None:
    claude_md.write_bytes(content)
    open_view(view, settle)
    assert start_export(view, settle) is None
    assert view.message.text().startswith("Cannot export:")
    assert error in view.message.text()
    assert claude_md.read_bytes() == content


def test_a_file_changed_after_the_preview_is_not_overwritten(
    view: ContextView, demo: None, claude_md: Path, settle: Callable[..., None]
) -> None:
    open_view(view, settle)
    dialog = start_export(view, settle)
    assert dialog is not None
    claude_md.write_text("# Mine, edited meanwhile\n", encoding="utf-8")
    dialog.accept()
    settle()
    assert "changed since the preview" in view.message.text()
    assert claude_md.read_text(encoding="utf-8") == "# Mine, edited meanwhile\n"


def test_no_file_chosen_means_no_export(
    view: ContextView, context: AppContext, demo: None, settle: Callable[..., None]
) -> None:
    open_view(view, settle)
    assert start_export(view, settle) is None
    assert context.dialogs.asked == ["claude_md_path"]  # type: ignore[attr-defined]
