"""Copies of the store that can be put back: online backups, daily ones, and restoring.

A backup is made with SQLite's backup API from a connection of its own, in one step, so
it reads one snapshot while the app or an import keeps writing (the store is in WAL
mode: a reader never blocks a writer). The copy becomes one self-contained file
(journal_mode DELETE, no -wal beside it), passes `PRAGMA integrity_check`, and only
then is renamed to its name, private (0600): a half-made backup never carries the name.

Restoring checks a private copy of the file (so the file given is never touched): a
SQLite database, whole, a Memory Curator store of a schema this version opens. Nothing
else may have the store open meanwhile: SQLite switches a database out of WAL mode only
when no other connection has it open, so that switch is the test (the window,
`memory-app mcp`, an import and a hook all hold a connection), and its exclusive lock is
held until the copy is in. Under that lock SQLite's backup API copies the current store
into backups/ (never deleted; any file system) and then the checked copy into the
store's own file: the file stays the same one, so a program that opened it meanwhile
and waits for the lock reads the restored store. A store SQLite cannot read at all is
moved aside instead (renamed beside itself, then moved, across file systems a copy).

Names in backups/ (the stem is the store's, "memory"): `memory.<time>.bak` (asked for),
`memory.daily.<time>.bak` (automatic, the newest N kept), `memory.before-restore.<time>.bak`
(set aside by a restore) and the store's own `memory.v<N>.<time>.bak` made before a
schema upgrade. Only the daily ones are ever deleted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from memory_app.store.database import Database
from memory_app.store.dialects.sqlite import SqliteDialect
from memory_app.store.dialects.sqlite_health import MAGIC
from memory_app.store.errors import StoreError
from memory_app.store.file_modes import SQLITE_COMPANIONS, private_file, private_folder

STAMP = "%Y%m%dT%H%M%SZ"  # the migration backups' stamp: names sort by time
DAILY = "daily"
BEFORE_RESTORE = "before-restore"
DAILY_INTERVAL = timedelta(days=1)
DEFAULT_KEEP = 7
# Tables every Memory Curator store has had since schema version 1.
STORE_TABLES = frozenset({"memory_item", "resource", "category"})
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
_UNREADABLE = (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)


class BackupError(StoreError):
    """A backup or restore that could not be done; the message names the file, says
    what to do, and that nothing was lost."""


class StoreInUseError(BackupError):
    """The store is open in another program (or connection) while a restore needs it
    closed."""


@dataclass(frozen=True)
class StoreSummary:
    """What a store holds, as a person recognises a backup."""

    schema_version: int
    memories: int
    conversations: int

    def to_json(self) -> dict[str, int]:
        return {
            "schema_version": self.schema_version,
            "memories": self.memories,
            "conversations": self.conversations,
        }


@dataclass(frozen=True)
class BackupResult:
    store: Path
    path: Path
    size: int
    summary: StoreSummary

    def to_json(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "path": str(self.path),
            "size": self.size,
            "integrity": "ok",
            **self.summary.to_json(),
        }


@dataclass(frozen=True)
class StagedRestore:
    """A backup checked and copied beside the store, ready to be put in its place."""

    source: Path
    copy: Path
    summary: StoreSummary
    saved_at: datetime

    def discard(self) -> None:
        """Remove the copy (the restore was not confirmed, or failed)."""
        _remove_with_companions(self.copy)


@dataclass(frozen=True)
class RestoreResult:
    source: Path
    store: Path
    kept: Path | None  # where the previous store went; None when there was none
    summary: StoreSummary

    def to_json(self) -> dict[str, Any]:
        return {
            "restored": str(self.source),
            "store": str(self.store),
            "kept": str(self.kept) if self.kept else None,
            **self.summary.to_json(),
        }


# -- where ---------------------------------------------------------------------------------


def store_file(db_url: str) -> Path:
    """The SQLite file a database URL names; BackupError for anything else (only a file
    can be backed up)."""
    url = make_url(db_url)
    name = url.database
    if url.get_backend_name() != "sqlite" or not name or name == ":memory:":
        raise BackupError(
            f"{db_url} is not a SQLite file, so it cannot be backed up or restored here; "
            "nothing was changed."
        )
    return Path(name).expanduser()


def backups_folder(db_path: Path, backup_dir: Path | None) -> Path:
    return backup_dir if backup_dir is not None else db_path.parent / "backups"


def backup_name(db_path: Path, kind: str = "", now: datetime | None = None) -> str:
    """`memory.<time>.bak`, or `memory.<kind>.<time>.bak`."""
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime(STAMP)
    return ".".join(part for part in (db_path.stem, kind, stamp, "bak") if part)


def _free_name(folder: Path, name: str) -> Path:
    """`name` in `folder`, with -2, -3... before `.bak` when that name is taken."""
    path = folder / name
    count = 1
    while path.exists() or path.is_symlink():
        count += 1
        path = folder / f"{name.removesuffix('.bak')}-{count}.bak"
    return path


# -- backing up ------------------------------------------------------------------------


def back_up(
    db_path: Path,
    target: Path | None = None,
    *,
    backup_dir: Path | None = None,
    kind: str = "",
    overwrite: bool = False,
    now: datetime | None = None,
) -> BackupResult:
    """Copy the store at `db_path` to `target` (a file, or a folder to put a dated file
    in; by default a dated file in the backups folder), checked before it is done.

    Safe while other connections read and write the store. Refuses a target that exists
    (unless `overwrite`), the store itself, and a folder that does not exist."""
    if not db_path.is_file() or db_path.stat().st_size == 0:
        raise BackupError(f"There is no store at {db_path} yet, so there is nothing to back up.")
    with _header(db_path) as head:
        if not head.startswith(MAGIC):
            raise BackupError(
                f"{db_path} is not a SQLite database, so it cannot be backed up; "
                "nothing was written."
            )
    target = _backup_target(db_path, target, backup_dir, kind, now, overwrite)
    temporary = _temporary_beside(target)
    try:
        summary = _copy_checked(db_path, temporary, target)
        os.replace(temporary, target)
    except BaseException:
        _remove_with_companions(temporary)
        raise
    return BackupResult(db_path, target, target.stat().st_size, summary)


def _backup_target(
    db_path: Path,
    target: Path | None,
    backup_dir: Path | None,
    kind: str,
    now: datetime | None,
    overwrite: bool,
) -> Path:
    name = backup_name(db_path, kind, now)
    if target is None:
        folder = backups_folder(db_path, backup_dir)
        try:
            private_folder(folder)
        except OSError as exc:
            raise BackupError(
                f"Cannot create the backups folder {folder} ({exc.strerror or exc}); make "
                "its parent writable or give another place; nothing was written."
            ) from exc
        return _free_name(folder, name)
    target = target.expanduser()
    if target.is_dir():
        return _free_name(target, name)
    if target.resolve() == db_path.resolve():
        raise BackupError(f"{target} is the store itself: give another file for the backup.")
    if not target.parent.is_dir():
        raise BackupError(
            f"The folder {target.parent} does not exist: create it first or give another "
            "place for the backup; nothing was written."
        )
    if target.exists() and not overwrite:
        raise BackupError(
            f"{target} already exists: give another name, or --overwrite to replace it; "
            "nothing was written."
        )
    return target


def _temporary_beside(target: Path, prefix: str | None = None) -> Path:
    """A private empty file in the target's folder, renamed onto the target at the end
    (same file system: the rename is atomic)."""
    prefix = prefix if prefix is not None else f".{target.name}."
    try:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=".partial", dir=target.parent)
    except OSError as exc:
        raise BackupError(
            f"Cannot write in {target.parent} ({exc.strerror or exc}); give a folder you may "
            "write to; nothing was written."
        ) from exc
    os.close(fd)
    path = Path(name)
    private_file(path)
    return path


def _copy_checked(db_path: Path, temporary: Path, target: Path) -> StoreSummary:
    """SQLite's backup of `db_path` into `temporary`, made one file and checked."""
    try:
        source = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    except sqlite3.Error as exc:
        raise _failed(db_path, target, exc) from exc
    try:
        destination = sqlite3.connect(temporary, isolation_level=None)
        try:
            source.execute("PRAGMA busy_timeout=30000")
            # One step: one read snapshot, whatever a writer does meanwhile (in steps,
            # every write by another connection would restart the copy).
            source.backup(destination)
            destination.execute("PRAGMA journal_mode=DELETE")
            problem = integrity_problem(destination)
            summary = summarize(destination)
        finally:
            destination.close()
    except sqlite3.Error as exc:
        raise _failed(db_path, target, exc) from exc
    finally:
        source.close()
    if problem is not None:
        raise BackupError(
            f'The copy of {db_path} fails SQLite\'s integrity check ("{problem}"): the '
            "store itself is probably damaged. Nothing was written to "
            f"{target}; the backups made earlier are in {db_path.parent / 'backups'}."
        )
    return summary


