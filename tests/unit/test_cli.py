"""The `memory-app` command: every subcommand, text and --json output, and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_app.cli import main

CHAT = (
    "User: Let's settle the style question for this repo.\n\n"
    "Assistant: Sure, what do you prefer?\n\n"
    "User: We always use async/await, never .then() chains.\n\n"
    "Assistant: Got it, async/await everywhere.\n"
)


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> object:
    code, out, _ = run(capsys, data, *args, "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.fixture
def chat_file(tmp_path: Path) -> Path:
    path = tmp_path / "style.md"
    path.write_text(CHAT)
    return path


def test_import_search_list_show_stats(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, chat_file: Path, samples_dir: Path
) -> None:
    data = tmp_path / "data"
    report = run_json(capsys, data, "import", str(chat_file), str(samples_dir / "claude-code"))
    assert isinstance(report, dict)
    assert report["files"] == 6
    assert report["resources_added"] >= 5
    assert report["items_added"] >= 1
    assert {"skipped", "duplicates_reinforced", "errors", "problems"} <= report.keys()

    found = run_json(capsys, data, "search", "async await", "--limit", "5")
    assert isinstance(found, list) and found
    assert {"id", "category", "content", "confidence", "status"} <= found[0].keys()
    assert "async/await" in found[0]["content"]
    assert found[0]["category"] == "coding_preferences"

    listed = run_json(capsys, data, "list", "--category", "coding_preferences")
    assert isinstance(listed, list)
    assert found[0]["id"] in [item["id"] for item in listed]

    shown = run_json(capsys, data, "show", str(found[0]["id"]))
    assert isinstance(shown, dict)
    assert shown["history"][0]["action"] == "create"

    stats = run_json(capsys, data, "stats")
    assert isinstance(stats, dict)
    assert {"items", "resources", "categories", "conflicts_open"} <= stats.keys()
    assert stats["categories"] == 5 and stats["conflicts_open"] == 0

    cats = run_json(capsys, data, "categories")
    assert isinstance(cats, list) and len(cats) == 5

    code, text, _ = run(capsys, data, "stats")
    assert code == 0 and "Conversations:" in text


def test_edit_forget_restore_undo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, chat_file: Path
) -> None:
    data = tmp_path / "data"
    run_json(capsys, data, "import", str(chat_file))
    (item,) = run_json(capsys, data, "list")  # type: ignore[misc]
    ident = str(item["id"])
    edited = run_json(
        capsys, data, "edit", ident, "--confidence", "0.8", "--pin", "--tags", "ts,async"
    )
    assert isinstance(edited, dict)
    assert edited["confidence"] == 0.8 and edited["pinned"] and edited["tags"] == ["async", "ts"]
    code, _, err = run(capsys, data, "edit", ident, "--confidence", "7")
    assert code == 1 and "confidence must be a number between 0 and 1" in err
    run_json(capsys, data, "forget", ident)
    assert run_json(capsys, data, "list") == []
    assert len(run_json(capsys, data, "list", "--status", "deleted")) == 1  # type: ignore[arg-type]
    run_json(capsys, data, "restore", ident)
    assert len(run_json(capsys, data, "list")) == 1  # type: ignore[arg-type]
    run_json(capsys, data, "forget", ident)
    undone = run_json(capsys, data, "undo")
    assert undone == {"undone": [item["id"]]}


def test_errors_are_clear_and_exit_nonzero(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code, _, err = run(capsys, data, "show", "42")
    assert code == 1 and err.strip() == "memory-app: error: no memory with id 42"
    code, out, _ = run(capsys, data, "show", "42", "--json")
    assert code == 1 and json.loads(out) == {"error": "no memory with id 42"}
    code, _, err = run(capsys, data, "import", str(tmp_path / "missing.jsonl"))
    assert code == 1 and "missing.jsonl" in err
    code, _, err = run(capsys, data, "search", "***")
    assert code == 1 and "type at least one word" in err
    code, _, err = run(capsys, data, "list", "--category", "nope")
    assert code == 1 and "unknown category 'nope'" in err
    code, _, err = run(capsys, data, "edit", "1")
    assert code == 1 and "nothing to change" in err


def test_a_newer_database_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import sqlite3

    data = tmp_path / "data"
    run_json(capsys, data, "stats")
    with sqlite3.connect(data / "memory.db") as conn:
        conn.execute("PRAGMA user_version = 50")
    code, _, err = run(capsys, data, "stats")
    assert code == 1 and "schema version 50" in err


def test_data_dir_from_the_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "env-data"))
    assert main(["stats", "--json"]) == 0
    capsys.readouterr()
    assert (tmp_path / "env-data" / "memory.db").exists()


def test_module_and_console_script_entry_points(tmp_path: Path) -> None:
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(tmp_path / "d")}
    module = subprocess.run(
        [sys.executable, "-m", "memory_app", "stats", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(module.stdout)["items"] == 0
    script = Path(sys.executable).with_name("memory-app")
    version = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("memory-app ")
