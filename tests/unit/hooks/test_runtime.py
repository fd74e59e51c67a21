"""The hook runtime, run as Claude Code runs it: a process, stdin JSON in, stdout JSON out.

The payloads are the samples in tests/fixtures/samples/claude-code-hooks (constructed
from the official hooks reference, see tests/fixtures/samples/SOURCES.md); the store is
built by the app itself (MemoryService) in tmp_path.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.extract.base import ExtractedItem
from memory_app.hooks import locations, recall
from memory_app.logs import LOG_FILE, log_folder
from memory_app.privacy_gate import set_paused
from memory_app.service import MemoryService
from memory_app.store import conflicts
from tests.helpers import ScriptedExtractor, conversation

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "tests" / "fixtures" / "samples" / "claude-code-hooks"
PROJECT = "/home/user/my-project"  # the samples' cwd
OTHER = "/home/user/other-project"
HEAVY = ("sqlalchemy", "sqlmodel", "pydantic", "anthropic", "PySide6", "numpy", "platformdirs")


def payload(event: str, **changes: Any) -> bytes:
    data = json.loads((SAMPLES / f"stdin_{event}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return json.dumps(data).encode()


def run_hook(
    event: str, stdin: bytes, env: dict[str, str], *flags: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *flags, "-m", "memory_app.hooks", event],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def context_of(result: subprocess.CompletedProcess[bytes], event: str) -> str:
    assert result.returncode == 0
    assert result.stderr == b""
    answer = json.loads(result.stdout)
    assert answer == {"hookSpecificOutput": {"hookEventName": event, "additionalContext": ANY}}
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


class _Any:
    def __eq__(self, other: object) -> bool:
        return True


ANY = _Any()


def hook_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_APP_")}
    env["MEMORY_APP_DATA_DIR"] = str(data)
    env["MEMORY_APP_HOOK_WORKER"] = "0"  # queue only; the worker has its own tests
    env.update(extra)
    return env


def log_lines(data: Path) -> list[str]:
    path = data / "logs" / LOG_FILE
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    """A store built by the app: memories of this project and another, one pinned, one
    global, one conflict."""
    folder = tmp_path / "data"
    extractor = ScriptedExtractor(
        [
            ExtractedItem(
                "coding_preferences",
                "Compute a factorial iteratively with math.prod, never recursively",
                0.9,
            ),
            ExtractedItem("project_conventions", "Tests use pytest; run `pytest -q`", 0.9),
            ExtractedItem("architectural_decisions", "Number parsing lives in numparse.py", 0.8),
            ExtractedItem("implementation_notes", "Migrations run when the app starts", 0.8),
            ExtractedItem("coding_preferences", "Indent Python with tabs", 0.9),
            ExtractedItem("coding_preferences", "Indent Python with four spaces", 0.9),
        ]
    )
    service = MemoryService.open(resolve_settings(folder), extractor)
    try:
        first = service.memorize(
            conversation(
                ("How should the factorial helper and the tests look here?", "Like this: ..."),
                project=PROJECT,
            )
        )
        extractor.items = [
            ExtractedItem("coding_preferences", "Factorial code in this repo uses recursion", 0.9),
            ExtractedItem("coding_preferences", "Every function name is in French", 0.9),
        ]
        service.memorize(
            conversation(
                ("How is the factorial written in the other project?", "Recursively."),
                project=OTHER,
                session="s2",
            )
        )
        ids = {m.content: m.id for m in service.list_items(limit=100)}
        service.set_pinned(ids["Number parsing lives in numparse.py"], True)
        service.edit_item(ids["Every function name is in French"], scope="global")
        if not first.conflicts_found:  # the rules detector finds this pair today
            with service.db.writing() as session:
                conflicts.create_conflict(
                    session,
                    "coding_preferences",
                    [ids["Indent Python with tabs"], ids["Indent Python with four spaces"]],
                    reason="tabs or spaces",
                    detector="test",
                )
    finally:
        service.close()
    yield folder


def test_user_prompt_submit_injects_the_relevant_memories_of_the_project(data: Path) -> None:
    env = hook_env(data)
    result = run_hook("UserPromptSubmit", payload("UserPromptSubmit"), env)
    text = context_of(result, "UserPromptSubmit")
    # The sample prompt: "Write a function to calculate the factorial of a number".
    assert "Compute a factorial iteratively" in text
    assert "Every function name is in French" in text  # global scope reaches every project
    assert "recursion" not in text  # another project's memory
    assert "Migrations" not in text  # not relevant to the prompt
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- Number parsing lives in numparse.py")  # pinned first
    assert text.startswith(recall.OPEN) and text.endswith(recall.CLOSE)
    assert estimate_tokens(text) <= 800
    assert log_lines(data) == []


def test_the_context_stays_within_the_budget(data: Path) -> None:
    stdin = payload("UserPromptSubmit")
    full = context_of(run_hook("UserPromptSubmit", stdin, hook_env(data)), "UserPromptSubmit")
    shorter = 0
    for budget in (30, 45, 60):
        stdin = payload("UserPromptSubmit", session_id=f"budget-{budget}")  # no topic reuse
        env = hook_env(data, MEMORY_APP_HOOK_BUDGET=str(budget))
        result = run_hook("UserPromptSubmit", stdin, env)
        if result.stdout:
            text = context_of(result, "UserPromptSubmit")
            assert estimate_tokens(text) <= budget
            assert len(text.splitlines()) < len(full.splitlines())
            shorter += 1
    assert shorter >= 2  # the budget cut memories, it did not only silence the hook


def test_a_budget_too_small_for_one_memory_answers_nothing(data: Path) -> None:
    result = run_hook(
        "UserPromptSubmit", payload("UserPromptSubmit"), hook_env(data, MEMORY_APP_HOOK_BUDGET="5")
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("prompt", ["ok", "Thanks!", "continue", "yes", "?!...", "hm", "do it now"])
def test_trivial_prompts_get_no_recall(data: Path, prompt: str) -> None:
    result = run_hook(
        "UserPromptSubmit", payload("UserPromptSubmit", prompt=prompt), hook_env(data)
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert log_lines(data) == []  # a gate is not a failure


def test_a_prompt_nothing_matches_gets_nothing(data: Path) -> None:
    stdin = payload("UserPromptSubmit", prompt="Explain kubernetes ingress annotations")
    result = run_hook("UserPromptSubmit", stdin, hook_env(data))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_session_start_injects_conflicts_pinned_and_conventions(data: Path) -> None:
    result = run_hook("SessionStart", payload("SessionStart"), hook_env(data))
    text = context_of(result, "SessionStart")
    assert "Unresolved memory conflicts (1)" in text
    pair = next(line for line in text.splitlines() if " vs " in line)
    assert '"Indent Python with tabs"' in pair and '"Indent Python with four spaces"' in pair
    assert "Pinned memories:\n- Number parsing lives in numparse.py" in text
    assert "Project conventions:\n- Tests use pytest; run `pytest -q`" in text
    assert text.index("conflicts") < text.index("Pinned") < text.index("conventions:")
    assert "factorial" not in text.lower()  # standing context, not prompt recall


def test_session_start_of_another_project_has_no_conflicts_of_this_one(data: Path) -> None:
    result = run_hook("SessionStart", payload("SessionStart", cwd=OTHER), hook_env(data))
    assert result.stdout == b""  # nothing pinned, no conventions, no conflicts there


def test_session_start_fills_a_small_budget_in_priority_order(data: Path) -> None:
    env = hook_env(data, MEMORY_APP_HOOK_BUDGET="80")
    text = context_of(run_hook("SessionStart", payload("SessionStart"), env), "SessionStart")
    assert estimate_tokens(text) <= 80
    assert "Unresolved memory conflicts (1)" in text and "Pinned memories:" in text
    assert "Project conventions" not in text
    # Too small for the conflict: the shorter sections after it still get their place.
    env = hook_env(data, MEMORY_APP_HOOK_BUDGET="50")
    text = context_of(run_hook("SessionStart", payload("SessionStart"), env), "SessionStart")
    assert estimate_tokens(text) <= 50
    assert "conflicts" not in text and "Project conventions:" in text


@pytest.mark.parametrize("event", ["SessionEnd", "PreCompact"])
def test_capture_events_queue_the_transcript_and_print_nothing(data: Path, event: str) -> None:
    env = hook_env(data)
    for _ in range(2):
        result = run_hook(event, payload(event), env)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    queue = data / "hook-queue.jsonl"
    assert stat.S_IMODE(queue.stat().st_mode) == 0o600
    entries = [json.loads(line) for line in queue.read_text(encoding="utf-8").splitlines()]
    sample = json.loads(payload(event))
    assert len(entries) == 2
    for entry in entries:
        assert entry["event"] == event
        assert entry["transcript_path"] == sample["transcript_path"]
        assert entry["session_id"] == sample["session_id"]
        assert entry["cwd"] == sample["cwd"]
        assert entry["queued_at"].endswith("+00:00")


def test_the_hook_never_writes_to_the_store(data: Path) -> None:
    db = data / "memory.db"
    before = db.read_bytes()
    run_hook("UserPromptSubmit", payload("UserPromptSubmit"), hook_env(data))
    run_hook("SessionStart", payload("SessionStart"), hook_env(data))
    assert db.read_bytes() == before


def assert_failed_open(result: subprocess.CompletedProcess[bytes], data: Path, why: str) -> None:
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    lines = log_lines(data)
    assert len(lines) == 1, lines
    assert "WARNING memory_app.hooks" in lines[0] and "answered nothing" in lines[0]
    assert why in lines[0]


def test_fails_open_when_there_is_no_store(tmp_path: Path) -> None:
    for event in ("UserPromptSubmit", "SessionStart"):
        folder = tmp_path / event
        result = run_hook(event, payload(event), hook_env(folder))
        assert_failed_open(result, folder, "no store yet")


def test_fails_open_when_a_writer_holds_the_store(data: Path) -> None:
    writer = sqlite3.connect(data / "memory.db", isolation_level=None)
    try:
        writer.execute("PRAGMA locking_mode = EXCLUSIVE")
        writer.execute("BEGIN EXCLUSIVE")
        result = run_hook("UserPromptSubmit", payload("UserPromptSubmit"), hook_env(data))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert_failed_open(result, data, "locked")


def test_fails_open_on_a_damaged_store(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "memory.db").write_bytes(b"not a database at all" * 100)
    result = run_hook("SessionStart", payload("SessionStart"), hook_env(folder))
    assert_failed_open(result, folder, "DatabaseError")


@pytest.mark.parametrize("stdin", [b"{not json", b"", b"[1, 2]", b'{"cwd": 3}'])
def test_fails_open_on_malformed_stdin(data: Path, stdin: bytes) -> None:
    result = run_hook("UserPromptSubmit", stdin, hook_env(data))
    assert_failed_open(result, data, "answered nothing")


def test_fails_open_on_an_unknown_event(data: Path) -> None:
    result = run_hook("Stop", (SAMPLES / "stdin_Stop.json").read_bytes(), hook_env(data))
    assert_failed_open(result, data, "unknown event 'Stop'")


def test_a_capture_without_transcript_fails_open(data: Path) -> None:
    result = run_hook("SessionEnd", b'{"session_id": "x"}', hook_env(data))
    assert_failed_open(result, data, "no transcript_path")
    assert not (data / "hook-queue.jsonl").exists()


def test_the_fast_path_imports_nothing_heavy(data: Path) -> None:
    result = run_hook(
        "UserPromptSubmit", payload("UserPromptSubmit"), hook_env(data), "-X", "importtime"
    )
    assert result.returncode == 0 and result.stdout  # the whole recall path ran
    imported = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in result.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "sqlite3" in imported and "memory_app" in imported
    assert not imported & set(HEAVY), imported & set(HEAVY)


@pytest.mark.parametrize(
    "env",
    [
        {"MEMORY_APP_DATA_DIR": "~/somewhere/data"},
        {"XDG_DATA_HOME": "/srv/xdg-data", "XDG_STATE_HOME": "/srv/xdg-state"},
        {"XDG_DATA_HOME": "  ", "XDG_STATE_HOME": ""},
        {},
        {"MEMORY_APP_DB_URL": "sqlite:////srv/a%20b/m.db?timeout=3"},
    ],
)
def test_the_hook_finds_the_store_and_log_the_app_uses(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("MEMORY_APP_DATA_DIR", "MEMORY_APP_DB_URL", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = resolve_settings()
    from sqlalchemy.engine import make_url

    assert locations.data_dir(os.environ) == str(settings.data_dir)
    assert locations.store_path(os.environ) == make_url(settings.db_url).database
    assert locations.log_file(os.environ) == str(log_folder() / LOG_FILE)
    store = Path(str(make_url(settings.db_url).database))
    assert locations.queue_file(os.environ) == str(store.parent / "hook-queue.jsonl")


def test_the_hook_uses_the_app_folder_name() -> None:
    """One folder name for data, settings and log: the hook's copy of it agrees."""
    from memory_app import config, logs

    assert locations.APP_FOLDER == config.APP_FOLDER == logs.LOG_APP == locations.LOG_APP


