"""The window's settings live under the app's one folder name, and those an earlier version
kept under `memory-curator` move there on the first start, nothing lost.

Each case runs in a fresh interpreter with its own XDG folders: QSettings reads
$XDG_CONFIG_HOME once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG folders")

# What an earlier version left in ~/.config/memory-curator/memory-app.conf (QSettings'
# INI form, with a byte array as the window geometry is stored).
OLD_SETTINGS = """\
[General]
lastView=memories

[window]
geometry=@ByteArray(\\x1\\xd9\\xd0\\xcb\\0\\x3)

[maintenance]
background=false

[extractor]
model=claude-sonnet-4-5
"""

OPEN = """
import json
from PySide6.QtCore import QByteArray, QCoreApplication
from memory_app.config import APP_ID
from memory_app.gui.user_settings import open_user_settings

# As gui/app.py does: the application name is the desktop id, not a folder name.
QCoreApplication.setApplicationName(APP_ID)
QCoreApplication.setOrganizationName("memory-app")
settings = open_user_settings()
values = {}
for key in settings.allKeys():
    value = settings.value(key)
    values[key] = value.toHex().data().decode() if isinstance(value, QByteArray) else value
settings.setValue("window/lastStart", "now")
settings.sync()
print(json.dumps({"file": settings.fileName(), "values": values}))
"""


def open_settings(config: Path) -> dict[str, object]:
    env = {
        **os.environ,
        "HOME": str(config.parent),
        "XDG_CONFIG_HOME": str(config),
        "QT_QPA_PLATFORM": "offscreen",
    }
    result = subprocess.run(
        [sys.executable, "-c", OPEN], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def test_the_settings_of_an_earlier_version_move_to_the_one_folder(tmp_path: Path) -> None:
    config = tmp_path / "config"
    old = config / "memory-curator" / "memory-app.conf"
    old.parent.mkdir(parents=True)
    old.write_text(OLD_SETTINGS)

    first = open_settings(config)
    assert first["file"] == str(config / "memory-app" / "memory-app.conf")
    assert first["values"] == {
        "lastView": "memories",
        "window/geometry": "01d9d0cb0003",
        "maintenance/background": "false",
        "extractor/model": "claude-sonnet-4-5",
    }
    assert not old.exists() and not old.parent.exists()  # moved, not copied

    # The next start reads the same file, with what the last one wrote.
    second = open_settings(config)
    values = second["values"]
    assert isinstance(values, dict)
    assert values["window/lastStart"] == "now" and values["lastView"] == "memories"


def test_settings_already_in_the_new_folder_win_and_the_old_ones_stay(tmp_path: Path) -> None:
    config = tmp_path / "config"
    old = config / "memory-curator" / "memory-app.conf"
    old.parent.mkdir(parents=True)
    old.write_text(OLD_SETTINGS)
    new = config / "memory-app" / "memory-app.conf"
    new.parent.mkdir(parents=True)
    new.write_text("[General]\nlastView=conflicts\n")

    found = open_settings(config)
    assert found["values"] == {"lastView": "conflicts"}
    assert old.read_text() == OLD_SETTINGS


def test_a_first_start_without_old_settings_makes_nothing_up(tmp_path: Path) -> None:
    found = open_settings(tmp_path / "config")
    assert found["values"] == {}
    assert not (tmp_path / "config" / "memory-curator").exists()
