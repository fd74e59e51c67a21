"""Weekly compression with Claude (seed 000 §6.3 `compressItems`): the real SDK over a
mocked HTTP transport, as in test_claude.py.

What is proven here: the request carries the category, every item sent and the
structured-output schema; a good answer becomes a digest in the shape of the
deterministic one; unknown ids are dropped and items no topic covers end up under
"other"; invalid answers are asked again and then fail; API failures fail with words a
person can act on; very large inputs are capped and the digest says so; every call's
tokens are kept with kind "compress", and the store records that kind.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import httpx2
import pytest

from memory_app.config import Settings
from memory_app.domain import digest
from memory_app.domain.categories import Category
from memory_app.domain.records import MemoryRecord
from memory_app.extract.base import ExtractorError
from memory_app.extract.claude import MAX_COMPRESS_ITEMS
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.prompts import compression_prompt, template
from memory_app.extract.schemas import CompressionResponse
from memory_app.service import MemoryService
from memory_app.store import usage as usage_store
from tests.unit.extract.fake_anthropic import (
    FakeMessagesAPI,
    api_error,
    make_claude,
    message,
    schema_title,
)

CATEGORY = Category(
    "bug_patterns",
    "Bug patterns",
    "Recurring issues, root causes identified, and fixes applied.",
    "fix",
    3,
)


def memory(
    item_id: int,
    content: str,
    *,
    confidence: float = 0.9,
    importance: float = 0.6,
    tags: tuple[str, ...] = (),
    day: int = 1,
) -> MemoryRecord:
    at = datetime(2026, 3, day, 9, 30, tzinfo=UTC)
    return MemoryRecord(
        id=item_id,
        category=CATEGORY.key,
        type="fix",
        content=content,
        confidence=confidence,
        importance=importance,
        scope="project",
        status="active",
        pinned=False,
        tags=tags,
        extracted_at=at,
        updated_at=at,
    )


ITEMS = [
    memory(3, "Payment client calls fail under load. Fix: retry with backoff.", tags=("http",)),
    memory(5, "Retries use base 0.5s and max 8s.", confidence=0.8, tags=("http",), day=4),
    memory(8, "Off-by-one errors in page slicing. Fix: use half-open ranges.", day=2),
    memory(12, "Dates are stored as UTC with their zone.", importance=0.5, tags=("time",), day=9),
]
GOOD = {
    "topics": [
        {
            "topic": "http retries",
            "summary": "Payment client calls fail under load; retry them with exponential "
            "backoff (base 0.5s, max 8s)",
            "item_ids": [5, 3],
        },
        {
            "topic": "pagination",
            "summary": "Off-by-one errors in page slicing are fixed with half-open ranges.",
            "item_ids": [8],
        },
        {
            "topic": "time",
            "summary": "Dates are stored as UTC with their zone.",
            "item_ids": [12],
        },
    ]
}
GOOD_DIGEST = (
    "4 memories learnt up to 2026-03-09, by topic:\n"
    "\n"
    "- **http retries** (2): Payment client calls fail under load; retry them with "
    "exponential backoff (base 0.5s, max 8s). (#3, #5)\n"
    "- **pagination** (1): Off-by-one errors in page slicing are fixed with half-open "
    "ranges. (#8)\n"
    "- **time** (1): Dates are stored as UTC with their zone. (#12)\n"
)


def sent_ids(body: dict[str, Any]) -> list[int]:
    """The ids of the items in a compression request's prompt."""
    prompt = body["messages"][0]["content"]
    return [int(i) for i in re.findall(r'^\s*"id": (\d+),$', prompt, re.MULTILINE)]


def cover_everything(body: dict[str, Any]) -> dict[str, Any]:
    """A model that puts every item it was sent under one topic."""
    return {"topics": [{"topic": "all", "summary": "Everything.", "item_ids": sent_ids(body)}]}


# -- the request ---------------------------------------------------------------------------


