"""Backups and restores of the store file (store/backup.py), on real SQLite files: a
backup is whole, private and checked; the daily ones rotate; a restore refuses every file
it cannot use and a store in use, and never loses the store it replaces."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_app.config import Settings, resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import backup
from memory_app.store.backup import BackupError, StoreInUseError
from memory_app.store.database import Database
from memory_app.store.dialects import sqlite as sqlite_dialect
from memory_app.store.dialects.sqlite import SqliteDialect
from memory_app.store.errors import StoreError
from tests.helpers import conversation

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _store(folder: Path, *facts: str) -> Settings:
    """A store in `folder` that learnt each fact from a conversation of its own."""
    settings = resolve_settings(folder, env={})
    service = MemoryService.open(settings, OfflineExtractor())
    try:
        for fact in facts:
            service.memorize(_said(fact))
    finally:
        service.close()
    return settings


def _said(fact: str) -> object:
    """A conversation of its own (a session id of its own: one that grows replaces its
    earlier capture)."""
    return conversation((fact, "Understood."), session=fact)


def _contents(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT content FROM memory_item ORDER BY id")]
    finally:
        conn.close()


def _integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def store(tmp_path: Path) -> Settings:
    return _store(
        tmp_path / "data",
        "We use pytest for every test in this repository, never unittest.",
        "I prefer tabs for indentation in Go files.",
    )


@pytest.fixture
def db(store: Settings) -> Path:
    return backup.store_file(store.db_url)


@pytest.fixture
def open_store(store: Settings) -> Iterator[MemoryService]:
    service = MemoryService.open(store, OfflineExtractor())
    yield service
    service.close()


def test_a_backup_is_one_checked_private_file_in_backups(store: Settings, db: Path) -> None:
    made = backup.back_up(db, backup_dir=store.backup_dir, now=T0)
    assert made.path == store.backup_dir / "memory.20260501T120000Z.bak"
    assert made.size == made.path.stat().st_size > 0
    assert made.summary.memories == 2 and made.summary.conversations == 2
    assert made.summary.schema_version == SqliteDialect.schema_version
    assert stat.S_IMODE(made.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.backup_dir.stat().st_mode) == 0o700
    # One self-contained file: a rollback journal header, no -wal, nothing half made.
    assert made.path.read_bytes()[18:20] == b"\x01\x01"
    assert sorted(p.name for p in store.backup_dir.iterdir()) == [made.path.name]
    assert _integrity(made.path) == "ok"
    assert _contents(made.path) == _contents(db)


def test_a_backup_is_taken_while_the_store_is_open_and_written(
    open_store: MemoryService, db: Path, tmp_path: Path
) -> None:
    open_store.memorize(_said("Deploy with make release, never by hand."))
    made = backup.back_up(db, tmp_path / "copy.db")
    assert _contents(made.path) == [r.content for r in reversed(open_store.list_items())]
    open_store.memorize(_said("Never commit directly to main; open a pull request."))
    assert len(open_store.list_items()) == 4  # the store goes on as before


def test_a_backup_into_a_folder_gets_a_dated_name(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    first = backup.back_up(db, folder, now=T0)
    second = backup.back_up(db, folder, now=T0)  # the same second: not overwritten
    assert first.path == folder / "memory.20260501T120000Z.bak"
    assert second.path == folder / "memory.20260501T120000Z-2.bak"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("exists.db", "already exists: give another name, or --overwrite"),
        ("missing/copy.db", "does not exist: create it first"),
        ("data/memory.db", "is the store itself"),
    ],
)
def test_a_backup_refuses_a_target_it_would_spoil(
    db: Path, tmp_path: Path, target: str, message: str
) -> None:
    (tmp_path / "exists.db").write_text("mine")
    before = db.read_bytes()
    with pytest.raises(BackupError, match=message):
        backup.back_up(db, tmp_path / target)
    assert (tmp_path / "exists.db").read_text() == "mine"
    assert db.read_bytes() == before
    assert not list(tmp_path.glob(".*partial"))


def test_overwrite_replaces_a_file(db: Path, tmp_path: Path) -> None:
    (tmp_path / "exists.db").write_text("old")
    made = backup.back_up(db, tmp_path / "exists.db", overwrite=True)
    assert _integrity(made.path) == "ok"


def test_there_is_nothing_to_back_up_without_a_store(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match=r"There is no store at .* nothing to back up"):
        backup.back_up(tmp_path / "memory.db", tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()


def test_a_damaged_store_gives_no_backup(db: Path, tmp_path: Path) -> None:
    _damage(db)
    with pytest.raises(BackupError, match=r"is damaged|store itself is probably damaged"):
        backup.back_up(db, tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # no partial file left


def test_only_a_sqlite_file_can_be_backed_up() -> None:
    with pytest.raises(BackupError, match="is not a SQLite file"):
        backup.store_file("sqlite://")


# -- daily backups -------------------------------------------------------------------------


def test_daily_backups_come_once_a_day_and_the_newest_n_are_kept(store: Settings, db: Path) -> None:
    folder = store.backup_dir
    folder.mkdir()
    migration = folder / "memory.v3.20250101T000000Z.bak"  # the store's own, before upgrades
    asked = folder / "memory.20250102T000000Z.bak"  # a person's
    for path in (migration, asked):
        path.write_bytes(b"kept")
    made = []
    for day in range(10):
        now = T0 + timedelta(days=day)
        made.append(backup.daily_backup(db, folder, keep=3, now=now))
        assert backup.daily_backup(db, folder, keep=3, now=now + timedelta(hours=23)) is None
    assert all(m is not None for m in made)
    kept = [p for _, p in backup.daily_backups(db, folder)]
    assert kept == [m.path for m in reversed(made[-3:]) if m is not None]
    assert kept[0].name == "memory.daily.20260510T120000Z.bak"
    assert migration.read_bytes() == asked.read_bytes() == b"kept"
    assert _integrity(kept[0]) == "ok"
    # Keeping fewer deletes the oldest at the next check; 0 makes none and deletes none.
    assert backup.daily_backup(db, folder, keep=1, now=T0 + timedelta(days=9, hours=1)) is None
    assert [p for _, p in backup.daily_backups(db, folder)] == kept[:1]
    assert backup.daily_backup(db, folder, keep=0, now=T0 + timedelta(days=30)) is None
    assert [p for _, p in backup.daily_backups(db, folder)] == kept[:1]


# -- restoring -----------------------------------------------------------------------------


def test_a_restore_puts_the_backup_in_place_and_keeps_the_store_aside(
    store: Settings, db: Path, tmp_path: Path
) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    service = MemoryService.open(store, OfflineExtractor())
    service.memorize(_said("Deploy with make release, never by hand."))
    service.close()
    now_held = _contents(db)
    assert len(now_held) == 3

    done = backup.restore(copy, store.db_url, store.backup_dir, now=T0)

    assert _contents(db) == _contents(copy)
    assert done.kept == store.backup_dir / "memory.before-restore.20260501T120000Z.bak"
    assert _contents(done.kept) == now_held
    assert stat.S_IMODE(done.kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert done.summary.memories == 2
    assert copy.exists() and _integrity(copy) == "ok"  # the file given is left alone
    leftovers = [p.name for p in db.parent.iterdir() if p.name.startswith("memory.db.")]
    assert leftovers == []
    reopened = MemoryService.open(store, OfflineExtractor())
    try:
        assert len(reopened.list_items()) == 2
    finally:
        reopened.close()


def test_a_store_copied_by_hand_with_its_wal_is_restored_whole(
    open_store: MemoryService, db: Path, tmp_path: Path
) -> None:
    """A live store copied as memory.db plus memory.db-wal: the -wal's changes count."""
    open_store.memorize(_said("Deploy with make release, never by hand."))
    wal = db.with_name("memory.db-wal")
    assert wal.exists() and wal.stat().st_size > 0
    hand = tmp_path / "hand"
    hand.mkdir()
    shutil.copyfile(db, hand / "memory.db")
    shutil.copyfile(wal, hand / "memory.db-wal")
    target = resolve_settings(tmp_path / "other", env={})
    done = backup.restore(hand / "memory.db", target.db_url, target.backup_dir)
    assert done.summary.memories == 3 and done.kept is None
    assert len(_contents(backup.store_file(target.db_url))) == 3


