"""One running app per user and data directory.

Two copies of the app on the same store would both write to one SQLite file and undo
each other's view of it, so a second launch hands over to the first instead: it finds
the first through a local socket (a Unix domain socket, a named pipe on Windows), asks it
to show its window and exits. The socket name is derived from the user and the resolved
data directory, so a second data directory can still run its own app.

The wire format is one JSON object per connection, ended by a newline, for example
``{"action": "activate", "activation_token": "..."}``. Anything else a connection sends is
ignored.

On Wayland a compositor only lets a window take the focus with an activation token from
whoever the user interacted with: the desktop's launcher hands one to the process it starts
(`XDG_ACTIVATION_TOKEN`), so the second launch forwards its token and the first presents it
when it raises its window. Without it the window would only flash in the task bar.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

from memory_app.gui.translations import translate

log = logging.getLogger(__name__)

SERVER_PREFIX = "memory-app-"
ACTIVATE: dict[str, Any] = {"action": "activate"}
# A second launch must never hang on a first instance that is frozen or half gone.
TIMEOUT_MS = 1500
# A message is a few dozen bytes; more than this is not ours and is dropped.
MAX_MESSAGE_BYTES = 4096
TOKEN_VARIABLE = "XDG_ACTIVATION_TOKEN"
# Compositors make short printable tokens (a UUID, "kwin-42", GNOME's "shell/App Name/1-2_TIME3");
# control characters, other scripts or a long text are not one.
TOKEN_PATTERN = re.compile(r"[\x20-\x7e]{1,512}")


def server_name(data_dir: Path, user: str | None = None) -> str:
    """The socket name for one user and one data directory.

    Hashed, because the name becomes a file name in the temporary folder (Unix) or a pipe
    name (Windows) with a short length limit and restricted characters; the user is part
    of it because the temporary folder may be shared by every user of the machine.
    """
    who = _current_user() if user is None else user
    key = f"{who}\0{Path(data_dir).expanduser().resolve()}"
    return SERVER_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _current_user() -> str:
    if hasattr(os, "getuid"):
        return str(os.getuid())
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment: still one name per machine
        return os.environ.get("USERNAME", "")


class SingleInstance(QObject):
    """Claims the data directory for this process, or talks to the process that has it.

    The first instance calls `claim()`, gets True and keeps listening; it emits
    `activation_requested(token)` whenever a later launch asks it to show itself, with the
    later launch's Wayland activation token or "". A later launch gets False from `claim()`
    and calls `send()`.
    """

    activation_requested = Signal(str)

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(data_dir)
        self._server: QLocalServer | None = None
        self._buffers: dict[QLocalSocket, bytearray] = {}

    @property
    def listening(self) -> bool:
        return self._server is not None and self._server.isListening()

    def claim(self) -> bool:
        """True: this process is the first and now listens. False: another one answered.

        Asks first and listens second, because on Windows a second server may listen on
        a name that is already taken without an error. When the name is taken but nobody
        answers, an instance crashed and left its socket file behind: remove it and
        listen again. If listening fails for any other reason the app still runs, only
        without the single-instance guard (returns True, `listening` is False).
        """
        if self._answers():
            return False
        server = QLocalServer(self)
        # No socket options: with UserAccessOption Qt binds in a private folder and renames
        # the socket into place, which silently replaces a live server's socket instead of
        # failing with AddressInUseError. The name holds the user id, and the default
        # permissions (umask) already keep other users from connecting.
        if not server.listen(self.name):
            if server.serverError() != QAbstractSocket.SocketError.AddressInUseError:
                log.warning(
                    "single instance: cannot listen on %s: %s", self.name, server.errorString()
                )
                return True
            if self._answers():  # another launch won the race since we asked
                return False
            log.info("single instance: removing the stale socket %s", self.name)
            QLocalServer.removeServer(self.name)
            if not server.listen(self.name):
                if self._answers():
                    return False
                log.warning(
                    "single instance: cannot listen on %s: %s", self.name, server.errorString()
                )
                return True
        server.newConnection.connect(self._accept)
        self._server = server
        return True

    def send(self, message: dict[str, Any] | None = None, timeout_ms: int = TIMEOUT_MS) -> bool:
        """Deliver one message (by default: show your window) to the first instance.

        Blocking with a timeout on every step: it runs before any event loop, in a process
        that exits right after. The activation request carries this launch's activation
        token, if the launcher gave one. Returns whether the message was handed over.
        """
        if message is None:
            message = {**ACTIVATE, "activation_token": activation_token()}
        payload = json.dumps(message).encode("utf-8") + b"\n"
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(timeout_ms):
            return False
        socket.write(payload)
        written = socket.bytesToWrite() == 0 or socket.waitForBytesWritten(timeout_ms)
        socket.disconnectFromServer()
        if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
            socket.waitForDisconnected(timeout_ms)
        return written

    def close(self) -> None:
        """Stop listening and remove the socket, so the next launch becomes the first."""
        for connection in list(self._buffers):
            self._drop(connection)
        if self._server is not None:
            self._server.close()
            self._server.deleteLater()
            self._server = None

    def _answers(self) -> bool:
        probe = QLocalSocket()
        probe.connectToServer(self.name)
        answered = probe.waitForConnected(TIMEOUT_MS)
        probe.abort()
        return answered

    def _accept(self) -> None:
        assert self._server is not None
        while (connection := self._server.nextPendingConnection()) is not None:
            self._buffers[connection] = bytearray()
            connection.readyRead.connect(lambda c=connection: self._read(c))
            connection.disconnected.connect(lambda c=connection: self._closed(c))
            # A client that connects and never finishes its message is cut off.
            QTimer.singleShot(TIMEOUT_MS * 2, connection, lambda c=connection: self._drop(c))
            if connection.bytesAvailable():
                self._read(connection)

    def _read(self, connection: QLocalSocket) -> None:
        buffer = self._buffers.get(connection)
        if buffer is None:
            return
        buffer += bytes(connection.readAll().data())
        end = buffer.find(b"\n")
        if end < 0:
            if len(buffer) > MAX_MESSAGE_BYTES:
                self._drop(connection)
            return
        message = bytes(buffer[:end])
        self._drop(connection)  # one message per connection
        self._handle(message)

    def _closed(self, connection: QLocalSocket) -> None:
        if connection.bytesAvailable():  # the client wrote and hung up at once
            self._read(connection)
        self._drop(connection)

    def _handle(self, raw: bytes) -> None:
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            log.info("single instance: ignored a message that is not JSON")
            return
        if isinstance(message, dict) and message.get("action") == ACTIVATE["action"]:
            token = message.get("activation_token")
            self.activation_requested.emit(valid_token(token) if isinstance(token, str) else "")
        else:
            log.info("single instance: ignored an unknown message")

    def _drop(self, connection: QLocalSocket) -> None:
        if self._buffers.pop(connection, None) is None:
            return
        connection.abort()
        connection.deleteLater()


def valid_token(token: str) -> str:
    """The token if it looks like an activation token, else "" (never put junk in the env)."""
    return token if TOKEN_PATTERN.fullmatch(token) else ""


def activation_token() -> str:
    """This launch's Wayland activation token, "" when the launcher gave none."""
    return valid_token(os.environ.get(TOKEN_VARIABLE, ""))


def bring_to_front(window: QWidget, token: str = "") -> None:
    """Show the window the way the user left it, only not minimized, and on top.

    Window managers may refuse to hand focus to a process the user is not interacting
    with; raising and requesting activation is the most an app can do. On Wayland, Qt
    presents the `XDG_ACTIVATION_TOKEN` of the environment when the window asks to be
    activated (and unsets it); the token is put there for that one call only, so it never
    reaches a child process started later.
    """
    state = window.windowState()
    window.setWindowState((state & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
    window.show()
    window.raise_()
    token = valid_token(token)
    if token:
        os.environ[TOKEN_VARIABLE] = token
    try:
        window.activateWindow()
    finally:
        if token:
            os.environ.pop(TOKEN_VARIABLE, None)


def note_already_running(sent: bool) -> int:
    """Tell the user on the terminal what happened to this launch; the exit code."""
    if sent:
        print(
            translate(
                "SingleInstance",
                "Memory Curator is already running; brought its window to the front.",
            ),
            file=sys.stderr,
        )
        return 0
    print(
        translate(
            "SingleInstance", "Memory Curator is already running but did not answer; try again."
        ),
        file=sys.stderr,
    )
    return 1
