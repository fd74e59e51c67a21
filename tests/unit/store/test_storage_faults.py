"""Storage faults (issue 15): every command answers a broken, newer, damaged or
unreachable store with one paragraph saying what is wrong and what to do, exits
non-zero, prints no traceback, and leaves the database file byte for byte as it was."""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from memory_app.store.database import Database
from memory_app.store.dialects import sqlite as sqlite_dialect
from memory_app.store.dialects.sqlite_health import integrity_problem
from memory_app.store.errors import DatabaseDamagedError, DatabaseFileError
from tests.helpers import make_version_2
from tests.small_store import build_small_store

CHAT = "User: We always use pathlib, never os.path.\n\nAssistant: Noted.\n"
COMMANDS = (("stats",), ("list",), ("search", "pathlib"), ("maintenance", "run", "nightly"))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def store_files(data: Path) -> list[str]:
    """The database and any companion SQLite made beside it."""
    return sorted(p.name for p in data.iterdir() if p.name.startswith("memory.db"))


def assert_refused(code: int, out: str, err: str, *words: str) -> None:
    """Exit 1, one paragraph on stderr with these words, no traceback anywhere (the log
    may add its own warnings, e.g. that it cannot write into a read-only folder)."""
    assert code == 1, out
    assert "Traceback" not in out + err
    errors = [line for line in err.splitlines() if line.startswith("memory-app: error: ")]
    assert len(errors) == 1, err
    message = errors[0]
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


@pytest.fixture(scope="module")
def store_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real store with a few hundred memories, as bytes."""
    folder = tmp_path_factory.mktemp("real") / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        build_small_store(service, generated=300)
    finally:
        service.close()
    return (folder / "memory.db").read_bytes()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.md"
    path.write_text(CHAT)
    return path


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only for this process: its mode as a user, the immutable flag as
    root (root ignores modes)."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            yield
        finally:
            folder.chmod(0o700)
        return
    try:
        subprocess.run(["chattr", "+i", str(folder)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        message = f"cannot make a folder read-only as root here (chattr +i: {exc})"
        if os.environ.get("MEMORY_APP_REQUIRE_TOOLS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


FAULTS: dict[str, tuple[Callable[[bytes], bytes], tuple[str, ...]]] = {
    "truncated": (lambda good: good[: len(good) // 2], ("is cut off", "file is truncated")),
    "header only": (lambda good: good[:100], ("is cut off", "file is truncated")),
    "random bytes": (
        lambda good: random.Random(15).randbytes(len(good)),
        ("is not a Memory Curator database (file is not a database)",),
    ),
    "text file": (
        lambda good: b"Shopping list\n- milk\n" * 300,
        ("is not a Memory Curator database (file is not a database)",),
    ),
}


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_file_is_refused_by_every_command_and_left_as_it_was(
    capsys: pytest.CaptureFixture[str],
    data: Path,
    store_bytes: bytes,
    fault: str,
    command: tuple[str, ...],
) -> None:
    broken, words = FAULTS[fault]
    db = data / "memory.db"
    db.write_bytes(broken(store_bytes))
    before = sha(db)
    code, out, err = run(capsys, data, *command)
    assert_refused(
        code,
        out,
        err,
        str(db),
        *words,
        f"Move it aside (a new, empty store is then made) or restore a backup from "
        f"{data / 'backups'}",
        "nothing was changed.",
    )
    assert sha(db) == before
    assert store_files(data) == ["memory.db"]


def test_import_refuses_a_file_that_is_not_a_database(
    capsys: pytest.CaptureFixture[str], data: Path, chat: Path
) -> None:
    db = data / "memory.db"
    db.write_bytes(b"just some text\n" * 100)
    before = sha(db)
    code, out, err = run(capsys, data, "import", str(chat))
    assert_refused(code, out, err, "is not a Memory Curator database", "nothing was changed")
    assert sha(db) == before


def test_a_folder_named_like_the_database_is_refused(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    (data / "memory.db").mkdir()
    (data / "memory.db" / "keep.txt").write_text("mine")
    code, out, err = run(capsys, data, "stats")
    assert_refused(code, out, err, f"{data / 'memory.db'} is a folder", "nothing was changed")
    assert [p.name for p in (data / "memory.db").iterdir()] == ["keep.txt"]
    assert store_files(data) == ["memory.db"]


def test_a_read_only_data_folder_is_refused(
    capsys: pytest.CaptureFixture[str], data: Path, store_bytes: bytes
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    before = sha(db)
    with read_only(data):
        code, out, err = run(capsys, data, "stats")
    assert_refused(
        code, out, err, f"The data folder {data} is read-only", "chmod u+w", "nothing was changed"
    )
    assert sha(db) == before
    assert store_files(data) == ["memory.db"]


def test_a_data_folder_that_cannot_be_created_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    with read_only(parent):
        code, out, err = run(capsys, parent / "data", "stats")
    assert code == 1 and "Traceback" not in out + err
    assert f"Cannot create or use the data folder {parent / 'data'}" in err
    assert not (parent / "data").exists()


def test_a_newer_database_is_refused_before_anything_writes_to_it(
    capsys: pytest.CaptureFixture[str], data: Path, store_bytes: bytes
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    # A rollback-journal file: switching it to WAL would rewrite its header.
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = sha(db)
    code, out, err = run(capsys, data, "stats")
    assert_refused(code, out, err, "schema version 99", "Upgrade Memory Curator")
    assert sha(db) == before
    assert store_files(data) == ["memory.db"]


# -- integrity ----------------------------------------------------------------------------


def damage_an_index(db: Path) -> None:
    """Overwrite the cell area at the end of an index page in the middle of the file, the
    way a bad sector or a torn copy would."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'ix_memory_item_extracted_at'"
        ).fetchone()
    conn.close()
    for companion in ("-wal", "-shm"):  # left by the read-only connection
        Path(f"{db}{companion}").unlink(missing_ok=True)
    assert 1 < root < pages
    with db.open("r+b") as file:
        file.seek(root * page_size - 200)
        file.write(b"\xab" * 200)