def test_a_backup_opens_in_another_data_folder(store: Settings, db: Path, tmp_path: Path) -> None:
    """Nothing in the store names the folder it lived in: a backup restored on another
    machine (another data folder, another home) opens there."""
    copy = backup.back_up(db, tmp_path / "copy.db").path
    assert str(store.data_dir).encode() not in copy.read_bytes()
    elsewhere = resolve_settings(tmp_path / "another" / "home" / "data", env={})
    backup.restore(copy, elsewhere.db_url, elsewhere.backup_dir)
    service = MemoryService.open(elsewhere, OfflineExtractor())
    try:
        contents = sorted(r.content for r in service.list_items())
    finally:
        service.close()
    assert contents == sorted(_contents(db))


def test_an_older_store_is_restored_and_upgraded(
    store: Settings, db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "old" / "memory.db"
    with monkeypatch.context() as patch:  # a store as the first version made it
        patch.setattr(sqlite_dialect, "MIGRATIONS", sqlite_dialect.MIGRATIONS[:1])
        patch.setattr(sqlite_dialect.SqliteDialect, "schema_version", 1)
        Database(f"sqlite:///{old}").close()
    done = backup.restore(old, store.db_url, store.backup_dir)
    assert done.summary.schema_version == 1
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SqliteDialect.schema_version
    finally:
        conn.close()
    assert list(store.backup_dir.glob("memory.v1.*.bak"))  # the upgrade's own backup


def _damage(path: Path) -> None:
    """Overwrite a page in the middle of the file: the header stays whole."""
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.seek((size // 4096 // 2) * 4096)
        file.write(b"\xa5" * 4096)


def _newer(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SqliteDialect.schema_version + 1}")
    conn.commit()
    conn.close()


def _other_database(path: Path) -> None:
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _text(path: Path) -> None:
    path.write_text("these are my notes, not a database\n" * 20)


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_damage, r"is damaged"),
        (_cut, r"is damaged"),
        (_newer, r"was written by a newer Memory Curator \(schema version \d+; this version"),
        (_other_database, r"it is a SQLite database, but not a Memory Curator store"),
        (_text, r"it is not a SQLite database"),
    ],
    ids=["damaged", "cut-off", "newer", "not-a-store", "not-sqlite"],
)
def test_a_restore_refuses_a_file_it_cannot_use_and_changes_nothing(
    store: Settings, db: Path, tmp_path: Path, spoil, message: str
) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    spoil(copy)
    given = copy.read_bytes()
    before = db.read_bytes()
    with pytest.raises(BackupError, match=message):
        backup.restore(copy, store.db_url, store.backup_dir)
    assert db.read_bytes() == before
    assert copy.read_bytes() == given
    assert [p.name for p in db.parent.glob("memory.db*")] == ["memory.db"]  # no copy left


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing.db", "does not exist"), ("", "is a folder"), ("data/memory.db", "store itself")],
)
def test_a_restore_refuses_a_path_that_is_no_backup(
    store: Settings, tmp_path: Path, name: str, message: str
) -> None:
    with pytest.raises(BackupError, match=message):
        backup.restore(tmp_path / name, store.db_url, store.backup_dir)


