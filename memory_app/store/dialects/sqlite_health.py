"""What is wrong with a SQLite store file, and what the person can do about it.

The checks run before SQLite writes anything: the folder, the file's 100-byte header
(read with plain file reads, so no journal, -wal or -shm file appears) and SQLite's
quick_check. SQLite's file-level errors met later (a full disk, damage found while
reading) become the same kind of message. Each message is one paragraph: what is
wrong, what to do, and that nothing was changed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from memory_app.store.errors import DatabaseDamagedError, DatabaseFileError

MAGIC = b"SQLite format 3\x00"
HEADER_SIZE = 100
# The time quick_check may take when a store opens or before a maintenance write.
# Measured: 0.2 s for a 140 MB store of 100k memories (file in the page cache), so only
# far larger stores, or a cold disk, are checked in part.
INTEGRITY_BUDGET_S = 1.0
_NOT_A_DATABASE = {sqlite3.SQLITE_NOTADB}
_DAMAGED = {sqlite3.SQLITE_CORRUPT}
_READ_ONLY = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM}


@dataclass(frozen=True)
class Header:
    page_size: int
    user_version: int


def _name(path: Path | None) -> str:
    return str(path) if path is not None else "the database"


def latest_backup(folder: Path) -> Path | None:
    """The newest backup the store made in `folder` (before a migration), if any."""
    with contextlib.suppress(OSError):
        found = [(p.stat().st_mtime, p) for p in folder.glob("*.bak") if p.is_file()]
        if found:
            return max(found)[1]
    return None


def restore_advice(path: Path | None, backup_dir: Path | None) -> str:
    """What to do with a file that is not a usable store: move it or restore a backup."""
    if path is None:
        return "Nothing was changed."
    folder = backup_dir or path.parent / "backups"
    latest = latest_backup(folder)
    which = f"the latest is {latest.name}" if latest else "none has been made there yet"
    return (
        f"Move it aside (a new, empty store is then made) or restore a backup from "
        f"{folder} ({which}); nothing was changed."
    )


def not_a_database(path: Path | None, backup_dir: Path | None, reason: str) -> DatabaseFileError:
    return DatabaseFileError(
        f"{_name(path)} is not a Memory Curator database ({reason}). "
        + restore_advice(path, backup_dir)
    )


def check_folder(path: Path, backup_dir: Path | None) -> None:
    """Refuse a database that is a folder, or that sits in a folder nobody can write:
    SQLite keeps its -wal and -shm files beside the database, even to read it."""
    if path.is_dir():
        raise DatabaseFileError(
            f"{path} is a folder, not a Memory Curator database. "
            + restore_advice(path, backup_dir)
        )
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseFileError(
            f"The data folder {folder} is read-only, so {path.name} cannot be opened: SQLite "
            "keeps its journal beside the database, even to read it. Make the folder "
            f"writable (for example: chmod u+w '{folder}') or choose another data folder; "
            "nothing was changed."
        )


def folder_error(folder: Path, exc: OSError) -> DatabaseFileError:
    return DatabaseFileError(
        f"Cannot create or use the data folder {folder} ({exc.strerror or exc}). Make sure "
        "its parent is writable, or choose another data folder; nothing was changed."
    )


def read_header(path: Path, backup_dir: Path | None) -> Header | None:
    """The file's header, read without SQLite; None for a new (missing or empty) file.

    Raises DatabaseFileError when the file is not a SQLite database, or is shorter than
    its header says (cut off by a copy or a full disk)."""
    try:
        with path.open("rb") as file:
            head = file.read(HEADER_SIZE)
            size = os.fstat(file.fileno()).st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatabaseFileError(
            f"Cannot read {path} ({exc.strerror or exc}). Check that it is a file you may "
            "read and write; nothing was changed."
        ) from exc
    if size == 0:
        return None
    if len(head) < HEADER_SIZE or not head.startswith(MAGIC):
        raise not_a_database(path, backup_dir, "file is not a database")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise not_a_database(path, backup_dir, f"its header names a page size of {page_size}")
    pages = int.from_bytes(head[28:32], "big")
    # The header's page count is trusted only when its change counters agree.
    pages_known = pages > 0 and head[24:28] == head[92:96]
    expected = page_size * (pages if pages_known else 1)
    if size < expected:
        raise DatabaseFileError(
            f"{path} is cut off: it holds {size:,} bytes where its header promises "
            f"{expected:,} (file is truncated, for example by an interrupted copy). "
            + restore_advice(path, backup_dir)
        )
    return Header(page_size, int.from_bytes(head[60:64], "big", signed=True))


def integrity_problem(conn: sqlite3.Connection, budget_s: float = INTEGRITY_BUDGET_S) -> str | None:
    """SQLite's first complaint from `PRAGMA quick_check(1)`, or None when it has none.

    Bounded in time: a timer interrupts the check after `budget_s` seconds
    (INTEGRITY_BUDGET_S, 1 s, by default), and an interrupted check counts as healthy,
    since the part it read was. A timer rather than a progress handler: SQLite 3.40
    walks the b-trees in one step that a handler cannot stop (measured: 1.2 s with a
    budget of 0 on the 140 MB store). quick_check reads every page but skips the slow
    comparison of indexes with their tables. Reads only."""
    timer = threading.Timer(budget_s, conn.interrupt)
    timer.daemon = True
    timer.start()
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.DatabaseError as exc:
        code = getattr(exc, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_INTERRUPT:
            return None
        if code is not None and code & 0xFF not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            raise  # busy, locked, out of memory, I/O: a passing fault, not damage
        return str(exc)
    finally:
        timer.cancel()
        timer.join()
    first = str(rows[0][0]) if rows else "ok"
    if first == "ok":
        return None
    # "*** in database main ***\nOn tree page 24 cell 1: ..." becomes one line.
    return " ".join(first.replace("*** in database main ***", "").split())


def damaged(path: Path | None, backup_dir: Path | None, problem: str) -> DatabaseDamagedError:
    """The refusal to write to a store whose integrity check failed."""
    return DatabaseDamagedError(
        f'{_name(path)} is damaged: SQLite\'s integrity check reports "{problem}". Reading '
        "may still work, but changes are refused so the damage cannot spread. "
        + restore_advice(path, backup_dir)
    )


def explain(
    error: BaseException, path: Path | None, backup_dir: Path | None
) -> DatabaseFileError | None:
    """A person's message for SQLite's file-level errors and a lock held elsewhere; None
    for any other error (a constraint, a programming error), which is left as it is."""
    if not isinstance(error, sqlite3.Error):
        return None
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None
    primary = code & 0xFF
    name = _name(path)
    folder = path.parent if path is not None else None
    if primary in _NOT_A_DATABASE:
        return not_a_database(path, backup_dir, str(error))
    if primary in _DAMAGED:
        return DatabaseFileError(
            f"{name} is damaged ({error}). " + restore_advice(path, backup_dir)
        )
    if primary == sqlite3.SQLITE_FULL:
        return DatabaseFileError(
            f"The disk holding {name} is full ({error}). Free some space and try again; "
            "nothing was changed."
        )
    if primary in _READ_ONLY:
        return DatabaseFileError(
            f"{name} cannot be written ({error}): the file or its folder {folder} is "
            "read-only. Make both writable by you and try again; nothing was changed."
        )
    if primary == sqlite3.SQLITE_CANTOPEN:
        return DatabaseFileError(
            f"Cannot open {name} ({error}). Check that it is a file you may read and write, "
            f"in a folder ({folder}) you may write to; nothing was changed."
        )
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return DatabaseFileError(
            f"{name} is locked by another program ({error}): close the other Memory Curator "
            "window or the tool holding the file, then try again; nothing was changed."
        )
    if primary == sqlite3.SQLITE_IOERR:
        return DatabaseFileError(
            f"Reading or writing {name} failed ({error}): the disk may be full or failing. "
            "Copy the file somewhere safe, then try again; nothing was changed."
        )
    return None