def test_the_request_carries_the_category_the_items_and_the_schema() -> None:
    api = FakeMessagesAPI(GOOD)
    claude = make_claude(api)

    claude.compress_memories(CATEGORY, ITEMS)

    assert api.calls == 1
    body = api.requests[0]
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == ClaudeSettings().max_tokens
    assert "system" not in body
    fmt = body["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    assert schema_title(body) == "CompressionResponse"
    schema = fmt["schema"]
    assert schema["required"] == ["topics"] and schema["additionalProperties"] is False
    topic = next(iter(schema["$defs"].values()))
    assert set(topic["required"]) == {"topic", "summary", "item_ids"}
    assert topic["additionalProperties"] is False

    prompt = api.prompts()[0]
    assert "$" not in prompt  # no placeholder left behind
    assert prompt.startswith("You are a knowledge compression specialist.")
    assert '"Bug patterns": Recurring issues, root causes identified, and fixes applied.' in prompt
    assert "at most 12 topics" in prompt
    assert "left out" not in prompt and "strongest" not in prompt  # everything was sent
    block = prompt.split("```json\n", 1)[1].split("\n```", 1)[0]
    sent = json.loads(block)
    assert [s["id"] for s in sent] == [3, 8, 5, 12]  # strongest first
    assert sent[0] == {
        "id": 3,
        "content": "Payment client calls fail under load. Fix: retry with backoff.",
        "confidence": 0.9,
        "importance": 0.6,
        "tags": ["http"],
        "date": "2026-03-01",
    }


def test_the_template_ships_inside_the_package_and_is_filled_in() -> None:
    assert "$items" in template("compression.txt")
    prompt = compression_prompt(CATEGORY, ITEMS[:2], 12, total=10)
    assert "These are the 2 strongest of 10 older memories" in prompt
    assert "$" not in prompt


def test_no_items_means_no_request_and_an_empty_digest() -> None:
    api = FakeMessagesAPI(GOOD)
    claude = make_claude(api)
    assert claude.compress_memories(CATEGORY, []) == ""
    assert api.calls == 0 and claude.take_usage() == []


# -- the answer ----------------------------------------------------------------------------


def test_a_good_answer_renders_the_digest_in_the_deterministic_shape() -> None:
    claude = make_claude(FakeMessagesAPI(GOOD))

    text = claude.compress_memories(CATEGORY, ITEMS)

    assert text == GOOD_DIGEST
    # The first line is the one the offline digest writes for the same memories.
    assert text.splitlines()[0] == digest.compress(ITEMS).splitlines()[0]


def test_unknown_ids_are_dropped_and_uncovered_items_end_up_in_other() -> None:
    answer = {
        "topics": [
            {"topic": "Http **retries**", "summary": "Retry  with\nbackoff.", "item_ids": [3, 99]},
            {"topic": "ghosts", "summary": "Cites nothing real.", "item_ids": [98, 97]},
            {"topic": "empty", "summary": "Cites nothing at all.", "item_ids": []},
            {"topic": "time", "summary": "Dates are UTC.", "item_ids": [12, 12]},
        ]
    }
    claude = make_claude(FakeMessagesAPI(answer))

    text = claude.compress_memories(CATEGORY, ITEMS)

    assert text == (
        "4 memories learnt up to 2026-03-09, by topic:\n"
        "\n"
        "- **Http retries** (1): Retry with backoff. (#3)\n"
        "- **time** (1): Dates are UTC. (#12)\n"
        # Not covered by the model: the strongest statements first, ids in order.
        "- **other** (2): Off-by-one errors in page slicing. Fix: use half-open ranges; "
        "Retries use base 0.5s and max 8s. (#5, #8)\n"
    )
    assert "ghosts" not in text and "empty" not in text and "#99" not in text


def test_a_topic_with_many_items_shows_eight_ids_then_how_many_more() -> None:
    items = [memory(i, f"Statement number {i}.") for i in range(1, 12)]
    claude = make_claude(FakeMessagesAPI(cover_everything))

    text = claude.compress_memories(CATEGORY, items)

    assert text.splitlines()[2] == (
        "- **all** (11): Everything. (#1, #2, #3, #4, #5, #6, #7, #8 and 3 more)"
    )


def test_response_model_validation_is_reusable_without_the_api() -> None:
    answer = CompressionResponse.model_validate(GOOD)
    assert answer.to_digest(ITEMS) == GOOD_DIGEST


# -- invalid answers ---------------------------------------------------------------------

INVALID = {
    "not json": "Here is the digest: ...",
    "no topics": {"topics": []},
    "only unknown ids": {"topics": [{"topic": "x", "summary": "Y.", "item_ids": [99]}]},
    "too many topics": {
        "topics": [{"topic": f"t{i}", "summary": "S.", "item_ids": [3]} for i in range(13)]
    },
    "extra field": {"topics": [{**GOOD["topics"][0], "confidence": 0.9}]},
    "empty summary": {"topics": [{"topic": "x", "summary": "  ", "item_ids": [3]}]},
}


@pytest.mark.parametrize("answer", INVALID.values(), ids=INVALID.keys())
def test_an_invalid_answer_is_retried_twice_then_raises(answer: object) -> None:
    api = FakeMessagesAPI(answer)  # type: ignore[arg-type]
    claude = make_claude(api)

    with pytest.raises(ExtractorError, match="not valid after 3 attempts"):
        claude.compress_memories(CATEGORY, ITEMS)

    assert api.calls == 3
    assert "Previous Answer Rejected" not in api.prompts()[0]
    assert all("Previous Answer Rejected" in p for p in api.prompts()[1:])
    # The tokens were spent all the same.
    (usage,) = claude.take_usage()
    assert (usage.kind, usage.status, usage.requests) == ("compress", "error", 3)
    assert usage.input_tokens == 3000 and "not valid" in (usage.error or "")


def test_an_answer_that_becomes_valid_on_retry_is_used() -> None:
    api = FakeMessagesAPI("not json", GOOD)
    claude = make_claude(api)
    assert claude.compress_memories(CATEGORY, ITEMS) == GOOD_DIGEST
    assert api.calls == 2
    assert "Previous Answer Rejected" in api.prompts()[1]


def test_an_answer_cut_off_at_max_tokens_fails_without_asking_again() -> None:
    api = FakeMessagesAPI(message('{"topics": [{"topic": "ht', stop_reason="max_tokens"))
    claude = make_claude(api)
    with pytest.raises(ExtractorError, match="cut off at max_tokens=8192"):
        claude.compress_memories(CATEGORY, ITEMS)
    assert api.calls == 1
    (usage,) = claude.take_usage()
    assert usage.kind == "compress" and usage.status == "error"


# -- API failures ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (api_error(500, "api_error", "Internal error"), "failed (HTTP 500) after 1 retry"),
        (api_error(529, "overloaded_error", "Overloaded"), "overloaded (HTTP 529) after 1 retry"),
        (httpx2.ReadTimeout("timed out"), "timed out after 1 retry"),
        (httpx2.ConnectError("connection refused"), "could not reach the Anthropic API"),
    ],
    ids=["500", "529", "timeout", "network"],
)
def test_api_failures_are_retried_by_the_sdk_then_raise_a_clear_error(
    reply: Any, words: str
) -> None:
    api = FakeMessagesAPI(reply)
    claude = make_claude(api, max_retries=1)

    with pytest.raises(ExtractorError) as failure:
        claude.compress_memories(CATEGORY, ITEMS)

    assert api.calls == 2  # the first try and the SDK's one retry
    assert words in str(failure.value)
    (usage,) = claude.take_usage()
    assert (usage.kind, usage.status, usage.category) == ("compress", "error", "bug_patterns")
    assert usage.error == str(failure.value)


