"""LLM-assisted retrieval (seed 000 §3.3) through the real SDK over a mocked HTTP
transport: what the requests carry and cap, what the answers change, and that every
failure returns the offline ranking with a reason."""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest

from memory_app.domain.retrieval import RetrievalQuery
from memory_app.retrieval import assisted
from memory_app.retrieval.assisted import (
    AssistLimits,
    RetrievalAssistant,
    Sufficiency,
    Unavailable,
)
from memory_app.retrieval.assisted.deadline import within
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from tests.unit.extract.fake_anthropic import (
    FakeMessagesAPI,
    api_error,
    make_claude,
    message,
    schema_title,
)

TASK = "which message broker do we use"
# The memory the task means shares no word with it (nor a tag the offline rules add).
BROKER = "Background jobs go through RabbitMQ with one queue per tenant."
OUTAGES = "Message broker outages page the on-call person."
HEARTBEATS = "RabbitMQ heartbeats timed out behind the load balancer."
PLAN = {
    "queries": ["RabbitMQ Kafka queue", "background jobs queue"],
    "categories": ["architectural_decisions", "made_up_category", "project_conventions"],
}


@pytest.fixture
def store(service: MemoryService) -> MemoryService:
    service.remember(BROKER, category="architectural_decisions")
    service.remember(OUTAGES, category="project_conventions")
    service.remember("Indent Python with four spaces.", category="coding_preferences")
    service.remember(HEARTBEATS, category="bug_patterns")
    return service


def assistant(api: FakeMessagesAPI, **limits: Any) -> RetrievalAssistant:
    client = make_claude(api).client
    return RetrievalAssistant(client, limits=AssistLimits(**limits))


def ids(results: list[Any]) -> list[int]:
    return [r.record.id for r in results]


def memory_id(service: MemoryService, text: str) -> int:
    return next(r.id for r in service.list_items() if r.content == text)


def test_the_requests_carry_the_task_and_the_category_keys_within_the_caps(
    store: MemoryService,
) -> None:
    api = FakeMessagesAPI(PLAN, {"sufficient": False, "reason": "no detail"})
    long_task = TASK + " " + "with plenty of detail " * 900  # 20k characters

    found = assisted.retrieve(store, RetrievalQuery(text=long_task), assistant(api))

    assert found.assistance.used and api.calls == 2
    plan, check = api.requests
    assert schema_title(plan) == "SearchPlan" and schema_title(check) == "Sufficiency"
    prompt = plan["messages"][0]["content"]
    assert TASK in prompt
    for category in store.categories():
        assert f"- {category.key}: " in prompt
    limits = AssistLimits()
    assert plan["max_tokens"] == limits.plan_max_tokens == 400
    assert check["max_tokens"] == limits.check_max_tokens == 120
    for body in api.requests:
        assert len(body["messages"][0]["content"]) <= limits.input_chars
    assert "RabbitMQ" in check["messages"][0]["content"]  # the chosen summary


def test_synthesized_queries_find_the_memory_the_plain_query_misses(
    store: MemoryService,
) -> None:
    broker = memory_id(store, BROKER)
    offline = store.retrieve(TASK)
    assert broker not in ids(offline) and offline  # the outages memory only
    api = FakeMessagesAPI(PLAN, {"sufficient": False, "reason": "summaries lack it"})

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))

    assert broker in ids(found.results)
    assert found.assistance.added == (broker,)
    assert ids(offline)[0] in ids(found.results)  # the model only adds
    assert found.assistance.queries == tuple(PLAN["queries"])
    assert found.assistance.sufficient is False and found.assistance.summaries == ()


def test_an_invented_category_is_dropped_and_never_searched(store: MemoryService) -> None:
    bug = memory_id(store, HEARTBEATS)
    api = FakeMessagesAPI(PLAN, {"sufficient": False, "reason": "x"})

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))

    help_ = found.assistance
    assert help_.categories == ("architectural_decisions", "project_conventions")
    assert help_.ignored_categories == ("made_up_category",)
    # "RabbitMQ" matches the bug pattern too, but bug_patterns was not chosen.
    assert bug not in ids(found.results)
    assert "made_up_category" not in api.requests[1]["messages"][0]["content"]


