"""The Claude extractor end to end: the real SDK over a mocked HTTP transport, the real
memorize pipeline, a real temporary store.

What is proven here: a valid answer becomes stored items (under 0.75 dropped); invalid
answers are asked again twice and then the conversation fails with nothing stored, so a
later import retries it; transport failures are retried by the SDK and then reported in
words a person can act on; a failed call leaves the category as it was; evolution merges
summaries and its change log lands in the audit trail, or falls back to the
deterministic summary; long conversations are chunked and merged; the key never leaks.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlmodel import col, select

from memory_app.config import Settings
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.chunking import EARLIER_HEADING, earlier_room, request_chunks
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import AuditEventRow
from tests.helpers import conversation
from tests.unit.extract.fake_anthropic import (
    FakeMessagesAPI,
    api_error,
    make_claude,
    message,
    schema_title,
)

RETRY_CHAT = conversation(
    (
        "Add a retry wrapper around the payment client; we always use exponential backoff here.",
        "Added with_retry() using exponential backoff (base 0.5s, max 8s).",
    ),
    ("We always use async/await, never .then() chains.", "Got it, async/await everywhere."),
)
PNPM_CHAT = conversation(
    ("Please use pnpm for every install in this repo, never npm.", "Switched the scripts to pnpm."),
    session="s2",
)

GOOD = {
    "coding_preferences": [
        {
            "content": "Use async/await instead of .then() chains.",
            "confidence": 0.92,
            "context": "stated by the user",
            "source_turns": [2],
            "tags": ["JavaScript"],
        }
    ],
    "architectural_decisions": [],
    "project_conventions": [
        {"content": "Modules are named in snake_case.", "scope": "repository", "confidence": 0.6}
    ],
    "bug_patterns": [
        {
            "pattern": "Payment client calls fail transiently under load",
            "fix": "wrap them in exponential-backoff retries (base 0.5s, max 8s)",
            "occurrences": 2,
            "confidence": 0.85,
            "source_turns": [0, 1],
        }
    ],
    "implementation_notes": [],
}
PNPM = {
    "coding_preferences": [
        {"content": "Use pnpm, never npm, for installs.", "confidence": 0.9, "context": ""}
    ]
}


@pytest.fixture
def open_service(settings: Settings):  # type: ignore[no-untyped-def]
    opened: list[MemoryService] = []

    def make(api: FakeMessagesAPI, **options: Any) -> MemoryService:
        service = MemoryService.open(settings, make_claude(api, **options))
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()


def stored_counts(service: MemoryService) -> tuple[int, int]:
    stats = service.get_stats()
    return stats.resources, stats.items


# -- a good answer ------------------------------------------------------------------------


def test_a_valid_answer_becomes_stored_items_and_low_confidence_ones_are_dropped(
    open_service: Any,
) -> None:
    api = FakeMessagesAPI(GOOD)
    service = open_service(api)

    result = service.memorize(RETRY_CHAT)

    assert result.status == "success", result.reason
    assert len(result.items_added) == 2  # the 0.6 convention was dropped
    items = {i.category: i for i in service.list_items()}
    assert set(items) == {"coding_preferences", "bug_patterns"}
    pref, bug = items["coding_preferences"], items["bug_patterns"]
    assert pref.content == "Use async/await instead of .then() chains."
    assert pref.confidence == 0.92 and pref.extractor == "claude"
    assert pref.tags == ("javascript",) and pref.context == "stated by the user"
    assert (pref.turn_start, pref.turn_end) == (2, 2)
    assert bug.content.startswith("Payment client calls fail transiently under load. Fix: wrap")
    assert bug.type == "fix" and (bug.turn_start, bug.turn_end) == (0, 1)
    assert bug.context == "seen 2 times"
    assert service.get_resource(result.resource_id)[0].status == "memorized"

    # One real Messages API request: model, structured-output schema, the seed's prompts.
    assert api.calls == 1
    request = api.requests[0]
    assert request["model"] == "claude-haiku-4-5"
    assert request["max_tokens"] == 8192
    assert schema_title(request) == "ExtractionResponse"
    assert "no_content_to_extract" in request["system"]
    assert "Items with confidence below 0.75 will be filtered" in request["system"]
    prompt = api.prompts()[0]
    assert prompt.startswith("You are a memory extraction specialist.")
    assert "[0] User: Add a retry wrapper around the payment client" in prompt
    assert "### Bug Patterns" in prompt and "(JSON key: `bug_patterns`)" in prompt
    assert '"lessons_learned": "[Key insights]"' in prompt
    assert api.headers[0]["authorization"] == "Bearer test-key"

    # Tokens and estimated cost: 1000 in + 200 out at Haiku 4.5's $1 / $5 per MTok.
    assert (result.input_tokens, result.output_tokens) == (1000, 200)
    assert result.cost_usd == pytest.approx(0.002)
    usage = service.usage()
    assert (usage.runs, usage.requests, usage.errors) == (1, 1, 0)
    assert usage.cost_usd == pytest.approx(0.002)
    assert usage.by_model[0].model == "claude-haiku-4-5"
    (run,) = service.extraction_runs()
    assert run.kind == "extract" and run.resource_id == result.resource_id


def test_nothing_to_extract_is_an_empty_result(open_service: Any) -> None:
    service = open_service(FakeMessagesAPI({"no_content_to_extract": True}))
    result = service.memorize(RETRY_CHAT)
    assert result.status == "empty"
    assert stored_counts(service) == (1, 0)  # the conversation is kept, as offline does


# -- invalid answers ----------------------------------------------------------------------

INVALID_ANSWERS = {
    "not json": "Here are the memories I found: async/await everywhere.",
    "truncated json": '{"coding_preferences": [{"content": "Use async',
    "confidence above 1": {
        "coding_preferences": [{"content": "Use async/await.", "confidence": 1.5, "context": ""}]
    },
    "empty content": {"coding_preferences": [{"content": "  ", "confidence": 0.9, "context": ""}]},
    "extra field": {"coding_preferences": [], "opinions": ["tabs are nicer"]},
    "nothing plus items": {"no_content_to_extract": True, **PNPM},
}


@pytest.mark.parametrize("answer", INVALID_ANSWERS.values(), ids=INVALID_ANSWERS.keys())
def test_an_invalid_answer_is_retried_twice_then_the_conversation_is_kept_pending(
    open_service: Any, answer: object
) -> None:
    api = FakeMessagesAPI(answer)  # type: ignore[arg-type]
    service = open_service(api)

    result = service.memorize(RETRY_CHAT)

    assert api.calls == 3
    assert result.status == "pending"
    assert "not valid after 3 attempts" in (result.reason or "")
    assert stored_counts(service) == (1, 0)  # the conversation, no memories
    # Each retry tells the model what was wrong with its previous answer.
    assert "Previous Answer Rejected" not in api.prompts()[0]
    assert all("Previous Answer Rejected" in p for p in api.prompts()[1:])
    # The tokens were spent all the same: the failed run is on the bill.
    usage = service.usage()
    assert (usage.runs, usage.errors, usage.requests, usage.input_tokens) == (1, 1, 3, 3000)

    # Importing the conversation again extracts the kept one, without a copy.
    service.extractor = make_claude(FakeMessagesAPI(GOOD))
    again = service.memorize(RETRY_CHAT)
    assert again.status == "success" and len(again.items_added) == 2
    assert again.resource_id == result.resource_id and stored_counts(service) == (1, 2)


def test_an_answer_that_becomes_valid_on_retry_is_used(open_service: Any) -> None:
    api = FakeMessagesAPI("not json", GOOD)
    service = open_service(api)
    result = service.memorize(RETRY_CHAT)
    assert result.status == "success" and api.calls == 2
    assert "Previous Answer Rejected" in api.prompts()[1]


# -- transport failures -------------------------------------------------------------------


def test_an_overloaded_api_is_retried_by_the_sdk_and_then_succeeds(open_service: Any) -> None:
    api = FakeMessagesAPI(api_error(529, "overloaded_error", "Overloaded"), GOOD)
    service = open_service(api, max_retries=2)
    result = service.memorize(RETRY_CHAT)
    assert result.status == "success"
    assert api.calls == 2


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (api_error(529, "overloaded_error", "Overloaded"), "overloaded (HTTP 529) after 1 retry"),
        (api_error(429, "rate_limit_error", "Slow down"), "rate limited"),
        (api_error(500, "api_error", "Internal error"), "failed (HTTP 500) after 1 retry"),
        (httpx2.ConnectError("connection refused"), "could not reach the Anthropic API"),
    ],
    ids=["529", "429", "500", "network"],
)
def test_transport_failures_are_retried_then_fail_open_with_a_clear_reason(
    open_service: Any, reply: Any, words: str
) -> None:
    api = FakeMessagesAPI(reply)
    service = open_service(api, max_retries=1)
    result = service.memorize(RETRY_CHAT)
    assert api.calls == 2  # the first try and the SDK's one retry
    assert result.status == "pending"
    assert words in (result.reason or "")
    assert "nothing was stored" not in (result.reason or "")  # it was: kept pending
    assert stored_counts(service) == (1, 0)


def test_a_rejected_key_says_invalid_api_key_and_stops_asking(open_service: Any) -> None:
    api = FakeMessagesAPI(api_error(401, "authentication_error", "invalid x-api-key"))
    service = open_service(api, max_retries=2)

    first = service.memorize(RETRY_CHAT)
    second = service.memorize(PNPM_CHAT)

    assert first.status == second.status == "pending"
    assert "invalid API key" in (first.reason or "")
    assert "HTTP 401" in (first.reason or "")
    assert api.calls == 1  # a 401 is not retried, and the next conversation is not sent
    assert "invalid API key" in (second.reason or "")


def test_a_timeout_keeps_the_previous_category_state(open_service: Any) -> None:
    api = FakeMessagesAPI(GOOD)
    service = open_service(api, max_retries=1)
    assert service.memorize(RETRY_CHAT).status == "success"
    before = service.get_category("coding_preferences")
    counts = stored_counts(service)

    api.replies = [httpx2.ReadTimeout("timed out")]
    result = service.memorize(PNPM_CHAT)

    assert result.status == "pending"
    assert "timed out" in (result.reason or "")
    after = service.get_category("coding_preferences")
    assert after.summary_markdown == before.summary_markdown
    assert after.items == before.items
    assert stored_counts(service) == (counts[0] + 1, counts[1])  # kept, nothing learnt
    assert api.calls == 1 + 2


def test_the_import_of_other_files_continues_after_a_failure(
    open_service: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "a.md").write_text(
        "User: We always use async/await, never .then() chains, in this codebase.\n\n"
        "Assistant: Understood, async/await everywhere.\n"
    )
    (folder / "b.md").write_text(
        "User: Please use pnpm for every install in this repo, never npm.\n\n"
        "Assistant: Switched the scripts to pnpm.\n"
    )
    api = FakeMessagesAPI(api_error(529, "overloaded_error", "Overloaded"), PNPM)
    service = open_service(api)

    report = service.import_paths([folder])

    assert [r.status for r in report.results] == ["pending", "success"]
    assert "overloaded" in (report.pending[0].reason or "") and report.errors == []
    assert report.resources_added == 2 and report.items_added == 1
    assert report.usage is not None
    assert (report.usage.runs, report.usage.errors) == (2, 1)
    assert report.to_json()["usage"]["runs"] == 2


# -- evolution ----------------------------------------------------------------------------


def evolution_answer(new_id: int) -> dict[str, Any]:
    return {
        "summary": "The team standardises on async/await and on pnpm for installs.",
        "key_facts": [
            {
                "title": "async/await everywhere",
                "statement": "Use async/await instead of .then() chains.",
                "confidence": 0.93,
                "source_item_ids": [1, 999],  # 999 does not exist: dropped, not fatal
            },
            {
                "title": "pnpm for installs",
                "statement": "Use pnpm, never npm, for installs.",
                "confidence": 0.9,
                "source_item_ids": [new_id],
            },
        ],
        "contradictions": [],
        "usage_notes": "Applies to every JavaScript package in the repository.",
        "changes": [
            {
                "action": "kept",
                "statement": "Use async/await instead of .then() chains.",
                "item_id": 1,
                "reason": "still valid, not contradicted",
            },
            {
                "action": "added",
                "statement": "Use pnpm, never npm, for installs.",
                "item_id": new_id,
                "reason": "new tooling preference",
            },
        ],
    }


def test_evolution_merges_the_summary_and_its_change_log_lands_in_the_audit_trail(
    open_service: Any,
) -> None:
    api = FakeMessagesAPI(GOOD)
    service = open_service(api)
    first = service.memorize(RETRY_CHAT)
    assert first.status == "success"
    pref_id = next(i for i in first.items_added if service.get_item(i).category.startswith("c"))
    assert pref_id == 1
    bug_summary = service.get_category("bug_patterns").summary_markdown
    # A first summary is written without the model (seed 001 §2: "create" path).
    assert api.calls == 1

    def reply(body: dict[str, Any]) -> Any:
        return evolution_answer(3) if schema_title(body) == "EvolutionResponse" else PNPM

    api.replies = [reply]
    result = service.memorize(PNPM_CHAT)

    assert result.status == "success" and result.items_added == (3,)
    assert result.notes == ()
    assert api.calls == 3  # extraction, then evolution of the one category it touched
    evolution_prompt = api.prompts()[2]
    assert "knowledge synthesis specialist" in evolution_prompt
    assert "# Coding preferences" in evolution_prompt  # the current summary
    assert '"id": 3' in evolution_prompt and "Use pnpm, never npm" in evolution_prompt
    assert result.input_tokens == 2000 and result.cost_usd == pytest.approx(0.004)

    view = service.get_category("coding_preferences")
    assert "The team standardises on async/await and on pnpm" in view.summary_markdown
    assert "**Source:** item #1\n" in view.summary_markdown  # the unknown 999 was dropped
    assert "**Source:** item #3" in view.summary_markdown
    assert "**Item Count:** 2" in view.summary_markdown
    with service.db.reading() as session:
        summary = repo.summary(session, "coding_preferences")
        assert summary is not None and summary.generator == "claude"
        events = session.exec(
            select(AuditEventRow)
            .where(AuditEventRow.action == "evolve")
            .order_by(col(AuditEventRow.id))
        ).all()
    assert [(e.actor, e.item_id, e.note) for e in events] == [
        ("extractor", 1, "still valid, not contradicted"),
        ("extractor", 3, "new tooling preference"),
    ]
    assert events[1].after == {
        "category": "coding_preferences",
        "action": "added",
        "statement": "Use pnpm, never npm, for installs.",
        "item_id": 3,
    }
    assert "evolve" in [e.action for e in service.item_history(3)]
    # Untouched categories keep their summary.
    assert service.get_category("bug_patterns").summary_markdown == bug_summary
    kinds = [r.kind for r in service.extraction_runs()]
    assert kinds == ["evolve", "extract", "extract"]


def test_a_failed_evolution_falls_back_to_the_deterministic_summary_and_says_so(
    open_service: Any,
) -> None:
    api = FakeMessagesAPI(GOOD)
    service = open_service(api)
    service.memorize(RETRY_CHAT)

    def reply(body: dict[str, Any]) -> Any:
        return "{not json" if schema_title(body) == "EvolutionResponse" else PNPM

    api.replies = [reply]
    result = service.memorize(PNPM_CHAT)

    assert result.status == "success"
    assert api.calls == 1 + 1 + 3  # the evolution was asked three times
    (note,) = result.notes
    assert note.startswith("Coding preferences: the summary could not be merged")
    assert "deterministic summary was written instead" in note
    view = service.get_category("coding_preferences")
    assert "Use pnpm, never npm, for installs." in view.summary_markdown
    with service.db.reading() as session:
        summary = repo.summary(session, "coding_preferences")
        assert summary is not None and summary.generator == "deterministic"
        fallback = session.exec(
            select(AuditEventRow).where(AuditEventRow.action == "evolve_fallback")
        ).one()
    assert fallback.actor == "extractor" and fallback.note == note
    assert [r.status for r in service.extraction_runs()][:1] == ["error"]


def test_an_import_evolves_summaries_once_at_the_end(open_service: Any, tmp_path: Path) -> None:
    api = FakeMessagesAPI(GOOD)
    service = open_service(api)
    service.memorize(RETRY_CHAT)
    (tmp_path / "pnpm.md").write_text(
        "User: Please use pnpm for every install in this repo, never npm.\n\n"
        "Assistant: Switched the scripts to pnpm.\n"
    )

    def reply(body: dict[str, Any]) -> Any:
        return evolution_answer(3) if schema_title(body) == "EvolutionResponse" else PNPM

    api.replies = [reply]
    report = service.import_paths([tmp_path / "pnpm.md"])

    assert report.items_added == 1 and report.notes == ()
    assert [schema_title(r) for r in api.requests[1:]] == [
        "ExtractionResponse",
        "EvolutionResponse",
    ]
    assert "pnpm" in service.get_category("coding_preferences").summary_markdown
    assert report.usage is not None and report.usage.runs == 2


# -- long conversations -------------------------------------------------------------------


def long_chat(exchanges: int) -> Transcript:
    turns = []
    for n in range(exchanges):
        turns.append(Turn(2 * n, "user", f"Step {n}: please refactor module_{n} " + "x" * 120))
        turns.append(Turn(2 * n + 1, "assistant", f"Refactored module_{n} as asked. " + "y" * 80))
    return Transcript(source_kind="text", turns=tuple(turns), session_id="long")


def per_chunk_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Every chunk reports the shared convention (with its own confidence) and one item of
    its own, citing its first turn."""
    prompt = body["messages"][0]["content"]
    first = int(re.search(r"^\[(\d+)\] ", prompt, re.MULTILINE).group(1))  # type: ignore[union-attr]
    confidence = 0.95 if first == 0 else 0.8
    return {
        "project_conventions": [
            {"content": "Run ruff before every commit.", "scope": "all", "confidence": confidence}
        ],
        "implementation_notes": [
            {
                "topic": f"module_{first // 2}",
                "approach": f"Refactor module_{first // 2} in small steps.",
                "lessons_learned": "",
                "confidence": 0.9,
                "source_turns": [first],
            }
        ],
    }


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_long_conversation_is_split_into_chunks_and_the_answers_merged(
    open_service: Any, concurrency: int
) -> None:
    chat = long_chat(12)
    settings = ClaudeSettings(chunk_chars=900, concurrency=concurrency)
    # Each request after the first keeps room for the summary of what came before it.
    expected_chunks = request_chunks(chat, settings.chunk_chars)
    assert len(expected_chunks) >= 4
    api = FakeMessagesAPI(per_chunk_answer)
    service = open_service(api, settings=settings)

    result = service.memorize(chat)

    assert result.status == "success", result.reason
    assert api.calls == len(expected_chunks)
    parts = sorted(re.search(r"part (\d+) of (\d+)", p).groups() for p in api.prompts())  # type: ignore[union-attr]
    assert parts == sorted((str(i), str(len(expected_chunks))) for i in range(1, api.calls + 1))
    # Every turn was sent exactly once.
    sent = [int(n) for p in api.prompts() for n in re.findall(r"^\[(\d+)\] ", p, re.MULTILINE)]
    assert sorted(sent) == list(range(24))
    items = service.list_items()
    shared = [i for i in items if i.content == "Run ruff before every commit."]
    assert len(shared) == 1 and shared[0].confidence == 0.95  # merged, highest confidence
    notes = [i for i in items if i.category == "implementation_notes"]
    assert len(notes) == len(expected_chunks)
    assert {i.turn_start for i in notes} == {c.positions[0] for c in expected_chunks}