def test_a_restore_refuses_a_store_that_is_open(
    open_store: MemoryService, store: Settings, db: Path, tmp_path: Path
) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    open_store.memorize(_said("Deploy with make release, never by hand."))
    with pytest.raises(StoreInUseError, match="is open in another program"):
        backup.restore(copy, store.db_url, store.backup_dir)
    # The open store goes on, whole, with what it had.
    assert len(open_store.list_items()) == 3
    assert not store.backup_dir.exists()
    assert not list(db.parent.glob("memory.db.restoring*"))


def test_a_store_sqlite_cannot_read_is_set_aside_too(
    store: Settings, db: Path, tmp_path: Path
) -> None:
    """Restoring is the way out of a store that is no longer a database at all."""
    copy = backup.back_up(db, tmp_path / "copy.db").path
    db.write_bytes(b"garbage" * 1000)
    # Its -wal and -shm go with it: left under the store's name, SQLite would read them
    # as the restored store's own.
    db.with_name("memory.db-wal").write_bytes(b"its wal")
    db.with_name("memory.db-shm").write_bytes(b"its shm")
    done = backup.restore(copy, store.db_url, store.backup_dir)
    assert done.kept is not None and done.kept.read_bytes() == b"garbage" * 1000
    assert done.kept.with_name(done.kept.name + "-wal").read_bytes() == b"its wal"
    assert done.kept.with_name(done.kept.name + "-shm").exists()  # an index SQLite rebuilds
    assert _contents(db) == _contents(copy) and _integrity(db) == "ok"


