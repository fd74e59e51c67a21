"""Privacy (issue 15): the store's folder, database, -wal/-shm and backups are private
to their owner whatever the umask, and opening a store repairs looser modes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from memory_app.store.dialects import sqlite as sqlite_dialect
from memory_app.store.file_modes import private_database, tighten_folder
from tests.helpers import conversation

pytestmark = pytest.mark.skipif(os.name != "posix", reason="permission bits are POSIX")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def umask_022() -> Iterator[None]:
    """The common umask, which gives 0755 folders and 0644 files unless the app says
    otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def open_store(data: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}))


def add_memory(service: MemoryService) -> None:
    service.memorize(conversation(("We always use pathlib, never os.path.", "Noted.")))


def test_a_new_store_and_its_companions_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    service = open_store(data)
    try:
        add_memory(service)  # the open connection keeps -wal and -shm beside the file
        assert mode(data) == 0o700
        files = {p.name: mode(p) for p in data.iterdir() if p.name.startswith("memory.db")}
        assert files == {"memory.db": 0o600, "memory.db-wal": 0o600, "memory.db-shm": 0o600}
    finally:
        service.close()


def test_backups_are_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    open_store(data).close()
    current = sqlite_dialect.SqliteDialect.schema_version
    monkeypatch.setattr(sqlite_dialect, "MIGRATIONS", (*sqlite_dialect.MIGRATIONS, lambda c: None))
    monkeypatch.setattr(sqlite_dialect.SqliteDialect, "schema_version", current + 1)
    open_store(data).close()  # migrating backs up first
    backups = data / "backups"
    assert mode(backups) == 0o700
    made = list(backups.glob("memory.v*.bak"))
    assert len(made) == 1 and mode(made[0]) == 0o600


def test_opening_repairs_looser_modes_and_keeps_the_owners_bits(tmp_path: Path) -> None:
    data = tmp_path / "data"
    open_store(data).close()
    backups = data / "backups"
    backups.mkdir()
    old = backups / "memory.v2.20260101T000000Z.bak"
    old.write_bytes(b"")
    kept_read_only = backups / "memory.v1.20250101T000000Z.bak"
    kept_read_only.write_bytes(b"")
    data.chmod(0o755)
    (data / "memory.db").chmod(0o644)
    backups.chmod(0o755)
    old.chmod(0o644)
    kept_read_only.chmod(0o444)

    service = open_store(data)
    try:
        assert mode(data) == 0o700
        assert mode(data / "memory.db") == 0o600
        assert mode(backups) == 0o700
        assert mode(old) == 0o600
        assert mode(kept_read_only) == 0o400  # only group and other bits are taken away
    finally:
        service.close()


def test_a_common_folder_given_as_the_data_folder_keeps_its_mode(tmp_path: Path) -> None:
    """Only the store's own folder is tightened: `--data-dir ~` must not close a home
    folder (or a project folder) to its group; the database files are private anyway."""
    common = tmp_path / "projects"
    common.mkdir()
    common.chmod(0o755)
    (common / "notes.txt").write_text("someone else's file")
    private_database(common / "memory.db")
    assert stat.S_IMODE(common.stat().st_mode) == 0o755
    assert stat.S_IMODE((common / "memory.db").stat().st_mode) == 0o600


def test_files_someone_keeps_in_a_backups_folder_keep_their_modes(tmp_path: Path) -> None:
    """Only the app's backups (`*.bak`) are tightened, and the folder only when it holds
    nothing else."""
    backups = tmp_path / "backups"
    backups.mkdir()
    backups.chmod(0o755)
    photos = backups / "photos.tar"
    photos.write_bytes(b"tar")
    photos.chmod(0o644)
    copy = backups / "memory.v3.20260101T000000Z.bak"
    copy.write_bytes(b"db")
    copy.chmod(0o644)
    tighten_folder(backups)
    assert stat.S_IMODE(photos.stat().st_mode) == 0o644
    assert stat.S_IMODE(backups.stat().st_mode) == 0o755
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
