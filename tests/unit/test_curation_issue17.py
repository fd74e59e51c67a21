"""Issue 17 through the service: one count of memories everywhere, redo, editing type,
importance and scope, archive and unarchive, and categories a person adds, renames and
merges."""

from __future__ import annotations

import pytest

from memory_app.domain.records import ItemQuery
from memory_app.domain.validation import ValidationError
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from tests.helpers import ScriptedExtractor, conversation
from tests.unit.test_conflicts_service import SPACES, SWITCHED, TABS, said

ITEMS = [
    ExtractedItem("coding_preferences", "Prefer pathlib over os.path", 0.95),
    ExtractedItem("coding_preferences", "Use async/await, never .then() chains", 0.85),
    ExtractedItem("bug_patterns", "Flaky tests came from a shared event loop", 0.78),
    ExtractedItem("project_conventions", "Tests mirror the package layout", 0.9),
]


def learn(service: MemoryService, items: list[ExtractedItem], session: str = "s1") -> list[int]:
    extractor, service.extractor = service.extractor, ScriptedExtractor(items)
    try:
        result = service.memorize(
            conversation(
                (f"A long enough conversation about our rules ({session}).", "Noted."),
                session=session,
            )
        )
    finally:
        service.extractor = extractor
    return list(result.items_added)


def every_count(service: MemoryService) -> dict[str, int]:
    """Each place a number of memories is shown, as the front ends compute it."""
    data = service.dashboard()
    return {
        "stats": service.get_stats().items,
        "dashboard card": data.stats.items,
        "categories (All memories)": sum(c.item_count for c in service.categories()),
        "memory table": service.count_items(ItemQuery()),
        "chart per category": sum(data.stats.items_by_category.values()),
        "chart confidence": sum(data.confidence_histogram),
        "chart weekly": sum(n for _, n in data.weekly_added),
        "status": service.get_status()["items"],
    }


def test_counts_agree_after_conflict_resolutions(service: MemoryService) -> None:
    learn(service, ITEMS)
    # One conflict a person resolves, one update superseded automatically.
    tabs = service.memorize(said(TABS, 4, "a")).items_added[0]
    spaces = service.memorize(said(SPACES, 2, "b"))
    (conflict,) = spaces.conflicts_found
    service.resolve_conflict(conflict, "keep_newer")
    assert service.get_item(tabs).status == "superseded"
    # "We switched…" supersedes the spaces memory at once, as an update.
    service.memorize(said(SWITCHED, 1, "e"))
    archived = learn(service, [ExtractedItem("bug_patterns", "Old bug, long fixed", 0.9)], "f")
    service.archive(archived[0])
    service.forget(learn(service, [ExtractedItem("bug_patterns", "Forget me", 0.9)], "g")[0])

    stats = service.get_stats()
    kept_aside = {s: n for s, n in stats.items_by_status.items() if s != "active"}
    assert kept_aside["superseded"] == 2  # one by a person, one automatically
    assert kept_aside["archived"] == 1 and kept_aside["deleted"] == 1
    counts = every_count(service)
    assert set(counts.values()) == {stats.items_by_status["active"]}, counts
    assert stats.kept == sum(n for s, n in stats.items_by_status.items() if s != "deleted")
    assert stats.kept > stats.items


def test_redo_walks_back_the_undos_and_a_new_change_clears_it(service: MemoryService) -> None:
    first, second = learn(service, ITEMS)[:2]
    service.edit_item(first, content="Prefer pathlib, always")
    service.set_pinned(second, True)
    assert service.redo() == []  # nothing undone yet
    assert not service.can_redo()

    assert service.undo() == [second]
    assert service.undo() == [first]
    assert service.get_item(first).content == "Prefer pathlib over os.path"
    assert service.can_redo()
    assert service.redo() == [first]  # the newest undo first
    assert service.get_item(first).content == "Prefer pathlib, always"
    assert not service.get_item(second).pinned
    assert service.redo() == [second]
    assert service.get_item(second).pinned
    assert service.redo() == []

    # A redo is undoable like any change, and can be redone again.
    assert service.undo() == [second]
    assert not service.get_item(second).pinned
    assert service.redo() == [second]
    assert service.get_item(second).pinned
    history = [e.action for e in service.item_history(second)]
    assert history[-4:] == ["undo", "redo", "undo", "redo"]

    # A new change empties the redo stack.
    service.undo()
    service.edit_item(first, confidence=0.5)
    assert service.redo() == []
    assert not service.get_item(second).pinned


