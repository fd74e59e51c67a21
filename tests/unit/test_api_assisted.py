"""The local API's `assisted` flag (`GET /memories?q=…&assisted=true`, `POST
/context/assemble` with `"assisted": true`) over a real socket: with
MEMORY_APP_ASSISTED_RETRIEVAL on, the server's SDK reaches the fake Messages API over a
second local socket (key and base URL from the environment, as a person sets them) and
Claude's queries find what the plain search misses; with the setting off, without a key
or when Claude fails, the answer is the one without the flag, saying why."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app.api import token as tokens
from memory_app.api.routes import openapi
from memory_app.api.server import make_server
from memory_app.config import ASSISTED_RETRIEVAL_ENV, resolve_settings
from memory_app.retrieval.assisted import RetrievalAssistant
from memory_app.service import MemoryService
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude
from tests.unit.retrieval.test_assisted import BROKER, OUTAGES, TASK
from tests.unit.retrieval.test_assisted_cli import data, served
from tests.unit.retrieval.test_assisted_mcp import _waiting_for
from tests.unit.test_api import Client

__all__ = ["data", "served"]  # fixtures

SEARCH = "/memories?q=which+message+broker+do+we+use"
CONTEXT = {"task": TASK, "budget": 400}
OFF = "assisted retrieval unavailable: MEMORY_APP_ASSISTED_RETRIEVAL is not on"


def _serve(folder: Path, **given: RetrievalAssistant) -> Iterator[Client]:
    """A server as `memory-app serve` makes it: the assistant from the settings, unless
    one is given."""
    service = MemoryService.open(resolve_settings(folder, env={}))
    server = make_server(service, folder, 0, **given)  # type: ignore[arg-type]
    server.start()
    try:
        yield Client(server, tokens.load_or_create(folder))
    finally:
        server.stop()
        service.close()


@pytest.fixture
def plain(data: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    monkeypatch.delenv(ASSISTED_RETRIEVAL_ENV, raising=False)
    yield from _serve(data)


def _contents(body: dict[str, object]) -> list[str]:
    return [m["content"] for m in body["memories"]]  # type: ignore[attr-defined, index]


def _ids(plan: dict[str, Any]) -> list[int | None]:
    return [e["item_id"] for t in plan["tiers"] for e in t["entries"]]


def test_with_the_setting_on_claude_finds_what_the_search_misses(
    data: Path, served: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ASSISTED_RETRIEVAL_ENV, "1")
    for client in _serve(data):
        status, without = client.call("GET", SEARCH)
        assert status == 200 and "assisted" not in without
        assert BROKER not in _contents(without) and OUTAGES in _contents(without)
        assert served.calls == 0  # nothing asked without the flag

        status, body = client.call("GET", SEARCH + "&assisted=true")
        assert status == 200 and body["mode"] == "search"
        assert BROKER in _contents(body) and OUTAGES in _contents(body)
        report = body["assisted"]
        assert report["used"] is True and report["fallback"] is None
        assert report["queries"] == ["RabbitMQ Kafka queue", "background jobs queue"]
        assert report["ignored_categories"] == ["made_up_category"]
        broker = next(m for m in body["memories"] if m["content"] == BROKER)
        assert broker["id"] in report["added"] and broker["score"] > 0
        assert report["tokens"]["requests"] == 2

        status, built = client.call("POST", "/context/assemble", {**CONTEXT, "assisted": True})
        assert status == 200
        assert BROKER in built["context"] and built["used_tokens"] <= 400
        assert built["assisted"]["used"] is True
        assert built["remaining_tokens"] == 400 - built["used_tokens"]
        status, alone = client.call("POST", "/context/assemble", CONTEXT)
        assert "assisted" not in alone and BROKER not in alone["context"]
    assert served.calls == 4  # two questions per assisted request, none for the others


def test_with_the_setting_off_the_flag_gives_the_plain_answer_and_says_why(
    plain: Client,
) -> None:
    _, without = plain.call("GET", SEARCH)
    status, body = plain.call("GET", SEARCH + "&assisted=true")
    assert status == 200
    assert body["memories"] == without["memories"]
    assert body["assisted"]["used"] is False and body["assisted"]["fallback"].startswith(OFF)
    _, alone = plain.call("POST", "/context/assemble", CONTEXT)
    status, built = plain.call("POST", "/context/assemble", {**CONTEXT, "assisted": True})
    assert status == 200 and built["context"] == alone["context"]
    assert _ids(built) == _ids(alone)  # (their scores move: each request counts as a use)
    assert built["assisted"]["fallback"].startswith(OFF)
    # Without a task there is nothing to ask about, whatever the setting.
    status, listed = plain.call("GET", "/memories?assisted=1&limit=2")
    assert status == 200 and listed["mode"] == "list" and len(listed["memories"]) == 2
    assert listed["assisted"]["fallback"].endswith("there is no task to search for")


def test_on_without_a_key_it_falls_back_naming_the_key(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ASSISTED_RETRIEVAL_ENV, "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for client in _serve(data):
        _, without = client.call("GET", SEARCH)
        status, body = client.call("GET", SEARCH + "&assisted=true")
        assert status == 200 and body["memories"] == without["memories"]
        assert "no Anthropic API key" in body["assisted"]["fallback"]


def test_when_claude_fails_the_answer_is_the_plain_one_with_the_reason(data: Path) -> None:
    api = FakeMessagesAPI(api_error(500, "api_error", "boom"))
    helper = RetrievalAssistant(make_claude(api).client)
    for client in _serve(data, assistant=helper):
        _, without = client.call("GET", SEARCH)
        status, body = client.call("GET", SEARCH + "&assisted=true")
        assert status == 200 and body["memories"] == without["memories"]
        assert "HTTP 500" in body["assisted"]["fallback"]
        _, alone = client.call("POST", "/context/assemble", CONTEXT)
        status, built = client.call("POST", "/context/assemble", {**CONTEXT, "assisted": True})
        assert status == 200 and built["context"] == alone["context"]
        assert "HTTP 500" in built["assisted"]["fallback"]
    assert api.calls >= 2


def test_a_bad_flag_is_400_and_the_document_describes_it(plain: Client) -> None:
    status, body = plain.call("GET", SEARCH + "&assisted=maybe")
    assert status == 400 and body["error"] == (
        "parameter 'assisted' must be true or false; got 'maybe'"
    )
    status, body = plain.call("POST", "/context/assemble", {**CONTEXT, "assisted": "yes"})
    assert status == 400 and "'assisted' must be boolean" in body["error"]
    paths = openapi()["paths"]
    query = {p["name"]: p for p in paths["/memories"]["get"]["parameters"]}
    assert query["assisted"]["schema"] == {"type": "boolean", "default": False}
    assert "MEMORY_APP_ASSISTED_RETRIEVAL" in query["assisted"]["description"]
    body_schema = paths["/context/assemble"]["post"]["requestBody"]["content"]
    assisted = body_schema["application/json"]["schema"]["properties"]["assisted"]
    assert assisted["type"] == "boolean" and "fallback" in assisted["description"]


def test_other_requests_answer_while_claude_is_thinking(data: Path) -> None:
    """An assisted request waiting on Claude holds the server's lock only around its store
    work: a plain search sent meanwhile answers first (ordered by events, not timings)."""
    release, said = threading.Event(), []
    api = FakeMessagesAPI(_waiting_for(release, said))
    helper = RetrievalAssistant(make_claude(api).client)
    for client in _serve(data, assistant=helper):
        slow: dict[str, Any] = {}

        def ask(asker: Client = client, into: dict[str, Any] = slow) -> None:
            into["answer"] = asker.call("GET", SEARCH + "&assisted=true")

        asking = threading.Thread(target=ask)
        asking.start()
        try:
            for _ in range(1000):  # until the assisted request waits on Claude
                if "asked" in said:
                    break
                release.wait(0.01)
            status, plain = client.call("GET", "/memories?q=RabbitMQ")
            said.append("search answered")
        finally:
            release.set()
            asking.join(30)
        assert status == 200 and BROKER in _contents(plain)
        assert said == ["asked", "search answered", "claude answered"]
        status, body = slow["answer"]
        assert status == 200 and body["assisted"]["used"] is True
