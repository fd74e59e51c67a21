"""A second launch on the same data directory hands over to the first (real local sockets)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QDir, Qt
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket
from PySide6.QtWidgets import QApplication, QMainWindow
from pytestqt.qtbot import QtBot

from memory_app.gui.single_instance import SingleInstance, bring_to_front, server_name

NOTE = "Memory Curator is already running; brought its window to the front."


@pytest.fixture
def make_instance(qapp: QApplication) -> Iterator[Callable[[Path], SingleInstance]]:
    """SingleInstance objects that are closed after the test, so no socket outlives it."""
    made: list[SingleInstance] = []

    def make(data_dir: Path) -> SingleInstance:
        made.append(SingleInstance(data_dir))
        return made[-1]

    yield make
    for instance in made:
        instance.close()


def send_raw(name: str, data: bytes) -> None:
    client = QLocalSocket()
    client.connectToServer(name)
    assert client.waitForConnected(1000)
    client.write(data)
    client.waitForBytesWritten(1000)
    client.disconnectFromServer()


def test_the_first_claim_succeeds_and_listens(
    make_instance: Callable[[Path], SingleInstance], tmp_path: Path
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    assert first.listening
    assert first.name.startswith("memory-app-")


def test_a_second_instance_does_not_claim_and_activates_the_first(
    make_instance: Callable[[Path], SingleInstance], qtbot: QtBot, tmp_path: Path
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    second = make_instance(tmp_path / "data")
    assert not second.claim()
    assert not second.listening
    with qtbot.waitSignal(first.activation_requested, timeout=5000) as blocker:
        assert second.send()
    assert blocker.args == [""]  # launched from a terminal: no activation token


def test_the_launchers_activation_token_travels_to_the_first_instance(
    make_instance: Callable[[Path], SingleInstance],
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    monkeypatch.setenv("XDG_ACTIVATION_TOKEN", "kwin-42_ab.c")
    with qtbot.waitSignal(first.activation_requested, timeout=5000) as blocker:
        assert make_instance(tmp_path / "data").send()
    assert blocker.args == ["kwin-42_ab.c"]


@pytest.mark.parametrize(
    "token",
    ["line\nbreak", "tab\there", "t\u00f6k\u00e9n", "x" * 513, 42, None, ""],
    ids=["newline", "tab", "not-ascii", "too-long", "number", "null", "empty"],
)
def test_a_token_that_is_not_one_is_dropped_but_the_window_still_comes_up(
    make_instance: Callable[[Path], SingleInstance],
    qtbot: QtBot,
    tmp_path: Path,
    token: object,
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    message = json.dumps({"action": "activate", "activation_token": token}).encode() + b"\n"
    with qtbot.waitSignal(first.activation_requested, timeout=5000) as blocker:
        send_raw(first.name, message)
    assert blocker.args == [""]


class RecordingWindow(QMainWindow):
    """Records the activation token in the environment at the moment it is activated."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[str | None] = []

    def activateWindow(self) -> None:
        self.tokens.append(os.environ.get("XDG_ACTIVATION_TOKEN"))
        super().activateWindow()


