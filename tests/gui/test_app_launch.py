"""`memory-app` with no subcommand opens the real window (in a separate process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memory_app.demo import demo_sessions


def test_the_app_starts_paints_and_quits(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "MEMORY_APP_EXIT_AFTER_PAINT": "1",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    demo = subprocess.run(
        [sys.executable, "-m", "memory_app", "demo", "--data-dir", str(tmp_path / "d"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # the demo store: about 20 s on two busy cores
        check=True,
    )
    built = json.loads(demo.stdout)
    assert built["conversations"] == len(demo_sessions()) and built["memories"] >= 200
    app = subprocess.run(
        [sys.executable, "-m", "memory_app", "--data-dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert app.returncode == 0, app.stderr
    assert app.stdout.startswith("first-paint ")
    settings = list((tmp_path / "config").rglob("*.conf"))
    assert settings, "window state was not saved to the user's settings"
    saved = settings[0].read_text()
    assert "view=dashboard" in saved and "geometry=" in saved


def test_demo_refuses_a_store_that_is_in_use(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "memory_app", "demo", "--data-dir", str(tmp_path / "d")]
    subprocess.run(command, env=env, timeout=120, check=True, capture_output=True)
    again = subprocess.run(command, env=env, timeout=60, capture_output=True, text=True)
    assert again.returncode == 1
    assert "already holds conversations" in again.stderr
