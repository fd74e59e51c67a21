"""The Memories search field with the search syntax: the word being typed as a prefix,
exclusions and filters, and the hint on the field."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_app.gui.context import AppContext
from memory_app.gui.views.memories import MemoriesView
from tests.gui.test_memories_view import ITEMS, open_view, shown


@pytest.fixture
def memories(qtbot, context: AppContext, settle: Callable[..., None]) -> MemoriesView:
    return open_view(qtbot, context, settle, list(ITEMS))


@pytest.fixture
def search(
    qtbot, memories: MemoriesView, run_until: Callable[..., None], settle: Callable[..., None]
) -> Callable[[str], list[str]]:
    """Types a query into the field as a person would; the rows it then shows."""

    def run(text: str) -> list[str]:
        memories.search.clear()
        qtbot.keyClicks(memories.search, text)
        run_until(lambda: memories.model.query.text == text and not memories.model.busy)
        settle()
        return sorted(shown(memories))

    return run


def test_the_word_being_typed_finds_longer_words(
    memories: MemoriesView, search: Callable[[str], list[str]]
) -> None:
    assert search("pathl") == ["Prefer pathlib over os.path"]
    assert memories.model.total == 1


def test_exclusions_and_filters(search: Callable[[str], list[str]]) -> None:
    assert search("tests -flaky") == ["Tests mirror the package layout"]
    assert search("category:coding_preferences -async") == ["Prefer pathlib over os.path"]
    assert len(search("-tests")) == 3


def test_the_field_explains_the_syntax(memories: MemoriesView) -> None:
    hint = memories.search.toolTip()
    for piece in ("pyt…", "word*", '"a phrase"', "-word", "category:", "project:"):
        assert piece in hint
