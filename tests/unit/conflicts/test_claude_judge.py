"""The Claude judge on its own: the real SDK over a mocked HTTP transport, with recorded
fake answers. Each of the four relations maps to a Verdict; anything unusable fails open
(None), so the rules decide instead."""

from __future__ import annotations

from typing import Any, get_args

import httpx2
import pytest

from memory_app.conflicts.claude_judge import ClaudeJudge, Relation
from memory_app.conflicts.judge import CONFLICTING, RELATIONS, Verdict
from memory_app.service import claude_judge_for
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude, message

OLDER = "Test files end in _spec.py."
NEWER = "From now on test files end in _test.py."


def judge_with(api: FakeMessagesAPI) -> ClaudeJudge:
    judge = claude_judge_for(make_claude(api))
    assert isinstance(judge, ClaudeJudge)
    return judge


def test_the_answer_schema_names_the_four_relations() -> None:
    assert get_args(Relation) == RELATIONS


@pytest.mark.parametrize(
    ("relation", "reason"),
    [
        ("update", "test suffix changed from _spec to _test"),
        ("contradiction", "_spec.py vs _test.py suffix"),
        ("restatement", "same test suffix"),
        ("compatible", "different subjects"),
    ],
)
def test_each_relation_becomes_a_verdict(relation: str, reason: str) -> None:
    api = FakeMessagesAPI({"relation": relation, "reason": f"  {reason} "})

    verdict = judge_with(api)(OLDER, NEWER)

    assert verdict == Verdict(relation in CONFLICTING, reason, judge="claude", relation=relation)
    assert verdict.contradicts is (relation in {"update", "contradiction"})
    assert verdict.is_update is (relation == "update")
    assert api.calls == 1
    prompt = api.prompts()[0]
    assert f"A (older): {OLDER}" in prompt and f"B (newer): {NEWER}" in prompt
    for name in RELATIONS:
        assert f'- "{name}":' in prompt
    assert "use pytest, never unittest" in prompt  # a restatement despite polarity words
    schema = api.requests[0]["output_config"]["format"]["schema"]
    assert schema["properties"]["relation"]["enum"] == list(RELATIONS)
    assert set(schema["required"]) == {"relation", "reason"}
    assert "contradicts" not in schema["properties"]


def test_an_empty_reason_still_gives_a_verdict() -> None:
    verdict = judge_with(FakeMessagesAPI({"relation": "update", "reason": " "}))(OLDER, NEWER)
    assert verdict == Verdict(True, "Claude", judge="claude", relation="update")


@pytest.mark.parametrize(
    "reply",
    [
        api_error(500, "api_error", "Internal error"),
        api_error(529, "overloaded_error", "Overloaded"),
        httpx2.ReadTimeout("timed out"),
        httpx2.ConnectError("connection refused"),
        "not json at all",
        {"relation": "maybe", "reason": "unsure"},
        {"contradicts": True, "reason": "the old answer shape"},
        {"relation": "update"},
        {"relation": "update", "reason": "x" * 300},
        message('{"relation": "upd', stop_reason="max_tokens"),
        httpx2.Response(200, content=b'{"foo": 1}', headers={"content-type": "application/json"}),
        httpx2.Response(200, content=b'{"id": "msg_01", "content": ['),
        httpx2.Response(200, text="<html>Sign in to the Wi-Fi</html>"),
    ],
    ids=[
        "500",
        "529",
        "timeout",
        "network",
        "garbage",
        "unknown relation",
        "old shape",
        "no reason",
        "long reason",
        "cut off",
        "not a message",
        "broken json body",
        "a web page",
    ],
)
def test_any_problem_fails_open(reply: Any, caplog: pytest.LogCaptureFixture) -> None:
    api = FakeMessagesAPI(reply)
    assert judge_with(api)(OLDER, NEWER) is None
    assert api.calls == 1  # make_claude's client does not retry
    assert "using the rules instead" in caplog.text
