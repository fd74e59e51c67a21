"""`memory-app serve` as a person runs it: the real command in a subprocess, its port
printed, requests answered over the socket, a clean stop on SIGTERM, a taken port said
plainly, and the README's Local API lines run exactly as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memory_app.api.routes import DEFAULT_PORT
from memory_app.cli import build_parser, main
from memory_app.config import resolve_settings
from memory_app.service import MemoryService
from tests.helpers import system_tool
from tests.small_store import build_small_store

ROOT = Path(__file__).resolve().parents[2]
MEMORY_APP = str(Path(sys.executable).with_name("memory-app"))
STARTED = re.compile(r"Serving the memory API on http://127\.0\.0\.1:(\d+) ")


def _small_store(folder: Path) -> None:
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        build_small_store(service)
    finally:
        service.close()


@contextmanager
def serving(words: list[str], env: dict[str, str]) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """`memory-app serve …` running; yields the port it printed."""
    process = subprocess.Popen(
        [MEMORY_APP, *words],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = STARTED.match(line)
        if found is None:
            process.kill()
            _, err = process.communicate(timeout=10)
            pytest.fail(f"`memory-app {' '.join(words)}` did not start: {line}{err}")
        yield int(found.group(1)), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def _get(url: str, token: str | None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_serve_on_a_free_port_answers_and_stops_cleanly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _small_store(data)
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(data)}
    with serving(["serve", "--port", "0"], env) as (port, process):
        assert port != 0
        token = (data / "api-token").read_text().strip()
        status, body = _get(f"http://127.0.0.1:{port}/memories?q=celery", token)
        assert status == 200
        assert "Celery" in body["memories"][0]["content"]
        assert _get(f"http://127.0.0.1:{port}/memories", None)[0] == 401
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert out.strip() == "Stopped." and "Traceback" not in err


def test_a_taken_port_is_said_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", str(port), "--data-dir", str(tmp_path / "d")])
    _, err = capsys.readouterr()
    assert code == 1
    assert f"cannot serve on 127.0.0.1:{port}: Address already in use" in err
    assert "--port 0" in err and "Traceback" not in err


def test_token_options_print_the_token_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["serve", "--token", "--data-dir", str(data)]) == 0
    first = capsys.readouterr().out.strip()
    assert first == (data / "api-token").read_text().strip()
    assert main(["serve", "--new-token", "--json", "--data-dir", str(data)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["token"] != first
    assert shown == {
        "token": (data / "api-token").read_text().strip(),
        "token_file": str(data / "api-token"),
    }


def test_the_port_option_refuses_what_is_not_a_port(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "65536", "http"):
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args(["serve", "--port", bad])
        assert exit_.value.code == 2
        assert "--port" in capsys.readouterr().err


def test_the_readme_local_api_lines_as_written(tmp_path: Path) -> None:
    """The README's two lines: the server in the background on the default port, then
    curl with the token file of the default data folder (HOME is a temporary folder)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("### Local API", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    start, request = block.strip().splitlines()
    assert start == "memory-app serve &"
    assert f"http://127.0.0.1:{DEFAULT_PORT}/" in request
    with socket.socket() as probe:  # the README names the default port: it must be free
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", DEFAULT_PORT))
        except OSError:
            pytest.fail(f"port {DEFAULT_PORT} is taken on this machine: the README's test needs it")
    home = Path(os.environ["HOME"])  # a temporary one (tests/conftest.py)
    _small_store(home / ".local" / "share" / "memory-app")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_APP_", "XDG_"))}
    with serving(shlex.split(start.removesuffix("&"))[1:], env) as (port, _):
        assert port == DEFAULT_PORT
        # The same request through urllib, then the line itself with curl.
        token = (home / ".local/share/memory-app/api-token").read_text().strip()
        url = re.search(r'"(http://[^"]+)"', request)
        assert url is not None
        status, body = _get(url.group(1), token)
        assert status == 200
        assert any("pytest" in m["content"] for m in body["memories"])
        system_tool("curl")
        done = subprocess.run(
            ["bash", "-c", request], capture_output=True, text=True, env=env, timeout=30
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == body