def test_the_sufficiency_answer_changes_what_is_returned(store: MemoryService) -> None:
    broker = memory_id(store, BROKER)
    offline = ids(store.retrieve(TASK))
    api = FakeMessagesAPI(PLAN, {"sufficient": True, "reason": "summary names RabbitMQ"})

    enough = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))

    assert enough.assistance.sufficient is True
    keys = [s.key for s in enough.assistance.summaries]
    assert keys == ["architectural_decisions", "project_conventions"]
    assert "RabbitMQ" in enough.assistance.summaries[0].text
    assert ids(enough.results) == offline and broker not in ids(enough.results)

    api = FakeMessagesAPI(PLAN, {"sufficient": False, "reason": "x"})
    short = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))
    assert short.assistance.summaries == () and broker in ids(short.results)


def test_context_leads_with_sufficient_summaries_within_the_budget(
    store: MemoryService,
) -> None:
    api = FakeMessagesAPI(PLAN, {"sufficient": True, "reason": "enough"})
    request = ContextRequest(task=TASK, budget=600)

    built = assisted.context(store, request, assistant(api))

    text = built.render()
    assert text.startswith("## Architectural decisions (summary)")
    assert built.used <= 600 and built.plan.budget < 600

    api = FakeMessagesAPI(PLAN, {"sufficient": False, "reason": "x"})
    built = assisted.context(store, ContextRequest(task=TASK, budget=600), assistant(api))
    assert built.lead == "" and BROKER in built.render()
    plain = store.build_context(ContextRequest(task=TASK, budget=600))
    assert BROKER not in plain.render()


def test_the_tokens_are_recorded_with_the_extractors_runs(store: MemoryService) -> None:
    api = FakeMessagesAPI(
        message(PLAN, input_tokens=700, output_tokens=60),
        message({"sufficient": False, "reason": "x"}, input_tokens=900, output_tokens=20),
    )
    before = store.usage()

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))

    tokens = found.assistance.to_json()["tokens"]
    assert (tokens["requests"], tokens["input"], tokens["output"]) == (2, 1600, 80)
    after = store.usage()
    assert after.requests - before.requests == 2
    assert after.input_tokens - before.input_tokens == 1600
    assert after.cost_usd > before.cost_usd
    run = store.extraction_runs(1)[0]
    assert (run.kind, run.status, run.source) == ("retrieve", "success", "retrieval")


def _slow(body: dict[str, Any]) -> httpx2.Response:
    time.sleep(1.5)
    return message(PLAN)


@pytest.mark.parametrize(
    ("replies", "limits", "reason", "calls"),
    [
        ((api_error(500, "api_error", "boom"),), {"max_retries": 2}, "HTTP 500) after 2", 3),
        ((httpx2.ReadTimeout("slow"),), {"max_retries": 0}, "timed out", 1),
        ((_slow,), {"timeout": 0.3}, "no answer within 0.3 s", 1),
        ((message("this is not json"),), {}, "not a valid SearchPlan", 1),
        ((httpx2.Response(200, text="<html>portal</html>"),), {}, "not a Messages", 1),
        ((api_error(400, "invalid_request_error", "bad"),), {}, "HTTP 400", 1),
        ((message({"queries": [], "categories": ["nope"]}),), {}, "no usable query", 1),
    ],
)
def test_each_failure_returns_the_offline_ranking_with_the_reason(
    store: MemoryService,
    replies: tuple[Any, ...],
    limits: dict[str, Any],
    reason: str,
    calls: int,
) -> None:
    api = FakeMessagesAPI(*replies)
    offline = ids(store.retrieve(TASK))
    started = time.monotonic()

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api, **limits))

    assert time.monotonic() - started < 1.2  # never waits past the timeout
    assert ids(found.results) == offline
    note = found.assistance.note
    assert not found.assistance.used and note is not None
    assert note.startswith("assisted retrieval unavailable: ") and reason in note
    assert api.calls == calls
    assert found.assistance.to_json()["fallback"] == note


