"""Backups from the window: File > Back Up Store…, File > Restore from Backup…, and the
automatic daily backup.

Backups are taken on a thread of their own, not the database worker nor the job thread,
so the window keeps answering and a backup can be taken while an import runs. A restore
happens in place, without a restart: the backup is checked on that thread, the person
confirms, and then, on the database worker (so no service call runs meanwhile), the
service lets go of its store, the backup is put in its place, and the service opens it;
every view reloads. It is refused while an import or maintenance runs (they hold the
store), and while another program has the store open.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping
from datetime import datetime

from PySide6.QtCore import QDateTime, QLocale, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from memory_app.gui.context import AppContext
from memory_app.gui.runtime import Worker
from memory_app.operations.backups import (
    keep_from_env,
    parse_keep,
    restore_into,
    store_paths,
    take_daily_backup,
)
from memory_app.store.backup import (
    BackupResult,
    RestoreResult,
    back_up,
    backup_name,
    check_backup,
)
from memory_app.store.errors import StoreError
from memory_app.store.file_modes import private_folder

log = logging.getLogger(__name__)

# The jobs that hold the store open from a process of their own: a restore waits for them.
STORE_JOBS = ("import", "startup-import", "retry-pending", "maintenance")
KEEP_KEY = "backups/keep"  # automatic backups kept; 0 switches them off
STARTUP_DELAY_MS = 60_000  # after the startup import and maintenance have begun
CHECK_INTERVAL_MS = 60 * 60 * 1000


def _when(moment: datetime) -> str:
    """A time the locale's way, in local time."""
    stamp = QDateTime.fromSecsSinceEpoch(int(moment.timestamp()))
    return QLocale().toString(stamp, QLocale.FormatType.ShortFormat)


class BackupActions(QObject):
    """What File > Back Up Store… and File > Restore from Backup… do.

    Signals:
        backed_up(object): a backup was written; its `BackupResult`.
        restored(object): a backup was put in place of the store; its `RestoreResult`.
    """

    backed_up = Signal(object)
    restored = Signal(object)

    def __init__(self, context: AppContext, window: QWidget) -> None:
        super().__init__(window)
        self.context = context
        self.window = window
        self._worker = Worker("memory-backup")

    def back_up(self) -> object:
        """Ask where, then back up in the background (a task)."""
        return self.context.spawn(self._back_up())

    def restore(self) -> object:
        """Ask which backup, check it, confirm, then restore it in place (a task)."""
        return self.context.spawn(self._restore())

    def shutdown(self) -> None:
        self._worker.shutdown()

    async def _back_up(self) -> BackupResult | None:
        context, status = self.context, self.context.status
        try:
            db_path, folder = store_paths(context.service)
        except StoreError as exc:
            status.fail(str(exc))
            return None
        with contextlib.suppress(OSError):
            private_folder(folder)  # so the dialog opens in it
        target = context.dialogs.backup_path(self.window, folder / backup_name(db_path))
        if target is None:
            return None
        status.begin(self.tr("Backing up the store…"))
        try:
            # The dialog has asked before replacing an existing file.
            made = await self._worker.run(
                back_up, db_path, target, backup_dir=folder, overwrite=True
            )
        except StoreError as exc:
            status.fail(self.tr("The backup failed: {error}").format(error=exc))
            return None
        message = self.tr("Backed up the store to {path} ({size}, integrity checked)").format(
            path=made.path, size=QLocale().formattedDataSize(made.size)
        )
        status.finish(message)
        context.events.notify.emit(message, None)
        self.backed_up.emit(made)
        return made

    def _store_busy(self) -> bool:
        """True (and says so) while a job holds the store from a process of its own."""
        jobs = self.context.jobs
        if self.context.maintenance.running or any(jobs.active(kind) for kind in STORE_JOBS):
            self.context.status.fail(
                self.tr(
                    "An import or maintenance is running: wait for it to end (or cancel it), "
                    "then restore. Nothing was changed."
                )
            )
            return True
        return False

    async def _restore(self) -> RestoreResult | None:
        context, status = self.context, self.context.status
        if self._store_busy():
            return None
        try:
            db_path, folder = store_paths(context.service)
        except StoreError as exc:
            status.fail(str(exc))
            return None
        source = context.dialogs.backup_to_restore(
            self.window, folder if folder.is_dir() else db_path.parent
        )
        if source is None:
            return None
        status.begin(self.tr("Checking the backup…"))
        try:
            staged = await self._worker.run(check_backup, source, db_path)
        except StoreError as exc:
            status.fail(str(exc))
            return None
        status.finish()
        locale = QLocale()
        question = self.tr(
            "Put this backup in place of the store?\n\n"
            "Backup: {name}\nSaved: {when}\nMemories: {memories}\nConversations: {conversations}"
            "\n\nThe current store is kept in {folder}, and the window then shows the "
            "restored memories."
        ).format(
            name=source.name,
            when=_when(staged.saved_at),
            memories=locale.toString(staged.summary.memories),
            conversations=locale.toString(staged.summary.conversations),
            folder=folder,
        )
        if not context.dialogs.confirm(self.window, self.tr("Restore from Backup"), question):
            staged.discard()
            return None
        if self._store_busy():  # one may have started while the question was open
            staged.discard()
            return None
        status.begin(self.tr("Restoring the store…"))
        try:
            done = await context.call(restore_into, context.service, staged)
        except StoreError as exc:
            status.fail(self.tr("The restore failed: {error}").format(error=exc))
            context.events.memories_changed.emit()  # the service was opened again
            return None
        context.events.memories_changed.emit()
        context.events.sources_changed.emit()
        message = self.tr("Restored the store from {name}").format(name=source.name)
        if done.kept is not None:
            message = self.tr("{restored}; the previous store is kept as {kept}").format(
                restored=message, kept=done.kept
            )
        status.finish(message)
        context.events.notify.emit(message, None)
        self.restored.emit(done)
        return done