def test_redo_keeps_changes_made_since(service: MemoryService) -> None:
    (first,) = learn(service, ITEMS[:1])
    service.edit_item(first, tags=["python"])
    service.undo()
    # The extractor reinforces the memory meanwhile: redo must not lose that.
    with service.db.writing() as session:
        row = repo.get_item(session, first)
        repo.change_item(
            session,
            row,
            {"reinforcement_count": 3},
            actor="extractor",
            action="reinforce",
            group_id="x",
        )
    service.redo()
    item = service.get_item(first)
    assert item.tags == ("python",) and item.reinforcement_count == 3


def test_redo_a_conflict_resolution_resolves_it_again(service: MemoryService) -> None:
    older = service.memorize(said(TABS, 40, "a")).items_added[0]
    (conflict,) = service.memorize(said(SPACES, 2, "b")).conflicts_found
    service.resolve_conflict(conflict, "keep_newer")
    service.undo()
    assert service.get_conflict(conflict).status == "unresolved"
    assert service.get_stats().conflicts_open == 1
    service.redo()
    assert service.get_conflict(conflict).status == "accepted_newer"
    assert service.get_item(older).status == "superseded"
    assert service.get_stats().conflicts_open == 0
    service.reopen_conflict(conflict)  # the redone resolution is the one reopened
    assert service.get_conflict(conflict).status == "unresolved"
    assert service.get_item(older).status == "active"


def test_edit_type_importance_and_scope(service: MemoryService) -> None:
    (first,) = learn(service, ITEMS[:1])
    edited = service.edit_item(first, type="rule", importance=0.9, scope="global")
    assert (edited.type, edited.importance, edited.scope) == ("rule", 0.9, "global")
    with pytest.raises(ValidationError) as caught:
        service.edit_item(first, type="whim", importance=1.5, scope="galaxy")
    assert set(caught.value.errors) == {"type", "importance", "scope"}
    service.undo()
    assert service.get_item(first).type == "preference"


def test_archive_and_unarchive(service: MemoryService) -> None:
    ids = learn(service, ITEMS)
    before = service.get_stats().items
    archived = service.archive(ids[0])
    assert archived.status == "archived"
    assert service.get_stats().items == before - 1
    assert ids[0] not in [r.id for r in service.query_items(ItemQuery())]
    with pytest.raises(ValidationError, match="not active"):
        service.archive(ids[0])
    assert service.item_history(ids[0])[-1].action == "archive"
    assert service.unarchive(ids[0]).status == "active"
    with pytest.raises(ValidationError, match="not archived"):
        service.unarchive(ids[0])
    service.undo()  # the unarchive
    assert service.get_item(ids[0]).status == "archived"
    service.undo()  # the archive
    assert service.get_item(ids[0]).status == "active"
    service.redo()
    assert service.get_item(ids[0]).status == "archived"

    # Many at once, one step; only the eligible ones change.
    assert service.set_archived(ids, True) == ids[1:]
    assert service.get_stats().items == 0
    service.undo()
    assert service.get_stats().items == before - 1
    with pytest.raises(ValidationError):
        service.set_archived([ids[1]], False)