def test_the_token_is_in_the_environment_only_while_the_window_is_activated(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_ACTIVATION_TOKEN", raising=False)
    window = RecordingWindow()
    qtbot.addWidget(window)
    window.show()
    bring_to_front(window, "gnome-shell/Memory Curator/1234-5-host_TIME0")
    bring_to_front(window)
    bring_to_front(window, "not\ta token")
    assert window.tokens == ["gnome-shell/Memory Curator/1234-5-host_TIME0", None, None]
    assert "XDG_ACTIVATION_TOKEN" not in os.environ  # no child process inherits it


def test_the_same_folder_spelled_differently_is_the_same_instance(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    assert server_name(tmp_path / "data") == server_name(tmp_path / "x" / ".." / "data")
    assert server_name(tmp_path / "data", user="a") != server_name(tmp_path / "data", user="b")


def test_a_different_data_dir_claims_independently(
    make_instance: Callable[[Path], SingleInstance], qtbot: QtBot, tmp_path: Path
) -> None:
    first = make_instance(tmp_path / "one")
    other = make_instance(tmp_path / "two")
    assert first.name != other.name
    assert first.claim()
    assert other.claim()
    with qtbot.assertNotEmitted(first.activation_requested, wait=200):
        assert make_instance(tmp_path / "two").claim() is False


def test_a_closed_instance_frees_the_name(
    make_instance: Callable[[Path], SingleInstance], tmp_path: Path
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    first.close()
    again = make_instance(tmp_path / "data")
    assert again.claim()
    assert again.listening


@pytest.mark.skipif(sys.platform == "win32", reason="stale socket files exist on Unix only")
def test_a_stale_socket_of_a_crashed_instance_is_recovered(
    make_instance: Callable[[Path], SingleInstance], qtbot: QtBot, tmp_path: Path
) -> None:
    instance = make_instance(tmp_path / "data")
    # What a crash leaves behind: the socket file, with nobody listening on it.
    path = os.path.join(QDir.tempPath(), instance.name)
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    leftover.bind(path)
    leftover.close()
    try:
        blocked = QLocalServer()
        assert not blocked.listen(instance.name)
        assert blocked.serverError() == QAbstractSocket.SocketError.AddressInUseError
        assert instance.claim()
        assert instance.listening
        with qtbot.waitSignal(instance.activation_requested, timeout=5000):
            assert make_instance(tmp_path / "data").send()
    finally:
        instance.close()
        if os.path.exists(path):
            os.unlink(path)


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe\x00not json\n",
        b'{"action": "activate"',  # cut off before the end of the message
        b'{"action": "explode"}\n',
        b"[1, 2, 3]\n",
        b"x" * 10_000,
        b"",
    ],
    ids=["binary", "partial", "unknown-action", "not-an-object", "oversized", "empty"],
)
def test_garbage_neither_crashes_nor_activates(
    make_instance: Callable[[Path], SingleInstance],
    qtbot: QtBot,
    tmp_path: Path,
    garbage: bytes,
) -> None:
    first = make_instance(tmp_path / "data")
    assert first.claim()
    with qtbot.assertNotEmitted(first.activation_requested, wait=300):
        send_raw(first.name, garbage)
    # The server still works afterwards.
    with qtbot.waitSignal(first.activation_requested, timeout=5000):
        assert make_instance(tmp_path / "data").send()


def test_send_without_a_first_instance_reports_failure(
    make_instance: Callable[[Path], SingleInstance], tmp_path: Path
) -> None:
    assert not make_instance(tmp_path / "nobody").send(timeout_ms=500)


def test_activation_brings_a_minimized_window_back(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    window.setWindowState(Qt.WindowState.WindowMinimized)
    assert window.isMinimized()
    bring_to_front(window)
    assert not window.isMinimized()
    assert window.isVisible()


def test_activation_keeps_a_maximized_window_maximized(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.showMaximized()
    window.setWindowState(window.windowState() | Qt.WindowState.WindowMinimized)
    bring_to_front(window)
    assert not window.isMinimized()
    assert window.isMaximized()


def test_a_second_real_launch_activates_the_first_and_exits(
    make_instance: Callable[[Path], SingleInstance], qtbot: QtBot, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    first = make_instance(data)
    assert first.claim()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_ACTIVATION_TOKEN": "menu-7"}
    env.pop("MEMORY_APP_EXIT_AFTER_PAINT", None)
    with qtbot.waitSignal(first.activation_requested, timeout=30000) as blocker:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memory_app", "--data-dir", str(data)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30000)
        finally:
            if proc.poll() is None:
                proc.kill()
            _out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert blocker.args == ["menu-7"]
    assert NOTE in err
    assert not (data / "memory.db").exists()
    assert not data.exists()