def _failed(db_path: Path, target: Path, exc: sqlite3.Error) -> BackupError:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL:
        return BackupError(
            f"The disk is full: {db_path} could not be copied to {target}. Free some space "
            "and try again; nothing was written."
        )
    if code in _UNREADABLE:
        return BackupError(
            f"{db_path} is damaged ({exc}), so no whole copy of it can be made. Nothing was "
            f"written to {target}; the backups made earlier are in "
            f"{db_path.parent / 'backups'}."
        )
    if code in _BUSY:
        return BackupError(
            f"{db_path} stayed locked by another program for 30 seconds ({exc}); try again "
            "in a moment; nothing was written."
        )
    return BackupError(f"Could not back up {db_path} to {target} ({exc}); nothing was written.")


def integrity_problem(conn: sqlite3.Connection) -> str | None:
    """SQLite's first complaint from the full `PRAGMA integrity_check`, None when ok."""
    rows = conn.execute("PRAGMA integrity_check(3)").fetchall()
    found = [str(row[0]) for row in rows]
    if found == ["ok"]:
        return None
    return " ".join(" ".join(found).replace("*** in database main ***", "").split())


def summarize(conn: sqlite3.Connection) -> StoreSummary:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    memories = int(conn.execute("SELECT count(*) FROM memory_item").fetchone()[0])
    conversations = int(conn.execute("SELECT count(*) FROM resource").fetchone()[0])
    return StoreSummary(version, memories, conversations)