def test_a_conversation_that_fits_one_request_is_sent_in_one() -> None:
    """The first chunk carries no summary of what came before, so it keeps every
    character of a request: a 47,000-character conversation is one request, as before
    summaries; a longer one's later requests leave room for the summary, within the
    request's characters."""
    settings = ClaudeSettings(concurrency=1)  # chunk_chars 48,000
    nothing = {"no_content_to_extract": True}
    chat = long_chat(157)  # 46,972 characters rendered
    (only,) = request_chunks(chat, settings.chunk_chars)
    assert settings.chunk_chars - earlier_room(settings.chunk_chars) < len(only.text)
    api = FakeMessagesAPI(nothing)
    make_claude(api, settings=settings).extract(chat, DEFAULT_CATEGORIES)
    assert api.calls == 1 and EARLIER_HEADING not in api.prompts()[0]

    api = FakeMessagesAPI(nothing)
    longer = long_chat(500)
    make_claude(api, settings=settings).extract(longer, DEFAULT_CATEGORIES)
    prompts = api.prompts()
    assert len(prompts) == len(request_chunks(longer, settings.chunk_chars)) == 4
    assert EARLIER_HEADING not in prompts[0]
    for prompt in prompts:
        sent = prompt.split("## Conversation", 1)[1].split("## Extraction Task", 1)[0]
        assert len(sent) <= settings.chunk_chars + 200  # the prompt's own lines
    assert all(EARLIER_HEADING in p for p in prompts[1:])


