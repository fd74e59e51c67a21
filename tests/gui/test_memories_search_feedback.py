"""The Memories search says what it did not understand, and narrows at once as it will.

A search the store refuses (an unknown category, a filter without its value) is what was
typed, not a failure of the app: the list keeps the last answer, the footer says why in
the error colour, and the app's status indicator stays as it was. While typing, the instant
narrowing of the loaded rows reads the query as the store will: `-word` leaves memories
out and `category:`/`project:` filter, instead of being looked for as words.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.views.memories import MemoriesView
from tests.gui.test_memories_view import ITEMS, open_view, shown
from tests.helpers import ScriptedExtractor, conversation

PATHLIB = "Prefer pathlib over os.path"
ASYNC = "Use async/await, never .then() chains"
FLAKY = "Flaky tests came from a shared event loop"
LAYOUT = "Tests mirror the package layout"
SQLITE = "Use SQLite with FTS5 for local search"
EVERY = sorted([PATHLIB, ASYNC, FLAKY, LAYOUT, SQLITE])


@pytest.fixture
def memories(qtbot, context: AppContext, settle: Callable[..., None]) -> MemoriesView:
    return open_view(qtbot, context, settle, list(ITEMS))


def type_query(qtbot, view: MemoriesView, text: str) -> None:
    """Replace the search text as a person types it (the store is not asked yet: its
    query starts on a later turn of the event loop)."""
    view.search.clear()
    view.proxy.set_quick_filter("")
    qtbot.keyClicks(view.search, text)


def wait_for_the_store(
    view: MemoriesView, run_until: Callable[..., None], settle: Callable[..., None]
) -> None:
    """Until the store answered what the field says (or refused it)."""
    typed = view.search.text().strip()
    run_until(
        lambda: (
            not view.model.busy
            and (view.model.query.text == typed or view.footer.text().startswith("Search not"))
        )
    )
    settle()


def test_a_search_the_store_refuses_is_explained_beside_the_list(
    qtbot,
    memories: MemoriesView,
    context: AppContext,
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    type_query(qtbot, memories, "tests")
    run_until(lambda: memories.model.query.text == "tests" and not memories.model.busy)
    settle()
    before = sorted(shown(memories))
    assert before == sorted([FLAKY, LAYOUT])
    assert memories.footer.text() == "2 memories"

    type_query(qtbot, memories, "tests category:nope")
    run_until(lambda: memories.footer.text().startswith("Search not understood: "))
    settle()
    assert "no category 'nope'" in memories.footer.text()
    assert memories.footer.styleSheet() == text_style(ERROR, memories.palette())
    assert sorted(shown(memories)) == before  # the last answer stays
    assert memories.model.query.text == "tests"  # scrolling on pages through that answer
    assert context.status.state != context.status.ERROR
    assert context.status.last_error is None

    # A filter left without its value is refused too (a parse error, not a lookup).
    type_query(qtbot, memories, "category: tests")
    run_until(lambda: "needs a value" in memories.footer.text())
    settle()
    assert sorted(shown(memories)) == before
    assert context.status.state != context.status.ERROR

    # Understood again: the footer counts again, in its usual colour.
    type_query(qtbot, memories, "category:coding_preferences")
    run_until(lambda: memories.model.query.text == "category:coding_preferences")
    run_until(lambda: not memories.model.busy)
    settle()
    assert sorted(shown(memories)) == sorted([PATHLIB, ASYNC])
    assert memories.footer.text() == "2 memories"
    assert memories.footer.styleSheet() == ""
    assert context.status.last_error is None


def test_a_refusal_clears_once_the_text_changes_and_is_kept_across_a_reload(
    qtbot,
    memories: MemoriesView,
    context: AppContext,
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    type_query(qtbot, memories, "category:nope")
    run_until(lambda: memories.footer.text().startswith("Search not understood: "))
    settle()
    assert sorted(shown(memories)) == EVERY
    # The store changed: the list reloads the last understood query, and the field still
    # holds the refused text, so the footer still says why.
    context.events.memories_changed.emit()
    settle()
    assert memories.footer.text().startswith("Search not understood: ")
    type_query(qtbot, memories, "tests")
    run_until(lambda: memories.model.query.text == "tests" and not memories.model.busy)
    settle()
    assert memories.footer.text() == "2 memories"
    assert context.status.last_error is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tests -flaky", [LAYOUT]),
        ("-tests", [PATHLIB, ASYNC, SQLITE]),
        ('-"event loop"', [PATHLIB, ASYNC, LAYOUT, SQLITE]),
        ("tests -", [FLAKY, LAYOUT]),  # a lone "-" is no word to look for
        ("category:coding_preferences", [PATHLIB, ASYNC]),
        ('category:"Coding preferences" -async', [PATHLIB]),
        ("category:bug", [FLAKY]),  # a category still being typed
        ("-category:bug_patterns tests", [LAYOUT]),
        ("project:shop", []),  # these memories have no project
        ("-project:shop use", [ASYNC, SQLITE]),
    ],
)
def test_the_instant_filter_reads_the_search_syntax_as_the_store_does(
    qtbot,
    memories: MemoriesView,
    run_until: Callable[..., None],
    settle: Callable[..., None],
    query: str,
    expected: list[str],
) -> None:
    type_query(qtbot, memories, query)
    assert memories.model.query.text == ""  # the store has not answered: only the instant filter
    assert sorted(shown(memories)) == sorted(expected)
    # ... and the store's answer agrees.
    run_until(lambda: memories.model.query.text == query and not memories.model.busy)
    settle()
    assert sorted(shown(memories)) == sorted(expected)


def test_the_instant_filter_leaves_a_filter_the_store_will_refuse_alone(
    qtbot,
    memories: MemoriesView,
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    # An unknown category, the start of none, a filter without its value: the store
    # will say what is wrong; the loaded rows are not emptied meanwhile.
    for query in ("category:nope", "category:x", "category: tests"):
        type_query(qtbot, memories, query)
        assert memories.model.query.text == ""
        assert sorted(shown(memories)) == EVERY, query
        wait_for_the_store(memories, run_until, settle)
        assert sorted(shown(memories)) == EVERY, query


def test_the_instant_filter_knows_a_memorys_project(
    qtbot, context: AppContext, run_until: Callable[..., None], settle: Callable[..., None]
) -> None:
    context.service.extractor = ScriptedExtractor(list(ITEMS[:2]))
    context.service.memorize(
        conversation(
            ("A long enough conversation about the shop.", "Noted, thanks."),
            session="shop",
            project="/home/me/code/shop",
        )
    )
    view = open_view(qtbot, context, settle, list(ITEMS[2:]))
    for query, expected in (
        ("project:shop", [PATHLIB, ASYNC]),
        ("project:/home/me/code/shop/", [PATHLIB, ASYNC]),
        ("project:SHOP use", [ASYNC]),
        ("-project:shop", [FLAKY, LAYOUT, SQLITE]),
        ("project:sho", []),  # the folder's whole name, as the store compares it
    ):
        view.search.clear()
        view.apply_filters()  # every memory loaded again, then the query typed
        wait_for_the_store(view, run_until, settle)
        assert len(shown(view)) == 5
        type_query(qtbot, view, query)
        assert view.model.query.text == "", query  # not answered yet
        assert sorted(shown(view)) == sorted(expected), query
        wait_for_the_store(view, run_until, settle)  # ... and the store agrees
        assert sorted(shown(view)) == sorted(expected), query
