"""The window tells the person about a broken or damaged store with the same message as
the command line (issue 15), in a separate process whose dialogs print instead of
waiting for a click."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from tests.small_store import build_small_store
from tests.unit.store.test_storage_faults import damage_an_index

# Runs `memory-app` with message boxes that print "kind|title|text" and return at once.
LAUNCH = """
import sys
from PySide6.QtWidgets import QMessageBox
def shown(kind):
    def show(parent, title, text, *rest, **options):
        print(kind + "|" + title + "|" + text, flush=True)
    return show
QMessageBox.critical = shown("critical")
QMessageBox.warning = shown("warning")
from memory_app.cli import main
sys.exit(main(sys.argv[1:]))
"""


def open_window(tmp_path: Path, data: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "MEMORY_APP_EXIT_AFTER_PAINT": "1",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def cli_message(capsys: pytest.CaptureFixture[str], data: Path) -> str:
    """What `memory-app stats` says about the store."""
    main(["stats", "--data-dir", str(data)])
    _, err = capsys.readouterr()
    return next(
        line.removeprefix("memory-app: error: ")
        for line in err.splitlines()
        if line.startswith("memory-app: error: ")
    )


def test_a_store_that_cannot_be_opened_is_explained_in_a_dialog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "memory.db"
    db.write_text("not a database\n" * 50)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    done = open_window(tmp_path, data)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    expected = cli_message(capsys, data)
    assert "is not a Memory Curator database (file is not a database)" in expected
    assert f"critical|Memory Curator cannot open its store|{expected}" in done.stdout.splitlines()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_damaged_store_is_announced_and_the_window_still_opens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    service = MemoryService.open(resolve_settings(data, env={}))
    try:
        build_small_store(service, generated=300)
    finally:
        service.close()
    db = data / "memory.db"
    damage_an_index(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    done = open_window(tmp_path, data)
    assert done.returncode == 0, done.stderr
    expected = cli_message(capsys, data)
    assert "is damaged" in expected and "changes are refused" in expected
    lines = done.stdout.splitlines()
    assert f"warning|Memory Curator's store is damaged|{expected}" in lines
    assert lines[-1].startswith("first-paint ")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
