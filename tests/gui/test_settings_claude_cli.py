"""Settings and the Claude Code CLI: offered when there is no key but `claude` is installed
(never switched to unasked), chosen with one click, tested with Test Connection; a fake
`claude` on PATH stands in for Claude Code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_app.gui.context import AppContext
from memory_app.gui.views.settings import SettingsView
from tests.unit.extract.fake_claude_cli import FakeClaude, envelope, install

KEY = "sk-ant-gui-cli-test-0123456789"


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    return install(tmp_path, monkeypatch)


def make_view(qtbot: Any, context: AppContext) -> SettingsView:
    view = SettingsView(context)
    qtbot.addWidget(view)
    return view


def test_no_key_but_the_cli_installed_is_said_and_one_click_chooses_it(
    qtbot: Any, context: AppContext, fake: FakeClaude, tmp_path: Path
) -> None:
    view = make_view(qtbot, context)

    assert not view.cli_hint_row.isHidden()
    assert str(fake.path) in view.cli_hint.text()
    assert "No API key is set, but the Claude Code CLI is installed" in view.cli_hint.text()
    assert context.service.extractor.name == "offline"  # said, not switched

    view.use_cli.click()

    assert view.choice() == "claude-cli"
    assert context.service.extractor.name == "claude-cli"
    assert context.service.conflict_judge is None  # the rules judge; the API is not used
    assert view.cli_hint_row.isHidden()
    assert view.ui.keySource.text().startswith(f"Using the Claude Code CLI ({fake.path})")
    context.settings.sync()
    assert "choice=claude-cli" in (tmp_path / "settings.ini").read_text()
    assert fake.calls == []  # choosing it runs nothing

    again = make_view(qtbot, context)  # the next start keeps the choice
    assert again.choice() == "claude-cli" and context.service.extractor.name == "claude-cli"


def test_with_a_key_the_cli_is_not_pushed(
    qtbot: Any, context: AppContext, fake: FakeClaude, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    view = make_view(qtbot, context)
    assert view.cli_hint_row.isHidden()
    # Still in the list for whoever prefers the subscription.
    assert view.ui.extractorChoice.findData("claude-cli") >= 0


def test_without_the_cli_there_is_no_hint_and_choosing_it_says_why_not(
    qtbot: Any, context: AppContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    view = make_view(qtbot, context)
    assert view.cli_hint_row.isHidden()

    view.choose("claude-cli")

    assert "the Claude Code CLI was not found" in view.ui.keySource.text()
    assert "MEMORY_APP_CLAUDE_CLI" in view.ui.keySource.text()
    assert context.service.extractor.name == "offline"


def test_test_connection_asks_the_cli(
    qtbot: Any, context: AppContext, fake: FakeClaude, run_until: Callable[..., None]
) -> None:
    view = make_view(qtbot, context)
    view.choose("claude-cli")
    fake.plan({"stdout": envelope("ok")})

    view.test_connection()
    run_until(lambda: view.ui.testConnection.isEnabled())

    assert view.ui.connectionResult.text().startswith(
        "Connected through the Claude Code CLI: claude-haiku-4-5-20251001 answered in "
    )
    (call,) = fake.calls
    assert call["argv"][0] == "-p"

    fake.plan({"stdout": envelope("Not logged in · Please run /login", is_error=True)})
    view.test_connection()
    run_until(lambda: view.ui.testConnection.isEnabled())
    assert "log in (/login)" in view.ui.connectionResult.text()