@contextlib.contextmanager
def _header(path: Path) -> Iterator[bytes]:
    try:
        with path.open("rb") as file:
            yield file.read(len(MAGIC))
    except OSError as exc:
        raise BackupError(
            f"Cannot read {path} ({exc.strerror or exc}); check that it is a file you may "
            "read; nothing was changed."
        ) from exc


# -- daily backups -------------------------------------------------------------------------


def daily_backups(db_path: Path, backup_dir: Path | None) -> list[tuple[datetime, Path]]:
    """The automatic backups of this store, newest first, with the time in their name."""
    folder = backups_folder(db_path, backup_dir)
    prefix = f"{db_path.stem}.{DAILY}."
    found: list[tuple[datetime, Path]] = []
    with contextlib.suppress(OSError):
        for path in folder.glob(f"{prefix}*.bak"):
            stamp = path.name.removeprefix(prefix).removesuffix(".bak").split("-")[0]
            try:
                taken = datetime.strptime(stamp, STAMP).replace(tzinfo=UTC)
            except ValueError:
                continue  # not one of ours
            if path.is_file():
                found.append((taken, path))
    return sorted(found, reverse=True)


def daily_backup(
    db_path: Path, backup_dir: Path | None, keep: int, now: datetime | None = None
) -> BackupResult | None:
    """A new automatic backup when the newest is a day old (or there is none), then only
    the newest `keep` automatic ones are kept; `keep` 0 switches them off (and deletes
    none). None when none was due. Other backups (asked for, before a restore or an
    upgrade) are never deleted."""
    if keep <= 0:
        return None
    now = now or datetime.now(UTC)
    existing = daily_backups(db_path, backup_dir)
    made = None
    if not existing or now - existing[0][0] >= DAILY_INTERVAL:
        made = back_up(db_path, backup_dir=backup_dir, kind=DAILY, now=now)
    rotate(db_path, backup_dir, keep)
    return made


def rotate(db_path: Path, backup_dir: Path | None, keep: int) -> list[Path]:
    """Delete the automatic backups beyond the newest `keep`; the deleted ones."""
    removed = []
    for _, path in daily_backups(db_path, backup_dir)[max(keep, 1) :]:
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


# -- restoring -----------------------------------------------------------------------------