@pytest.fixture
def damaged(data: Path, store_bytes: bytes) -> Path:
    """A damaged store, with a backup made earlier beside it."""
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    backups = data / "backups"
    backups.mkdir(mode=0o700)
    (backups / "memory.v2.20260101T000000Z.bak").write_bytes(store_bytes)
    damage_an_index(db)
    return db


def test_a_damaged_store_refuses_import_and_maintenance(
    capsys: pytest.CaptureFixture[str], damaged: Path, chat: Path
) -> None:
    data = damaged.parent
    before = sha(damaged)
    for command in (("import", str(chat)), ("maintenance", "run", "nightly")):
        code, out, err = run(capsys, data, *command)
        assert_refused(
            code,
            out,
            err,
            f"{damaged} is damaged: SQLite's integrity check reports",
            "tree page",
            "changes are refused",
            f"restore a backup from {data / 'backups'} "
            "(the latest is memory.v2.20260101T000000Z.bak)",
            "nothing was changed.",
        )
        assert sha(damaged) == before
    assert store_files(data) == ["memory.db"]


def test_a_damaged_store_still_shows_what_it_can_read_and_exits_non_zero(
    capsys: pytest.CaptureFixture[str], damaged: Path
) -> None:
    before = sha(damaged)
    code, out, err = run(capsys, damaged.parent, "stats", "--json")
    assert code == 1 and "Traceback" not in out + err
    assert json.loads(out)["items"] > 300
    assert "is damaged" in err and "Reading may still work" in err
    assert sha(damaged) == before


def test_damage_found_after_opening_stops_maintenance_before_it_writes(
    data: Path, store_bytes: bytes
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    service = MemoryService.open(resolve_settings(data, env={}))
    try:
        assert service.db.damage is None
        runs = len(service.maintenance_runs())
        service.db.engine.dispose()  # let go of cached pages, as a later session would
        damage_an_index(db)
        before = sha(db)
        with pytest.raises(DatabaseDamagedError, match="changes are refused"):
            service.run_maintenance("nightly")
        with pytest.raises(DatabaseDamagedError):
            service.apply_changes()
        assert len(service.maintenance_runs()) == runs  # not even the run was logged
    finally:
        service.close()
    assert sha(db) == before


def test_the_integrity_check_names_the_damage_in_one_line(data: Path, store_bytes: bytes) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert integrity_problem(conn) is None
    conn.close()
    damage_an_index(db)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        found = integrity_problem(conn)
    conn.close()
    assert found is not None and found.startswith("On tree page ") and "\n" not in found


def test_the_integrity_check_is_bounded_in_time(tmp_path: Path) -> None:
    """A check that would take 5 s (each row's CHECK constraint sleeps) gives up at the
    budget and counts as healthy."""
    conn = sqlite3.connect(tmp_path / "slow.db")
    conn.create_function("ok", 1, lambda value: 1, deterministic=True)
    conn.execute("CREATE TABLE t (x INTEGER CHECK (ok(x)))")
    conn.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(250)])
    conn.commit()
    conn.create_function("ok", 1, lambda value: time.sleep(0.02) or 1, deterministic=True)
    started = time.monotonic()
    try:
        assert integrity_problem(conn, budget_s=0.2) is None
    finally:
        conn.close()
    # Unbounded, the check takes 5 s; bounded, 0.2 s and whatever a loaded machine adds.
    assert time.monotonic() - started < 4.0


