"""`memory-app import --extractor …`, `memory-app usage` and `memory-app test-connection`."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest

import memory_app.cli as cli
from memory_app.extract import claude
from memory_app.extract.claude import ConnectionCheck
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude, message

CHAT = (
    "User: Please use pnpm for every install in this repo, never npm.\n\n"
    "Assistant: Switched the scripts to pnpm.\n"
)
PNPM = {
    "coding_preferences": [
        {"content": "Use pnpm, never npm, for installs.", "confidence": 0.9, "context": ""}
    ]
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "pnpm.md"
    path.write_text(CHAT)
    return path


def test_claude_without_a_key_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, chat: Path
) -> None:
    code, out, err = run(
        capsys, "import", str(chat), "--extractor", "claude", "--data-dir", str(tmp_path / "d")
    )
    assert code == 1 and out == ""
    assert "no Anthropic API key: set ANTHROPIC_API_KEY" in err
    code, out, _ = run(capsys, "test-connection", "--json")
    assert code == 1 and json.loads(out)["error"] == "no Anthropic API key: set ANTHROPIC_API_KEY"


def test_auto_without_a_key_imports_offline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, chat: Path
) -> None:
    data = str(tmp_path / "d")
    code, out, _ = run(capsys, "import", str(chat), "--extractor", "auto", "--data-dir", data)
    assert code == 0 and "Claude usage" not in out
    code, out, _ = run(capsys, "usage", "--data-dir", data)
    assert code == 0 and "No Claude calls recorded yet" in out


def test_import_with_claude_reports_usage(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    chat: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = FakeMessagesAPI(PNPM)
    chosen: list[str] = []

    def fake_make(choice: str) -> Any:
        chosen.append(choice)
        return make_claude(api)

    monkeypatch.setattr(cli, "make_extractor", fake_make)
    data = str(tmp_path / "d")
    code, out, _ = run(capsys, "import", str(chat), "--extractor", "claude", "--data-dir", data)
    assert code == 0, out
    assert chosen == ["claude"] and api.calls == 1
    assert "Memories extracted: 1" in out
    assert "Claude usage: 1 request, 1,000 input + 200 output tokens, about $0.0020" in out

    code, out, _ = run(capsys, "usage", "--runs", "5", "--json", "--data-dir", data)
    payload = json.loads(out)
    assert payload["runs"][0]["kind"] == "extract"
    assert payload["input_tokens"] == 1000 and payload["cost_usd"] == pytest.approx(0.002)
    assert payload["by_model"][0]["model"] == "claude-haiku-4-5"


def test_test_connection_prints_model_and_latency(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-cli")
    seen: list[str] = []

    def fake_check(key: Any, settings: Any) -> ConnectionCheck:
        seen.append(key.reveal())
        return ConnectionCheck(True, settings.model, 42, f"{settings.model} answered in 42 ms")

    monkeypatch.setattr(claude, "check_connection", fake_check)
    code, out, _ = run(capsys, "test-connection")
    assert code == 0 and seen == ["sk-ant-test-cli"]
    assert out.strip() == "Connected: claude-haiku-4-5 answered in 42 ms (key from environment)."
    assert "sk-ant-test-cli" not in out


class _FakeServer(http.server.BaseHTTPRequestHandler):
    """The Messages API on localhost, for the client the CLI builds itself."""

    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["content-length"])
        type(self).bodies.append(json.loads(self.rfile.read(length)))
        reply = message(PNPM).content
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


def test_the_cli_builds_a_real_client_that_honours_anthropic_base_url(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    chat: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-local")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setenv("MEMORY_APP_CLAUDE_MODEL", "claude-haiku-4-5-20251001")
        data = str(tmp_path / "d")
        code, out, err = run(capsys, "import", str(chat), "--extractor", "auto", "--data-dir", data)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert code == 0, err
    assert "Memories extracted: 1" in out and "Claude usage: 1 request" in out
    (body,) = _FakeServer.bodies
    assert body["model"] == "claude-haiku-4-5-20251001"
