"""Backups of the open store: how many automatic ones to keep, the daily one, and a
restore under a running service (the window's File > Restore from Backup…).

The mechanics are in store/backup.py; this module adds what needs the service or the
environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memory_app.store.backup import (
    DEFAULT_KEEP,
    BackupError,
    BackupResult,
    RestoreResult,
    StagedRestore,
    backups_folder,
    daily_backup,
    put_in_place,
)

if TYPE_CHECKING:
    from memory_app.service import MemoryService

KEEP_VARIABLE = "MEMORY_APP_BACKUP_KEEP"


def parse_keep(value: object) -> int:
    """A count of automatic backups to keep: a whole number, 0 or more (0: none are made).
    Raises ValueError naming the value."""
    text = str(value).strip()
    if not text.isdigit():
        raise ValueError(
            f"{text!r} is not a number of backups to keep (0 or more; 0 switches the "
            "daily backups off)"
        )
    return int(text)


def keep_from_env(env: Mapping[str, str] | None = None) -> int:
    """How many daily backups `memory-app maintenance run` keeps: MEMORY_APP_BACKUP_KEEP,
    else 7. Raises ValueError naming the variable when it is not a number."""
    env = os.environ if env is None else env
    value = env.get(KEEP_VARIABLE, "").strip()
    if not value:
        return DEFAULT_KEEP
    try:
        return parse_keep(value)
    except ValueError:
        raise ValueError(
            f"{KEEP_VARIABLE}={value!r} is not a number (0 or more; 0 switches the daily "
            "backups off)"
        ) from None


def store_paths(service: MemoryService) -> tuple[Path, Path]:
    """The open store's file and its backups folder; BackupError when it is no file."""
    path = service.db.path
    if path is None:
        raise BackupError(
            f"{service.db.url} is not a SQLite file, so it cannot be backed up or restored."
        )
    return path, backups_folder(path, service.db.backup_dir)


def take_daily_backup(
    service: MemoryService, keep: int, now: datetime | None = None
) -> BackupResult | None:
    """The automatic backup of the service's store when one is due (see
    store.backup.daily_backup); None when none was."""
    path, folder = store_paths(service)
    return daily_backup(path, folder, keep, now)


def restore_into(service: MemoryService, staged: StagedRestore) -> RestoreResult:
    """Put a checked backup in place of the service's store and open that instead.

    The service lets go of its store first (its pending access counts are written), so
    only other programs can hold it; whatever happens, the service is open again
    afterwards, on the restored store or, when the restore was refused, on the one it had.
    Run it where the service's calls run (the window's database worker)."""
    store_paths(service)
    service.close()
    try:
        return put_in_place(staged, service.db.url, service.db.backup_dir)
    finally:
        service.reopen()
