"""The MCP server with MEMORY_APP_ASSISTED_RETRIEVAL on: a real client session against the
spawned server, whose SDK reaches the fake Messages API over a local socket."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from memory_app.config import ASSISTED_RETRIEVAL_ENV
from memory_app.mcp_server import build_server
from memory_app.retrieval.assisted import RetrievalAssistant
from memory_app.service import MemoryService
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude, schema_title
from tests.unit.retrieval.test_assisted import BROKER, PLAN, TASK, store
from tests.unit.retrieval.test_assisted_cli import data, served
from tests.unit.test_mcp_server import _params, _payload

__all__ = ["data", "served", "store"]  # fixtures

NOTE = "Release notes are written in the pull request description."


async def _ask(data: Path, errlog: Any) -> dict[str, Any]:
    async with (
        stdio_client(_params(data, "mcp"), errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return {
            "retrieved": _payload(await session.call_tool("retrieve", {"task": TASK})),
            "context": _payload(await session.call_tool("context", {"task": TASK, "budget": 400})),
        }


def test_the_setting_makes_the_mcp_tools_ask_claude(
    tmp_path: Path, data: Path, served: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ASSISTED_RETRIEVAL_ENV, "1")
    with (tmp_path / "server-stderr.txt").open("w") as errlog:
        seen = asyncio.run(_ask(data, errlog))

    retrieved = seen["retrieved"]
    assert BROKER in [r["content"] for r in retrieved["results"]]
    assert retrieved["assisted"]["used"] is True
    assert BROKER in seen["context"]["context"] and seen["context"]["used_tokens"] <= 400
    assert seen["context"]["assisted"]["used"] is True
    assert served.calls == 4


def _waiting_for(release: threading.Event, said: list[str]) -> Any:
    """A plan answer that waits (at most 10 s) for `release`: the old server held its lock
    that long, and the search below then answered only after Claude."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if schema_title(body) != "SearchPlan":
            return {"sufficient": False, "reason": "no detail"}
        said.append("asked")
        release.wait(10)
        said.append("claude answered")
        return PLAN

    return answer


@pytest.mark.parametrize(("tool", "arguments"), [("retrieve", {}), ("context", {"budget": 400})])
def test_other_tools_answer_while_claude_is_thinking(
    store: MemoryService, tool: str, arguments: dict[str, Any]
) -> None:
    release, said = threading.Event(), []
    api = FakeMessagesAPI(_waiting_for(release, said))
    server = build_server(store, RetrievalAssistant(make_claude(api).client))

    async def scenario() -> dict[str, Any]:
        async with anyio.create_task_group() as tasks:
            slow: dict[str, Any] = {}

            async def ask() -> None:
                slow["answer"] = _payload(await server.call_tool(tool, {"task": TASK, **arguments}))

            tasks.start_soon(ask)
            while "asked" not in said:  # the assisted call is waiting on Claude
                await anyio.sleep(0.01)
            found = _payload(await server.call_tool("search", {"query": "RabbitMQ"}))
            said.append("search answered")
            remembered = _payload(await server.call_tool("remember", {"content": NOTE}))
            said.append("remember answered")
            release.set()
        assert BROKER in [r["content"] for r in found["results"]]
        assert remembered["outcome"] == "added"
        return slow["answer"]

    try:
        answer = anyio.run(scenario)
    finally:
        release.set()
    assert said == ["asked", "search answered", "remember answered", "claude answered"]
    assert answer["assisted"]["used"] is True
