"""File > Back Up Store… and File > Restore from Backup…, with the dialogs scripted; the
daily backup of the window; and the real app refusing a restore from the command line
while it has the store open."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from memory_app.domain.jobs import JobState
from memory_app.gui.app import build_main_window
from memory_app.gui.backups import KEEP_KEY, DailyBackups
from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.main_window import MainWindow
from memory_app.store import backup
from tests.gui.conftest import ScriptedDialogs
from tests.helpers import conversation

KEPT = "We use pytest for every test in this repository, never unittest."
LATER = "Deploy with make release, never by hand."


def said(fact: str) -> object:
    return conversation((fact, "Understood."), session=fact)


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    context.service.memorize(said(KEPT))
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()
    main.backups.shutdown()


@pytest.fixture
def dialogs(context: AppContext) -> ScriptedDialogs:
    assert isinstance(context.dialogs, ScriptedDialogs)
    return context.dialogs


def contents(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return sorted(r[0] for r in conn.execute("SELECT content FROM memory_item"))
    finally:
        conn.close()


def shown(window: MainWindow) -> list[str]:
    proxy = window.view("memories").proxy  # type: ignore[attr-defined]
    return sorted(proxy.index(r, 0).data() for r in range(proxy.rowCount()))


def test_the_file_menu_offers_both(window: MainWindow) -> None:
    file_menu = window.menuBar().actions()[0].menu()
    assert isinstance(file_menu, QMenu)
    texts = [a.text() for a in file_menu.actions()]
    assert "&Back Up Store…" in texts and "&Restore from Backup…" in texts
    assert window.backup_action in file_menu.actions()
    assert window.restore_action in file_menu.actions()


def test_back_up_store_writes_where_the_dialog_says(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    dialogs.backup_target = tmp_path / "my backup.bak"
    window.backup_action.trigger()
    settle()
    assert dialogs.asked == ["backup_path"]
    target = tmp_path / "my backup.bak"
    assert contents(target) == [KEPT]
    with sqlite3.connect(target) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    status = context.status
    assert status.state == StatusModel.READY
    assert str(target) in status.message and "integrity checked" in status.message


def test_back_up_store_asked_and_cancelled_writes_nothing(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    dialogs.backup_target = None
    window.backup_action.trigger()
    settle()
    assert dialogs.asked == ["backup_path"]
    folder = context.service.db.backup_dir
    assert folder is not None and list(folder.iterdir()) == []


def test_a_backup_that_fails_says_why(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    dialogs.backup_target = tmp_path / "no such folder" / "x.bak"
    window.backup_action.trigger()
    settle()
    assert context.status.state == StatusModel.ERROR
    assert "The backup failed" in context.status.message
    assert "does not exist" in context.status.message


def test_restore_puts_the_backup_in_place_and_every_view_reloads(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    service = context.service
    db = service.db.path
    assert db is not None
    copy = backup.back_up(db, tmp_path / "before.bak").path
    service.memorize(said(LATER))
    window.navigate("memories")
    settle()
    assert shown(window) == sorted([KEPT, LATER])

    dialogs.restore_source = copy
    dialogs.answer = True
    window.restore_action.trigger()
    settle()

    assert dialogs.asked == ["backup_to_restore", "Restore from Backup"]
    assert [r.content for r in service.list_items()] == [KEPT]
    assert shown(window) == [KEPT]
    (kept,) = (db.parent / "backups").glob("memory.before-restore.*.bak")
    assert contents(kept) == sorted([KEPT, LATER])  # the replaced store, kept
    status = context.status
    assert status.state == StatusModel.READY
    assert "Restored the store from before.bak" in status.message and kept.name in status.message
    # The window goes on with the restored store.
    service.memorize(said(LATER))
    assert len(service.list_items()) == 2


def test_restore_refuses_a_damaged_backup_before_asking(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    db = context.service.db.path
    assert db is not None
    damaged = backup.back_up(db, tmp_path / "damaged.bak").path
    with damaged.open("r+b") as file:
        file.seek(4096 * 2)
        file.write(b"\xa5" * 4096)
    dialogs.restore_source = damaged
    window.restore_action.trigger()
    settle()
    assert dialogs.asked == ["backup_to_restore"]  # never asked to confirm
    assert context.status.state == StatusModel.ERROR
    assert "damaged.bak" in context.status.message and "damaged" in context.status.message
    assert [r.content for r in context.service.list_items()] == [KEPT]
    assert not list(db.parent.glob("memory.db.restoring*"))


def test_restore_declined_changes_nothing(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    settle: Callable[..., None],
) -> None:  # fmt: skip
    service = context.service
    db = service.db.path
    assert db is not None
    copy = backup.back_up(db, tmp_path / "before.bak").path
    service.memorize(said(LATER))
    dialogs.restore_source = copy
    dialogs.answer = False
    window.restore_action.trigger()
    settle()
    assert dialogs.asked == ["backup_to_restore", "Restore from Backup"]
    assert sorted(r.content for r in service.list_items()) == sorted([KEPT, LATER])
    assert not list(db.parent.glob("memory.db.restoring*"))
    assert not (db.parent / "backups").exists()


def test_restore_waits_for_a_running_import(
    window: MainWindow, context: AppContext, dialogs: ScriptedDialogs, tmp_path: Path,
    loop: asyncio.AbstractEventLoop, settle: Callable[..., None],
) -> None:  # fmt: skip
    db = context.service.db.path
    assert db is not None
    dialogs.restore_source = backup.back_up(db, tmp_path / "before.bak").path
    release = threading.Event()
    importing = context.spawn(context.jobs.run("import", lambda _job: release.wait(30), JobState()))
    window.restore_action.trigger()
    loop.run_until_complete(asyncio.sleep(0.05))
    assert dialogs.asked == []  # not even asked which backup
    assert context.status.state == StatusModel.ERROR
    assert "An import or maintenance is running" in context.status.message
    release.set()
    settle()
    assert importing.done()


def test_the_daily_backup_of_the_window(
    context: AppContext, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMORY_APP_BACKUP_KEEP", raising=False)
    daily = DailyBackups(context)
    db = context.service.db.path
    assert db is not None
    try:
        made = loop.run_until_complete(daily.check_now())
        assert made is not None and made.path.name.startswith("memory.daily.")
        assert loop.run_until_complete(daily.check_now()) is None  # one a day
        context.settings.setValue(KEEP_KEY, "0")  # off: none made, none deleted
        made.path.unlink()
        assert loop.run_until_complete(daily.check_now()) is None
        assert backup.daily_backups(db, context.service.db.backup_dir) == []
        context.settings.setValue(KEEP_KEY, "lots")
        assert loop.run_until_complete(daily.check_now()) is None
        assert context.status.state == StatusModel.ERROR
        assert "Daily backups are off: the setting backups/keep" in context.status.message
    finally:
        daily.stop()


def test_the_running_app_keeps_its_store_from_a_restore(tmp_path: Path) -> None:
    """The real window, in a process of its own, has the store open: `memory-app restore`
    refuses and names what to do; the window's store is left as it was."""
    data = tmp_path / "data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "memory_app", "--data-dir", str(data)]
    subprocess.run([*command, "stats"], env=env, check=True, capture_output=True, timeout=120)
    subprocess.run(
        [*command, "backup", str(tmp_path / "copy.bak")],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    app = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # a hang guard
        while not (data / "memory.db-shm").exists():
            assert app.poll() is None, "the app ended"
            assert time.monotonic() < deadline, "the app did not open its store"
            time.sleep(0.05)
        refused = subprocess.run(
            [*command, "restore", str(tmp_path / "copy.bak"), "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 1
        error = json.loads(refused.stdout)["error"]
        assert "is open in another program: the Memory Curator window" in error
        assert not (data / "backups").exists()
        assert app.poll() is None  # the window runs on
    finally:
        app.terminate()
        app.wait(timeout=60)
