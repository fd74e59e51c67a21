"""The memory table's query, the dashboard's aggregates and the Sources reader's turns."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memory_app.config import Settings
from memory_app.domain.records import ItemQuery
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from tests.helpers import ScriptedExtractor, conversation

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)  # a Wednesday


@pytest.fixture
def store(settings: Settings) -> Iterator[MemoryService]:
    items = [
        ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.95, tags=("python",)),
        ExtractedItem("coding_preferences", "Use async/await, never .then() chains", 0.85),
        ExtractedItem("bug_patterns", "Flaky tests came from a shared event loop", 0.78),
        ExtractedItem("project_conventions", "Tests mirror the package layout", 0.9),
    ]
    svc = MemoryService.open(settings, ScriptedExtractor(items), clock=lambda: NOW)
    svc.memorize(conversation(("Some long enough conversation text here.", "And a reply too.")))
    yield svc
    svc.close()


def contents(records: list) -> list[str]:  # type: ignore[type-arg]
    return [r.content for r in records]


def test_filters_combine(store: MemoryService) -> None:
    everything = ItemQuery()
    assert store.count_items(everything) == 4
    prefs = ItemQuery(category="coding_preferences", min_confidence=0.9)
    assert contents(store.query_items(prefs)) == ["Prefer pathlib over os.path"]
    assert store.count_items(prefs) == 1
    assert store.count_items(ItemQuery(max_confidence=0.8)) == 1
    assert store.count_items(ItemQuery(since=NOW + timedelta(days=1))) == 0
    assert store.count_items(ItemQuery(until=NOW + timedelta(days=1))) == 4
    (first,) = store.query_items(ItemQuery(text="pathlib"))
    assert store.count_items(ItemQuery(source_resource_id=first.source_resource_id)) == 4
    assert store.count_items(ItemQuery(source_resource_id=999)) == 0


def test_search_ranks_and_status_filters(store: MemoryService) -> None:
    found = store.query_items(ItemQuery(text="tests"))
    assert set(contents(found)) == {
        "Flaky tests came from a shared event loop",
        "Tests mirror the package layout",
    }
    item = found[0]
    store.forget(item.id)
    assert store.count_items(ItemQuery(text="tests")) == 1
    assert store.count_items(ItemQuery(text="tests", statuses=("deleted",))) == 1
    store.set_pinned(found[1].id, True)
    assert contents(store.query_items(ItemQuery(pinned=True))) == [found[1].content]


def test_sorting_and_paging(store: MemoryService) -> None:
    by_conf = store.query_items(ItemQuery(sort_key="confidence", descending=False))
    assert [r.confidence for r in by_conf] == sorted(r.confidence for r in by_conf)
    by_content = store.query_items(ItemQuery(sort_key="content", descending=False))
    assert contents(by_content) == sorted(contents(by_content), key=str.lower)
    page = store.query_items(ItemQuery(sort_key="content", descending=False, offset=1, limit=2))
    assert contents(page) == contents(by_content)[1:3]
    with pytest.raises(ValueError, match="cannot sort by 'nonsense'"):
        store.query_items(ItemQuery(sort_key="nonsense"))


def test_dashboard_numbers_match_the_store(store: MemoryService) -> None:
    data = store.dashboard()
    assert data.stats.items == 4
    assert sum(data.confidence_histogram) == 4
    assert data.confidence_histogram[9] == 2  # 0.95 and 0.9
    assert data.confidence_histogram[7] == 1  # 0.78
    assert len(data.weekly_added) == 12
    assert data.weekly_added[-1] == (datetime(2026, 6, 8, tzinfo=UTC), 4)
    assert sum(n for _, n in data.weekly_added) == 4
    assert data.activity[0].kind == "import"


def test_turns_locate_each_turn_in_the_text(store: MemoryService) -> None:
    (resource,) = store.resources()
    record, text = store.get_resource(resource.id)
    turns = store.resource_turns(resource.id)
    assert [t.speaker for t in turns] == ["user", "assistant"]
    assert text[turns[0].start : turns[0].end] == "User: Some long enough conversation text here."
    assert text[turns[1].start : turns[1].end] == "Assistant: And a reply too."
    assert record.item_count == 4