def check_backup(source: Path, db_path: Path) -> StagedRestore:
    """Check that `source` can be restored over the store at `db_path`, on a private copy
    made beside the store; the copy is what `put_in_place` puts in place.

    Raises BackupError naming `source`: missing, a folder, not a SQLite database, not a
    Memory Curator store, written by a newer version, or damaged."""
    source = source.expanduser()
    if not source.exists():
        raise BackupError(f"{source} does not exist: give the path of a backup file.")
    if source.is_dir():
        raise BackupError(f"{source} is a folder: give a backup file in it.")
    if source.resolve() == db_path.resolve():
        raise BackupError(f"{source} is the store itself: give a backup of it.")
    with _header(source) as head:
        if not head.startswith(MAGIC):
            raise _refused(source, "it is not a SQLite database")
    saved_at = datetime.fromtimestamp(source.stat().st_mtime, UTC)
    try:
        private_folder(db_path.parent)
    except OSError as exc:
        raise BackupError(
            f"Cannot create the data folder {db_path.parent} ({exc.strerror or exc}); "
            "nothing was changed."
        ) from exc
    # memory.db.restoring-….partial: a name of the store's (file_modes counts it so).
    copy = _temporary_beside(db_path, prefix=f"{db_path.name}.restoring-")
    try:
        _copy_file(source, copy)
        summary = _check_copy(source, copy)
    except BaseException:
        _remove_with_companions(copy)
        raise
    return StagedRestore(source, copy, summary, saved_at)


def _copy_file(source: Path, copy: Path) -> None:
    """The file's bytes, and its -wal's when one lies beside it (a store copied by hand
    while open): SQLite folds those in when the copy is checked."""
    try:
        shutil.copyfile(source, copy)
        wal = source.with_name(source.name + "-wal")
        if wal.is_file():
            copy_wal = copy.with_name(copy.name + "-wal")
            private_file(copy_wal)
            shutil.copyfile(wal, copy_wal)
    except OSError as exc:
        raise BackupError(
            f"Could not copy {source} beside the store ({exc.strerror or exc}); check that "
            "you may read it and that the disk has room; nothing was changed."
        ) from exc


def _check_copy(source: Path, copy: Path) -> StoreSummary:
    newest = SqliteDialect.schema_version
    try:
        conn = sqlite3.connect(copy, isolation_level=None)
    except sqlite3.Error as exc:
        raise _refused(source, f"SQLite cannot open it: {exc}") from exc
    try:
        conn.execute("PRAGMA journal_mode=DELETE")  # folds a -wal in: one file
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if version < 1 or not names >= STORE_TABLES:
            raise _refused(source, "it is a SQLite database, but not a Memory Curator store")
        if version > newest:
            raise BackupError(
                f"{source} was written by a newer Memory Curator (schema version {version}; "
                f"this version opens up to {newest}). Upgrade Memory Curator to restore it; "
                "nothing was changed."
            )
        problem = integrity_problem(conn)
        if problem is not None:
            raise BackupError(
                f'{source} is damaged: SQLite\'s integrity check reports "{problem}". '
                "Choose another backup; nothing was changed."
            )
        return summarize(conn)
    except sqlite3.DatabaseError as exc:
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code == sqlite3.SQLITE_NOTADB:
            raise _refused(source, "it is not a SQLite database") from exc
        if code == sqlite3.SQLITE_CORRUPT:
            raise BackupError(
                f"{source} is damaged ({exc}). Choose another backup; nothing was changed."
            ) from exc
        raise BackupError(f"Could not check {source} ({exc}); nothing was changed.") from exc
    finally:
        conn.close()


def _refused(source: Path, reason: str) -> BackupError:
    return BackupError(
        f"{source} cannot be restored: {reason}. Choose a backup made by Memory Curator "
        "(memory-app backup, or File > Back Up Store…); nothing was changed."
    )


def put_in_place(
    staged: StagedRestore, db_url: str, backup_dir: Path | None, now: datetime | None = None
) -> RestoreResult:
    """Keep the current store in the backups folder and put the checked copy in its place,
    then open it once. Refuses (StoreInUseError) while anything has the store open. On
    any failure the previous store is back where it was.

    The store is copied into, not replaced: its file stays the same one, so a program
    that opened it just before (and waits for the lock) reads the restored store, never
    the one set aside. Only a file SQLite cannot read at all is moved aside."""
    db_path = store_file(db_url)
    folder = backups_folder(db_path, backup_dir)
    kept: Path | None = None
    copied = False
    try:
        with _held(db_path) as live:
            if live is not None:
                kept = _keep_copy(live, db_path, folder, now)
                _copy_into(staged, live, db_path)
                copied = True
            else:
                kept = _replace_file(staged, db_path, folder, now)
    finally:
        staged.discard()
    try:
        Database(db_url, backup_dir=backup_dir).close()  # checks it, upgrades an older one
    except StoreError as exc:
        try:
            _put_back(kept, db_path, copied)
        except (OSError, sqlite3.Error, StoreError) as failed:
            raise BackupError(
                f"The restored store {db_path} could not be opened ({exc}), and the previous "
                f"store could not be put back ({failed}): it is kept as {kept}; copy it to "
                f"{db_path} once nothing has the store open."
            ) from exc
        raise BackupError(
            f"The restored store {db_path} could not be opened ({exc}); the previous store "
            "was put back, nothing was changed."
        ) from exc
    return RestoreResult(staged.source, db_path, kept, staged.summary)


