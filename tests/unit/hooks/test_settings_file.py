"""`memory-app hooks install|uninstall|status`: our entries in Claude Code's settings.json,
beside other tools' ones, and the README's commands run exactly as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.hooks.command import EVENTS, MARKER, hook_command
from memory_app.hooks.settings_file import (
    BACKUP_SUFFIX,
    SettingsFileError,
    install,
    settings_path,
    status,
    uninstall,
)

ROOT = Path(__file__).resolve().parents[3]
MATCHERS = {"SessionStart": "startup|resume|clear|compact", "PreCompact": "auto|manual"}


@pytest.fixture
def other_tool(samples_dir: Path) -> bytes:
    """Another tool's hooks, in that file's own hand-made layout (inline objects)."""
    return (samples_dir / "claude-code-hooks" / "settings.json").read_bytes()


def ours(data: dict[str, Any], event: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(group, handler) pairs of this app's entries under `event`."""
    return [
        (g, h)
        for g in data.get("hooks", {}).get(event, [])
        for h in g["hooks"]
        if MARKER in h["command"]
    ]


def check_installed(data: dict[str, Any]) -> None:
    """Our entry for every event, running this interpreter (a console script may spell
    it `python3` where the tests run `python`: the same file)."""
    for event in EVENTS:
        [(group, handler)] = ours(data, event)
        python, *rest = shlex.split(handler["command"])
        assert Path(python).resolve() == Path(sys.executable).resolve()
        assert shlex.join(rest) == hook_command(event).split(" ", 1)[1]
        assert handler == {"type": "command", "command": handler["command"], "timeout": 10}
        assert group.get("matcher") == MATCHERS.get(event)
        assert set(group) == ({"matcher", "hooks"} if event in MATCHERS else {"hooks"})


def test_install_into_an_empty_folder_creates_the_file(tmp_path: Path) -> None:
    path = settings_path(tmp_path / "app")
    report = install(path, "project")
    assert path == tmp_path / "app" / ".claude" / "settings.json"
    assert report.changed and report.backup is None  # nothing to back up
    check_installed(json.loads(path.read_text()))
    assert path.read_text().startswith('{\n  "hooks": {\n    "SessionStart": [')
    assert not list(path.parent.glob("*" + BACKUP_SUFFIX))
    assert all(status(path).events[e] == hook_command(e) for e in EVENTS)


def test_beside_another_tool_twice_then_uninstall_is_byte_identical(
    tmp_path: Path, other_tool: bytes
) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(other_tool)
    before = json.loads(other_tool)

    first = install(path)
    after_first = path.read_bytes()
    assert first.changed and first.backup == path.with_name("settings.json" + BACKUP_SUFFIX)
    assert first.backup.read_bytes() == other_tool
    data = json.loads(after_first)
    check_installed(data)
    for event, groups in before["hooks"].items():  # theirs untouched, first, in order
        assert data["hooks"][event][: len(groups)] == groups
    assert list(data["hooks"]) == list(before["hooks"])  # Stop stays where it was

    second = install(path)
    assert not second.changed and path.read_bytes() == after_first  # idempotent

    removed = uninstall(path)
    assert removed.changed
    assert path.read_bytes() == other_tool
    assert not uninstall(path).changed and path.read_bytes() == other_tool


def test_other_settings_keys_stay_and_a_rewritten_file_still_uninstalls_exactly(
    tmp_path: Path, other_tool: bytes
) -> None:
    """Without a matching backup the writer re-indents, but the settings are the same."""
    path = tmp_path / "settings.json"
    original = {"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, **json.loads(other_tool)}
    original["hooks"]["UserPromptSubmit"][0]["hooks"].append({"type": "command", "command": "x"})
    path.write_text(json.dumps(original))
    install(path)
    path.with_name(path.name + BACKUP_SUFFIX).unlink()
    uninstall(path)
    assert json.loads(path.read_text()) == original
    assert path.read_text().startswith('{\n  "model": "opus",')


def test_an_outdated_command_of_ours_is_replaced_in_place(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    old = "/old/python -m memory_app.hooks UserPromptSubmit"
    theirs = {"type": "command", "command": "their-tool"}
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": old}, theirs]}]
                }
            }
        )
    )
    assert status(path).to_json()["events"]["UserPromptSubmit"]["current"] is False
    install(path)
    data = json.loads(path.read_text())
    handlers = data["hooks"]["UserPromptSubmit"][0]["hooks"]
    assert handlers == [
        {"type": "command", "command": hook_command("UserPromptSubmit"), "timeout": 10},
        theirs,
    ]
    assert len(data["hooks"]["UserPromptSubmit"]) == 1
    uninstall(path)
    assert json.loads(path.read_text()) == {"hooks": {"UserPromptSubmit": [{"hooks": [theirs]}]}}


