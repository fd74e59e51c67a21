"""`memory-app slash ACTION [ARGS]`, what `/mem` runs in Claude Code: through the real
CLI entry against a store in tmp_path, the project being the current folder; and the
README's `/mem` lines run through the command file's own line."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import Settings
from memory_app.hooks import injections, slash_command
from memory_app.privacy_gate import paused_projects
from memory_app.service import MemoryService

ROOT = Path(__file__).resolve().parents[3]
OURS = [
    "Retries in the importer use exponential backoff, at most five attempts",
    "The project formats Python with ruff format, line length 100",
    "Database migrations are written by hand and reviewed before release",
]
ELSEWHERE = "The other project deploys with a shell script on Fridays"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Path:
    """The current folder, with the test's store as the one the CLI opens."""
    folder = (tmp_path / "app").resolve()
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(settings.data_dir))
    return folder


@pytest.fixture
def ids(project: Path, settings: Settings, tmp_path: Path) -> Iterator[list[int]]:
    """Memories of the project (in OURS order), and one of another project."""
    service = MemoryService.open(settings)
    try:
        found = [service.remember(text, project=str(project))[1].id for text in OURS]
        other = tmp_path / "other"
        other.mkdir()
        service.remember(ELSEWHERE, project=str(other.resolve()))
    finally:
        service.close()
    yield found


def slash(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["slash", *args])
    out, err = capsys.readouterr()
    return code, out, err


def stored(settings: Settings, item_id: int) -> tuple[str, bool]:
    service = MemoryService.open(settings)
    try:
        item = service.get_item(item_id)
        return item.status, item.pinned
    finally:
        service.close()


def test_list_shows_the_projects_memories_with_ids(
    ids: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = slash(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Top memories of app:"
    assert sorted(lines[1:]) == sorted(
        f"- #{i} [implementation_notes] {text}" for i, text in zip(ids, OURS, strict=True)
    )
    assert ELSEWHERE not in out  # another project's memory


def test_list_with_a_query_shows_the_matching_ones(
    ids: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = slash(capsys, "list", "importer", "retries")
    assert code == 0
    assert out.splitlines() == [
        "Memories of app matching 'importer retries':",
        f"- #{ids[0]} [implementation_notes] {OURS[0]}",
    ]
    code, out, _ = slash(capsys, "list", "kubernetes")
    assert (code, out) == (0, "No memory of app matches 'kubernetes'.\n")


def test_pin_and_forget_change_the_store_and_say_what(
    ids: list[int], settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = slash(capsys, "pin", str(ids[1]))
    assert code == 0
    assert out == (
        f"Pinned #{ids[1]} [implementation_notes] {OURS[1]} 📌\n(always in context now)\n"
    )
    assert stored(settings, ids[1]) == ("active", True)

    code, out, _ = slash(capsys, "forget", f"#{ids[2]}")  # as `list` shows ids
    assert code == 0
    assert out == (
        f"Forgot #{ids[2]} [implementation_notes] {OURS[2]}\n(undo: memory-app restore {ids[2]})\n"
    )
    assert stored(settings, ids[2]) == ("deleted", False)
    _, out, _ = slash(capsys, "list")
    assert OURS[2] not in out and f"{OURS[1]} 📌" in out


def test_off_and_on_pause_the_current_folder(
    project: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = slash(capsys, "off")
    assert code == 0 and out.startswith(f"Memory is off for {project}.")
    assert paused_projects(settings.data_dir) == [str(project)]
    code, out, _ = slash(capsys, "on")
    assert (code, out) == (0, f"Memory is on for {project}.\n")
    assert paused_projects(settings.data_dir) == []
    assert not (settings.data_dir / "memory.db").exists()  # no store needed for either


def test_no_action_shows_the_usage(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = slash(capsys)
    assert code == 0 and out.startswith("Usage: /mem list [QUERY] | /mem pin ID")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["frobnicate"], 2, "unknown action 'frobnicate'. Usage: /mem list [QUERY]"),
        (["pin"], 2, "pin takes one memory id, such as: /mem pin 12"),
        (["forget", "twelve"], 2, "forget takes one memory id, such as: /mem forget 12"),
        (["pin", "1", "2"], 2, "pin takes one memory id"),
        (["off", "now"], 2, "off takes no arguments"),
        (["forget", "999999"], 1, "no memory with id 999999"),
        (["pin", "999999"], 1, "no memory with id 999999"),
    ],
)
def test_bad_usage_and_unknown_ids_are_one_line_without_a_traceback(
    ids: list[int], settings: Settings, args: list[str], code: int, message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memory_app", "slash", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MEMORY_APP_DATA_DIR": str(settings.data_dir)},
    )
    assert done.returncode == code
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"memory-app: error: {message}")
    assert stored(settings, ids[0]) == ("active", False)  # nothing changed


def readme_mem_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = "/mem " + readme.split("```text\n/mem ", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_mem_lines_through_the_command_file(
    tmp_path: Path, project: Path, settings: Settings
) -> None:
    """Each `/mem ...` line of the README, `$ARGUMENTS` filled in as Claude Code does,
    through a shell in the project folder with the command file's own line; the store
    holds memory 12, as the README's lines assume."""
    lines = readme_mem_lines()
    assert lines == [
        "/mem list",
        "/mem list retries",
        "/mem pin 12",
        "/mem forget 12",
        "/mem off",
        "/mem on",
        "/mem why",
    ]
    service = MemoryService.open(settings)
    try:
        for n in range(1, 13):
            service.remember(f"Fact number {n}: retries use backoff step {n}", project=str(project))
    finally:
        service.close()
    path = slash_command.install(tmp_path / "mem.md").path
    template = next(x for x in path.read_text().splitlines() if x.startswith("!`"))[2:-1]
    outputs = {}
    for line in lines:
        done = subprocess.run(
            template.replace("$ARGUMENTS", line.removeprefix("/mem").strip()),
            shell=True,
            cwd=project,
            env={**os.environ, "MEMORY_APP_DATA_DIR": str(settings.data_dir)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (line, done.stderr)
        outputs[line] = done.stdout
    assert outputs["/mem list"].startswith("Top memories of app:")
    assert "Fact number" in outputs["/mem list retries"]
    assert outputs["/mem pin 12"].startswith("Pinned #12 ")
    assert outputs["/mem forget 12"].startswith("Forgot #12 ")
    assert stored(settings, 12) == ("deleted", True)
    assert outputs["/mem off"].startswith("Memory is off for")
    assert paused_projects(settings.data_dir) == []  # /mem on came after
    assert outputs["/mem why"].strip()


def test_why_shows_what_the_last_prompt_got_with_scores(
    ids: list[int], project: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = slash(capsys, "why")
    assert code == 0 and out.startswith("No prompt of this project has reached the memory hook")
    env = {"MEMORY_APP_DATA_DIR": str(settings.data_dir)}
    payload = {"session_id": "s1", "cwd": str(project), "transcript_path": "/t.jsonl"}
    memories = [(ids[0], 0.8765), (ids[1], 0.5)]
    line = injections.entry(
        "UserPromptSubmit", payload, datetime.now(UTC), injections.INJECTED, memories
    )
    injections.record(env, line)
    code, out, _ = slash(capsys, "why")
    assert code == 0
    assert "2 memories were injected" in out
    assert f"#{ids[0]}  score 0.88  {OURS[0]}" in out
    assert f"#{ids[1]}  score 0.50  {OURS[1]}" in out
