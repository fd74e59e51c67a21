"""The MCP server with MEMORY_APP_ASSISTED_RETRIEVAL on: a real client session against the
spawned server, whose SDK reaches the fake Messages API over a local socket."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from memory_app.config import ASSISTED_RETRIEVAL_ENV
from tests.unit.extract.fake_anthropic import FakeMessagesAPI
from tests.unit.retrieval.test_assisted import BROKER, TASK
from tests.unit.retrieval.test_assisted_cli import data, served
from tests.unit.test_mcp_server import _params, _payload

__all__ = ["data", "served"]  # fixtures


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