def kept_backups(value: object, env: Mapping[str, str] | None = None) -> int:
    """How many automatic backups the window keeps: the QSettings value `backups/keep`
    when set, else MEMORY_APP_BACKUP_KEEP, else 7. Raises ValueError for a bad value."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return keep_from_env(os.environ if env is None else env)
    try:
        return parse_keep(value)
    except ValueError as exc:
        raise ValueError(f"the setting {KEEP_KEY}: {exc}") from None


class DailyBackups(QObject):
    """The automatic daily backup, in the background: a minute after the window opens,
    then every hour, a backup is taken when the newest automatic one is a day old, and
    the newest N are kept (`kept_backups`).

    Signals:
        checked(object): a check ended; the new `BackupResult`, or None when none was due
            (or it failed: the status bar then says why).
    """

    checked = Signal(object)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._worker = Worker("memory-daily-backup")
        self._running = False
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self.check_now)

    def start(self, delay_ms: int = STARTUP_DELAY_MS) -> None:
        QTimer.singleShot(delay_ms, self, self.check_now)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._worker.shutdown()

    def check_now(self) -> object:
        """Take the daily backup if it is due (a task)."""
        return self.context.spawn(self._check())

    async def _check(self) -> BackupResult | None:
        if self._running:
            return None
        self._running = True
        status = self.context.status
        made: BackupResult | None = None
        try:
            keep = kept_backups(self.context.settings.value(KEEP_KEY))
            made = await self._worker.run(take_daily_backup, self.context.service, keep)
        except ValueError as exc:
            status.fail(self.tr("Daily backups are off: {error}").format(error=exc))
        except StoreError as exc:
            log.warning("the daily backup failed: %s", exc)
            status.fail(self.tr("The daily backup failed: {error}").format(error=exc))
        finally:
            self._running = False
        if made is not None:
            log.info("daily backup written: %s", made.path)
        self.checked.emit(made)
        return made
