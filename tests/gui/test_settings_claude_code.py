"""Settings' Claude Code section against real files: the hooks in settings.json, the MCP
server in .claude.json and /mem in commands/, under a temporary home and Claude Code
configuration folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from memory_app.gui.context import AppContext
from memory_app.gui.views.settings import SettingsView
from memory_app.gui.widgets.claude_code_setup import CONFIRM_TITLE, PARTS, ClaudeCodePanel
from memory_app.hooks.setup import setup_status

Settle = Callable[..., None]


@pytest.fixture
def config_dir(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code's configuration folder, inside the test's home (HOME is a temporary
    folder for every test)."""
    folder = Path.home() / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def view(qtbot: Any, context: AppContext, config_dir: Path, settle: Settle) -> SettingsView:
    settings_view = SettingsView(context)
    qtbot.addWidget(settings_view)
    settings_view.activate()
    settle()
    return settings_view


def states(panel: ClaudeCodePanel) -> list[str]:
    return [panel.states[name].text() for name in PARTS]


def click(qtbot: Any, button: QWidget, settle: Settle) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settle()


def test_install_then_remove(
    qtbot: Any, view: SettingsView, context: AppContext, config_dir: Path, settle: Settle
) -> None:
    panel = view.claude_code
    assert states(panel) == ["Not installed"] * 3
    assert [panel.files[name].text() for name in PARTS] == [
        "~/claude-config/settings.json",
        "~/claude-config/.claude.json",
        "~/claude-config/commands/mem.md",
    ]
    assert panel.install_button.isEnabled() and not panel.remove_button.isEnabled()

    click(qtbot, panel.install_button, settle)
    assert states(panel) == ["\u2713 Installed"] * 3
    assert "Installed" in panel.message.text()
    assert set(json.loads((config_dir / "settings.json").read_text())["hooks"]) >= {
        "UserPromptSubmit",
        "SessionEnd",
    }
    assert "mcpServers" in json.loads((config_dir / ".claude.json").read_text())
    assert (config_dir / "commands" / "mem.md").is_file()
    assert setup_status().installed
    # Everything is there: nothing to install; Remove is the next thing to offer.
    assert not panel.install_button.isEnabled() and panel.remove_button.isEnabled()

    context.dialogs.answer = False  # type: ignore[attr-defined]
    click(qtbot, panel.remove_button, settle)
    assert context.dialogs.asked == [CONFIRM_TITLE]  # type: ignore[attr-defined]
    assert states(panel) == ["\u2713 Installed"] * 3  # declined: nothing removed

    context.dialogs.answer = True  # type: ignore[attr-defined]
    click(qtbot, panel.remove_button, settle)
    assert states(panel) == ["Not installed"] * 3
    assert not (config_dir / "commands" / "mem.md").exists()
    assert not any(p.installed for p in setup_status().parts)
    assert panel.install_button.isEnabled() and not panel.remove_button.isEnabled()


def test_an_outdated_part_is_shown_and_updated(
    qtbot: Any, view: SettingsView, config_dir: Path, settle: Settle
) -> None:
    panel = view.claude_code
    click(qtbot, panel.install_button, settle)
    command = config_dir / "commands" / "mem.md"
    command.write_text(command.read_text().replace("-m memory_app", "-m memory_app "))
    view.activate()
    settle()
    assert panel.states["command"].text().startswith("\u26a0 Outdated")
    click(qtbot, panel.install_button, settle)
    assert states(panel) == ["\u2713 Installed"] * 3


def test_an_invalid_settings_file_is_reported_and_left_alone(
    qtbot: Any, context: AppContext, config_dir: Path, settle: Settle
) -> None:
    config_dir.mkdir()
    settings = config_dir / "settings.json"
    settings.write_text('{"hooks": {"Stop": [}', encoding="utf-8")
    before = settings.read_bytes()
    view = SettingsView(context)
    qtbot.addWidget(view)
    view.activate()
    settle()
    panel = view.claude_code
    assert states(panel) == ["Unknown"] * 3
    assert "~/claude-config/settings.json is not valid JSON" in panel.message.text()

    click(qtbot, panel.install_button, settle)  # tried anyway: refused, nothing written
    assert "not valid JSON" in panel.message.text()
    assert "nothing was changed" in panel.message.text()
    assert settings.read_bytes() == before
    assert not (config_dir / "commands").exists() and not (config_dir / ".claude.json").exists()
    assert panel.install_button.isEnabled()  # to try again once the file is fixed

    settings.write_text("{}", encoding="utf-8")  # fixed: the page says so when shown again
    view.activate()
    settle()
    assert states(panel) == ["Not installed"] * 3 and panel.message.text() == ""
    click(qtbot, panel.install_button, settle)
    assert states(panel) == ["\u2713 Installed"] * 3


def test_the_section_is_reached_by_keyboard_in_page_order(view: SettingsView) -> None:
    panel = view.claude_code
    order = [view.ui.database]
    widget = view.ui.database.nextInFocusChain()
    while len(order) < 9 and widget is not view.ui.database:
        if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:  # what Tab stops at
            order.append(widget)
        widget = widget.nextInFocusChain()
    assert order[1:] == [
        panel.files["hooks"],
        panel.files["mcp"],
        panel.files["command"],
        panel.install_button,
        panel.remove_button,
        view.auto_import,  # Importing, after Claude Code
        view.local_api.serve,  # Local API, after Importing
        view.ui.extractorChoice,
    ]
    assert panel.install_button.text() == "&Install"  # Alt+I
    assert panel.remove_button.text() == "&Remove…"  # Alt+R