def test_a_restore_into_a_new_data_folder_keeps_nothing_aside(db: Path, tmp_path: Path) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    target = resolve_settings(tmp_path / "new", env={})
    done = backup.restore(copy, target.db_url, target.backup_dir)
    assert done.kept is None
    assert _contents(backup.store_file(target.db_url)) == _contents(copy)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700


def test_a_store_left_with_its_wal_by_a_crash_is_kept_whole(
    store: Settings, db: Path, tmp_path: Path
) -> None:
    """A process that died holding the store leaves changes only in memory.db-wal: the
    store kept aside has them (the -wal is folded in before it moves)."""
    copy = backup.back_up(db, tmp_path / "copy.db").path
    crash = (
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute(\"UPDATE memory_item SET content = 'changed before the crash'\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", crash, str(db)], check=True, timeout=60)
    assert db.with_name("memory.db-wal").stat().st_size > 0
    done = backup.restore(copy, store.db_url, store.backup_dir)
    assert done.kept is not None
    assert set(_contents(done.kept)) == {"changed before the crash"}
    assert not done.kept.with_name(done.kept.name + "-wal").exists()  # one file
    assert _contents(db) == _contents(copy)


def test_a_checked_backup_waits_beside_the_store_until_confirmed(db: Path, tmp_path: Path) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    staged = backup.check_backup(copy, db)
    assert list(db.parent.glob("memory.db.restoring*")) == [staged.copy]
    assert stat.S_IMODE(staged.copy.stat().st_mode) == 0o600
    assert staged.summary.memories == 2 and staged.source == copy
    staged.discard()
    assert list(db.parent.glob("memory.db.restoring*")) == []


# -- across file systems, and programs waiting on the store ------------------------------


