"""Contradictions through the service: detection on memorize, every resolution, undo."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func
from sqlmodel import select

from memory_app.config import Settings
from memory_app.domain.transcripts import Transcript
from memory_app.domain.validation import ValidationError
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError
from memory_app.store.tables import (
    AuditEventRow,
    ConflictJudgementRow,
    ConflictMemberRow,
    ConflictRow,
    MemoryItemRow,
    ResourceRow,
)
from tests.helpers import conversation

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

TABS = "We always indent with tabs in this repo."
# A new value with no change cue: a contradiction a person decides.
SPACES = "We always indent with spaces in this repo, never tabs."
# The same new value said as a change: an update, resolved at once (and reversible).
SWITCHED = "We switched from tabs to spaces last week, use spaces from now on."


def said(text: str, days_ago: float, session: str, reply: str = "Understood.") -> Transcript:
    """A one-exchange conversation that happened `days_ago` days ago."""
    base = conversation((text, reply), session=session)
    start = datetime.now(UTC) - timedelta(days=days_ago)
    turns = tuple(
        dataclasses.replace(t, timestamp=start + timedelta(minutes=i))
        for i, t in enumerate(base.turns)
    )
    return dataclasses.replace(
        base, turns=turns, started_at=start, ended_at=start + timedelta(minutes=len(turns))
    )


def tabs_then_spaces(service: MemoryService) -> tuple[int, int, list[int]]:
    older = service.memorize(said(TABS, 40, "a"))
    newer = service.memorize(said(SPACES, 2, "b"))
    assert len(older.items_added) == 1 and len(newer.items_added) == 1
    return older.items_added[0], newer.items_added[0], list(newer.conflicts_found)


def row_counts(service: MemoryService) -> dict[str, int]:
    with service.db.reading() as session:
        return {
            table.__name__: session.exec(select(func.count()).select_from(table)).one()
            for table in (
                MemoryItemRow,
                ResourceRow,
                ConflictRow,
                ConflictMemberRow,
                ConflictJudgementRow,
            )
        }


def test_must_show_tabs_then_spaces_keep_newer_and_undo(service: MemoryService) -> None:
    older, newer, found = tabs_then_spaces(service)

    open_ = service.conflicts(("unresolved", "pending_user_review"))
    assert len(open_) == 1 and found == [open_[0].id]
    conflict = open_[0]
    assert conflict.item_ids == (older, newer)
    assert conflict.reason == "tabs → spaces"
    assert service.get_stats().conflicts_open == 1
    before = row_counts(service)

    resolved = service.resolve_conflict(conflict.id, "keep_newer")
    assert resolved.status == "accepted_newer" and resolved.decision == "keep_newer"
    assert resolved.resolved_at is not None
    loser, winner = service.get_item(older), service.get_item(newer)
    assert loser.status == "superseded"
    assert loser.valid_until is not None and loser.superseded_by == newer
    assert winner.status == "active" and winner.valid_until is None
    assert service.get_stats().conflicts_open == 0
    history = service.item_history(older)
    assert history[-1].action == "resolve_conflict" and history[-1].actor == "user"
    with service.db.reading() as session:
        events = session.exec(
            select(AuditEventRow).where(AuditEventRow.conflict_id == conflict.id)
        ).all()
    assert [(e.actor, e.after["status"]) for e in events] == [("user", "accepted_newer")]
    assert events[0].group_id == history[-1].group_id  # one undoable step

    assert service.undo() == [older]
    assert service.get_item(older).status == "active"
    assert service.get_item(older).valid_until is None
    assert service.get_item(older).superseded_by is None
    assert service.get_item(newer).status == "active"
    reopened = service.conflicts()[0]
    assert reopened.status == "unresolved"
    assert reopened.decision is None and reopened.resolved_at is None
    assert service.get_stats().conflicts_open == 1
    assert row_counts(service) == before  # nothing was deleted, nothing duplicated


def test_an_update_with_a_change_cue_supersedes_the_older_at_once(
    service: MemoryService,
) -> None:
    older = service.memorize(said(TABS, 40, "a")).items_added[0]
    result = service.memorize(said(SWITCHED, 2, "b"))
    (newer,) = result.items_added
    (found,) = result.conflicts_found
    assert service.conflicts(("unresolved", "pending_user_review")) == []
    conflict = service.get_conflict(found)
    assert conflict.status == "auto_resolved" and conflict.item_ids == (older, newer)
    assert conflict.reason == "tabs → spaces"
    loser, winner = service.get_item(older), service.get_item(newer)
    assert loser.status == "superseded" and loser.superseded_by == newer
    assert loser.valid_until == winner.valid_from  # it stopped being true when the update was said
    assert winner.status == "active"
    assert service.item_history(older)[-1].actor == "system"
    # A person can reverse it: the older memory comes back and the conflict waits for them.
    reopened = service.reopen_conflict(found)
    assert reopened.status == "unresolved"
    assert service.get_item(older).status == "active"


def test_detection_runs_once_per_pair(service: MemoryService) -> None:
    _, _, found = tabs_then_spaces(service)
    assert len(found) == 1
    assert service.detect_conflicts() == []
    assert service.detect_conflicts(None) == []
    with service.db.reading() as session:
        assert session.exec(select(func.count()).select_from(ConflictJudgementRow)).one() == 1


def test_a_resolved_pair_is_not_raised_again(service: MemoryService) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    service.resolve_conflict(conflict, "keep_both", note="tabs in Makefiles only")
    assert service.detect_conflicts([older, newer]) == []


def test_unrelated_memories_make_no_conflict(service: MemoryService) -> None:
    service.memorize(said(TABS, 40, "a"))
    result = service.memorize(said("I prefer pytest over unittest for tests.", 1, "b"))
    assert result.conflicts_found == ()
    assert service.conflicts() == []


def test_search_results_carry_their_open_conflicts(service: MemoryService) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    found = {r.id: r.conflict_ids for r in service.search("tabs")}
    assert found == {older: (conflict,), newer: (conflict,)}
    assert service.open_conflicts_for([older, newer, 999]) == {
        older: [conflict],
        newer: [conflict],
    }
    service.resolve_conflict(conflict, "keep_newer")
    assert service.open_conflicts_for([older, newer]) == {}


def test_conflict_detail_orders_items_and_quotes_their_conversations(
    service: MemoryService,
) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    detail = service.conflict_detail(conflict)
    assert [i.id for i in detail.items] == [older, newer]
    assert TABS in detail.excerpts[older]
    assert SPACES in detail.excerpts[newer]
    assert detail.to_json()["items"][0]["id"] == older
    with pytest.raises(NotFoundError, match="no conflict with id 999"):
        service.conflict_detail(999)


@pytest.mark.parametrize(
    ("decision", "status", "loser_is_older"),
    [
        ("keep_newer", "accepted_newer", True),
        ("keep_older", "accepted_older", False),
        ("mark_outdated", "marked_outdated", True),
    ],
)
def test_keep_one_supersedes_the_other(
    service: MemoryService, decision: str, status: str, loser_is_older: bool
) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    assert service.resolve_conflict(conflict, decision).status == status
    loser, winner = (older, newer) if loser_is_older else (newer, older)
    lost = service.get_item(loser)
    assert lost.status == "superseded" and lost.superseded_by == winner
    assert service.get_item(winner).status == "active"
    if decision == "mark_outdated":  # it stopped being true when the newer was said
        assert lost.valid_until == service.get_item(newer).valid_from
    else:
        assert lost.valid_until is not None


def test_keep_both_stores_the_context_on_both(service: MemoryService) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    record = service.resolve_conflict(conflict, "keep_both", note="tabs only in Makefiles")
    assert record.status == "kept_both_with_context" and record.notes == "tabs only in Makefiles"
    for item_id in (older, newer):
        item = service.get_item(item_id)
        assert item.status == "active" and item.context == "tabs only in Makefiles"
    service.undo()
    assert service.get_item(older).context == "stated by the user"


def test_keep_both_without_a_note_writes_a_default_context(service: MemoryService) -> None:
    older, _, (conflict,) = tabs_then_spaces(service)
    service.resolve_conflict(conflict, "keep_both")
    assert f"conflict #{conflict}" in (service.get_item(older).context or "")


@pytest.mark.parametrize(
    ("older_conf", "newer_conf", "winner"),
    [(0.95, 0.8, "older"), (0.8, 0.95, "newer"), (0.9, 0.9, "newer")],
)
def test_higher_confidence_wins_and_ties_go_to_the_newer(
    service: MemoryService, older_conf: float, newer_conf: float, winner: str
) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    service.edit_item(older, confidence=older_conf)
    service.edit_item(newer, confidence=newer_conf)
    record = service.resolve_conflict(conflict, "higher_confidence")
    assert record.status == "accepted_higher_confidence"
    kept, lost = (older, newer) if winner == "older" else (newer, older)
    assert service.get_item(kept).status == "active"
    assert service.get_item(lost).superseded_by == kept


def test_merge_supersedes_both_with_the_new_statement(service: MemoryService) -> None:
    older, newer, (conflict,) = tabs_then_spaces(service)
    with pytest.raises(ValidationError, match="merged_content"):
        service.resolve_conflict(conflict, "merge")
    record = service.resolve_conflict(
        conflict, "merge", merged_content="Indent with spaces; tabs only in Makefiles."
    )
    assert record.status == "merged"
    merged_id = service.get_item(older).superseded_by
    assert merged_id is not None and service.get_item(newer).superseded_by == merged_id
    merged = service.get_item(merged_id)
    assert merged.status == "active" and merged.content.startswith("Indent with spaces")
    assert merged.confidence == 0.9
    service.undo()
    assert service.get_item(merged_id).status == "deleted"  # soft: the row stays
    assert {service.get_item(i).status for i in (older, newer)} == {"active"}
    assert service.conflicts()[0].status == "unresolved"


def test_resolving_twice_or_wrongly_is_refused(service: MemoryService) -> None:
    _, _, (conflict,) = tabs_then_spaces(service)
    with pytest.raises(ValidationError, match="unknown decision"):
        service.resolve_conflict(conflict, "keep_all")
    with pytest.raises(ValidationError, match="only a merge"):
        service.resolve_conflict(conflict, "keep_newer", merged_content="x")
    with pytest.raises(NotFoundError):
        service.resolve_conflict(999, "keep_newer")
    service.resolve_conflict(conflict, "keep_newer")
    with pytest.raises(ValidationError, match="already resolved"):
        service.resolve_conflict(conflict, "keep_older")


def test_reopen_conflict_undoes_its_latest_resolution(service: MemoryService) -> None:
    older, _, (conflict,) = tabs_then_spaces(service)
    service.resolve_conflict(conflict, "keep_newer")
    assert service.reopen_conflict(conflict).status == "unresolved"
    assert service.get_item(older).status == "active"
    with pytest.raises(ValidationError, match="not resolved"):
        service.reopen_conflict(conflict)


def test_auto_resolve_newer_if_confident_is_recorded_and_undoable(settings: Settings) -> None:
    service = MemoryService.open(settings, OfflineExtractor(), auto_resolve="newer_if_confident")
    try:
        # Newer (0.9) at least as confident as the older (0.85): resolved automatically.
        first = service.memorize(
            said("I prefer tabs over spaces for indentation in this repo.", 30, "a")
        ).items_added[0]
        service.edit_item(first, confidence=0.85)
        result = service.memorize(
            said("I prefer spaces over tabs for indentation in this repo.", 1, "b")
        )
        (conflict,) = result.conflicts_found
        record = service.conflicts()[0]
        assert record.id == conflict
        assert record.status == "auto_resolved" and record.decision == "keep_newer"
        assert service.get_item(first).superseded_by == result.items_added[0]
        assert service.undo() == [first]  # the person's edit, not the system's step
        assert service.undo(actor="system") == [first]
        assert service.conflicts()[0].status == "unresolved"
        assert service.get_item(first).status == "active"
    finally:
        service.close()


def test_auto_resolve_leaves_a_less_confident_newer_statement_open(settings: Settings) -> None:
    service = MemoryService.open(settings, OfflineExtractor(), auto_resolve="newer_if_confident")
    try:
        service.memorize(said(TABS, 40, "a"))  # 0.9
        # "I want" is weak wording: 0.86, below the older statement's 0.9.
        service.memorize(said("I want every file indented with spaces, never tabs.", 1, "b"))
        (conflict,) = service.conflicts()
        items = [service.get_item(i) for i in conflict.item_ids]
        assert items[1].confidence < items[0].confidence
        assert conflict.status == "unresolved"
    finally:
        service.close()


def test_unknown_auto_resolve_policy_is_refused(settings: Settings) -> None:
    with pytest.raises(ValueError, match="auto-resolve policy"):
        MemoryService.open(settings, OfflineExtractor(), auto_resolve="always")
