"""Settings' "Local API" section: a checkbox that runs `memory-app serve` inside the app,
on a thread, while the app is open (memory_app/api/). The choice is remembered and the
server starts again with the app; the port is the settings' `api/port` (the CLI's
default unless changed there)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QGroupBox, QLabel, QVBoxLayout, QWidget

from memory_app.api.routes import DEFAULT_PORT
from memory_app.api.server import ApiServer, start_background
from memory_app.api.token import token_path
from memory_app.config import Settings
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.widgets.welcome import home_relative
from memory_app.store.errors import StoreError

SERVE_KEY = "api/serve"
PORT_KEY = "api/port"


class LocalApiPanel(QGroupBox):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Local API"))
        self.setObjectName("localApiGroup")
        self.context = context
        try:
            self.port = int(str(context.settings.value(PORT_KEY, DEFAULT_PORT)))
        except ValueError:
            self.port = DEFAULT_PORT
        path = context.service.db.path
        self.data_dir = path.parent if path is not None else None
        self.serve = QCheckBox(
            self.tr("Serve the &local API on port {port}").format(port=self.port), self
        )
        self.serve.setObjectName("serveApi")
        self.hint = QLabel(self)
        self.hint.setObjectName("serveApiHint")
        self.hint.setWordWrap(True)
        self.hint.setMinimumWidth(360)
        column = QVBoxLayout(self)
        column.addWidget(self.serve)
        column.addWidget(self.hint)
        self.serve.setEnabled(self.data_dir is not None)
        wanted = str(context.settings.value(SERVE_KEY, "false")).lower() == "true"
        self.serve.setChecked(wanted and self.data_dir is not None)
        self.serve.toggled.connect(self.apply)
        self._show_stopped()
        # Not aboutToQuit: qasync ends QApplication.exec() (emitting it) whenever a loop run
        # ends. The closure holds the server, not the panel, which is gone by then.
        running = self._running = _Running()
        self.destroyed.connect(lambda *_: running.stop())
        if self.serve.isChecked():
            self.apply(True)

    def apply(self, on: bool) -> None:
        """The person's choice: remembered, and the server started or stopped now."""
        self.context.settings.setValue(SERVE_KEY, on)
        self.context.spawn(self._start() if on else self._stop())

    async def _start(self) -> None:
        if self.server is not None or self.data_dir is None:
            return
        settings = Settings(self.data_dir, self.context.service.db.url)
        try:
            # On the database worker: opening the API's own service reads the store.
            server = await self.context.call(start_background, settings, self.port)
        except (OSError, StoreError) as exc:
            self.hint.setStyleSheet(text_style(ERROR))
            self.hint.setText(
                self.tr("The local API could not start on port {port}: {reason}").format(
                    port=self.port, reason=str(exc)
                )
            )
            self.serve.blockSignals(True)
            self.serve.setChecked(False)
            self.serve.blockSignals(False)
            return
        if not self.serve.isChecked():  # switched off while it was starting
            server.stop()
            return
        self._running.server = server
        self.hint.setStyleSheet("")
        self.hint.setText(
            self.tr(
                "Serving on {url} while Memory Curator is open. Clients send the token in "
                "{file} (see GET {url}/openapi.json)."
            ).format(url=server.url, file=home_relative(token_path(self.data_dir)))
        )

    @property
    def server(self) -> ApiServer | None:
        return self._running.server

    async def _stop(self) -> None:
        server, self._running.server = self._running.server, None
        if server is not None:  # on the database worker: stopping closes its service
            await self.context.call(server.stop)
        self._show_stopped()

    def _show_stopped(self) -> None:
        self.hint.setStyleSheet("")
        self.hint.setText(
            self.tr(
                "Off. `memory-app serve` runs it without the app. Requests come from this "
                "computer only and need the token in {file}."
            ).format(file=home_relative(token_path(self.data_dir or Path("~"))))
        )


class _Running:
    """The server while it runs."""

    def __init__(self) -> None:
        self.server: ApiServer | None = None

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