def _keep_copy(live: sqlite3.Connection, db_path: Path, folder: Path, now: datetime | None) -> Path:
    """SQLite's copy of the held store as `memory.before-restore.<time>.bak` (page by
    page, whatever they hold: a damaged store is kept as it is)."""
    try:
        private_folder(folder)
    except OSError as exc:
        raise BackupError(
            f"Could not keep the current store aside in {folder} ({exc.strerror or exc}); "
            "nothing was changed."
        ) from exc
    kept = _free_name(folder, backup_name(db_path, BEFORE_RESTORE, now))
    temporary = _temporary_beside(kept)
    try:
        destination = sqlite3.connect(temporary, isolation_level=None)
        try:
            live.backup(destination)
            destination.execute("PRAGMA journal_mode=DELETE")
        finally:
            destination.close()
        os.replace(temporary, kept)
    except (OSError, sqlite3.Error) as exc:
        _remove_with_companions(temporary)
        reason = exc.strerror if isinstance(exc, OSError) else exc
        raise BackupError(
            f"Could not keep the current store aside in {folder} ({reason or exc}); "
            "nothing was changed."
        ) from exc
    return kept


def _copy_into(staged: StagedRestore, live: sqlite3.Connection, db_path: Path) -> None:
    """The checked copy's pages into the held store, in one transaction of the store's
    (a failure rolls it back)."""
    try:
        source = sqlite3.connect(staged.copy, isolation_level=None)
        try:
            source.backup(live)
        finally:
            source.close()
    except sqlite3.Error as exc:
        raise BackupError(
            f"Could not put {staged.source} in place of {db_path} ({exc}); the store was "
            "left as it was."
        ) from exc


def _replace_file(
    staged: StagedRestore, db_path: Path, folder: Path, now: datetime | None
) -> Path | None:
    """No store SQLite can read (none, an empty file, or not a database): move what is
    there aside and rename the checked copy into its place. Where the kept store went,
    None when there was none."""
    kept = None
    if db_path.exists() and db_path.stat().st_size > 0:
        kept = _set_aside(db_path, folder, now)
    else:
        _remove_with_companions(db_path)  # an empty file is no store
    try:
        os.replace(staged.copy, db_path)
    except OSError as exc:
        if kept is not None:
            with contextlib.suppress(OSError):
                _move_with_companions(kept, db_path)
        raise BackupError(
            f"Could not put {staged.source} in place of {db_path} "
            f"({exc.strerror or exc}); the store was left as it was."
        ) from exc
    return kept


def _put_back(kept: Path | None, db_path: Path, copied: bool) -> None:
    """The previous store again, after the restored one could not be opened: copied back
    into the store's file, or moved back when it had been moved aside."""
    if kept is None or not copied:
        _remove_with_companions(db_path)
        if kept is not None:
            _move_with_companions(kept, db_path)
        return
    with _held(db_path) as live:
        if live is None:
            raise BackupError(f"SQLite cannot read {db_path}")
        source = sqlite3.connect(kept, isolation_level=None)
        try:
            source.backup(live)
        finally:
            source.close()


def restore(
    source: Path, db_url: str, backup_dir: Path | None, now: datetime | None = None
) -> RestoreResult:
    """Check `source` and put it in place of the store (`check_backup`, `put_in_place`)."""
    # The file is checked first: a refused backup leaves the store byte for byte as it was.
    staged = check_backup(source, store_file(db_url))
    return put_in_place(staged, db_url, backup_dir, now)