def test_an_answer_cut_off_at_max_tokens_is_asked_again_in_halves(open_service: Any) -> None:
    cut = message('{"coding_preferences": [{"content": "Use', stop_reason="max_tokens")
    api = FakeMessagesAPI(cut, PNPM, GOOD)
    service = open_service(api)
    result = service.memorize(RETRY_CHAT)
    assert result.status == "success", result.reason
    assert api.calls == 3
    assert "[0] User:" in api.prompts()[1] and "[2] User:" not in api.prompts()[1]
    assert "[2] User:" in api.prompts()[2] and "[0] User:" not in api.prompts()[2]


# -- the key stays secret -----------------------------------------------------------------

SECRET = "sk-ant-api03-SECRET-0123456789abcdef"


@pytest.mark.parametrize(
    "reply",
    [
        api_error(401, "authentication_error", f"invalid x-api-key {SECRET}"),
        api_error(400, "invalid_request_error", f"bad request from key {SECRET}"),
        api_error(403, "permission_error", f"key {SECRET} may not use this model"),
        f"not json {SECRET}",
    ],
    ids=["401", "400", "403", "invalid answer"],
)
def test_the_key_never_appears_in_errors_logs_or_the_store(
    settings: Settings, caplog: pytest.LogCaptureFixture, reply: Any
) -> None:
    caplog.set_level(logging.DEBUG, logger="memory_app")
    extractor = make_claude(FakeMessagesAPI(reply), api_key=SECRET)
    service = MemoryService.open(settings, extractor)
    try:
        result = service.memorize(RETRY_CHAT)
        runs = service.extraction_runs()
    finally:
        service.close()

    assert result.status == "pending" and result.reason
    if "HTTP 40" in result.reason and "HTTP 401" not in result.reason:
        assert "[api key]" in result.reason  # the API's own words, with the key masked
    for text in (result.reason or "", str(result.to_json()), repr(extractor), caplog.text):
        assert SECRET not in text
    assert all(SECRET not in (r.error or "") for r in runs)
    db = Path(settings.db_url.removeprefix("sqlite:///"))
    for path in db.parent.glob("memory.db*"):
        assert SECRET.encode() not in path.read_bytes()


