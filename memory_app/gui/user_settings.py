"""The person's settings of the window (QSettings), under the app's one folder name.

They live in the platform's settings store under organization and application
`memory-app` (config.APP_FOLDER): `~/.config/memory-app/memory-app.conf` on Linux, next
to the data in `~/.local/share/memory-app` and the log in `~/.local/state/memory-app`.
Earlier versions used the organization `memory-curator`; the first start after the
rename moves those settings over, so nothing a person chose is lost.

The names are given explicitly rather than taken from the application's name: that is the
desktop id (config.APP_ID), which is not a folder name.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings

from memory_app.config import APP_FOLDER, LEGACY_FOLDER

log = logging.getLogger(__name__)


def _open(organization: str) -> QSettings:
    settings = QSettings(
        QSettings.Format.NativeFormat, QSettings.Scope.UserScope, organization, APP_FOLDER
    )
    settings.setFallbacksEnabled(False)  # this file alone, not system-wide defaults
    return settings


def open_user_settings() -> QSettings:
    """The settings of this user, after moving those of an earlier version over."""
    settings = _open(APP_FOLDER)
    if not settings.allKeys():
        move_legacy_settings(settings)
    return settings


def move_legacy_settings(settings: QSettings) -> int:
    """Copy every key the `memory-curator` settings hold into `settings`, then remove the
    old ones (their file and its emptied folder, where the platform uses files). Returns
    how many keys moved; on a failure to write the old settings stay as they are."""
    legacy = _open(LEGACY_FOLDER)
    keys = legacy.allKeys()
    if not keys:
        return 0
    for key in keys:
        settings.setValue(key, legacy.value(key))
    settings.sync()
    if settings.status() != QSettings.Status.NoError:
        log.warning(
            "Could not move the settings of %s into %s", legacy.fileName(), settings.fileName()
        )
        return 0
    legacy.clear()
    legacy.sync()
    old = Path(legacy.fileName())
    if old.is_absolute() and old.parent.name == LEGACY_FOLDER:  # a file (not the registry)
        try:
            old.unlink(missing_ok=True)
            old.parent.rmdir()  # only when nothing else is left in it
        except OSError:
            pass
    log.info("Moved %d settings from %s to %s", len(keys), old, settings.fileName())
    return len(keys)