@contextlib.contextmanager
def _held(db_path: Path) -> Iterator[sqlite3.Connection | None]:
    """While inside, nothing else can open the store: the connection that holds it, None
    when there is no store SQLite can read (then nobody holds it); StoreInUseError when
    something has it open now. Leaving WAL mode needs every other connection closed (and
    folds the -wal into the file); the exclusive lock then keeps newcomers waiting (their
    busy timeout) until the connection closes. Nothing in this process may open and
    close the store's file meanwhile: closing any descriptor of it drops the lock."""
    if not db_path.is_file() or db_path.stat().st_size == 0:
        yield None
        return
    try:
        conn = sqlite3.connect(db_path, timeout=0, isolation_level=None)
    except sqlite3.Error:
        yield None
        return
    mode = None
    holding = False
    try:
        try:
            mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA locking_mode=EXCLUSIVE")
            # Exclusive locking mode keeps the lock after the transaction ends.
            conn.execute("BEGIN EXCLUSIVE")
            conn.execute("COMMIT")
            holding = True
        except sqlite3.DatabaseError as exc:
            code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
            if code in _BUSY:
                raise StoreInUseError(
                    f"{db_path} is open in another program: the Memory Curator window, "
                    "`memory-app mcp` (started by Claude Code), an import or a hook. Close "
                    "it (in the window, use File > Restore from Backup… instead) and try "
                    "again; nothing was changed."
                ) from exc
            if code not in _UNREADABLE:
                raise BackupError(
                    f"Could not prepare {db_path} for the restore ({exc}); nothing was changed."
                ) from exc
        yield conn if holding else None
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        with contextlib.suppress(sqlite3.Error):
            if holding and mode == "wal":  # the store's mode, as it was
                conn.execute("PRAGMA journal_mode=WAL")
        conn.close()


def _set_aside(db_path: Path, folder: Path, now: datetime | None) -> Path:
    """Move the store (and its -wal, -shm) into the backups folder: first renamed beside
    itself, which frees its name at once, then moved, a copy when the backups folder is
    on another file system. On failure it is back under its name."""
    try:
        private_folder(folder)
    except OSError as exc:
        raise BackupError(
            f"Could not keep the current store aside in {folder} ({exc.strerror or exc}); "
            "nothing was changed."
        ) from exc
    kept = _free_name(folder, backup_name(db_path, BEFORE_RESTORE, now))
    aside = _temporary_beside(db_path, prefix=f"{db_path.name}.{BEFORE_RESTORE}-")
    try:
        _move_with_companions(db_path, aside)
        _move_with_companions(aside, kept)
    except OSError as exc:
        _back_under(db_path, aside, kept)
        with contextlib.suppress(OSError):
            if db_path.exists() and aside.stat().st_size == 0:
                aside.unlink()  # the name reserved beside the store, never used
        raise BackupError(
            f"Could not keep the current store aside in {folder} ({exc.strerror or exc}); "
            "nothing was changed."
        ) from exc
    return kept


def _back_under(db_path: Path, *places: Path) -> None:
    """Whatever of the store and its companions a failed move left in `places`, back
    under the store's names (best effort: never over a file that is there)."""
    for place in places:
        for suffix in ("", *SQLITE_COMPANIONS):
            moved = place.with_name(place.name + suffix)
            home = db_path.with_name(db_path.name + suffix)
            if moved.exists() and not home.exists():
                with contextlib.suppress(OSError):
                    _move(moved, home)


def _move_with_companions(source: Path, target: Path) -> None:
    """Move a database and its -wal, -shm and -journal together (a -wal belongs to the
    file of its name: left behind, SQLite would apply it to another database)."""
    _move(source, target)
    for suffix in SQLITE_COMPANIONS:
        companion = source.with_name(source.name + suffix)
        if companion.exists():
            _move(companion, target.with_name(target.name + suffix))


def _move(source: Path, target: Path) -> None:
    """A rename; across file systems (EXDEV) a private copy beside the target renamed onto
    it, then the source removed (shutil.move's way, with no half-copied target)."""
    try:
        os.replace(source, target)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    temporary = target.with_name(f".{target.name}.moving")
    try:
        private_file(temporary)
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    source.unlink()


def _remove_with_companions(path: Path) -> None:
    for each in (path, *(path.with_name(path.name + s) for s in SQLITE_COMPANIONS)):
        with contextlib.suppress(OSError):
            each.unlink()
