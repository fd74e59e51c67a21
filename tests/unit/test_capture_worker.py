"""The capture worker: imports what the SessionEnd / PreCompact hooks queued, once each,
one worker at a time, and started by the hook itself."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_app.capture_worker import LOCK, QUEUE, TAKEN, drain
from memory_app.cli import main
from memory_app.service import MemoryService

RULE = "Always use uv instead of pip for every install in this repository."


def _session(folder: Path, name: str, rule: str = RULE) -> Path:
    path = folder / f"{name}.jsonl"
    lines = [
        {
            "type": "user",
            "sessionId": name,
            "cwd": str(folder),
            "message": {"role": "user", "content": rule},
        },
        {
            "type": "assistant",
            "sessionId": name,
            "cwd": str(folder),
            "message": {"id": "m1", "role": "assistant", "content": "Understood, uv it is."},
        },
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _queue(folder: Path, *paths: Path, name: str = QUEUE) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / name).open("a", encoding="utf-8") as stream:
        for path in paths:
            stream.write(json.dumps({"event": "SessionEnd", "transcript_path": str(path)}) + "\n")


def test_the_queue_is_imported_once_each_and_emptied(
    service: MemoryService, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    a = _session(tmp_path, "a")
    b = _session(tmp_path, "b", "Never commit generated files; they are built in CI.")
    _queue(data, a, tmp_path / "gone.jsonl", a, b)  # a at PreCompact and at SessionEnd
    results = drain(service, data)
    assert results is not None and len(results) == 2
    assert {r.session_id for r in service.resources()} == {"a", "b"}
    assert not (data / QUEUE).exists() and not (data / TAKEN).exists()
    assert drain(service, data) == []  # nothing left


def test_a_queue_taken_by_a_killed_worker_is_finished_first(
    service: MemoryService, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _queue(data, _session(tmp_path, "a"), name=TAKEN)
    _queue(data, _session(tmp_path, "b", "Never commit generated files; they are built in CI."))
    results = drain(service, data)
    assert results is not None and len(results) == 2
    assert not (data / TAKEN).exists() and not (data / QUEUE).exists()


def test_a_second_worker_leaves_at_once(service: MemoryService, tmp_path: Path) -> None:
    data = tmp_path / "data"
    _queue(data, _session(tmp_path, "a"))
    fd = os.open(data / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert drain(service, data) is None
        assert (data / QUEUE).exists()  # left for the worker that holds the lock
    finally:
        os.close(fd)


def test_the_hook_starts_the_worker_and_the_session_is_one_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    session = _session(tmp_path, "hooked")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_APP_")}
    env["MEMORY_APP_DATA_DIR"] = str(data)
    stdin = json.dumps(
        {
            "session_id": "hooked",
            "transcript_path": str(session),
            "cwd": str(tmp_path),
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "memory_app.hooks", "SessionEnd"],
        input=stdin.encode(),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    deadline = time.monotonic() + 90
    while (data / QUEUE).exists() or (data / TAKEN).exists():
        assert time.monotonic() < deadline, "the worker did not drain the queue"
        time.sleep(0.2)
    time.sleep(0.5)  # the worker closes the store after it removed the taken queue
    args = ["--data-dir", str(data), "--json"]
    assert main(["import", str(session), *args]) == 0  # the app's later import
    report = json.loads(capsys.readouterr().out)
    assert report["resources_added"] == 0 and len(report["skipped"]) == 1


def test_the_capture_command_as_the_readme_shows_it(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`memory-app capture`" in readme
    data = tmp_path / "data"
    _queue(data, _session(tmp_path, "a"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_APP_")}
    env["MEMORY_APP_DATA_DIR"] = str(data)
    done = subprocess.run(
        "memory-app capture",
        shell=True,
        env={**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Captured 1 queued session (1 new conversation)." in done.stdout
