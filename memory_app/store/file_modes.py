"""Private modes for the store's files: memories are personal, so other users of the
machine must not read them, whatever the umask (022 would give 0755 folders and 0644
files).

Folders are made 0700 and files 0600. Existing ones are tightened on open by removing
the group and other bits only: the owner's own bits are left alone, so a folder its
owner made read-only stays read-only. Tightening is best effort (a folder owned by
someone else cannot be changed and is still used).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
# SQLite's companions of a database file; they get the database file's mode when SQLite
# creates them, so a private database file gives private companions.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def tighten(path: Path) -> None:
    """Remove the group and other bits of an existing file or folder."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            path.chmod(mode & 0o700)


def private_folder(path: Path) -> None:
    """Create the folder `path` 0700 (missing parents get the usual modes), or tighten it
    when it exists."""
    try:
        path.mkdir(parents=True, mode=FOLDER_MODE)
    except FileExistsError:
        tighten(path)
    else:
        path.chmod(FOLDER_MODE)  # mkdir's mode passes through the umask


def private_file(path: Path) -> None:
    """Create an empty `path` with mode 0600 unless it exists, else tighten it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        if path.is_file():
            tighten(path)
        return
    try:
        os.fchmod(fd, FILE_MODE)  # os.open's mode passes through the umask
    finally:
        os.close(fd)


def private_database(path: Path) -> None:
    """Make a SQLite database's folder, file and companions private before SQLite opens
    it. A missing file is created empty (SQLite treats that as a new database), so the
    companions SQLite creates beside it inherit 0600. An existing folder is tightened
    only when it holds nothing but the store (`--data-dir ~` must not close a home
    folder to its group)."""
    if path.parent.is_dir():
        if _holds_only_the_store(path.parent, path.name):
            tighten(path.parent)
    else:
        private_folder(path.parent)
    private_file(path)
    for suffix in SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            tighten(companion)


# What the app itself keeps beside its database.
_STORE_ENTRIES = frozenset({"backups", "logs"})


def _holds_only_the_store(folder: Path, database: str) -> bool:
    try:
        names = [entry.name for entry in folder.iterdir()]
    except OSError:
        return False
    return all(
        name.startswith(database) or name in _STORE_ENTRIES or name.endswith(".lock")
        for name in names
    )


def tighten_folder(folder: Path) -> None:
    """Tighten the backups in an existing backups folder (`*.bak`), and the folder itself
    when it holds nothing else: files someone else keeps there are not the app's."""
    if not folder.is_dir():
        return
    with contextlib.suppress(OSError):
        entries = list(folder.iterdir())
        for path in entries:
            if path.suffix == ".bak" and path.is_file():
                tighten(path)
        if all(path.suffix == ".bak" for path in entries):
            tighten(folder)
