"""Settings > Local API: the checkbox starts `memory-app serve` inside the app (a request
over the socket answers with the store's memories), remembers the choice, and stops it."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_app.api.token import load_or_create
from memory_app.gui.context import AppContext
from memory_app.gui.views.settings import SettingsView
from memory_app.gui.widgets.local_api import PORT_KEY, SERVE_KEY
from tests.small_store import build_small_store


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(port: int, path: str, token: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_the_checkbox_serves_the_store_and_stops_it(
    qtbot: Any, context: AppContext, run_until: Callable[..., None]
) -> None:
    build_small_store(context.service)
    port = _free_port()
    context.settings.setValue(PORT_KEY, port)
    view = SettingsView(context)
    qtbot.addWidget(view)
    panel = view.local_api
    assert panel.serve.text() == f"Serve the &local API on port {port}"
    assert not panel.serve.isChecked() and panel.server is None

    panel.serve.setChecked(True)
    run_until(lambda: panel.server is not None)
    assert context.settings.value(SERVE_KEY) in (True, "true")
    assert f"http://127.0.0.1:{port}" in panel.hint.text()
    path = context.service.db.path
    assert path is not None
    token = load_or_create(path.parent)
    status, body = _get(port, "/memories?q=celery", token)
    assert status == 200 and "Celery" in body["memories"][0]["content"]
    assert _get(port, "/health", "wrong")[0] == 401

    panel.serve.setChecked(False)
    run_until(lambda: panel.hint.text().startswith("Off."))
    assert panel.server is None and context.settings.value(SERVE_KEY) in (False, "false")
    with socket.socket() as probe:  # the port is free again
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_the_server_starts_with_the_view_when_it_was_left_on(
    qtbot: Any, context: AppContext, run_until: Callable[..., None]
) -> None:
    port = _free_port()
    context.settings.setValue(PORT_KEY, port)
    context.settings.setValue(SERVE_KEY, True)
    view = SettingsView(context)
    qtbot.addWidget(view)
    assert view.local_api.serve.isChecked()
    run_until(lambda: view.local_api.server is not None)
    path = context.service.db.path
    assert path is not None
    assert _get(port, "/health", load_or_create(path.parent))[1]["counts"]["memories"] == 0
    view.local_api.serve.setChecked(False)
    run_until(lambda: view.local_api.hint.text().startswith("Off."))


def test_a_taken_port_is_shown_and_the_box_unticked(
    qtbot: Any, context: AppContext, run_until: Callable[..., None], tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        context.settings.setValue(PORT_KEY, taken.getsockname()[1])
        view = SettingsView(context)
        qtbot.addWidget(view)
        panel = view.local_api
        panel.serve.setChecked(True)
        run_until(lambda: not panel.serve.isChecked())
        assert "could not start" in panel.hint.text() and panel.server is None
