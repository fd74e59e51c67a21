"""New Claude Code and Codex sessions are imported while the app is open, not only at its start.

Claude Code writes each session to `~/.claude/projects/<project>/<session>.jsonl`, the
Codex CLI to `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, and both append to it for as
long as the session lasts. The watcher follows each of these folders and the folders in
it down to where session files are (one level for Claude Code, three for Codex); any
change (re)starts one timer of the settle window plus a small margin, and when it fires
the scheduler imports what has settled: files written in the last settle window are
still in use and wait.

A file only grows while a session runs, and a folder watch does not see that. So after
every import, if a session file is still inside its settle window (or the import limit
left sessions for later), another check is armed: a long session is imported once it has
been quiet for the settle window, without watching every file.

A sessions folder that does not exist yet is waited for through its nearest existing
parent folder (and, should even that watch fail, by a slow re-check).

Watching begins only once the person has said yes to automatic imports (the scheduler's
`auto_import`, see `auto_import.py`), and ends when they switch them off.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from memory_app.domain.records import ImportReport
from memory_app.gui.maintenance_scheduler import MaintenanceScheduler
from memory_app.ingest import discover

log = logging.getLogger(__name__)

MARGIN_MS = 2_000  # past the settle window, so the file is old enough when we look
RECHECK_MS = 60_000  # a missing folder no watch can wait for is looked for this often
CLAUDE_DEPTH = 1  # <project>/<session>.jsonl
CODEX_DEPTH = 3  # YYYY/MM/DD/rollout-*.jsonl


def project_folders(root: Path) -> list[Path]:
    """The folders directly inside `root` (Claude Code's per-project folders)."""
    try:
        with os.scandir(root) as entries:
            return sorted(
                Path(e.path)
                for e in entries
                if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            )
    except OSError:  # gone or unreadable meanwhile: the next change looks again
        return []


def folders_below(root: Path, depth: int) -> list[Path]:
    """The folders inside `root` down to `depth` levels (1: those directly inside)."""
    found: list[Path] = []
    level = [root]
    for _ in range(depth):
        level = [child for folder in level for child in project_folders(folder)]
        found += level
    return sorted(found)


def nearest_existing(path: Path) -> Path | None:
    """The closest folder above `path` that exists (the one to watch for it)."""
    for parent in path.parents:
        if parent.is_dir():
            return parent
    return None


def seconds_until_settled(root: Path, settle_seconds: float, now: float | None = None) -> float:
    """How long until every session file under `root` is older than the settle window;
    0 when none is still being written (or there is no folder)."""
    if not root.is_dir():
        return 0.0
    now = time.time() if now is None else now
    try:
        files = discover([root])
    except OSError:
        return 0.0
    wait = 0.0
    for path in files:
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        wait = max(wait, settle_seconds - age)
    return wait


class SessionWatcher(QObject):
    """Watches the sessions folders and has the scheduler import new sessions.

    Built by the composition root next to the scheduler, whose sessions folders, settle
    window and one-import-at-a-time rule it uses. `start()` begins watching (never
    failing: a missing folder is waited for) as soon as automatic imports are on, and
    follows the scheduler's `auto_import_changed` from then on; `stop()` ends it.

    Signals:
        triggered: the settle timer fired and an import was asked for.
    """

    triggered = Signal()

    def __init__(
        self,
        scheduler: MaintenanceScheduler,
        *,
        margin_ms: int = MARGIN_MS,
        recheck_ms: int = RECHECK_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        # Each folder watched, and how deep below it session files are.
        self.roots = {scheduler.projects_root: CLAUDE_DEPTH, scheduler.codex_root: CODEX_DEPTH}
        self.margin_ms = margin_ms
        self._watcher: QFileSystemWatcher | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._fire)
        # Only when no folder above the missing one could be watched.
        self._recheck = QTimer(self)
        self._recheck.setInterval(recheck_ms)
        self._recheck.timeout.connect(self._recheck_root)
        self._wanted = False  # start() was called: watch whenever automatic imports are on
        scheduler.imported.connect(self._after_import)
        scheduler.auto_import_changed.connect(self._auto_import_changed)

    @property
    def settle_ms(self) -> int:
        """The settle window plus the margin: how long after a change the check runs."""
        return int(self.scheduler.settle_seconds * 1000) + self.margin_ms

    @property
    def active(self) -> bool:
        return self._watcher is not None

    def watched(self) -> list[Path]:
        """The folders being watched now (for tests and the log)."""
        if self._watcher is None:
            return []
        return sorted(Path(p) for p in self._watcher.directories())

    def pending(self) -> bool:
        """A check is armed."""
        return self._timer.isActive()

    def start(self) -> bool:
        """Watch whenever automatic imports are on; True when watching now, False when
        background work is switched off or the person has not said yes (yet)."""
        if not self.scheduler.enabled:
            return False
        self._wanted = True
        if not self.scheduler.auto_import:
            return False  # _auto_import_changed begins once they say yes
        if self._watcher is None:
            self._watcher = QFileSystemWatcher(self)
            self._watcher.directoryChanged.connect(self._changed)
        self._sync()
        return True

    def stop(self) -> None:
        self._wanted = False
        self._stop_watching()

    def _auto_import_changed(self, on: bool) -> None:
        if on and self._wanted:
            self.start()
        elif not on:
            self._stop_watching()

    def _stop_watching(self) -> None:
        self._timer.stop()
        self._recheck.stop()
        if self._watcher is not None:
            self._watcher.directoryChanged.disconnect(self._changed)
            paths = self._watcher.directories()
            if paths:
                self._watcher.removePaths(paths)
            self._watcher.deleteLater()
            self._watcher = None

    # -- watching ---------------------------------------------------------------------

    def _sync(self) -> bool:
        """Watch each sessions folder and the folders in it, or the nearest folder above
        a missing one; True when any sessions folder exists."""
        watcher = self._watcher
        if watcher is None:
            return False
        wanted: set[str] = set()
        targets: list[Path | None] = []  # each root, or what is watched for it
        for root, depth in self.roots.items():
            if root.is_dir():
                wanted |= {str(root), *(str(p) for p in folders_below(root, depth))}
                targets.append(root)
            else:
                above = nearest_existing(root)
                targets.append(above)
                if above is not None:
                    wanted.add(str(above))
        present = any(target in self.roots for target in targets)
        current = set(watcher.directories())
        gone = current - wanted
        if gone:
            watcher.removePaths(sorted(gone))
        new = sorted(p for p in wanted - current if os.path.isdir(p))
        failed = watcher.addPaths(new) if new else []
        if failed:  # e.g. the inotify limit: say so, and look now and then instead
            log.warning("cannot watch %s for new sessions", ", ".join(failed))
        now = set(watcher.directories())
        if all(target is not None and str(target) in now for target in targets):
            self._recheck.stop()
        elif not self._recheck.isActive():
            self._recheck.start()
        return present

    def _changed(self, path: str) -> None:
        changed = Path(path)
        # A project (or a day's folder) came or went, a folder above a missing sessions
        # folder changed, or a watched folder was removed: watch what is there now.
        rewatch = not changed.is_dir() or any(
            changed == root
            or changed in root.parents
            or (root in changed.parents and len(changed.relative_to(root).parts) < depth)
            for root, depth in self.roots.items()
        )
        if rewatch and not self._sync():
            return  # nothing to import until a sessions folder exists
        self._restart()

    def _recheck_root(self) -> None:
        if self._sync() and not self._timer.isActive():
            self._restart()

    def _restart(self) -> None:
        self._timer.start(self.settle_ms)

    # -- importing --------------------------------------------------------------------

    def _fire(self) -> None:
        self.triggered.emit()
        self.scheduler.import_new_sessions()

    def _after_import(self, report: Any) -> None:
        """After any import of new sessions (the startup one too): look again later if
        a session is still being written or the import limit left some for later."""
        if self._watcher is None or self._timer.isActive():
            return  # a check is already armed
        if isinstance(report, ImportReport) and report.cancelled:
            return  # cancelled by a person: the next change or start takes them
        if self.scheduler.deferred:
            self._restart()
            return
        self.scheduler.context.spawn(self._follow_up())

    async def _follow_up(self) -> None:
        context = self.scheduler.context
        settle = self.scheduler.settle_seconds
        waits = [await context.call(seconds_until_settled, root, settle) for root in self.roots]
        wait = max(waits)
        if wait > 0 and self._watcher is not None and not self._timer.isActive():
            self._timer.start(int(wait * 1000) + self.margin_ms)
