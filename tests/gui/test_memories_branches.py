"""The Memories view's branch filter (seed 001 branch memory): the git branches memories
were learnt on, chosen like the view's other filters."""

from __future__ import annotations

from collections.abc import Callable

from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.views.memories import MemoriesView
from tests.helpers import ScriptedExtractor, conversation

LEARNT = {
    "main": ("project_conventions", "Tests mirror the package layout"),
    "feature/auth": ("architectural_decisions", "Sessions live in Redis, not in JWTs"),
    None: ("coding_preferences", "Prefer pathlib over os.path"),
}


def shown(view: MemoriesView) -> list[str]:
    return [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]


def choose(view: MemoriesView, text: str, settle: Callable[..., None]) -> None:
    index = view.branch_filter.findText(text)
    assert index >= 0, f"no {text!r} in {branches(view)}"
    view.branch_filter.setCurrentIndex(index)
    settle()


def branches(view: MemoriesView) -> list[str]:
    return [view.branch_filter.itemText(i) for i in range(view.branch_filter.count())]


def test_the_branch_filter_lists_the_branches_and_narrows_the_table(
    qtbot, context: AppContext, settle: Callable[..., None]
) -> None:
    service = context.service
    for n, (branch, (category, content)) in enumerate(LEARNT.items()):
        service.extractor = ScriptedExtractor([ExtractedItem(category, content, 0.9)])
        said = (f"Conversation {n} about how this project works.", "Noted, thanks.")
        service.memorize(conversation(said, session=f"s{n}", branch=branch))
    view = MemoriesView(context)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    view.activate()
    settle()
    assert branches(view) == ["Any branch", "No branch", "feature/auth", "main"]
    assert len(shown(view)) == 3

    choose(view, "feature/auth", settle)
    assert shown(view) == ["Sessions live in Redis, not in JWTs"]
    choose(view, "No branch", settle)
    assert shown(view) == ["Prefer pathlib over os.path"]
    choose(view, "main", settle)
    assert shown(view) == ["Tests mirror the package layout"]
    view.category_list.setCurrentItem(view.category_list.topLevelItem(1))  # another category
    settle()
    assert shown(view) == []
    assert view.footer.text() == "No memories match these filters."
    view.category_list.setCurrentItem(view.category_list.topLevelItem(0))  # all categories
    settle()

    # Its only memory forgotten, a branch leaves the list and the filter shows them all.
    main_memory = next(r for r in service.list_items() if r.branch == "main")
    service.forget(main_memory.id)
    context.events.memories_changed.emit()  # as a change elsewhere in the app tells it
    settle()
    assert branches(view) == ["Any branch", "No branch", "feature/auth"]
    assert view.branch_filter.currentText() == "Any branch"
    assert len(shown(view)) == 2
