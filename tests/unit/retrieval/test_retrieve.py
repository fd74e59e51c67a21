"""Retrieval through MemoryService on a real SQLite store: ranking, filters, time
travel, the query cache, access recording, context tiers and exclusions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory_app.config import Settings
from memory_app.domain.budget import BudgetError
from memory_app.domain.retrieval import RetrievalError, RetrievalFilters, RetrievalQuery
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.tables import ConflictMemberRow, ConflictRow, MemoryItemRow

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(settings: Settings) -> Any:
    service = MemoryService.open(settings, clock=lambda: NOW)
    yield service
    service.close()


def add(service: MemoryService, content: str, **fields: Any) -> int:
    values: dict[str, Any] = {
        "category": "coding_preferences",
        "confidence": 0.9,
        "importance": 0.5,
        "extracted_at": NOW - timedelta(days=1),
        "updated_at": NOW - timedelta(days=1),
        **fields,
    }
    values.setdefault("valid_from", values["extracted_at"])
    with service.db.writing() as session:
        row = MemoryItemRow(content=content, content_key=content.lower(), **values)
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def ids(results: list[Any]) -> list[int]:
    return [r.record.id for r in results]


def test_results_carry_their_score_breakdown_best_first(store: MemoryService) -> None:
    strong = add(store, "Retry the importer with exponential backoff on timeouts")
    weak = add(store, "The importer logs each file it reads", confidence=0.75)
    add(store, "Use tabs for indentation")
    results = store.retrieve("importer retry backoff")
    assert ids(results) == [strong, weak]
    top = results[0].breakdown
    assert top.relevance == 1.0  # the best match defines full relevance
    assert 0 < results[1].breakdown.relevance < 1
    assert top.total == pytest.approx(results[0].record.score)
    assert set(top.components()) == {
        "relevance",
        "confidence",
        "importance",
        "frequency",
        "recency",
    }


def test_a_confident_used_memory_overtakes_a_slightly_better_word_match(
    store: MemoryService,
) -> None:
    wordy = add(store, "pytest fixtures", confidence=0.75, importance=0.3)
    trusted = add(
        store,
        "pytest fixtures over setUp",
        confidence=1.0,
        importance=0.9,
        access_count=60,
        last_accessed_at=NOW - timedelta(hours=2),
    )
    results = store.retrieve("pytest fixtures")
    assert ids(results) == [trusted, wordy]
    assert results[0].breakdown.relevance < results[1].breakdown.relevance


def test_filters(store: MemoryService) -> None:
    a = add(
        store,
        "Cache the parser output",
        category="implementation_notes",
        type="fact",
        tags=["parser"],
        project="/p/one",
        importance=0.8,
    )
    b = add(
        store,
        "Cache invalidation happens on every write",
        project="/p/two",
        type="rule",
        tags=["cache"],
        extracted_at=NOW - timedelta(days=40),
    )
    g = add(store, "Cache keys include the schema version", scope="global", type="rule")
    add(store, "Cache was deleted", status="deleted")

    def found(**filters: Any) -> list[int]:
        query = RetrievalQuery(text="cache", filters=RetrievalFilters(**filters), limit=10)
        return sorted(ids(store.retrieve(query)))

    assert found() == sorted([a, b, g])
    assert found(categories=("implementation_notes",)) == [a]
    assert found(types=("fact",)) == [a]
    assert found(tags=("cache", "parser")) == sorted([a, b])
    assert found(project="/p/one") == sorted([a, g])  # global memories apply everywhere
    assert found(min_importance=0.7) == [a]
    assert found(since=NOW - timedelta(days=7)) == sorted([a, g])
    assert found(until=NOW - timedelta(days=7)) == [b]
    assert len(found(statuses=("deleted",))) == 1


def test_bad_queries_are_refused_clearly() -> None:
    with pytest.raises(RetrievalError, match="limit"):
        RetrievalQuery(text="x", limit=0)
    with pytest.raises(RetrievalError, match="unknown status 'gone'"):
        RetrievalFilters(statuses=("gone",))
    with pytest.raises(RetrievalError, match="ends before it starts"):
        RetrievalFilters(since=NOW, until=NOW - timedelta(days=1))
    with pytest.raises(RetrievalError, match="time zone"):
        RetrievalFilters(valid_at=datetime(2026, 1, 1))


def test_words_in_no_memory_find_nothing_and_an_empty_task_ranks_by_standing(
    store: MemoryService,
) -> None:
    low = add(store, "Use black", confidence=0.75, importance=0.2)
    high = add(store, "Use ruff", confidence=1.0, importance=0.9)
    assert store.retrieve("kubernetes helm") == []
    assert ids(store.retrieve("")) == [high, low]
    assert store.retrieve("")[0].breakdown.relevance == 0.0


def test_time_travel_returns_what_was_valid_then(store: MemoryService) -> None:
    """A superseded memory is what held before the supersession, and only then."""
    said_tabs = NOW - timedelta(days=60)
    said_spaces = NOW - timedelta(days=10)
    tabs = add(store, "Indent with tabs", category="project_conventions", extracted_at=said_tabs)
    spaces = add(
        store,
        "Indent with spaces, not tabs",
        category="project_conventions",
        extracted_at=said_spaces,
    )
    with store.db.writing() as session:
        conflict = ConflictRow(category="project_conventions")
        session.add(conflict)
        session.flush()
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=tabs, position=0))
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=spaces, position=1))
        conflict_id = conflict.id
    # "Outdated": tabs held until spaces were said (keep_newer would end it at the decision).
    store.resolve_conflict(conflict_id, "mark_outdated")
    assert store.get_item(tabs).status == "superseded"

    def at(moment: datetime | None) -> list[int]:
        filters = RetrievalFilters(valid_at=moment)
        return ids(store.retrieve(RetrievalQuery(text="indent tabs", filters=filters)))

    assert at(said_tabs + timedelta(days=5)) == [tabs]  # before the switch
    assert at(said_spaces + timedelta(days=1)) == [spaces]
    assert at(None) == [spaces]  # now
    assert at(said_tabs - timedelta(days=1)) == []  # before either was said


def test_the_cache_answers_repeats_and_forgets_on_any_write(store: MemoryService) -> None:
    item = add(store, "Prefer httpx over requests")
    first = store.retrieve("httpx")
    assert store.retrieve("httpx") == first
    assert store.retrieval_cache.hits == 1
    store.edit_item(item, content="Prefer httpx2 over requests")
    again = store.retrieve("httpx")
    assert store.retrieval_cache.hits == 1  # the edit moved the store's generation
    assert again == [] or again[0].record.content != first[0].record.content


def test_a_write_by_another_process_is_noticed(store: MemoryService, settings: Settings) -> None:
    add(store, "Prefer httpx over requests")
    assert len(store.retrieve("httpx")) == 1
    other = MemoryService.open(settings)  # another connection, as the import child uses
    try:
        add(other, "httpx timeouts are set per client")
    finally:
        other.close()
    assert len(store.retrieve("httpx")) == 2


def test_access_is_recorded_in_a_batch_off_the_query_path(store: MemoryService) -> None:
    item = add(store, "Run make lint before committing")
    store.retrieve("lint", record_access=True)
    store.retrieve("lint", record_access=True)
    store.retrieve("lint")  # a preview: not a use
    assert store.get_item(item).access_count == 0  # nothing written yet
    assert store.flush_access() == 1
    record = store.get_item(item)
    assert record.access_count == 2
    assert record.last_accessed_at == NOW
    assert store.flush_access() == 0


def test_close_writes_pending_access(settings: Settings) -> None:
    service = MemoryService.open(settings, clock=lambda: NOW)
    item = add(service, "Run make lint before committing")
    service.retrieve("lint", record_access=True)
    service.close()
    reopened = MemoryService.open(settings)
    try:
        assert reopened.get_item(item).access_count == 1
    finally:
        reopened.close()


def test_context_puts_conflicts_first_and_stays_within_budget(store: MemoryService) -> None:
    a = add(store, "Indent with tabs", category="project_conventions")
    b = add(store, "Indent with spaces", category="project_conventions")
    with store.db.writing() as session:
        conflict = ConflictRow(category="project_conventions")
        session.add(conflict)
        session.flush()
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=a, position=0))
        session.add(ConflictMemberRow(conflict_id=conflict.id, item_id=b, position=1))
    pinned = add(store, "Never log API keys", category="bug_patterns", pinned=True)
    task = add(store, "The importer retries timeouts three times", category="implementation_notes")
    for n in range(40):
        add(
            store, f"Convention number {n} about naming things well", category="project_conventions"
        )
    plan = store.build_context(ContextRequest(task="importer timeouts", budget=400))
    assert plan.used <= 400
    critical = plan.tier("critical").entries
    assert critical[0].conflict_id is not None
    assert pinned in [e.item_id for e in critical]
    assert task in [e.item_id for e in plan.tier("relevant").entries]
    assert plan.tier("background").entries  # conventions, as many as fit
    assert "Stored memories" in plan.render()
    with pytest.raises(BudgetError):
        store.build_context(ContextRequest(task="x", budget=5))


def test_excluded_memories_stay_out_of_that_projects_context(store: MemoryService) -> None:
    item = add(store, "Use the staging database for demos", project="/p/one")
    other = add(store, "Use the staging database for load tests", project="/p/two")
    store.set_context_exclusion(item, "/p/one", True)
    assert store.context_exclusions("/p/one") == {item}
    plan = store.build_context(ContextRequest(task="staging database", project="/p/one"))
    assert item not in plan.item_ids
    everywhere = store.build_context(ContextRequest(task="staging database"))
    assert item in everywhere.item_ids and other in everywhere.item_ids
    store.set_context_exclusion(item, "/p/one", False)
    assert (
        item
        in store.build_context(ContextRequest(task="staging database", project="/p/one")).item_ids
    )