def test_a_damaged_store_opens_read_only(data: Path, store_bytes: bytes) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    damage_an_index(db)
    store = Database(f"sqlite:///{db}", backup_dir=data / "backups")
    try:
        assert store.damage is not None and "none has been made there yet" in store.damage
        with pytest.raises(DatabaseDamagedError), store.writing():
            pytest.fail("a write was allowed")
    finally:
        store.close()


# -- writes that fail half way ----------------------------------------------------------


def bump_schema(monkeypatch: pytest.MonkeyPatch, step: Callable[[object], None]) -> None:
    current = sqlite_dialect.SqliteDialect.schema_version
    monkeypatch.setattr(sqlite_dialect, "MIGRATIONS", (*sqlite_dialect.MIGRATIONS, step))
    monkeypatch.setattr(sqlite_dialect.SqliteDialect, "schema_version", current + 1)


def test_a_full_disk_during_a_migration_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, data: Path, store_bytes: bytes
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    before = sha(db)

    def fill_the_disk(conn: object) -> None:
        # SQLite's own "disk full": the file may not grow past its current size.
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()  # type: ignore[attr-defined]
        conn.exec_driver_sql(f"PRAGMA max_page_count = {pages}")  # type: ignore[attr-defined]
        conn.exec_driver_sql("CREATE TABLE filler (data BLOB)")  # type: ignore[attr-defined]
        conn.exec_driver_sql("INSERT INTO filler VALUES (zeroblob(1000000))")  # type: ignore[attr-defined]

    bump_schema(monkeypatch, fill_the_disk)
    with pytest.raises(DatabaseFileError) as caught:
        Database(f"sqlite:///{db}", backup_dir=data / "backups")
    message = str(caught.value)
    assert f"The disk holding {db} is full (database or disk is full)" in message
    assert "Free some space" in message and "\n" not in message
    assert sha(db) == before


def test_a_migration_whose_backup_is_blocked_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: Path,
    store_bytes: bytes,
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    (data / "backups").write_text("a file where the backups folder should be")
    before = sha(db)
    bump_schema(monkeypatch, lambda conn: None)
    code, out, err = run(capsys, data, "stats")
    assert_refused(
        code,
        out,
        err,
        f"Could not back up {db} before migrating it",
        f"the backups folder {data / 'backups'} cannot be written",
        "nothing was changed.",
    )
    assert sha(db) == before


def test_a_backup_that_runs_out_of_space_stops_the_migration(
    tmp_path: Path, data: Path, store_bytes: bytes
) -> None:
    db = data / "memory.db"
    db.write_bytes(store_bytes)
    make_version_2(db)
    before = sha(db)
    limit = len(store_bytes) // 4  # the backup cannot be written whole

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process

    done = subprocess.run(
        [sys.executable, "-m", "memory_app", "stats", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=small_disk,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert f"Could not back up {db}" in done.stderr and "Free some space" in done.stderr
    assert sha(db) == before
    assert list((data / "backups").iterdir()) == []  # no half backup left behind


class _Failing:
    """A connection whose check fails with one SQLite error code."""

    def __init__(self, code: int, message: str) -> None:
        self.error = sqlite3.OperationalError(message)
        self.error.sqlite_errorcode = code  # type: ignore[attr-defined]

    def execute(self, sql: str) -> None:
        raise self.error

    def interrupt(self) -> None:
        pass


def test_only_corruption_counts_as_damage_in_the_integrity_check() -> None:
    """A busy or locked store is a passing fault: it must not mark the store damaged
    (and refuse every write) for the rest of the session."""
    busy = _Failing(sqlite3.SQLITE_BUSY, "database is locked")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        integrity_problem(busy)  # type: ignore[arg-type]
    corrupt = _Failing(sqlite3.SQLITE_CORRUPT, "database disk image is malformed")
    assert integrity_problem(corrupt) == "database disk image is malformed"  # type: ignore[arg-type]


def test_a_store_locked_by_another_program_gets_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["stats", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    holder = sqlite3.connect(data / "memory.db")
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        assert main(["stats", "--data-dir", str(data)]) == 1
    finally:
        holder.close()
    err = capsys.readouterr().err
    assert "is locked by another program" in err and "nothing was changed" in err
    assert "Traceback" not in err