# -- connection check ---------------------------------------------------------------------


def test_test_connection_reports_the_model_and_latency_or_the_problem() -> None:
    ok = make_claude(FakeMessagesAPI(message("ok"))).test_connection()
    assert ok.ok and ok.model == "claude-haiku-4-5" and ok.latency_ms is not None
    assert "answered in" in ok.message

    api = FakeMessagesAPI(api_error(401, "authentication_error", "invalid x-api-key"))
    bad = make_claude(api, max_retries=2).test_connection()
    assert not bad.ok and "invalid API key" in bad.message and api.calls == 1


# -- extracting a stored conversation again -------------------------------------------------


def test_a_stored_conversation_can_be_extracted_again_with_claude(settings: Settings) -> None:
    offline = MemoryService.open(settings)  # the offline extractor
    try:
        first = offline.memorize(RETRY_CHAT)
        assert first.status == "success" and first.resource_id is not None
        before = {i.content: i for i in offline.list_items()}
    finally:
        offline.close()
    known = next(iter(before.values()))
    again = {
        "coding_preferences": [
            {"content": known.content, "confidence": 0.9, "context": "", "source_turns": [2]}
        ],
        **{k: v for k, v in GOOD.items() if k == "bug_patterns"},
    }

    def reply(body: dict[str, Any]) -> Any:
        if schema_title(body) == "EvolutionResponse":  # both categories had a summary
            return evolution_answer(known.id)
        return again

    api = FakeMessagesAPI(reply)
    service = MemoryService.open(settings, make_claude(api))
    try:
        result = service.reextract(first.resource_id)
        assert result.status == "success", result.reason
        assert result.resource_id == first.resource_id
        assert len(result.items_added) == 1 and result.items_reinforced == (known.id,)
        bug = service.get_item(result.items_added[0])
        assert bug.source_resource_id == first.resource_id and bug.extractor == "claude"
        assert (bug.turn_start, bug.turn_end) == (0, 1)
        assert service.get_stats().resources == 1  # the conversation was not copied
        # The model read the stored conversation, turn for turn.
        prompt = api.prompts()[0]
        for turn in RETRY_CHAT.turns:
            assert f"[{turn.position}] {turn.speaker.title()}: {turn.text}" in prompt
        assert result.notes == ()
        runs = service.extraction_runs()
        assert [r.kind for r in runs] == ["evolve", "extract"]
        assert runs[1].resource_id == first.resource_id

        items = service.list_items()
        api.replies = [api_error(529, "overloaded_error", "Overloaded")]
        failed = service.reextract(first.resource_id)
        assert failed.status == "error" and "overloaded" in (failed.reason or "")
        assert service.list_items() == items  # a failed run changes nothing
    finally:
        service.close()