def test_uninstall_keeps_another_tools_group_even_an_empty_one(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    theirs: dict[str, Any] = {"hooks": {"SessionEnd": [{"hooks": []}], "Stop": []}}
    path.write_text(json.dumps(theirs))
    install(path)
    uninstall(path)
    assert json.loads(path.read_text()) == theirs


@pytest.mark.parametrize("content", ["{not json", '["a list"]', '{"hooks": []}'])
def test_a_file_that_is_not_settings_json_is_refused_and_unchanged(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    for action in (install, uninstall, status):
        with pytest.raises(SettingsFileError, match="nothing was changed"):
            action(path)
    assert main(["hooks", "install", "--project", str(tmp_path / "app")]) == 1
    assert "memory-app: error:" in capsys.readouterr().err
    assert path.read_text() == content
    assert os.listdir(path.parent) == ["settings.json"]  # no backup, no temp file


def test_user_scope_honours_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert settings_path() == Path.home() / ".claude" / "settings.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert settings_path() == tmp_path / "cfg" / "settings.json"
    assert main(["hooks", "install", "--user"]) == 0
    check_installed(json.loads((tmp_path / "cfg" / "settings.json").read_text()))
    assert not (Path.home() / ".claude").exists()
    assert settings_path(tmp_path / "p") == tmp_path / "p" / ".claude" / "settings.json"


def test_project_and_user_scopes_are_separate_and_status_reports_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = tmp_path / "app"
    project.mkdir()
    assert main(["hooks", "install", "--project", str(project)]) == 0
    capsys.readouterr()
    assert not (Path.home() / ".claude").exists()

    assert main(["hooks", "status", "--json"]) == 0
    user = json.loads(capsys.readouterr().out)
    assert user["scope"] == "user" and user["installed"] is False and user["exists"] is False
    assert user["path"] == str(Path.home() / ".claude" / "settings.json")
    assert main(["hooks", "status", "--project", str(project), "--json"]) == 0
    proj = json.loads(capsys.readouterr().out)
    assert proj["scope"] == "project" and proj["installed"] is True
    assert proj["path"] == str(project / ".claude" / "settings.json")
    assert proj["events"]["PreCompact"] == {
        "installed": True,
        "command": hook_command("PreCompact"),
        "current": True,
    }

    assert main(["hooks", "status", "--project", str(project)]) == 0
    text = capsys.readouterr().out
    assert f"(project scope): {project / '.claude' / 'settings.json'}" in text
    for event in EVENTS:
        assert re.search(rf"^  {event} +installed$", text, re.M)


def test_a_missing_project_folder_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hooks", "install", "--project", "no/such/folder"]) == 1
    assert "no such project folder" in capsys.readouterr().err
    assert not Path("no").exists()


def readme_hook_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Claude Code hooks", 1)[1].split("\n### ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_commands_as_written(tmp_path: Path, other_tool: bytes) -> None:
    """Each line of the README's block through a shell, HOME in a temp folder; the
    project already holds another tool's hooks and gets them back byte for byte."""
    commands = readme_hook_commands()
    assert commands == [
        "memory-app hooks install",
        "memory-app hooks status",
        "memory-app hooks install --project ~/code/app",
        "memory-app hooks uninstall --project ~/code/app",
        "memory-app hooks uninstall",
    ]
    home = tmp_path / "home"
    project_settings = home / "code" / "app" / ".claude" / "settings.json"
    project_settings.parent.mkdir(parents=True)
    project_settings.write_bytes(other_tool)
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    user_settings = home / ".claude" / "settings.json"

    def run(command: str) -> str:
        done = subprocess.run(
            command, shell=True, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    run(commands[0])
    check_installed(json.loads(user_settings.read_text()))
    out = run(commands[1])
    assert f"(user scope): {user_settings}" in out and "not installed" not in out
    run(commands[2])
    check_installed(json.loads(project_settings.read_text()))
    run(commands[3])
    assert project_settings.read_bytes() == other_tool
    run(commands[4])
    assert json.loads(user_settings.read_text()) == {}
    assert not resolve_settings().data_dir.exists()  # the store was never opened


def test_the_module_does_not_load_the_store() -> None:
    code = "import sys, memory_app.hooks.settings_file; print(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout
    assert "sqlmodel" not in loaded and "sqlalchemy" not in loaded and "PySide6" not in loaded