@pytest.fixture
def other_file_system(tmp_path: Path) -> Iterator[Path]:
    """A folder on another file system than tmp_path (/dev/shm is a tmpfs where it exists)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second file system (/dev/shm) here")
    folder = Path(tempfile.mkdtemp(prefix="memory-app-test-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("readable", [True, False], ids=["store", "unreadable-store"])
def test_a_restore_keeps_the_store_aside_on_another_file_system(
    other_file_system: Path, tmp_path: Path, readable: bool
) -> None:
    """`--db-url sqlite:////dev/shm/…/memory.db` with the backups in the data folder: the
    store cannot be renamed into backups/ (`Invalid cross-device link`)."""
    held = _store(other_file_system / "data", "Deploy with make release, never by hand.")
    db = backup.store_file(held.db_url)
    folder = tmp_path / "backups"
    copy = backup.back_up(db, tmp_path / "copy.db").path
    _store(other_file_system / "data", "We use pytest for every test, never unittest.")
    before = _contents(db)
    if not readable:
        db.write_bytes(b"garbage" * 1000)
        db.with_name("memory.db-wal").write_bytes(b"its wal")
    done = backup.restore(copy, held.db_url, folder, now=T0)
    assert done.kept == folder / "memory.before-restore.20260501T120000Z.bak"
    if readable:
        assert _contents(done.kept) == before and len(before) == 2
    else:
        assert done.kept.read_bytes() == b"garbage" * 1000
        assert done.kept.with_name(done.kept.name + "-wal").read_bytes() == b"its wal"
    assert stat.S_IMODE(done.kept.stat().st_mode) == 0o600
    assert _contents(db) == _contents(copy)
    assert sorted(p.name for p in db.parent.glob("memory.db*")) == ["memory.db"]


def test_a_move_across_file_systems_copies_then_removes_with_the_companions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (here / "memory.db").write_bytes(b"store")
    (here / "memory.db-wal").write_bytes(b"wal")
    real = os.rename

    def across(source: object, target: object) -> None:
        if Path(str(source)).parent != Path(str(target)).parent:
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        real(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(backup.os, "rename", across)
    monkeypatch.setattr(backup.os, "replace", across)
    backup._move_with_companions(here / "memory.db", there / "kept.bak")
    assert sorted(p.name for p in there.iterdir()) == ["kept.bak", "kept.bak-wal"]
    assert (there / "kept.bak").read_bytes() == b"store"
    assert (there / "kept.bak-wal").read_bytes() == b"wal"
    assert list(here.iterdir()) == []


def test_a_connection_opened_before_the_restore_reads_the_restored_store(
    store: Settings, db: Path, tmp_path: Path
) -> None:
    """A program that opened the store just before the restore (and waits for its lock)
    goes on with the restored store, not the one set aside: the file is copied into."""
    copy = backup.back_up(db, tmp_path / "copy.db").path
    service = MemoryService.open(store, OfflineExtractor())
    service.memorize(_said("Deploy with make release, never by hand."))
    service.close()
    waiting = sqlite3.connect(db, timeout=30)
    inode = db.stat().st_ino
    try:
        done = backup.restore(copy, store.db_url, store.backup_dir)
        assert db.stat().st_ino == inode
        assert done.kept is not None and len(_contents(done.kept)) == 3
        rows = waiting.execute("SELECT content FROM memory_item ORDER BY id").fetchall()
        assert [r[0] for r in rows] == _contents(copy) and len(rows) == 2
    finally:
        waiting.close()
    assert not list(db.parent.glob("memory.db-journal"))


def test_a_program_waiting_on_the_store_during_a_restore_reads_the_restored_one(
    store: Settings, db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process asks for the store while the restore holds it: it waits (busy
    timeout) and then reads what was restored."""
    copy = backup.back_up(db, tmp_path / "copy.db").path
    _store(store.data_dir, "Deploy with make release, never by hand.")
    reader = (
        "import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], timeout=60)\n"
        "print('opened', flush=True)\n"
        "sys.stdin.readline()\n"
        "print(conn.execute('SELECT count(*) FROM memory_item').fetchone()[0], flush=True)\n"
    )
    command = [sys.executable, "-c", reader, str(db)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as other:
        assert other.stdin is not None and other.stdout is not None
        asking, answer = other.stdin, other.stdout
        try:
            assert answer.readline().strip() == "opened"
            real = backup._copy_into

            def while_held(*args: object) -> None:
                asking.write("read now\n")  # it asks while the restore holds the store
                asking.flush()
                time.sleep(0.5)
                real(*args)  # type: ignore[arg-type]

            monkeypatch.setattr(backup, "_copy_into", while_held)
            backup.restore(copy, store.db_url, store.backup_dir)
            assert answer.readline().strip() == "2"
        finally:
            other.kill()


@pytest.mark.parametrize("readable", [True, False], ids=["store", "unreadable-store"])
def test_a_restored_store_that_does_not_open_gives_the_previous_one_back(
    store: Settings, db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readable: bool
) -> None:
    copy = backup.back_up(db, tmp_path / "copy.db").path
    _store(store.data_dir, "Deploy with make release, never by hand.")
    if not readable:
        db.write_bytes(b"garbage" * 1000)
    before = db.read_bytes() if not readable else None
    held = _contents(db) if readable else None

    def refuses(*args: object, **kwargs: object) -> None:
        raise StoreError("the upgrade failed")

    monkeypatch.setattr(backup, "Database", refuses)
    with pytest.raises(BackupError, match="the previous store was put back"):
        backup.restore(copy, store.db_url, store.backup_dir)
    if readable:
        assert _contents(db) == held and len(held or []) == 3 and _integrity(db) == "ok"
    else:
        assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.glob("memory.db*")) == ["memory.db"]
