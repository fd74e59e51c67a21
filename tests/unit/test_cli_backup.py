"""`memory-app backup` and `memory-app restore PATH`, run as a person runs them: a backup
taken in the middle of a running import (another process) is whole and restores into
another data folder, where `list --json` shows what it held; a restore refuses a store
that another program has open; `maintenance run` takes the daily backup."""

from __future__ import annotations

import json
import os
import random
import shlex
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.store.backup import daily_backups

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
    "november oscar papa quebec romeo sierra tango uniform victor whiskey xray"
).split()
CONVERSATIONS = 60  # some 10 s of importing: the backup lands in the middle


def cli(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`memory-app ARGS` in a process of its own (the environment is the test's)."""
    return subprocess.run(
        [sys.executable, "-m", "memory_app", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    """A hang guard, not a time limit on the code."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what}")
        time.sleep(0.05)


def query(db: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def count(db: Path, table: str) -> int:
    try:
        return int(query(db, f"SELECT count(*) FROM {table}")[0][0])
    except sqlite3.Error:  # not made yet
        return 0


def write_conversations(folder: Path, number: int) -> None:
    folder.mkdir()
    chosen = random.Random(18)
    for i in range(number):
        a, b, c, d = chosen.sample(WORDS, 4)
        (folder / f"session-{i:03d}.md").write_text(
            f"## User\n\nWe use the {a}-{i} library for {b} parsing in project {c}{i}, "
            f"never {d}.\n\n## Assistant\n\nUnderstood.\n\n"
            f"## User\n\nI prefer {b} tabs for {a} files number {i}.\n\n## Assistant\n\nNoted.\n",
            encoding="utf-8",
        )


def test_a_backup_taken_during_an_import_is_whole_and_restores_elsewhere(
    tmp_path: Path,
) -> None:
    conversations = tmp_path / "conversations"
    write_conversations(conversations, CONVERSATIONS)
    data, db = tmp_path / "data", tmp_path / "data" / "memory.db"
    importer = subprocess.Popen(
        [sys.executable, "-m", "memory_app", "--data-dir", str(data), "import", str(conversations)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: count(db, "resource") >= 3, "the import to begin")
        taken = cli("--data-dir", data, "backup", tmp_path / "mid-import.bak", "--json")
        assert taken.returncode == 0, taken.stderr
        _, stderr = importer.communicate(timeout=600)
    finally:
        if importer.poll() is None:
            importer.kill()
    assert importer.returncode == 0, stderr  # the backup did not disturb the import

    made = json.loads(taken.stdout)
    backup = Path(made["path"])
    assert made["integrity"] == "ok" and made["size"] == backup.stat().st_size
    # Whole: SQLite's full check, and one snapshot (no memory without its conversation).
    assert query(backup, "PRAGMA integrity_check") == [("ok",)]
    assert query(backup, "PRAGMA foreign_key_check") == []
    held = count(backup, "resource")
    assert 3 <= held < CONVERSATIONS == count(db, "resource")  # taken in the middle
    assert made["conversations"] == held

    # Restored into another data folder (another machine), it opens and lists its memories.
    other = tmp_path / "another-machine" / "data"
    restored = cli("--data-dir", other, "restore", backup, "--json")
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["kept"] is None
    listed = cli("--data-dir", other, "list", "--json", "--limit", "1000")
    assert listed.returncode == 0, listed.stderr
    shown = sorted((m["id"], m["content"]) for m in json.loads(listed.stdout))
    expected = query(backup, "SELECT id, content FROM memory_item WHERE status = 'active'")
    assert shown == sorted(expected) and len(shown) >= held
    assert str(data).encode() not in backup.read_bytes()  # no path of the first machine


def test_a_restore_waits_for_the_program_that_has_the_store_open(tmp_path: Path) -> None:
    """`memory-app mcp` (what Claude Code starts) holds the store like the window does."""
    data = tmp_path / "data"
    (tmp_path / "chat.md").write_text(
        "## User\n\nWe use pytest for every test in this repository, never unittest.\n\n"
        "## Assistant\n\nUnderstood.\n",
        encoding="utf-8",
    )
    assert cli("--data-dir", data, "import", tmp_path / "chat.md").returncode == 0
    assert cli("--data-dir", data, "backup", tmp_path / "copy.bak").returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "memory_app", "--data-dir", str(data), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: (data / "memory.db-shm").exists(), "the server to open the store")
        refused = cli("--data-dir", data, "restore", tmp_path / "copy.bak", "--json")
        assert refused.returncode == 1
        error = json.loads(refused.stdout)["error"]
        assert "is open in another program" in error and "nothing was changed" in error
        assert not (data / "backups").exists()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)
    done = cli("--data-dir", data, "restore", tmp_path / "copy.bak")
    assert done.returncode == 0, done.stderr
    assert "The previous store is kept as" in done.stdout


def test_backup_and_restore_say_what_they_did(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code, out, err = run(capsys, "--data-dir", data, "backup")
    assert code == 1 and "There is no store at" in err and "nothing to back up" in err
    assert run(capsys, "--data-dir", data, "stats")[0] == 0  # makes the (empty) store
    code, out, _ = run(capsys, "--data-dir", data, "backup")
    assert code == 0 and "Backed up" in out and "integrity check: ok" in out
    (made,) = (data / "backups").glob("memory.*.bak")
    assert str(made) in out
    code, out, _ = run(capsys, "--data-dir", data, "backup", tmp_path / "copy.db", "--json")
    assert code == 0 and json.loads(out)["path"] == str(tmp_path / "copy.db")
    code, out, _ = run(capsys, "--data-dir", data, "backup", tmp_path / "copy.db", "--json")
    assert code == 1 and "already exists" in json.loads(out)["error"]
    code, out, _ = run(
        capsys, "--data-dir", data, "backup", tmp_path / "copy.db", "--overwrite", "--json"
    )
    assert code == 0
    code, out, _ = run(capsys, "--data-dir", data, "restore", tmp_path / "copy.db")
    assert code == 0 and "Restored" in out and "The previous store is kept as" in out
    (tmp_path / "notes.txt").write_text("not a store")
    code, out, _ = run(capsys, "--data-dir", data, "restore", tmp_path / "notes.txt", "--json")
    assert code == 1 and "it is not a SQLite database" in json.loads(out)["error"]
    # A number is still a forgotten memory's id.
    code, _, err = run(capsys, "--data-dir", data, "restore", "4242")
    assert code == 1 and "no memory with id 4242" in err


def test_maintenance_takes_the_daily_backup_and_keeps_the_newest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    db, folder = data / "memory.db", data / "backups"
    assert run(capsys, "--data-dir", data, "stats")[0] == 0
    folder.mkdir()
    now = datetime.now(UTC)
    for day in range(2, 6):  # four older automatic backups, and a person's own
        stamp = (now - timedelta(days=day)).strftime("%Y%m%dT%H%M%SZ")
        (folder / f"memory.daily.{stamp}.bak").write_bytes(b"old")
    (folder / "memory.v3.20250101T000000Z.bak").write_bytes(b"migration")
    monkeypatch.setenv("MEMORY_APP_BACKUP_KEEP", "3")

    code, _, err = run(capsys, "--data-dir", data, "maintenance", "run", "nightly", "--dry-run")
    assert code == 0 and len(daily_backups(db, folder)) == 4  # a dry run writes nothing
    code, _, err = run(capsys, "--data-dir", data, "maintenance", "run", "nightly")
    assert code == 0 and "Daily backup:" in err
    kept = daily_backups(db, folder)
    assert len(kept) == 3 and kept[0][1].read_bytes().startswith(b"SQLite format 3")
    assert (folder / "memory.v3.20250101T000000Z.bak").read_bytes() == b"migration"
    code, _, err = run(capsys, "--data-dir", data, "maintenance", "run", "nightly")
    assert code == 0 and "Daily backup:" not in err  # one a day
    assert daily_backups(db, folder) == kept

    monkeypatch.setenv("MEMORY_APP_BACKUP_KEEP", "weekly")
    code, _, err = run(capsys, "--data-dir", data, "maintenance", "run", "nightly", "--quiet")
    assert code == 0  # the maintenance still runs; the setting is named
    assert "the daily backup was not taken: MEMORY_APP_BACKUP_KEEP='weekly'" in err
    assert os.environ["MEMORY_APP_BACKUP_KEEP"] == "weekly"


def test_the_readme_commands_run_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Backup and restore\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert [shlex.split(line, comments=True)[:2] for line in lines] == [
        ["memory-app", "backup"],
        ["memory-app", "backup"],
        ["memory-app", "restore"],
    ]
    home = Path(os.environ["HOME"])
    data = tmp_path / "data"
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))
    assert run(capsys, "stats")[0] == 0
    for line in lines:
        words = [
            str(home) + word[1:] if word.startswith("~/") else word
            for word in shlex.split(line, comments=True)
        ]
        code, _, err = run(capsys, *words[1:])
        assert code == 0, f"`{line}`: {err}"
    assert len(list((data / "backups").glob("memory.2*.bak"))) == 1
    assert len(list((data / "backups").glob("memory.before-restore.*.bak"))) == 1
    assert (home / "memory-copy.db").is_file()