def test_without_a_key_nothing_is_sent_and_the_reason_names_the_variable(
    store: MemoryService,
) -> None:
    helper = assisted.assistant_from_env({}, use_keyring=False)
    assert not helper.configured

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), helper)

    assert ids(found.results) == ids(store.retrieve(TASK))
    assert "ANTHROPIC_API_KEY" in (found.assistance.note or "")
    assert found.assistance.to_json()["tokens"]["requests"] == 0
    built = assisted.context(store, ContextRequest(task=TASK), helper)
    assert built.render() == store.build_context(ContextRequest(task=TASK)).render()
    assert "ANTHROPIC_API_KEY" in (built.assistance.note or "")


def test_the_server_setting_is_off_by_default_and_on_when_asked() -> None:
    assert assisted.configured_assistant({}) is None
    assert assisted.configured_assistant({"MEMORY_APP_ASSISTED_RETRIEVAL": "no"}) is None
    on = {"MEMORY_APP_ASSISTED_RETRIEVAL": "1", "ANTHROPIC_API_KEY": "test-key"}
    helper = assisted.configured_assistant(on)
    assert helper is not None and helper.configured
    helper.close()


def test_an_empty_task_asks_nothing(store: MemoryService) -> None:
    api = FakeMessagesAPI(PLAN)
    found = assisted.retrieve(store, RetrievalQuery(text="  "), assistant(api))
    assert api.calls == 0 and ids(found.results) == ids(store.retrieve(""))
    assert found.assistance.note == "assisted retrieval unavailable: there is no task to search for"


def _slow_check(body: dict[str, Any]) -> httpx2.Response:
    time.sleep(1.0)
    return message({"sufficient": True, "reason": "late"})


@pytest.mark.parametrize(
    ("check", "limits", "reason"),
    [
        (api_error(500, "api_error", "boom"), {"max_retries": 0}, "HTTP 500"),
        (message("not json"), {}, "not a valid Sufficiency"),
        (message({"reason": "no verdict"}), {}, "not a valid Sufficiency"),
        (_slow_check, {"timeout": 0.5}, "no answer within 0.5 s"),
    ],
)
def test_a_failed_check_keeps_the_plans_queries_and_says_why(
    store: MemoryService, check: Any, limits: dict[str, Any], reason: str
) -> None:
    broker = memory_id(store, BROKER)
    api = FakeMessagesAPI(PLAN, check)
    before = store.usage().requests

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api, **limits))

    help_ = found.assistance
    assert help_.used and help_.note is None  # not a fallback: the queries were used
    assert broker in ids(found.results) and help_.added == (broker,)
    assert help_.sufficient is None and reason in (help_.check_failed or "")
    assert help_.to_json()["check_failed"] == help_.check_failed
    assert help_.to_json()["tokens"]["requests"] == 2
    assert store.usage().requests - before == 2  # the plan's tokens are recorded
    assert store.extraction_runs(1)[0].status == "success"

    api = FakeMessagesAPI(PLAN, check)
    built = assisted.context(store, ContextRequest(task=TASK, budget=600), assistant(api, **limits))
    assert built.assistance.used and built.assistance.sufficient is None
    assert reason in (built.assistance.check_failed or "")
    assert built.lead == "" and BROKER in built.render()


def test_a_wordy_reason_does_not_cost_the_verdict(store: MemoryService) -> None:
    wordy = "The summary of architectural decisions names RabbitMQ as the broker. " * 8
    api = FakeMessagesAPI(PLAN, {"sufficient": True, "reason": wordy})

    found = assisted.retrieve(store, RetrievalQuery(text=TASK), assistant(api))

    assert found.assistance.used and found.assistance.sufficient is True
    assert found.assistance.check_failed is None
    assert len(Sufficiency.model_validate({"sufficient": False, "reason": wordy}).reason) == 200


def test_an_unexpected_error_of_the_client_is_unavailable_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def closed() -> None:
        raise RuntimeError("Cannot send a request, as the client has been closed.")

    with pytest.raises(Unavailable, match="the client failed: RuntimeError"):
        within(closed, time.monotonic() + 5, 5, lambda e: f"the client failed: {type(e).__name__}")
    assert "unexpected error" in caplog.text and "has been closed" in caplog.text
