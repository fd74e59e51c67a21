"""Claude's workflows and code patterns (seed 004), end to end: the real SDK over a mocked
HTTP transport, the real memorize pipeline and store. A valid answer becomes a workflow
and a pattern in their markdown form; an answer that breaks their rules is asked again
and then the conversation is kept pending, nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from memory_app.config import Settings
from memory_app.domain.workflows import parse_pattern, parse_workflow
from memory_app.service import MemoryService
from tests.helpers import conversation
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude

CHAT = conversation(
    ("To release: bump the version, tag it, build, then publish.", "Noted."),
    ("Every new endpoint returns an Envelope like the orders one.", "Understood."),
)
WORKFLOW = {"name": "release", "steps": ["bump the version", "tag it", "build", "publish"]}
PATTERN = {
    "description": "Endpoints return an Envelope",
    "snippet": "result = svc.create(body)\nreturn Envelope.from_result(result)",
    "language": "python",
    "applies_to": "every new endpoint",
}


@pytest.fixture
def open_service(settings: Settings):  # type: ignore[no-untyped-def]
    opened: list[MemoryService] = []

    def make(api: FakeMessagesAPI) -> MemoryService:
        service = MemoryService.open(settings, make_claude(api))
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()


def test_claudes_workflow_and_pattern_are_stored_in_their_form(open_service: Any) -> None:
    answer = {
        "workflows": [{**WORKFLOW, "confidence": 0.9, "source_turns": [0]}],
        "code_patterns": [{**PATTERN, "confidence": 0.88, "source_turns": [2]}],
    }
    api = FakeMessagesAPI(answer)
    service = open_service(api)
    result = service.memorize(CHAT)
    assert result.status == "success", result.reason
    items = {i.type: i for i in service.list_items()}
    flow = parse_workflow(items["workflow"].content)
    assert flow is not None and flow.name == "release"
    assert flow.steps == ("bump the version", "tag it", "build", "publish")
    assert items["workflow"].category == "project_conventions"
    pattern = parse_pattern(items["code_pattern"].content)
    assert pattern is not None and pattern.applies_to == "every new endpoint"
    assert pattern.snippet == PATTERN["snippet"] and pattern.language == "python"
    assert items["code_pattern"].category == "coding_preferences"
    # The request asked for both lists, with their shape and what goes in them.
    schema = api.requests[0]["output_config"]["format"]["schema"]
    assert {"workflows", "code_patterns"} <= set(schema["properties"])
    assert 'goes in "workflows" as its ordered steps' in api.prompts()[0]


BROKEN = {
    "one step": {"workflows": [{"name": "release", "steps": ["publish"], "confidence": 0.9}]},
    "steps not a list": {"workflows": [{"name": "release", "steps": "a, b", "confidence": 0.9}]},
    "fenced snippet": {
        "code_patterns": [{**PATTERN, "snippet": "```python\nx = 1\n```", "confidence": 0.9}]
    },
    "unknown field": {"workflows": [{**WORKFLOW, "trigger": "deploy", "confidence": 0.9}]},
    "bad language": {"code_patterns": [{**PATTERN, "language": "py thon!", "confidence": 0.9}]},
}


@pytest.mark.parametrize("answer", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_workflow_or_pattern_is_asked_again_then_kept_pending(
    open_service: Any, answer: dict[str, object]
) -> None:
    api = FakeMessagesAPI(answer)
    service = open_service(api)
    result = service.memorize(CHAT)
    assert api.calls == 3
    assert result.status == "pending"
    assert service.list_items() == []
