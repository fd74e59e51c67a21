"""The Maintenance view's Alt mnemonics never clash: every letter marked with "&" on its
shown buttons, check boxes, group boxes and labels is used once, whether the view shows
proposed changes or not, and while a job runs (its Cancel row shown). Alt+A used to be
both "Run All" and "Accept"."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QWidget

from memory_app.domain.maintenance import ProposedChange
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.views.maintenance import MaintenanceView


def mnemonic(text: str) -> str | None:
    """The letter after a single "&" ("Run A&ll" → "l"); None without one ("&&" is a
    plain ampersand)."""
    plain = text.replace("&&", "")
    at = plain.find("&")
    return plain[at + 1].lower() if 0 <= at < len(plain) - 1 else None


def shown_mnemonics(view: QWidget) -> list[tuple[str, str]]:
    """(letter, text) of every widget of the view shown now whose text has a mnemonic."""
    found = []
    for widget in view.findChildren(QWidget):
        if not widget.isVisibleTo(view):
            continue
        if isinstance(widget, QAbstractButton | QLabel):
            text = widget.text()
        elif isinstance(widget, QGroupBox):
            text = widget.title()
        else:
            continue
        letter = mnemonic(text)
        if letter is not None:
            found.append((letter, text))
    return found


def clashes(view: QWidget) -> dict[str, list[str]]:
    found = shown_mnemonics(view)
    counts = Counter(letter for letter, _ in found)
    return {
        letter: [text for other, text in found if other == letter]
        for letter, count in counts.items()
        if count > 1
    }


def change(change_id: int) -> ProposedChange:
    return ProposedChange(
        kind="archive",
        item_ids=(change_id,),
        title=f"Archive: memory {change_id}",
        reason="unused for 90 days",
        before={str(change_id): {"content": "An old memory", "status": "active"}},
        after={str(change_id): {"status": "archived"}},
        id=change_id,
        run_id=1,
    )


@pytest.fixture
def view(qtbot: Any, context: AppContext) -> MaintenanceView:
    panel = MaintenanceView(context)
    qtbot.addWidget(panel)
    panel.resize(1100, 760)
    panel.show()
    return panel


def test_the_helper_reads_mnemonics() -> None:
    assert mnemonic("Run A&ll") == "l"
    assert mnemonic("&Accept") == "a"
    assert mnemonic("Rock && Roll") is None
    assert mnemonic("Cancel") is None


def test_no_mnemonic_repeats_with_changes_to_review(view: MaintenanceView) -> None:
    view.changeset.show_changes([change(1), change(2)])
    assert view.changeset.pages.currentWidget() is view.changeset.main
    letters = {letter for letter, _ in shown_mnemonics(view)}
    # The decision buttons and Run All are all there, each with its own letter.
    assert {"a", "r", "p", "u", "d", "l"} <= letters
    assert clashes(view) == {}


def test_no_mnemonic_repeats_with_nothing_to_review(view: MaintenanceView) -> None:
    view.changeset.show_changes([])
    assert view.changeset.pages.currentWidget() is view.changeset.empty
    assert shown_mnemonics(view)
    assert clashes(view) == {}


def test_no_mnemonic_repeats_while_a_job_runs(view: MaintenanceView) -> None:
    view.changeset.show_changes([change(1)])
    view.schedule.set_running("Nightly consolidation (dry run)")
    assert view.schedule.progress_row.isVisibleTo(view)
    assert clashes(view) == {}
    view.schedule.set_running(None)


def test_the_view_shares_no_mnemonic_with_the_menu_bar(
    qtbot: Any, context: AppContext, settle: Any
) -> None:
    window = build_main_window(context)
    qtbot.addWidget(window)
    window.show()
    window.navigate("maintenance")
    settle()
    view = window.view("maintenance")
    assert isinstance(view, MaintenanceView)
    view.changeset.show_changes([change(1)])
    menus = {mnemonic(action.text()) for action in window.menuBar().actions()} - {None}
    assert menus  # File, Edit, View, Help
    assert not menus & {letter for letter, _ in shown_mnemonics(view)}


def test_the_check_catches_a_clash(view: MaintenanceView) -> None:
    view.changeset.show_changes([change(1)])
    view.schedule.run_all.setText("Run &All")  # as it was: Alt+A also accepted
    assert {letter: sorted(texts) for letter, texts in clashes(view).items()} == {
        "a": ["&Accept", "Run &All"]
    }