def test_a_rejected_key_fails_and_later_calls_are_refused_without_a_request() -> None:
    api = FakeMessagesAPI(api_error(401, "authentication_error", "invalid x-api-key"))
    claude = make_claude(api, max_retries=2)

    with pytest.raises(ExtractorError, match="invalid API key"):
        claude.compress_memories(CATEGORY, ITEMS)
    with pytest.raises(ExtractorError, match="invalid API key"):
        claude.compress_memories(CATEGORY, ITEMS)

    assert api.calls == 1


# -- very large inputs -------------------------------------------------------------------------


def test_only_the_strongest_items_are_sent_and_the_digest_says_how_many_were_left_out() -> None:
    extra = 5
    items = [
        memory(i, f"Statement number {i}.", confidence=1.0 - i / 1000, day=1 + i % 20)
        for i in range(1, MAX_COMPRESS_ITEMS + extra + 1)
    ]
    api = FakeMessagesAPI(cover_everything)
    claude = make_claude(api)

    text = claude.compress_memories(CATEGORY, list(reversed(items)))  # any order given

    assert sent_ids(api.requests[0]) == list(range(1, MAX_COMPRESS_ITEMS + 1))
    note = f"These are the {MAX_COMPRESS_ITEMS} strongest of 305 older memories"
    assert note in api.prompts()[0]
    lines = text.splitlines()
    assert lines[0] == "305 memories learnt up to 2026-03-20, by topic:"
    assert lines[2].startswith(f"- **all** ({MAX_COMPRESS_ITEMS}): Everything.")
    assert lines[-1] == (
        "- …and 5 weaker memories left out of the model's prompt (#301, #302, #303, #304, #305)."
    )


def test_the_items_sent_stay_within_max_input_chars() -> None:
    items = [memory(i, f"A fairly long statement {i} " + "x" * 200) for i in range(1, 41)]
    budget = 8_000
    api = FakeMessagesAPI(cover_everything)
    claude = make_claude(api, settings=ClaudeSettings(concurrency=1, max_conversation_chars=budget))

    text = claude.compress_memories(CATEGORY, items)

    prompt = api.prompts()[0]
    sent = sent_ids(api.requests[0])
    assert len(prompt) <= budget
    assert 0 < len(sent) < 40
    # Adding the next item would not have fitted.
    assert len(compression_prompt(CATEGORY, items[: len(sent) + 1], 12, total=40)) > budget
    left = 40 - len(sent)
    assert text.startswith("40 memories learnt up to")
    assert f"- …and {left} weaker memories left out of the model's prompt" in text


# -- usage -----------------------------------------------------------------------------------


def test_usage_is_kept_with_kind_compress_and_the_store_records_it(settings: Settings) -> None:
    claude = make_claude(FakeMessagesAPI(GOOD))
    claude.compress_memories(CATEGORY, ITEMS)

    (usage,) = claude.take_usage()
    assert usage.kind == "compress"
    assert usage.category == "bug_patterns"
    assert (usage.model, usage.status, usage.error) == ("claude-haiku-4-5", "success", None)
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 1000, 200)
    assert usage.cost_usd is not None and usage.cost_usd > 0
    assert claude.take_usage() == []  # taken once

    service = MemoryService.open(settings)
    try:
        with service.db.writing() as session:
            usage_store.record_run(session, usage, extractor="claude")
        (run,) = service.extraction_runs()
        assert (run.kind, run.category, run.requests) == ("compress", "bug_patterns", 1)
        assert service.usage().runs == 1
    finally:
        service.close()
