"""Where the store, the log and the capture queue are, found exactly as the app finds them.

`memory_app.config` and `memory_app.logs` import platformdirs (and logs the redaction
code), which alone measured a quarter of the hook's budget; their few lines are repeated
here with plain `os.path`, and tests/unit/hooks/test_runtime.py checks both agree. Only
Windows, whose folders need the shell's API, still asks platformdirs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# The names memory_app.config and memory_app.logs use: one folder name for the data and
# the log (config.APP_FOLDER, logs.LOG_APP).
APP_FOLDER = "memory-app"
LOG_APP = APP_FOLDER
DB_FILE = "memory.db"
LOG_FILE = "memory-app.log"
QUEUE_FILE = "hook-queue.jsonl"
INJECTION_LOG = "hook-injections.jsonl"


class NotASQLiteStore(ValueError):
    """MEMORY_APP_DB_URL names a database the hook cannot open read-only by itself."""


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def _xdg(env: Mapping[str, str], name: str, default: str) -> str:
    # platformdirs.unix: the variable stripped, or the default under the home folder.
    value = env.get(name, "").strip()
    return value or os.path.join(_home(env), default)


def data_dir(env: Mapping[str, str]) -> str:
    """config.resolve_settings's data folder: MEMORY_APP_DATA_DIR, else the platform's."""
    override = env.get("MEMORY_APP_DATA_DIR")
    if override:
        return os.path.expanduser(override)
    if sys.platform == "darwin":
        return os.path.join(_home(env), "Library", "Application Support", APP_FOLDER)
    if sys.platform == "win32":  # pragma: no cover - the shell's known folders
        import platformdirs

        return platformdirs.user_data_dir(APP_FOLDER, appauthor=False)
    return os.path.join(_xdg(env, "XDG_DATA_HOME", os.path.join(".local", "share")), APP_FOLDER)


def store_path(env: Mapping[str, str]) -> str:
    """The SQLite file config.resolve_settings's URL points at."""
    url = env.get("MEMORY_APP_DB_URL") or ""
    if not url:
        return os.path.join(data_dir(env), DB_FILE)
    if not url.startswith("sqlite:///"):
        raise NotASQLiteStore("MEMORY_APP_DB_URL is not a sqlite:/// file URL")
    path = url[len("sqlite:///") :].split("?", 1)[0]
    if "%" in path:  # SQLAlchemy unquotes the database part; urllib costs ~7 ms, so only then
        from urllib.parse import unquote

        path = unquote(path)
    if not path or path == ":memory:":
        raise NotASQLiteStore("MEMORY_APP_DB_URL names no database file")
    return path


def read_only_uri(path: str) -> str:
    """A SQLite URI opening the file read-only: mode=ro never creates, migrates nor
    writes it."""
    quoted = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{quoted}?mode=ro"


def log_file(env: Mapping[str, str]) -> str:
    """logs.log_folder()'s file: $MEMORY_APP_DATA_DIR/logs, else the platform's."""
    override = env.get("MEMORY_APP_DATA_DIR")
    if override:
        folder = os.path.join(os.path.expanduser(override), "logs")
    elif sys.platform == "darwin":
        folder = os.path.join(_home(env), "Library", "Logs", LOG_APP)
    elif sys.platform == "win32":  # pragma: no cover - the shell's known folders
        import platformdirs

        folder = platformdirs.user_log_dir(LOG_APP, appauthor=False)
    else:
        state = _xdg(env, "XDG_STATE_HOME", os.path.join(".local", "state"))
        folder = os.path.join(state, LOG_APP, "logs")
    return os.path.join(folder, LOG_FILE)


def queue_file(env: Mapping[str, str]) -> str:
    """Beside the store, where the capture worker (capture_worker.py) reads it."""
    return os.path.join(os.path.dirname(store_path(env)), QUEUE_FILE)