def test_add_and_rename_a_category(service: MemoryService) -> None:
    added = service.add_category("Testing notes", "How we test.", default_type="procedure")
    assert added.key == "testing_notes" and added.item_count == 0
    assert added.position == max(c.position for c in service.categories())
    assert service.categories()[-1] == added
    with pytest.raises(ValidationError, match="already a category"):
        service.add_category("testing NOTES")
    with pytest.raises(ValidationError, match="needs a name"):
        service.add_category("   ")
    (item,) = learn(service, [ExtractedItem("testing_notes", "Use pytest fixtures", 0.9)])
    assert service.get_item(item).category == "testing_notes"
    assert service.get_item(item).type == "procedure"

    renamed = service.rename_category("testing_notes", "Testing", "Tests and fixtures.")
    assert (renamed.key, renamed.name, renamed.description) == (
        "testing_notes",
        "Testing",
        "Tests and fixtures.",
    )
    assert service.get_category("testing_notes").summary_markdown.startswith("# Testing")
    with pytest.raises(ValidationError, match="already a category"):
        service.rename_category("testing_notes", "Bug patterns")
    service.undo()
    assert service.get_category("testing_notes").info.name == "Testing notes"
    service.redo()
    assert service.get_category("testing_notes").info.name == "Testing"


def test_undoing_an_added_category(service: MemoryService) -> None:
    service.add_category("Scratch")
    service.undo()
    assert "scratch" not in [c.key for c in service.categories()]
    service.redo()
    assert "scratch" in [c.key for c in service.categories()]


def test_an_added_category_that_memories_were_filed_under_stays(service: MemoryService) -> None:
    (first,) = learn(service, ITEMS[:1])
    service.edit_item(first, confidence=0.5)
    service.add_category("Scratch")
    learn(service, [ExtractedItem("scratch", "Filed here by an extractor", 0.9)], "s2")
    service.undo()  # the category keeps its memory…
    assert "scratch" in [c.key for c in service.categories()]
    assert service.undo() == [first]  # …and undo moves on to the change before it
    assert service.get_item(first).confidence == 0.95


def test_merge_categories_moves_everything_and_is_undoable(service: MemoryService) -> None:
    ids = learn(service, ITEMS)
    service.forget(ids[2])  # a deleted bug pattern moves too
    tabs = service.memorize(said(TABS, 40, "a")).items_added[0]
    (conflict,) = service.memorize(said(SPACES, 2, "b")).conflicts_found
    source = service.get_item(tabs).category
    target = "implementation_notes" if source != "implementation_notes" else "bug_patterns"
    moving = len(service.list_items(category=source, status=None, limit=100))
    before = service.get_stats()

    assert service.merge_category(source, target) == moving
    keys = [c.key for c in service.categories()]
    assert source not in keys
    assert service.get_conflict(conflict).category == target
    assert service.get_item(tabs).category == target
    after = service.get_stats()
    assert after.items == before.items
    assert after.items_by_category[target] == before.items_by_category.get(
        target, 0
    ) + before.items_by_category.get(source, 0)
    assert TABS in service.get_category(target).summary_markdown
    with pytest.raises(ValidationError, match="unknown category"):
        service.merge_category(source, target)
    with pytest.raises(ValidationError, match="into itself"):
        service.merge_category(target, target)

    service.undo()
    assert source in [c.key for c in service.categories()]
    assert service.get_item(tabs).category == source
    assert service.get_conflict(conflict).category == source
    assert service.get_stats().items_by_category == before.items_by_category
    assert TABS in service.get_category(source).summary_markdown
    assert TABS not in service.get_category(target).summary_markdown

    service.redo()
    assert source not in [c.key for c in service.categories()]
    assert service.get_item(tabs).category == target


def test_what_an_extractor_files_under_a_merged_category_goes_where_it_went(
    service: MemoryService,
) -> None:
    learn(service, ITEMS)
    service.merge_category("bug_patterns", "implementation_notes")
    (item,) = learn(service, [ExtractedItem("bug_patterns", "Timeouts hide deadlocks", 0.9)], "x")
    assert service.get_item(item).category == "implementation_notes"
    # A new category never takes a merged-away key.
    assert service.add_category("Bug patterns").key == "bug_patterns_2"
