"""Candidate search stays small, verdicts are cached per pair, the Claude judge fails open."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from memory_app.config import Settings
from memory_app.conflicts.claude_judge import ClaudeJudge
from memory_app.conflicts.judge import Verdict
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService, claude_judge_for
from memory_app.store import repository as repo
from memory_app.store.tables import ConflictJudgementRow, ConflictRow, MemoryItemRow
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude
from tests.unit.test_conflicts_service import SPACES, TABS, said

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

Opener = Callable[[Any], MemoryService]


class CountingJudge:
    """A model judge that never answers (the rules decide) but counts its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, older: str, newer: str) -> Verdict | None:
        self.calls.append((older, newer))
        return None


@pytest.fixture
def counting() -> CountingJudge:
    return CountingJudge()


@pytest.fixture
def counted(settings: Settings, counting: CountingJudge) -> Iterator[MemoryService]:
    service = MemoryService.open(settings, OfflineExtractor())
    service.conflict_judge = counting
    yield service
    service.close()


def fill(service: MemoryService, n: int) -> None:
    rows = [
        MemoryItemRow(
            category=("project_conventions", "coding_preferences")[i % 2],
            content=f"In module {i} we indent with tabs and keep rule {i % 37} for spaces.",
            content_key="",
            confidence=0.8,
        )
        for i in range(n)
    ]
    with service.db.writing() as session:
        repo.bulk_add_items(session, service.db.dialect, rows, actor="system", group_id="fill")


def test_candidate_search_never_compares_all_pairs(
    counted: MemoryService, counting: CountingJudge
) -> None:
    fill(counted, 1000)
    result = counted.memorize(said(SPACES, 1, "b"))
    assert len(result.items_added) == 1
    assert 0 < len(counting.calls) <= 20


def test_the_same_pair_is_judged_once_however_often_detection_runs(
    counted: MemoryService, counting: CountingJudge
) -> None:
    counted.memorize(said(TABS, 40, "a"))
    counted.memorize(said(SPACES, 1, "b"))
    assert len(counting.calls) == 1
    for _ in range(3):
        assert counted.detect_conflicts() == []
    assert len(counting.calls) == 1
    with counted.db.reading() as session:
        assert session.exec(select(func.count()).select_from(ConflictRow)).one() == 1
        cached = session.exec(select(ConflictJudgementRow)).one()
    assert cached.contradicts and cached.judge == "rules"
    assert cached.item_a < cached.item_b


def test_a_pair_already_in_an_open_conflict_is_not_a_candidate(
    counted: MemoryService, counting: CountingJudge
) -> None:
    counted.memorize(said(TABS, 40, "a"))
    counted.memorize(said(SPACES, 1, "b"))
    with counted.db.writing() as session:  # forget the verdicts: the open conflict remains
        for row in session.exec(select(ConflictJudgementRow)).all():
            session.delete(row)
    counted.detect_conflicts()
    assert len(counting.calls) == 1


def test_other_projects_are_not_candidates(counted: MemoryService, counting: CountingJudge) -> None:
    counted.memorize(dataclasses.replace(said(TABS, 40, "a"), project="alpha"))
    counted.memorize(dataclasses.replace(said(SPACES, 1, "b"), project="beta"))
    assert counting.calls == []
    assert counted.conflicts() == []


# -- the Claude judge through the mocked Messages API ----------------------------------------


def claude_service(open_service: Opener, api: FakeMessagesAPI) -> MemoryService:
    """A store judged by Claude through `api`, closed after the test (conftest)."""
    judge = claude_judge_for(make_claude(api))
    assert isinstance(judge, ClaudeJudge)
    service = open_service(OfflineExtractor())
    service.conflict_judge = judge
    return service


def test_claude_verdicts_are_parsed_and_cached(open_service: Opener) -> None:
    api = FakeMessagesAPI({"relation": "contradiction", "reason": "tabs vs spaces for indentation"})
    service = claude_service(open_service, api)
    service.memorize(said(TABS, 40, "a"))
    service.memorize(said(SPACES, 1, "b"))
    (conflict,) = service.conflicts()
    assert conflict.reason == "tabs vs spaces for indentation"
    assert api.calls == 1
    assert TABS in api.prompts()[0] and SPACES in api.prompts()[0]
    service.detect_conflicts()
    assert api.calls == 1  # cached: never asked twice
    with service.db.reading() as session:
        assert session.exec(select(ConflictJudgementRow)).one().judge == "claude"


def test_claude_saying_no_overrules_the_rules(open_service: Opener) -> None:
    api = FakeMessagesAPI({"relation": "compatible", "reason": "different contexts"})
    service = claude_service(open_service, api)
    service.memorize(said(TABS, 40, "a"))
    service.memorize(said(SPACES, 1, "b"))
    assert service.conflicts() == []


@pytest.mark.parametrize(
    "reply",
    [api_error(500, "api_error", "overloaded"), "not json at all", {"contradicts": "maybe"}],
)
def test_a_claude_failure_falls_back_to_the_rules(open_service: Opener, reply: object) -> None:
    api = FakeMessagesAPI(reply)  # type: ignore[arg-type]
    service = claude_service(open_service, api)
    service.memorize(said(TABS, 40, "a"))
    result = service.memorize(said(SPACES, 1, "b"))
    assert result.status == "success"
    (conflict,) = service.conflicts()
    assert conflict.reason == "tabs → spaces"
    with service.db.reading() as session:
        assert session.exec(select(ConflictJudgementRow)).one().judge == "rules"


def test_claude_judge_only_for_the_claude_extractor() -> None:
    assert claude_judge_for(OfflineExtractor()) is None
