"""Claude API faults (issue 15): bodies that are not a Messages response, a server that
never answers, and what `memory-app test-connection` says about each.

Bad bodies go through the real SDK over a mocked transport, like test_claude.py; the
dead server is a real HTTP server on 127.0.0.1, so the client's own timeouts and
retries (built from ClaudeSettings) are what is exercised.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

import memory_app.cli as cli
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract import claude_settings
from memory_app.extract.chunking import chunk_transcript
from memory_app.extract.claude import ClaudeExtractor
from memory_app.extract.claude_settings import ClaudeSettings
from tests.helpers import conversation
from tests.unit.extract.fake_anthropic import TEST_KEY, FakeMessagesAPI, make_claude, message

NOT_A_MESSAGE = "the API answered with a body that is not a Messages response: "
CHAT = conversation(
    ("Please use pnpm for every install in this repo, never npm.", "Switched to pnpm."),
    ("We always use async/await, never .then() chains.", "Got it, async/await everywhere."),
)
PNPM = {
    "coding_preferences": [
        {"content": "Use pnpm, never npm, for installs.", "confidence": 0.9, "context": ""}
    ]
}
GOOD_BODY = message(PNPM).content
# A Messages response without the part named by the key, to build broken ones from.
WHOLE = json.loads(GOOD_BODY)


def without(*keys: str, **changes: Any) -> bytes:
    body = {k: v for k, v in WHOLE.items() if k not in keys} | changes
    return json.dumps(body).encode()


# -- a loopback Messages API ------------------------------------------------------------


class LoopbackAPI:
    """The Messages API on 127.0.0.1: every POST is answered with `body` as given, or,
    while `hang` is set, read and never answered (until the test ends)."""

    def __init__(self) -> None:
        self.body = GOOD_BODY
        self.content_type = "application/json"
        self.hang = False
        self.requests = 0
        self._lock = threading.Lock()
        self._release = threading.Event()
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["content-length"]))
                with api._lock:
                    api.requests += 1
                if api.hang:
                    api._release.wait(timeout=30)  # a cap, should the client not give up
                    return
                self.send_response(200)
                self.send_header("content-type", api.content_type)
                self.send_header("content-length", str(len(api.body)))
                self.end_headers()
                self.wfile.write(api.body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


@pytest.fixture
def loopback() -> Iterator[LoopbackAPI]:
    api = LoopbackAPI()
    api.start()
    yield api
    api.stop()


def fast_settings(url: str, **changes: Any) -> ClaudeSettings:
    """Tiny timeouts so a dead server costs a fraction of a second."""
    values: dict[str, Any] = {
        "base_url": url,
        "timeout": 0.2,
        "connect_timeout": 0.2,
        "max_retries": 1,
        "concurrency": 1,
    }
    return ClaudeSettings(**(values | changes))


# -- an HTTP 200 that is not a Messages response -------------------------------------------

BAD_BODIES = {
    "broken json": (b'{"id": "msg_01", "content": [', "not valid JSON"),
    "unexpected json": (b'{"foo": 1}', "it has no `content` (keys: foo)"),
    "no content": (without("content"), "it has no `content` (keys: id, model, role"),
    "content of the wrong type": (without(content="Use pnpm"), "`content` is a string, not"),
    "blocks of the wrong type": (without(content=[42]), "`content[0]` is a number, not a"),
    "text block without text": (without(content=[{"type": "text"}]), "`content[0]` is a text"),
    "no usage": (without("usage"), "it has no token `usage`"),
    "a json array": (b"[]", "it is an array, not a message object"),
}


@pytest.mark.parametrize(("body", "words"), BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_a_body_that_is_not_a_messages_response_fails_the_run_clearly(
    open_service: Any, body: bytes, words: str
) -> None:
    reply = httpx2.Response(200, content=body, headers={"content-type": "application/json"})
    api = FakeMessagesAPI(reply)
    service = open_service(make_claude(api, max_retries=2))

    result = service.memorize(CHAT)

    assert result.status == "pending"
    assert NOT_A_MESSAGE + words in (result.reason or "")
    assert api.calls == 1  # neither the SDK nor the extractor asks again
    stats = service.get_stats()
    assert (stats.resources, stats.items) == (1, 0)  # kept, to be extracted later
    (run,) = service.extraction_runs()
    assert run.status == "error" and run.kind == "extract"
    assert NOT_A_MESSAGE + words in (run.error or "")
    assert service.usage().errors == 1


def test_a_web_page_instead_of_json_is_named_as_such(open_service: Any) -> None:
    page = httpx2.Response(200, text="<html>Sign in to the Wi-Fi</html>")
    service = open_service(make_claude(FakeMessagesAPI(page)))
    result = service.memorize(CHAT)
    assert result.status == "pending"
    assert NOT_A_MESSAGE + "it is text, not a message object: <html>Sign in" in (
        result.reason or ""
    )


# -- a server that never answers -------------------------------------------------------------


def test_a_dead_server_costs_one_conversation_then_the_import_skips_it(
    open_service: Any, loopback: LoopbackAPI, tmp_path: Path
) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    for name, rule in [("a", "pnpm, never npm"), ("b", "ruff before commits"), ("c", "uv")]:
        (folder / f"{name}.md").write_text(
            f"User: Please always use {rule} in this repository from now on.\n\n"
            "Assistant: Understood, I will do that everywhere.\n"
        )
    loopback.hang = True
    service = open_service(ClaudeExtractor(TEST_KEY, fast_settings(loopback.url)))

    report = service.import_paths([folder])

    assert loopback.requests == 2  # the first conversation: one try and one SDK retry
    first, *rest = report.results
    assert [r.status for r in report.results] == ["pending"] * 3
    assert "timed out after 1 retry" in (first.reason or "")
    for result in rest:
        assert "Anthropic API unreachable, skipped" in (result.reason or "")
    assert service.get_stats().resources == 3  # kept, none learnt from
    (run,) = service.extraction_runs()  # the skipped ones sent nothing, so cost nothing
    assert run.status == "error" and "timed out" in (run.error or "")

    # The next import asks again: the network may be back.
    loopback.hang = False
    again = service.import_paths([folder])
    assert [r.status for r in again.results] == ["success"] * 3
    assert loopback.requests == 2 + 3
    assert service.get_stats().resources == 3  # the kept ones, extracted: no copies


def test_a_retry_from_sources_asks_a_dead_server_again(
    open_service: Any, loopback: LoopbackAPI, tmp_path: Path
) -> None:
    """A person's Retry (reextract) resets the breaker, and refusals never renew its
    pause: a click a minute must not keep the API skipped forever."""
    chat = tmp_path / "chat.md"
    chat.write_text(
        "User: Please always use pnpm, never npm, in this repository from now on.\n\n"
        "Assistant: Understood, I will do that everywhere.\n"
    )
    loopback.hang = True
    service = open_service(ClaudeExtractor(TEST_KEY, fast_settings(loopback.url)))
    (result,) = service.import_paths([chat]).results
    assert result.status == "pending" and loopback.requests == 2
    loopback.hang = False
    retried = service.reextract(result.resource_id)
    assert retried.status == "success"
    assert loopback.requests == 3  # asked again, not "unreachable, skipped"


def test_chunks_queued_behind_a_dead_server_are_not_sent(
    open_service: Any, loopback: LoopbackAPI
) -> None:
    turns = []
    for n in range(12):
        turns.append(Turn(2 * n, "user", f"Step {n}: please refactor module_{n} " + "x" * 120))
        turns.append(Turn(2 * n + 1, "assistant", f"Refactored module_{n}. " + "y" * 80))
    chat = Transcript(source_kind="text", turns=tuple(turns), session_id="long")
    settings = fast_settings(loopback.url, chunk_chars=900, concurrency=2)
    assert len(chunk_transcript(chat, settings.chunk_chars)) >= 4
    loopback.hang = True
    service = open_service(ClaudeExtractor(TEST_KEY, settings))

    result = service.memorize(chat)

    assert result.status == "pending" and "timed out" in (result.reason or "")
    assert loopback.requests == 2 * 2  # the two chunks in flight, each tried twice
    (run,) = service.extraction_runs()
    assert run.status == "error"


def test_the_breaker_can_be_turned_off(open_service: Any, loopback: LoopbackAPI) -> None:
    loopback.hang = True
    settings = fast_settings(loopback.url, max_retries=0, unreachable_pause=0)
    service = open_service(ClaudeExtractor(TEST_KEY, settings))
    first = service.memorize(CHAT)
    other = conversation(
        ("We always run ruff before every commit in this repository.", "Noted, ruff first."),
        session="s2",
    )
    second = service.memorize(other)
    assert "timed out" in (first.reason or "") and "timed out" in (second.reason or "")
    assert loopback.requests == 2


def test_the_default_limits_give_the_documented_bound() -> None:
    settings = ClaudeSettings()
    assert (settings.connect_timeout, settings.timeout, settings.max_retries) == (10, 60, 2)
    assert settings.unreachable_bound() == 3 * (10 + 60) + 0.5 + 1.0 == 211.5
    assert "= 211.5 s" in (claude_settings.__doc__ or "")
    # The backoffs the bound adds up are the SDK's: 0.5 s doubling, at most 8 s.
    from anthropic import _constants

    assert (_constants.INITIAL_RETRY_DELAY, _constants.MAX_RETRY_DELAY) == (0.5, 8.0)
    # And the client really is built with those limits.
    extractor = ClaudeExtractor(TEST_KEY, settings)
    try:
        assert extractor.client.timeout == anthropic.Timeout(60, connect=10)
        assert extractor.client.max_retries == 2
    finally:
        extractor.close()


# -- memory-app test-connection -----------------------------------------------------------


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, loopback: LoopbackAPI) -> LoopbackAPI:
    for name in claude_settings.ENV_NAMES.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-faults")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    monkeypatch.setenv("MEMORY_APP_CLAUDE_TIMEOUT", "0.2")
    return loopback


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`memory-app test-connection ARGS`: exit code, stdout, stderr."""
    code = cli.main(["test-connection", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"id": "msg_01", "content": [', "not valid JSON (Expecting value"),
        (b'{"foo": 1}', "it has no `content` (keys: foo)"),
        (without("model"), "it names no `model`"),
    ],
    ids=["broken json", "unexpected json", "no model"],
)
def test_test_connection_names_a_bad_body_in_one_line(
    capsys: pytest.CaptureFixture[str], cli_env: LoopbackAPI, body: bytes, words: str
) -> None:
    cli_env.body = body

    code, out, err = check(capsys)

    assert code == 1 and out == ""
    assert err.startswith("memory-app: error: " + NOT_A_MESSAGE + words)
    assert err.count("\n") == 1 and "Traceback" not in err and "None" not in err
    assert cli_env.requests == 1

    code, out, _ = check(capsys, "--json")
    payload = json.loads(out)
    assert code == 1 and payload["ok"] is False
    assert payload["message"].startswith(NOT_A_MESSAGE + words)


def test_test_connection_reports_a_server_that_never_answers(
    capsys: pytest.CaptureFixture[str], cli_env: LoopbackAPI
) -> None:
    cli_env.hang = True
    code, out, err = check(capsys)
    assert code == 1 and out == ""
    assert err.startswith("memory-app: error: the request to Claude timed out")
    assert err.count("\n") == 1
    assert cli_env.requests == 1  # no retries for a connection test


def test_test_connection_still_names_the_model_on_success(
    capsys: pytest.CaptureFixture[str], cli_env: LoopbackAPI
) -> None:
    code, out, err = check(capsys)
    assert code == 0, err
    assert out.startswith("Connected: claude-haiku-4-5 answered in ")
    assert out.strip().endswith("ms (key from environment).")
