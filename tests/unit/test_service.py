"""The memorize pipeline and curation through MemoryService, on a real SQLite store."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from memory_app.config import Settings
from memory_app.domain.validation import ValidationError
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from memory_app.store.errors import EmptyQueryError, NotFoundError
from tests.helpers import ScriptedExtractor, conversation

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

ASYNC_CHAT = conversation(
    ("Can you refactor the fetch helpers in src/api.ts?", "Sure, let me look at the file."),
    (
        "One rule for this codebase: we always use async/await, never .then() chains.",
        "Understood, I'll convert the promise chains to async/await.",
    ),
    ("Thanks, looks good.", "Glad it helps!"),
    project="/home/dev/shop",
    branch="main",
)

SMALL_TALK = conversation(
    ("Hi Claude! How are you today?", "Hello! I'm doing well, happy to help with your code."),
    ("Great, can you run the tests for me?", "Running them now."),
    ("Thanks!", "You're welcome. All 42 tests passed."),
)


def test_an_explicit_preference_becomes_a_coding_preference(service: MemoryService) -> None:
    result = service.memorize(ASYNC_CHAT)
    assert result.status == "success"
    assert result.resource_id is not None
    items = service.list_items()
    assert len(items) == 1
    item = items[0]
    assert item.category == "coding_preferences"
    assert item.type == "preference"
    assert "async/await" in item.content
    assert item.confidence >= 0.75
    assert item.source_resource_id == result.resource_id
    assert item.project == "/home/dev/shop" and item.scope == "project"
    assert item.turn_start == 2
    view = service.get_category("coding_preferences")
    assert "async/await" in view.summary_markdown
    assert view.summary_markdown.startswith("# Coding preferences")
    assert "**Item Count:** 1" in view.summary_markdown
    history = service.item_history(item.id)
    assert [(e.actor, e.action) for e in history] == [("extractor", "create")]


def test_greetings_and_tool_chatter_yield_no_memories(service: MemoryService) -> None:
    result = service.memorize(SMALL_TALK)
    assert result.status == "empty"
    assert result.items_added == ()
    assert service.get_stats().items == 0
    assert service.get_stats().resources == 1  # the conversation itself is kept


def test_empty_and_trivial_conversations_are_skipped_with_a_reason(
    service: MemoryService,
) -> None:
    empty = conversation(("", ""))
    trivial = conversation(("hi", "hello"))
    assert service.memorize(empty).reason == "empty conversation"
    assert service.memorize(trivial).reason == "trivial conversation"
    assert service.get_stats().resources == 0


def test_the_same_conversation_twice_is_a_no_op(service: MemoryService) -> None:
    first = service.memorize(ASYNC_CHAT)
    again = service.memorize(ASYNC_CHAT)
    assert again.status == "skipped"
    assert again.reason == f"already imported as conversation #{first.resource_id}"
    assert service.get_stats().resources == 1
    assert len(service.list_items()) == 1


def test_a_repeated_statement_reinforces_instead_of_duplicating(service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    later = conversation(
        (
            "Reminder: we always use async/await, never .then() chains!",
            "Yes, I will keep using async/await everywhere.",
        ),
        session="s2",
    )
    result = service.memorize(later)
    assert result.items_added == ()
    assert len(result.items_reinforced) == 1
    (item,) = service.list_items()
    assert item.reinforcement_count == 1
    assert item.last_seen_at is not None
    actions = [e.action for e in service.item_history(item.id)]
    assert actions == ["create", "reinforce"]


def test_write_time_dedupe_finds_the_same_rule_in_any_category(settings: Settings) -> None:
    extractor = ScriptedExtractor(
        [ExtractedItem("coding_preferences", "Prefer pathlib over os.path for file paths", 0.8)]
    )
    svc = MemoryService.open(settings, extractor)
    try:
        svc.memorize(
            conversation(
                ("Use pathlib please, it is much nicer to read.", "Will do, pathlib it is.")
            )
        )
        extractor.items = [
            ExtractedItem("coding_preferences", "Prefer pathlib over os.path for file paths.", 0.9),
            ExtractedItem(
                "implementation_notes", "Prefer pathlib over os.path for file paths", 0.8
            ),
        ]
        result = svc.memorize(
            conversation(
                ("pathlib again, not os.path, for all paths", "Sure, switching to pathlib.")
            )
        )
        # The same rule is one memory wherever an extractor files it (issue 14: a rule and
        # its restatement under another category are still one slot).
        assert result.items_added == ()
        assert len(result.items_reinforced) == 2
        pref = svc.list_items(category="coding_preferences")
        assert len(pref) == 1 and pref[0].reinforcement_count == 2
        assert pref[0].confidence > 0.9
        assert svc.list_items(category="implementation_notes") == []
    finally:
        svc.close()


def test_low_confidence_and_invalid_items_are_dropped(settings: Settings) -> None:
    extractor = ScriptedExtractor(
        [
            ExtractedItem("coding_preferences", "Maybe use tabs", 0.5),
            ExtractedItem("no_such_category", "Something", 0.9),
            ExtractedItem("bug_patterns", "   ", 0.9),
            ExtractedItem("bug_patterns", "Off-by-one in pagination; fix the slice end", 0.95),
        ]
    )
    svc = MemoryService.open(settings, extractor)
    try:
        result = svc.memorize(SMALL_TALK)
        assert len(result.items_added) == 1
        (item,) = svc.list_items()
        assert item.category == "bug_patterns" and item.type == "fix"
        assert item.importance == pytest.approx(0.6)
    finally:
        svc.close()


def test_a_failing_extractor_keeps_the_conversation_pending_and_says_why(
    settings: Settings,
) -> None:
    svc = MemoryService.open(settings, ScriptedExtractor(fail_with=RuntimeError("boom")))
    try:
        result = svc.memorize(ASYNC_CHAT)
        assert result.status == "pending"
        assert result.reason == "scripted extractor failed: boom"
        assert (svc.get_stats().resources, svc.get_stats().items) == (1, 0)
        (record,) = svc.resources()
        assert (record.status, record.status_reason) == ("pending", result.reason)
    finally:
        svc.close()


def test_forgotten_memories_are_not_relearnt(service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    (item,) = service.list_items()
    service.forget(item.id)
    extra = dataclasses.replace(SMALL_TALK.turns[0], position=len(ASYNC_CHAT.turns))
    again = dataclasses.replace(ASYNC_CHAT, session_id="s9", turns=(*ASYNC_CHAT.turns, extra))
    result = service.memorize(again)
    assert result.items_suppressed == 1
    assert service.list_items() == []


def test_forget_restore_and_undo(service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    (item,) = service.list_items()
    service.forget(item.id)
    assert service.search("async") == []
    assert service.get_item(item.id).status == "deleted"
    service.restore(item.id)
    assert [r.id for r in service.search("async")] == [item.id]
    service.forget(item.id)
    assert service.undo() == [item.id]
    assert service.get_item(item.id).status == "active"
    with pytest.raises(ValidationError, match="is not deleted"):
        service.restore(item.id)


def test_editing_validates_every_field(service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    (item,) = service.list_items()
    with pytest.raises(ValidationError) as caught:
        service.edit_item(item.id, confidence=1.5, content="  ", category="nope")
    assert set(caught.value.errors) == {"confidence", "content", "category"}
    assert "between 0 and 1" in caught.value.errors["confidence"]
    edited = service.edit_item(
        item.id,
        content="Use async/await; no .then() chains",
        category="project_conventions",
        tags=["TypeScript", " async "],
        pinned=True,
    )
    assert edited.category == "project_conventions"
    assert edited.tags == ("async", "typescript")
    assert edited.pinned
    assert service.get_category("coding_preferences").info.item_count == 0
    assert "no .then() chains" in service.get_category("project_conventions").summary_markdown
    service.undo()
    restored = service.get_item(item.id)
    assert restored.category == "coding_preferences" and not restored.pinned
    assert restored.content == item.content


def test_undoing_a_move_refreshes_the_summaries_of_both_categories(
    service: MemoryService,
) -> None:
    # Issue 15: undo refreshed only the category the memory went back to, so the one it
    # had been moved into kept citing it.
    service.memorize(ASYNC_CHAT)
    (item,) = service.list_items()
    service.edit_item(item.id, category="project_conventions")
    assert "async/await" in service.get_category("project_conventions").summary_markdown
    assert service.undo() == [item.id]
    left = service.get_category("project_conventions").summary_markdown
    assert "async/await" not in left and "**Item Count:** 0" in left
    back = service.get_category("coding_preferences").summary_markdown
    assert "async/await" in back and "**Item Count:** 1" in back


def test_unknown_ids_and_categories_give_clear_errors(service: MemoryService) -> None:
    with pytest.raises(NotFoundError, match="no memory with id 999"):
        service.get_item(999)
    with pytest.raises(NotFoundError):
        service.forget(999)
    with pytest.raises(ValidationError, match="unknown category 'prefs'"):
        service.list_items(category="prefs")
    with pytest.raises(EmptyQueryError):
        service.search("?!")


def test_bulk_changes_are_one_undoable_step(settings: Settings) -> None:
    extractor = ScriptedExtractor(
        [
            ExtractedItem("bug_patterns", f"Bug number {n}: the cache key missed the locale", 0.9)
            for n in range(3)
        ]
    )
    svc = MemoryService.open(settings, extractor)
    try:
        svc.memorize(ASYNC_CHAT)
        ids = [i.id for i in svc.list_items()]
        assert len(ids) == 3
        svc.bulk_set(ids, "delete", status="deleted")
        assert svc.list_items() == []
        assert sorted(svc.undo()) == sorted(ids)
        assert len(svc.list_items()) == 3
    finally:
        svc.close()


def test_stats_count_what_the_store_holds(service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    service.memorize(SMALL_TALK)
    stats = service.get_stats()
    assert stats.items == 1
    assert stats.resources == 2
    assert stats.categories == 5
    assert stats.conflicts_open == 0
    assert stats.items_by_category == {"coding_preferences": 1}
    assert stats.last_memorized is not None


def test_reopening_the_store_keeps_everything(settings: Settings, service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    service.close()
    again = MemoryService.open(settings)
    try:
        assert [i.content for i in again.list_items()] == [
            i.content for i in again.search("async await")
        ]
        assert again.get_stats().items == 1
    finally:
        again.close()


@pytest.mark.sqlite_file
def test_data_lives_in_the_data_dir(settings: Settings, service: MemoryService) -> None:
    service.memorize(ASYNC_CHAT)
    assert (settings.data_dir / "memory.db").exists()
    assert isinstance(service.db.path, Path)
