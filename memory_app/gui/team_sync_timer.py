"""Team sync in the background (issue 20, offline first): a while after the window
opens, then every few minutes, while this store is connected to a team store.

The sync (memory_app/team/sync.py) runs on a daemon thread of its own, never on the
window's, the database worker's or the job thread's: imports and maintenance never wait
behind a sync held up by the server, and quitting does not wait for it. Abandoning it
is safe: the connection's limits end a stuck sync in seconds anyway
(store/dialects/pg_connect.py), each batch is stored whole, and no local write
transaction stays open while the sync waits on the server. A failure (offline, a refused
login, a busy server) is shown by the status indicator and kept in
team_link.last_error; the next run catches up, and a success clears the indicator's
sync error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from memory_app.gui.context import AppContext, StatusModel
from memory_app.gui.runtime import DetachedWorker
from memory_app.store.database import Database
from memory_app.store.errors import StoreError
from memory_app.team.link import link_of
from memory_app.team.sync import SyncFailed, SyncReport, sync

log = logging.getLogger(__name__)

STARTUP_DELAY_MS = 15_000
SYNC_INTERVAL_MS = 10 * 60 * 1000
THREAD = "team-sync"


class TeamSyncTimer(QObject):
    """Syncs with the team store on a timer; `sync_now()` for a run at once (tests).

    Signals:
        synced(object): a run ended; its SyncReport, or None (not connected, failed).
    """

    synced = Signal(object)

    def __init__(
        self,
        context: AppContext,
        *,
        interval_ms: int = SYNC_INTERVAL_MS,
        sync_store: Callable[[Database], SyncReport] = sync,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self._sync_store = sync_store
        self._worker = DetachedWorker(THREAD)
        self._running = False
        self._failed_message: str | None = None  # the indicator's message while it is ours
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.sync_now)

    def start(self, delay_ms: int = STARTUP_DELAY_MS) -> None:
        QTimer.singleShot(delay_ms, self, self.sync_now)
        self._timer.start()

    def stop(self) -> None:
        """For good (the app quits): a sync still running delivers nothing."""
        self._timer.stop()
        self._worker.close()

    def sync_now(self) -> object:
        return self.context.spawn(self.run())

    async def run(self) -> SyncReport | None:
        if self._running:
            return None
        context = self.context
        db = context.service.db
        if await context.call(lambda: link_of(db)) is None:
            self.synced.emit(None)
            return None
        self._running = True
        try:
            report = await self._worker.run(self._sync_store, db)
        except StoreError as exc:  # offline, refused: the app keeps working
            reason = exc.reason if isinstance(exc, SyncFailed) else str(exc)
            log.info("team sync failed: %s", reason)
            self._failed_message = self.tr("Team sync failed: {reason}").format(reason=reason)
            context.status.fail(self._failed_message)
            self.synced.emit(None)
            return None
        finally:
            self._running = False
        status = context.status
        if status.state == StatusModel.ERROR and status.message == self._failed_message:
            status.finish(self.tr("Team sync caught up"))
        self._failed_message = None
        pulled = report.pull
        if pulled.added or pulled.updated or pulled.removed or pulled.conflicts:
            context.events.memories_changed.emit()
        if pulled.conflicts:
            context.events.notify.emit(
                self.tr("%Ln team conflicts to decide in Conflicts", "", len(pulled.conflicts)),
                None,
            )
        self.synced.emit(report)
        return report
