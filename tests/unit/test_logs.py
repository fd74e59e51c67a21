"""The log file (modes, rotation, redaction), --verbose, and the uncaught-exception hooks."""

from __future__ import annotations

import logging
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_app import cli, logs
from memory_app.domain.redaction import PLACEHOLDER_PREFIX

# Assembled from pieces so secret scanners do not flag this file.
FAKE_TOKEN = "ghp" + "_" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that would make files world-readable: the modes must not come from it."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_the_folder_is_in_the_sandboxing_data_dir_else_in_xdg_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "env"))
    assert logs.log_folder() == tmp_path / "env" / "logs"
    monkeypatch.delenv("MEMORY_APP_DATA_DIR")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        assert logs.log_folder() == tmp_path / "state" / "memory-app" / "logs"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG folders")
def test_the_log_folder_of_an_earlier_version_is_moved_on_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Earlier versions logged under ~/.local/state/memory-curator: one folder name now."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = tmp_path / "state" / "memory-curator" / "logs"
    old.mkdir(parents=True)
    (old / logs.LOG_FILE).write_text("an old line\n")
    (old / f"{logs.LOG_FILE}.1").write_text("an older line\n")
    folder = logs.log_folder()
    with logs.session(folder) as path:
        logging.getLogger("memory_app.test").info("a new line")
    assert path == tmp_path / "state" / "memory-app" / "logs" / logs.LOG_FILE
    assert path.read_text().startswith("an old line\n") and "a new line" in path.read_text()
    assert (path.parent / f"{logs.LOG_FILE}.1").read_text() == "an older line\n"
    assert not (tmp_path / "state" / "memory-curator").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG folders")
def test_an_old_log_is_not_moved_over_a_new_one_nor_into_a_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = tmp_path / "state" / "memory-curator" / "logs"
    old.mkdir(parents=True)
    (old / logs.LOG_FILE).write_text("old\n")
    assert logs.move_legacy_logs(tmp_path / "sandbox" / "logs") == []  # MEMORY_APP_DATA_DIR
    assert (old / logs.LOG_FILE).is_file()
    new = logs.log_folder()
    new.mkdir(parents=True)
    (new / logs.LOG_FILE).write_text("new\n")
    assert logs.move_legacy_logs(new) == []
    assert (new / logs.LOG_FILE).read_text() == "new\n"
    assert (old / logs.LOG_FILE).read_text() == "old\n"  # kept where it was, not lost


@pytest.mark.usefixtures("open_umask")
def test_the_log_file_and_its_rotations_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    with logs.session(folder) as path:
        assert path == folder / logs.LOG_FILE
        logging.getLogger("memory_app.test").info("hello")
    assert mode(folder) == 0o700
    assert mode(folder / logs.LOG_FILE) == 0o600
    assert "INFO memory_app.test [MainThread] hello" in (folder / logs.LOG_FILE).read_text()

    small = logs.PrivateRotatingFileHandler(folder / "small.log", maxBytes=50, backupCount=2)
    try:
        for n in range(5):
            small.emit(logging.makeLogRecord({"msg": f"line {n} " + "x" * 40}))
    finally:
        small.close()
    rotated = sorted(folder.glob("small.log*"))
    assert [p.name for p in rotated] == ["small.log", "small.log.1", "small.log.2"]
    assert {mode(p) for p in rotated} == {0o600}


def test_a_secret_never_reaches_the_file(tmp_path: Path) -> None:
    with logs.session(tmp_path) as path:
        log = logging.getLogger("memory_app.test")
        log.warning("the key was %s, oops", FAKE_TOKEN)
        try:
            raise ValueError(f"bad header Authorization: token {FAKE_TOKEN}")
        except ValueError:
            log.exception("request failed")
    assert path is not None
    text = path.read_text()
    assert "the key was " + PLACEHOLDER_PREFIX in text and ", oops" in text
    assert "request failed" in text and "Traceback" in text and "ValueError" in text
    assert FAKE_TOKEN not in text


def test_verbose_puts_debug_lines_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stats(service: object, args: object) -> tuple[object, str]:
        logging.getLogger("memory_app.test").debug("a debug detail")
        logging.getLogger("memory_app.test").info("an info line")
        return {}, "done"

    monkeypatch.setitem(cli._HANDLERS, "stats", stats)
    data = tmp_path / "data"

    assert cli.main(["stats", "--data-dir", str(data)]) == 0
    _, err = capsys.readouterr()
    assert "a debug detail" not in err and "an info line" not in err
    text = (logs.log_folder() / logs.LOG_FILE).read_text()
    assert "an info line" in text and "a debug detail" not in text

    for argv in (["stats", "--verbose"], ["-v", "stats"]):
        assert cli.main([*argv, "--data-dir", str(data)]) == 0
        _, err = capsys.readouterr()
        assert "DEBUG memory_app.test: a debug detail" in err
        assert "INFO memory_app.test: an info line" in err
    assert (
        "DEBUG memory_app.test [MainThread] a debug detail"
        in (logs.log_folder() / logs.LOG_FILE).read_text()
    )


def test_the_session_restores_logging_and_the_hooks(tmp_path: Path) -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level, sys.excepthook, threading.excepthook)
    with logs.session(tmp_path):
        assert sys.excepthook is logs.log_uncaught
        assert threading.excepthook is logs.log_uncaught_in_thread
    assert (list(root.handlers), root.level, sys.excepthook, threading.excepthook) == before


def raise_here() -> None:
    raise RuntimeError("uncaught " + FAKE_TOKEN)


def test_the_excepthooks_write_the_traceback_to_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with logs.session(tmp_path) as path:
        try:
            raise_here()
        except RuntimeError:
            sys.excepthook(*sys.exc_info())  # what the interpreter does for an uncaught one
        worker = threading.Thread(target=raise_here, name="worker-7")
        worker.start()
        worker.join()
    assert path is not None
    text = path.read_text()
    assert "CRITICAL memory_app.logs [MainThread] Uncaught exception" in text
    assert "Uncaught exception in thread worker-7" in text
    assert text.count("Traceback (most recent call last)") == 2
    assert text.count('in raise_here\n    raise RuntimeError("uncaught " + FAKE_TOKEN)') == 2
    assert FAKE_TOKEN not in text
    assert "Uncaught exception" in capsys.readouterr().err  # and the terminal sees it


def test_an_exception_escaping_the_session_is_still_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    monkeypatch.setattr(root, "handlers", list(before))
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    folder = tmp_path / "logs"
    try:
        with pytest.raises(RuntimeError) as caught, logs.session(folder):
            raise_here()
        assert sys.excepthook is logs.log_uncaught
        sys.excepthook(caught.type, caught.value, caught.tb)
    finally:
        for handler in set(root.handlers) - set(before):
            handler.close()
    assert "in raise_here" in (folder / logs.LOG_FILE).read_text()


def test_an_unwritable_folder_leaves_stderr_logging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with logs.session(blocker / "logs") as path:
        logging.getLogger("memory_app.test").warning("still shown")
    assert path is None
    err = capsys.readouterr().err
    assert "Cannot write the log file" in err and "still shown" in err
