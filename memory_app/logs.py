"""Where log records go: a private rotating file, stderr, and the uncaught-exception hooks.

Without this, the warnings of the modules' loggers (and any crash) of an app started
from the desktop menu were lost. The file lives in the platform's log folder
(`$XDG_STATE_HOME/memory-app/logs` on Linux), one for the user whichever store
`--data-dir` opens, so Help > Open Log Folder and a bug report always find it. Only
MEMORY_APP_DATA_DIR, which sandboxes a whole run (tests, benchmarks), moves it: into
`logs/` inside that folder, so such runs never write to the real home. Earlier versions
wrote to a `memory-curator` folder instead; `session` moves its files over once.

Every record passes a filter that redacts secrets first: a token in an error message
or a traceback must not end up on disk or on screen.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from pathlib import Path
from types import TracebackType

import platformdirs

from memory_app.config import APP_FOLDER, LEGACY_FOLDER
from memory_app.domain.redaction import redact

LOG_APP = APP_FOLDER
LOG_FILE = "memory-app.log"
MAX_BYTES = 1_000_000
BACKUPS = 5
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"
STDERR_FORMAT = "%(levelname)s %(name)s: %(message)s"

log = logging.getLogger(__name__)


def log_folder() -> Path:
    """The folder for the log files: $MEMORY_APP_DATA_DIR/logs when that is set, else
    the platform's (Linux: $XDG_STATE_HOME/memory-app/logs)."""
    override = os.environ.get("MEMORY_APP_DATA_DIR")
    if override:
        return Path(override).expanduser() / "logs"
    return platform_log_folder(LOG_APP)


def platform_log_folder(name: str) -> Path:
    """The platform's log folder for an app folder named `name`."""
    if sys.platform in ("win32", "darwin"):
        return Path(platformdirs.user_log_dir(name, appauthor=False))
    return Path(platformdirs.user_state_dir(name, appauthor=False)) / "logs"


def move_legacy_logs(folder: Path) -> list[str]:
    """Move the log files an earlier version wrote under its `memory-curator` folder
    into `folder`, when `folder` is the platform's own (not a sandbox); a file already
    there is kept and the older one left where it was. Returns what went wrong, if
    anything, for the caller to log: a failure here never stops the app."""
    legacy = platform_log_folder(LEGACY_FOLDER)
    if folder != platform_log_folder(LOG_APP) or not legacy.is_dir():
        return []
    problems = []
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for old in sorted(legacy.iterdir()):
            new = folder / old.name
            if old.is_file() and not new.exists():
                os.replace(old, new)
        emptied = [legacy]
        if legacy.parent.name == LEGACY_FOLDER:  # Linux: ~/.local/state/memory-curator/logs
            emptied.append(legacy.parent)
        for path in emptied:
            if any(path.iterdir()):
                break
            path.rmdir()
    except OSError as exc:
        problems.append(f"Could not move the old log folder {legacy} to {folder}: {exc}")
    return problems


class RedactingFilter(logging.Filter):
    """Replaces the message, traceback and stack of a record by their redacted text.

    Runs on each handler (a filter on a logger would miss the records of its children).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.msg = redact(record.getMessage()).text
            record.args = None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = redact(record.exc_text).text
            if record.stack_info:
                record.stack_info = redact(record.stack_info).text
        except Exception:  # never let an unredacted record through, nor break the caller
            record.msg, record.args = "(log record dropped: it could not be redacted)", None
            record.exc_info = record.exc_text = record.stack_info = None
        return True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating file only its owner can read: each file is created with mode 0600."""

    def _open(self) -> TextIOWrapper:
        # FileHandler opens with the umask's mode; os.open sets it at creation instead,
        # for the first file and for each one a rollover starts. The mode is "a": the file
        # is opened for appending (a RotatingFileHandler with a size limit always appends).
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(self.baseFilename, 0o600)  # a file left by an older version may be looser
        return open(fd, "a", encoding=self.encoding, errors=self.errors)


def open_log_file(folder: Path) -> PrivateRotatingFileHandler:
    """The handler writing to `folder` (made 0700); raises OSError when it cannot."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)
    return PrivateRotatingFileHandler(
        folder / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )


def current_log_file() -> Path | None:
    """The file the root logger writes to now, if `session` set one up."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrivateRotatingFileHandler):
            return Path(handler.baseFilename)
    return None


def current_folder() -> Path:
    """The log folder in use, else the default one (e.g. for Help > Open Log Folder)."""
    path = current_log_file()
    return path.parent if path is not None else log_folder()


def log_uncaught(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """`sys.excepthook`: the traceback goes to the log (and so to stderr, at CRITICAL)."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    log.critical("Uncaught exception", exc_info=(kind, value, tb))


def log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    """`threading.excepthook`: like `log_uncaught`, naming the thread."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    log.critical(
        "Uncaught exception in thread %s",
        name,
        exc_info=(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback),
    )


@contextmanager
def session(folder: Path, verbose: bool = False) -> Iterator[Path | None]:
    """Route logging to the file in `folder` and to stderr, and uncaught exceptions to
    the log, for the duration of the block; yields the log file (None if it could not
    be opened: then stderr only).

    Default: INFO and up to the file, WARNING and up to stderr. Verbose: DEBUG to both.
    If an exception (not SystemExit) escapes the block everything stays installed, so
    the interpreter's final call of the excepthook still writes its traceback to the file.
    """
    root = logging.getLogger()
    redacting = RedactingFilter()
    handlers: list[logging.Handler] = []
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.DEBUG if verbose else logging.WARNING)
    stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    handlers.append(stderr)
    problem: OSError | None = None
    log_file: Path | None = None
    moved = move_legacy_logs(folder)
    try:
        file = open_log_file(folder)
    except OSError as exc:
        problem = exc
    else:
        log_file = Path(file.baseFilename)
        file.setLevel(logging.DEBUG if verbose else logging.INFO)
        file.setFormatter(logging.Formatter(FILE_FORMAT))
        handlers.append(file)
    for handler in handlers:
        handler.addFilter(redacting)
        root.addHandler(handler)
    saved = (root.level, sys.excepthook, threading.excepthook)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    sys.excepthook, threading.excepthook = log_uncaught, log_uncaught_in_thread
    if problem is not None:
        log.warning("Cannot write the log file in %s: %s", folder, problem)
    for message in moved:
        log.warning("%s", message)

    def restore() -> None:
        root.setLevel(saved[0])
        sys.excepthook, threading.excepthook = saved[1], saved[2]
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()

    try:
        yield log_file
    except Exception:
        raise  # left installed: the excepthook the interpreter calls next logs it
    except BaseException:  # SystemExit, KeyboardInterrupt: an ordinary end
        restore()
        raise
    restore()
