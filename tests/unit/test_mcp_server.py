"""`memory-app mcp`: a real MCP client session against the spawned server (issue 16)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from memory_app.mcp_server import TOOL_NAMES
from memory_app.privacy_gate import set_paused
from memory_app.service import MemoryService

RULE = "Always run the linter before pushing to the release branch"


def _params(data: Path, *command: str) -> StdioServerParameters:
    # The test's sandboxed HOME/XDG folders, and logs inside the store's folder.
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(data)}
    args = ["-m", "memory_app", *command, "--data-dir", str(data)]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def _payload(result: Any) -> dict[str, Any]:
    assert isinstance(result, CallToolResult)
    assert not result.is_error, result.content
    # The text content is the JSON of the structured result, for clients without it.
    text = result.content[0]
    assert isinstance(text, TextContent)
    data: dict[str, Any] = json.loads(text.text)
    assert result.structured_content in (None, data)
    return data


def _error(result: Any) -> str:
    assert isinstance(result, CallToolResult)
    assert result.is_error
    text = result.content[0]
    assert isinstance(text, TextContent)
    return text.text


async def _session(data: Path, errlog: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with (
        stdio_client(_params(data, "mcp"), errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        seen["server"] = init.server_info.name
        seen["tools"] = {t.name for t in (await session.list_tools()).tools}

        added = _payload(await session.call_tool("remember", {"content": RULE}))
        seen["added"] = added
        again = _payload(await session.call_tool("remember", {"content": RULE}))
        seen["again"] = again
        seen["secret"] = _payload(
            await session.call_tool(
                "remember",
                {"content": "Staging deploys use <private>the hunter2 login</private> a VPN"},
            )
        )
        seen["empty"] = _error(await session.call_tool("remember", {"content": "   "}))
        seen["bad_category"] = _error(
            await session.call_tool("remember", {"content": RULE + " now", "category": "nope"})
        )

        memory_id = added["memory"]["id"]
        seen["found"] = _payload(await session.call_tool("search", {"query": "linter release"}))
        seen["retrieved"] = _payload(
            await session.call_tool("retrieve", {"task": "push to the release branch"})
        )
        seen["context"] = _payload(
            await session.call_tool("context", {"task": "linting", "budget": 500})
        )
        seen["pinned"] = _payload(await session.call_tool("pin", {"id": memory_id}))
        seen["conflicts"] = _payload(await session.call_tool("list_conflicts", {}))
        seen["forgot"] = _payload(await session.call_tool("forget", {"id": memory_id}))
        seen["after"] = _payload(await session.call_tool("search", {"query": "linter release"}))
        seen["unknown"] = _error(await session.call_tool("forget", {"id": 999_999}))
        # Still serving after the errors.
        seen["still"] = _payload(await session.call_tool("search", {"query": "VPN"}))
    return seen


def test_client_session_against_the_spawned_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with (tmp_path / "server-stderr.txt").open("w") as errlog:
        seen = asyncio.run(_session(data, errlog))

    assert seen["server"] == "memory-curator"
    assert seen["tools"] >= set(TOOL_NAMES)
    assert seen["added"]["outcome"] == "added"
    memory_id = seen["added"]["memory"]["id"]
    assert seen["added"]["memory"]["content"] == RULE
    assert seen["again"] == {"outcome": "reinforced", "memory": seen["again"]["memory"]}
    assert seen["again"]["memory"]["id"] == memory_id
    assert "hunter2" not in seen["secret"]["memory"]["content"]
    assert "[private]" in seen["secret"]["memory"]["content"]
    assert "content must not be empty" in seen["empty"]
    assert "unknown category 'nope'" in seen["bad_category"]

    assert [r["id"] for r in seen["found"]["results"]] == [memory_id]
    assert seen["retrieved"]["results"][0]["id"] == memory_id
    assert seen["retrieved"]["results"][0]["why"].startswith("score ")
    assert RULE in seen["context"]["context"]
    assert memory_id in seen["context"]["item_ids"]
    assert seen["pinned"]["memory"]["pinned"] is True
    assert seen["conflicts"] == {"conflicts": []}
    assert seen["forgot"]["forgotten"]["status"] == "deleted"
    assert seen["after"] == {"results": []}
    assert "999999" in seen["unknown"]
    assert [r["content"] for r in seen["still"]["results"]] == [
        "Staging deploys use [private] a VPN"
    ]


def test_stdout_carries_nothing_but_the_protocol(tmp_path: Path) -> None:
    """`memory-app mcp` exactly as the README registers it: a client that closes stdin
    at once gets no byte on stdout (no banner, no log line) and a clean exit."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "\nclaude mcp add --scope user memory-curator -- memory-app mcp   #" in readme
    data = tmp_path / "data"
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(data)}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("memory-app")), "mcp"],
        input=b"",
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    assert b"MCP server started" in (data / "logs" / "memory-app.log").read_bytes()


def test_remember_respects_a_paused_project(service: MemoryService, tmp_path: Path) -> None:
    project = tmp_path / "secret-project"
    project.mkdir()
    assert service.db.path is not None
    set_paused(service.db.path.parent, str(project), True)
    with pytest.raises(ValueError, match="memory is off"):
        service.remember(RULE, project=str(project.resolve()))
    assert service.list_items() == []


def test_remember_does_not_bring_back_a_forgotten_memory(service: MemoryService) -> None:
    _, first = service.remember(RULE)
    service.forget(first.id)
    with pytest.raises(ValueError, match=f"repeats memory #{first.id}, which is deleted"):
        service.remember(RULE)


def test_remember_holds_a_possible_secret(service: MemoryService) -> None:
    outcome, record = service.remember("The staging token is q8Zr3kLmW0pXv7TnB2sYd9Hf4Jg6Ca1E")
    assert outcome == "added"
    assert record.status == "held"
