"""Projects memory stays out of: paused (`/memory off`), denied by `memoryignore`
patterns or by a `.memoryignore` in the project. Nothing of their sessions is stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import Settings
from memory_app.privacy_gate import (
    IGNORE_FILE,
    PROJECT_IGNORE,
    paused_projects,
    set_paused,
    why_excluded,
)
from memory_app.service import MemoryService
from tests.helpers import conversation

RULE = ("Always use uv instead of pip for every install in this repository.", "Noted.")


def _session(project: Path, session: str = "s1") -> object:
    return conversation(RULE, session=session, project=str(project))


def test_a_paused_project_and_its_subfolders_are_not_remembered(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    app = tmp_path / "work" / "app"
    (app / "api").mkdir(parents=True)
    assert set_paused(settings.data_dir, str(app), True) == [str(app.resolve())]
    for folder, session in ((app, "a"), (app / "api", "b")):
        result = service.memorize(_session(folder, session))  # type: ignore[arg-type]
        assert result.status == "skipped" and "memory is off" in (result.reason or "")
    assert service.get_stats().resources == 0
    assert set_paused(settings.data_dir, str(app), False) == []
    assert service.memorize(_session(app, "c")).status == "success"  # type: ignore[arg-type]


def test_deny_patterns_and_a_project_file_keep_projects_out(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.data_dir / IGNORE_FILE).write_text(
        f"# client work stays out\n{tmp_path}/clients/*\n", encoding="utf-8"
    )
    client = tmp_path / "clients" / "acme" / "backend"
    client.mkdir(parents=True)
    own = tmp_path / "own"
    (own / "sub").mkdir(parents=True)
    (own / PROJECT_IGNORE).write_text("", encoding="utf-8")
    free = tmp_path / "free"
    free.mkdir()
    assert "matches" in (why_excluded(settings.data_dir, str(client)) or "")
    assert PROJECT_IGNORE in (why_excluded(settings.data_dir, str(own / "sub")) or "")
    assert why_excluded(settings.data_dir, str(free)) is None
    assert why_excluded(settings.data_dir, None) is None
    for n, folder in enumerate((client, own / "sub", free)):
        service.memorize(_session(folder, f"s{n}"))  # type: ignore[arg-type]
    assert [r.project for r in service.resources()] == [str(free)]


def test_a_damaged_pause_file_pauses_nothing(settings: Settings) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.data_dir / "memory-off.json").write_text("{not json", encoding="utf-8")
    assert paused_projects(settings.data_dir) == []
    assert set_paused(settings.data_dir, str(settings.data_dir), True)  # replaced whole


def test_memory_off_and_on_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    chat = tmp_path / "chat.jsonl"
    line = {
        "type": "user",
        "sessionId": "s-off",
        "cwd": str(project),
        "message": {"role": "user", "content": RULE[0]},
    }
    chat.write_text(json.dumps(line) + "\n", encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["off", "--project", str(project), *data]) == 0
    assert f"Memory is off for {project.resolve()}" in capsys.readouterr().out
    assert main(["import", str(chat), "--json", *data]) == 0
    (skipped,) = json.loads(capsys.readouterr().out)["skipped"]
    assert "memory is off" in skipped["reason"]
    assert main(["on", "--project", str(project), *data]) == 0
    assert main(["import", str(chat), "--json", *data]) == 0
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])["resources_added"] == 1


def test_the_readme_commands_pause_and_resume_the_current_folder(tmp_path: Path) -> None:
    """`memory-app off` and `memory-app on`, exactly as the README shows them."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    project = tmp_path / "app"
    project.mkdir()
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(tmp_path / "data")}
    for command, paused in (("memory-app off", [str(project.resolve())]), ("memory-app on", [])):
        assert f"\n{command}    #" in readme or f"\n{command}     #" in readme
        done = subprocess.run(
            [str(Path(sys.executable).with_name("memory-app")), command.split()[1]],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert paused_projects(tmp_path / "data") == paused
