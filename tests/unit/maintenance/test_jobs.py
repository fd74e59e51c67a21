"""Maintenance jobs through MemoryService on a real SQLite store: what they propose, what
applying changes, that pinned memories and dry runs are left alone, that undo and
cancellation leave the store exactly as it was."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from memory_app.domain.jobs import JobState
from memory_app.domain.records import ItemQuery
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

NOW = datetime.now(UTC)
OLD = NOW - timedelta(days=200)


def add(service: MemoryService, content: str, **fields: Any) -> int:
    """A memory written straight into the store, with any field set."""
    values: dict[str, Any] = {
        "category": "coding_preferences",
        "type": "preference",
        "confidence": 0.7,
        "importance": 0.6,
        **fields,
    }
    with service.db.writing() as session:
        row = repo.add_item(
            session,
            MemoryItemRow(content=content, content_key="", **values),
            actor="user",
            group_id=None,
        )
        service._refresh_summaries(session, {row.category})
        return row.id or 0


def snapshot(service: MemoryService) -> dict[str, Any]:
    """Every column of every memory, every category digest, every conflict."""
    with service.db.reading() as session:
        conn = session.connection()
        rows = conn.execute(text("SELECT * FROM memory_item ORDER BY id"))
        items = [tuple(r._asdict().items()) for r in rows]
        digests = list(conn.execute(text("SELECT category, digest FROM category_summary")))
        conflicts = [tuple(r) for r in conn.execute(text("SELECT * FROM conflict ORDER BY id"))]
    return {"items": items, "digests": [tuple(r) for r in digests], "conflicts": conflicts}


@pytest.fixture
def store(service: MemoryService) -> dict[str, int]:
    """A small store with one of everything maintenance acts on."""
    ids = {
        "keep": add(
            service, "Use pytest fixtures for database tests in the importer module", confidence=0.9
        ),
        "dup": add(
            service,
            "use pytest fixtures for the database tests in the importer module.",
            confidence=0.6,
            tags=["testing"],
        ),
        "other": add(service, "Prefer pathlib over os.path when touching files"),
        "version": add(service, "Pin ruff to version 0.6.9 in the lint workflow"),
        "version2": add(service, "Pin ruff to version 0.7.1 in the lint workflow"),
        "stale": add(
            service,
            "Keep the legacy fax gateway adapter behind a flag",
            extracted_at=OLD,
            importance=0.2,
            tags=["legacy"],
        ),
        "old": add(
            service,
            "Document every public function of the SDK with examples",
            extracted_at=OLD,
            importance=0.9,
            tags=["docs"],
        ),
        "pinned_dup": add(service, "Prefer pathlib over os.path when touching files!", pinned=True),
        "pinned_stale": add(
            service,
            "Remember the hand-written parser for the old wire format",
            extracted_at=OLD,
            importance=0.1,
            pinned=True,
        ),
    }
    return ids


def test_duplicates_are_merged_and_the_survivor_reinforced(
    service: MemoryService, store: dict[str, int]
) -> None:
    before = service.get_item(store["keep"])
    run = service.run_maintenance("nightly")
    assert run.status == "success", run.error
    assert run.result["duplicate_groups"] == 1 and run.result["applied"] == 1
    survivor = service.get_item(store["keep"])
    merged = service.get_item(store["dup"])
    assert merged.status == "superseded" and merged.superseded_by == store["keep"]
    assert survivor.status == "active"
    assert survivor.reinforcement_count == before.reinforcement_count + 1
    assert survivor.confidence > before.confidence
    assert "testing" in survivor.tags  # the duplicate's tags join the survivor's
    # Similar but different: two versions of a setting are not duplicates.
    assert service.get_item(store["version"]).status == "active"
    assert service.get_item(store["version2"]).status == "active"
    history = service.item_history(store["dup"])
    assert history[-1].actor == "maintenance" and history[-1].action == "merge"


def test_a_dry_run_changes_nothing_and_leaves_its_proposals_for_review(
    service: MemoryService, store: dict[str, int]
) -> None:
    before = snapshot(service)
    run = service.run_maintenance("full", dry_run=True)
    assert run.status == "success" and run.dry_run
    assert snapshot(service) == before
    proposed = service.maintenance_changes()
    kinds = {c.kind for c in proposed}
    assert {"merge", "archive", "compress"} <= kinds
    assert all(c.decision == "pending" for c in proposed)
    merge = next(c for c in proposed if c.kind == "merge")
    assert merge.item_ids == (store["keep"], store["dup"])
    assert merge.before[str(store["dup"])]["status"] == "active"
    assert merge.after[str(store["dup"])] == {
        "status": "superseded",
        "superseded_by": store["keep"],
    }


def test_pinned_memories_are_never_touched(service: MemoryService, store: dict[str, int]) -> None:
    with service.db.writing() as session:  # break a pinned memory's rules on purpose
        session.connection().execute(
            text("UPDATE memory_item SET confidence = 1.5 WHERE id = :id"),
            {"id": store["pinned_stale"]},
        )
    pinned = [store["pinned_dup"], store["pinned_stale"]]
    before = [service.get_item(i) for i in pinned]
    run = service.run_maintenance("full")
    assert run.status == "success", run.error
    assert [service.get_item(i) for i in pinned] == before
    touched = {
        i
        for c in service.maintenance_changes(decisions=("applied",))
        for i in c.item_ids
        if c.kind != "compress"
    }
    assert not touched & set(pinned)
    # The unpinned twin of the pinned memory was not merged into it either.
    assert service.get_item(store["other"]).status == "active"


def test_archived_memories_leave_retrieval_but_stay_browsable(
    service: MemoryService, store: dict[str, int]
) -> None:
    assert store["stale"] in [r.record.id for r in service.retrieve("fax gateway adapter")]
    run = service.run_maintenance("weekly")
    assert run.status == "success", run.error
    archived = service.get_item(store["stale"])
    assert archived.status == "archived"
    assert service.get_item(store["old"]).status == "active"  # important: kept
    assert store["stale"] not in [r.record.id for r in service.retrieve("fax gateway adapter")]
    browsable = service.query_items(ItemQuery(statuses=("archived",)))
    assert [r.id for r in browsable] == [store["stale"]]
    assert service.search("fax gateway", statuses=("archived",))[0].id == store["stale"]


def test_weekly_compresses_older_memories_into_the_category_summary(
    service: MemoryService, store: dict[str, int]
) -> None:
    run = service.run_maintenance("weekly")
    assert run.result["categories_to_compress"] == 1
    summary = service.get_category("coding_preferences").summary_markdown
    assert "## Older Memories (compressed)" in summary
    assert f"#{store['old']}" in summary and "legacy" in summary
    # Nothing new: the next week proposes no compression again.
    again = service.run_maintenance("weekly")
    assert "categories_to_compress" in again.result
    assert again.result["categories_to_compress"] == 0


def test_undo_of_an_applied_changeset_restores_the_store_exactly(
    service: MemoryService, store: dict[str, int]
) -> None:
    before = snapshot(service)
    service.run_maintenance("full", dry_run=True)
    proposed = service.maintenance_changes()
    assert service.decide_changes([c.id for c in proposed], "accepted") == len(proposed)
    result = service.apply_changes()
    assert result.applied == len(proposed) and result.stale == 0 and result.group_id
    assert snapshot(service) != before
    service.undo_maintenance(result.group_id)
    assert snapshot(service) == before
    assert {c.decision for c in service.maintenance_changes(decisions=("undone",))} == {"undone"}


def test_undoing_a_merge_brings_both_memories_back_as_they_were(
    service: MemoryService, store: dict[str, int]
) -> None:
    ids = (store["keep"], store["dup"])
    before = [service.get_item(i) for i in ids]
    run = service.run_maintenance("nightly")
    assert run.group_id and service.get_item(store["dup"]).status == "superseded"
    assert sorted(service.undo_maintenance(run.group_id)) == sorted(ids)
    for old, new in zip(before, (service.get_item(i) for i in ids), strict=True):
        assert new.status == "active" and new.superseded_by is None
        assert (new.content, new.confidence, new.reinforcement_count, new.tags) == (
            old.content,
            old.confidence,
            old.reinforcement_count,
            old.tags,
        )
        assert new.updated_at == old.updated_at  # nothing changed since: back exactly


def test_undoing_a_merge_keeps_a_later_edit_of_the_survivor(
    service: MemoryService, store: dict[str, int]
) -> None:
    # Issue 15: undo put back the survivor's whole snapshot, losing the edit.
    before = service.get_item(store["keep"])
    run = service.run_maintenance("nightly")
    assert run.group_id
    merged = service.get_item(store["keep"])
    edited = "Use pytest fixtures for every database test"
    service.edit_item(store["keep"], content=edited, importance=0.95)
    service.undo_maintenance(run.group_id)
    survivor = service.get_item(store["keep"])
    assert (survivor.content, survivor.importance) == (edited, 0.95)  # the person's edit
    # What only the merge wrote is undone.
    assert survivor.reinforcement_count == before.reinforcement_count
    assert survivor.confidence == before.confidence != merged.confidence
    assert survivor.tags == before.tags and "testing" in merged.tags
    assert survivor.updated_at > merged.updated_at
    dup = service.get_item(store["dup"])
    assert dup.status == "active" and dup.superseded_by is None


def test_rejected_changes_are_not_applied(service: MemoryService, store: dict[str, int]) -> None:
    service.run_maintenance("weekly", dry_run=True)
    proposed = service.maintenance_changes()
    archive = [c.id for c in proposed if c.kind == "archive"]
    others = [c.id for c in proposed if c.kind != "archive"]
    service.decide_changes(archive, "rejected")
    service.decide_changes(others, "accepted")
    result = service.apply_changes()
    assert result.applied == len(others)
    assert service.get_item(store["stale"]).status == "active"


def test_a_change_to_a_memory_edited_since_the_run_is_skipped_as_stale(
    service: MemoryService, store: dict[str, int]
) -> None:
    service.run_maintenance("nightly", dry_run=True)
    merge = next(c for c in service.maintenance_changes() if c.kind == "merge")
    service.edit_item(store["dup"], content="Use pytest fixtures for every database test")
    result = service.apply_changes([merge.id])
    assert (result.applied, result.stale) == (0, 1)
    assert service.get_item(store["dup"]).status == "active"


def test_a_cancelled_job_leaves_the_store_consistent(
    service: MemoryService, store: dict[str, int]
) -> None:
    before = snapshot(service)
    job = JobState()
    job.on_progress = lambda done, total, message: job.cancel() if "weekly" in message else None
    run = service.run_maintenance("full", job=job)
    assert run.status == "cancelled" and run.error == "cancelled by the user"
    after = snapshot(service)
    # Nightly's reviewed changes were never applied: every memory is as it was, except
    # the decay factors nightly refreshes on its own.
    strip = lambda rows: [[c for c in r if c[0] != "decay_factor"] for r in rows]  # noqa: E731
    assert strip(after["items"]) == strip(before["items"])
    assert service.maintenance_changes() == []
    with service.db.reading() as session:
        assert service.db.dialect.check_search_index(session.connection()) == []
    assert [r.status for r in service.maintenance_runs()] == ["cancelled"]


def test_monthly_marks_memories_that_break_the_rules_invalid(
    service: MemoryService, store: dict[str, int]
) -> None:
    with service.db.writing() as session:
        session.connection().execute(
            text("UPDATE memory_item SET confidence = 1.7 WHERE id = :id"), {"id": store["other"]}
        )
    run = service.run_maintenance("monthly")
    assert run.status == "success", run.error
    assert run.result["invalid"] == 1 and run.result["index_ok"] is True
    assert run.result["index_rebuilt"] is True and run.result["index_ok_after"] is True
    broken = service.get_item(store["other"])
    assert broken.status == "invalid"
    assert "confidence must be a number between 0 and 1" in service.item_history(broken.id)[-1].note
    assert store["other"] not in [r.record.id for r in service.retrieve("pathlib")]


def test_monthly_reports_a_damaged_search_index_and_rebuilds_it(
    service: MemoryService, store: dict[str, int]
) -> None:
    # What keeps each engine's index current: SQLite's trigger, PostgreSQL's GIN index.
    if service.db.dialect.name == "sqlite":
        damage, problem = "DROP TRIGGER memory_item_au", "missing trigger memory_item_au"
    else:
        damage, problem = "DROP INDEX memory_item_search", "missing index memory_item_search"
    with service.db.writing() as session:
        session.connection().execute(text(damage))
    dry = service.run_maintenance("monthly", dry_run=True)
    assert dry.result["index_ok"] is False
    assert problem in dry.result["index_problems"]
    run = service.run_maintenance("monthly")
    assert run.result["index_ok_after"] is True
    service.edit_item(store["other"], content="Prefer pathlib for filesystem paths")
    assert [m.id for m in service.search("filesystem")] == [store["other"]]


def test_a_failing_job_is_logged_and_changes_nothing(
    service: MemoryService, store: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_app.maintenance import summarization

    def broken(*_args: Any, **_kwargs: Any) -> list:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(summarization, "plan_archive", broken)
    before = snapshot(service)
    run = service.run_maintenance("weekly")
    assert run.status == "error" and run.error == "RuntimeError: disk on fire"
    assert snapshot(service) == before


def test_unknown_jobs_and_decisions_are_refused(service: MemoryService) -> None:
    with pytest.raises(ValueError, match="unknown maintenance job 'hourly'"):
        service.run_maintenance("hourly")
    with pytest.raises(ValueError, match="decision must be one of"):
        service.decide_changes([1], "maybe")
    with pytest.raises(ValueError, match="not a maintenance change group"):
        service.undo_maintenance("edit:123")
