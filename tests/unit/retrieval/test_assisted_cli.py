"""`memory-app retrieve|context QUERY --assisted`: offline without a key, and with one the
real SDK talks over a real local socket to the fake Messages API (the key and the base URL
come from the environment, as a person sets them)."""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from tests.unit.extract.fake_anthropic import TEST_KEY, FakeMessagesAPI, schema_title
from tests.unit.retrieval.test_assisted import BROKER, HEARTBEATS, OUTAGES, PLAN, TASK


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        service.remember(BROKER, category="architectural_decisions")
        service.remember(OUTAGES, category="project_conventions")
        service.remember(HEARTBEATS, category="bug_patterns")
    finally:
        service.close()
    return folder


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    """The fake API behind an HTTP server on 127.0.0.1, configured as a person would."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if schema_title(body) == "SearchPlan":
            return PLAN
        return {"sufficient": False, "reason": "no detail"}

    api = FakeMessagesAPI(answer)

    class Bridge(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            request = httpx2.Request(
                "POST", f"http://fake{self.path}", content=body, headers=dict(self.headers)
            )
            reply = api(request)
            content = reply.read()
            self.send_response(reply.status_code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Bridge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("MEMORY_APP_CLAUDE_BASE_URL", f"http://127.0.0.1:{server.server_port}")
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main([*args, "--data-dir", str(data)])
    return code, capsys.readouterr().out


def test_without_a_key_the_flag_gives_the_offline_ranking_and_says_why(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    _, plain = run(capsys, data, "retrieve", TASK, "--json")
    code, out = run(capsys, data, "retrieve", TASK, "--assisted", "--json")
    assert code == 0
    payload = json.loads(out)
    assert [r["id"] for r in payload["results"]] == [r["id"] for r in json.loads(plain)]
    help_ = payload["assisted"]
    assert help_["used"] is False and help_["sufficient"] is None
    assert help_["fallback"] == "assisted retrieval unavailable: no Anthropic API key: set " + (
        "ANTHROPIC_API_KEY"
    )
    assert help_["tokens"] == {"requests": 0, "input": 0, "output": 0, "cost_usd": None}
    code, out = run(capsys, data, "retrieve", TASK, "--assisted")
    assert code == 0 and OUTAGES in out and "assisted retrieval unavailable" in out
    code, out = run(capsys, data, "context", TASK, "--assisted", "--json")
    assert code == 0 and json.loads(out)["assisted"]["used"] is False


def test_with_a_key_claude_adds_the_memory_the_task_does_not_name(
    capsys: pytest.CaptureFixture[str], data: Path, served: FakeMessagesAPI
) -> None:
    code, out = run(capsys, data, "retrieve", TASK, "--assisted", "--json")

    assert code == 0
    payload = json.loads(out)
    contents = [r["content"] for r in payload["results"]]
    assert BROKER in contents and OUTAGES in contents and HEARTBEATS not in contents
    help_ = payload["assisted"]
    assert help_["used"] is True and help_["fallback"] is None
    assert help_["queries"] == PLAN["queries"]
    assert help_["categories"] == ["architectural_decisions", "project_conventions"]
    assert help_["sufficient"] is False
    assert help_["tokens"]["requests"] == 2 and help_["tokens"]["input"] == 2000
    assert served.calls == 2 and served.headers[0]["authorization"] == f"Bearer {TEST_KEY}"
    assert TASK in served.prompts()[0]

    code, out = run(capsys, data, "retrieve", TASK, "--assisted")
    assert code == 0 and "(found by Claude's queries)" in out and "Assisted: queries" in out

    code, out = run(capsys, data, "context", TASK, "--assisted", "--budget", "400", "--json")
    plan = json.loads(out)
    assert code == 0 and BROKER in plan["context"] and plan["used_tokens"] <= 400
    assert plan["assisted"]["used"] is True

    code, out = run(capsys, data, "usage", "--json")
    assert code == 0 and json.loads(out)["requests"] == 6  # every request is counted


def readme_lines() -> list[list[str]]:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Claude-assisted retrieval", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```")[0]
    return [shlex.split(line) for line in block.strip().splitlines()]


@pytest.mark.parametrize("keyed", [False, True])
def test_the_readme_lines_run_as_written(
    capsys: pytest.CaptureFixture[str],
    data: Path,
    request: pytest.FixtureRequest,
    keyed: bool,
) -> None:
    if keyed:
        request.getfixturevalue("served")
    lines = readme_lines()
    assert len(lines) == 2
    outputs = []
    for words in lines:
        assert words[0] == "memory-app"
        code, out = run(capsys, data, *words[1:])
        assert code == 0, words
        outputs.append(out)
    payload = json.loads(outputs[0])
    assert payload["assisted"]["used"] is keyed
    assert (BROKER in [r["content"] for r in payload["results"]]) is keyed
    assert ("assisted retrieval unavailable" in outputs[1]) is not keyed
