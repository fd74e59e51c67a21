"""Settings: choosing the extractor, the key's source, and Test Connection against a
Messages API served on loopback (the real SDK and HTTP path)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from memory_app.gui.context import AppContext
from memory_app.gui.views.settings import SettingsView

KEY = "sk-ant-gui-test-0123456789"


class FakeMessages(http.server.BaseHTTPRequestHandler):
    status: ClassVar[int] = 200

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        if type(self).status == 200:
            body = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-haiku-4-5",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            }
        else:
            body = {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            }
        data = json.dumps(body).encode()
        self.send_response(type(self).status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeMessages]]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeMessages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("MEMORY_APP_CLAUDE_MAX_RETRIES", "0")
    FakeMessages.status = 200
    yield FakeMessages
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def view(qtbot: Any, context: AppContext) -> SettingsView:
    settings_view = SettingsView(context)
    qtbot.addWidget(settings_view)
    return settings_view


def choose(view: SettingsView, value: str) -> None:
    view.ui.extractorChoice.setCurrentIndex(view.ui.extractorChoice.findData(value))


def test_offline_by_default_and_claude_needs_a_key(view: SettingsView, context: AppContext) -> None:
    assert context.service.extractor.name == "offline"
    assert "No key" in view.ui.keySource.text()
    choose(view, "claude")
    assert "no Anthropic API key" in view.ui.keySource.text()
    assert context.service.extractor.name == "offline"  # never left without an extractor


def test_a_typed_key_switches_to_claude_and_is_never_saved_in_settings(
    view: SettingsView, context: AppContext, tmp_path: Path
) -> None:
    view.ui.apiKey.setText(KEY)
    choose(view, "claude")
    assert context.service.extractor.name == "claude"
    assert view.ui.keySource.text() == "Using the key from above."
    context.settings.sync()
    saved = (tmp_path / "settings.ini").read_text()
    assert "choice=claude" in saved
    assert KEY not in saved
    assert KEY not in repr(context.service.extractor)


def test_the_key_from_the_environment_is_used(
    view: SettingsView, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    choose(view, "auto")
    assert context.service.extractor.name == "claude"
    assert view.ui.keySource.text() == "Using the key from ANTHROPIC_API_KEY."


def test_test_connection_reports_success_and_a_bad_key(
    view: SettingsView, api: type[FakeMessages], run_until: Callable[..., None]
) -> None:
    view.ui.apiKey.setText(KEY)
    view.test_connection()
    run_until(lambda: view.ui.testConnection.isEnabled())
    assert view.ui.connectionResult.text().startswith("Connected: claude-haiku-4-5 answered in ")
    api.status = 401
    view.test_connection()
    run_until(lambda: view.ui.testConnection.isEnabled())
    text = view.ui.connectionResult.text()
    assert "invalid API key" in text
    assert KEY not in text


def test_choosing_claude_also_makes_it_judge_contradictions(
    view: SettingsView, context: AppContext
) -> None:
    assert context.service.conflict_judge is None
    view.ui.apiKey.setText(KEY)
    choose(view, "claude")
    assert context.service.conflict_judge is not None
    choose(view, "offline")
    assert context.service.conflict_judge is None


def test_auto_resolve_is_off_until_turned_on_and_remembered(
    qtbot: Any, view: SettingsView, context: AppContext
) -> None:
    assert context.service.auto_resolve is None
    view.ui.autoResolve.setChecked(True)
    assert context.service.auto_resolve == "newer_if_confident"
    again = SettingsView(context)
    qtbot.addWidget(again)
    assert again.ui.autoResolve.isChecked()
    again.ui.autoResolve.setChecked(False)
    assert context.service.auto_resolve is None