def test_a_store_url_that_is_not_sqlite_fails_open(tmp_path: Path) -> None:
    env = hook_env(tmp_path, MEMORY_APP_DB_URL="postgresql://db/memory")
    result = run_hook("SessionStart", payload("SessionStart"), env)
    assert_failed_open(result, tmp_path, "NotASQLiteStore")


def test_pack_counts_every_character_and_drops_empty_sections() -> None:
    sections = [("Heading A:", ["- one", "- two"]), ("Heading B:", []), ("Heading C:", ["- x"])]
    full = recall.pack(sections, 1000)
    assert full == "\n".join(
        [recall.OPEN, "Heading A:", "- one", "- two", "Heading C:", "- x", recall.CLOSE]
    )
    for budget in range(1, 30):
        text = recall.pack(sections, budget)
        assert text is None or estimate_tokens(text) <= budget
    assert recall.pack(sections, 1) is None


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "SessionEnd"])
def test_a_paused_project_gets_no_recall_and_no_capture(data: Path, event: str) -> None:
    """`memory-app off` (/memory off) in the sample's project: the hook says nothing and
    queues nothing until `memory-app on`."""
    env = hook_env(data)
    set_paused(data, PROJECT, True)
    result = run_hook(event, payload(event), env)
    assert (result.returncode, result.stdout) == (0, b"")
    assert not (data / "hook-queue.jsonl").exists()
    assert log_lines(data) == []  # a choice, not a failure
    set_paused(data, PROJECT, False)
    result = run_hook(event, payload(event), env)
    assert result.returncode == 0
    assert result.stdout or (data / "hook-queue.jsonl").exists()
