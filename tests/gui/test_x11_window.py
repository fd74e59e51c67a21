"""The real app in a real X server: the window the desktop sees matches the menu entry.

Runs the installed `memory-app` launcher under `xvfb-run` with Qt's xcb platform (not
the offscreen one the other GUI tests use) and reads the window's properties the way a
window manager does. A desktop groups a window under its menu entry by WM_CLASS, so its
class must be the entry's `StartupWMClass`, the app id (see memory_app/desktop.py). The
launcher is `memory-app`, the program the desktop entry starts (`Exec=`).
"""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memory_app.assets import asset_path
from memory_app.config import APP_ID
from tests.helpers import system_tool

# Started in the virtual X server: wait for the app's top-level window, print its
# properties, launch the app a second time, count the windows, then close the app. Exits 3
# when no window appeared in time.
SCRIPT = r"""
"$LAUNCHER" --data-dir "$DATA" >"$LOG" 2>&1 &
app=$!
id=
for _ in $(seq 1 240); do
  # Qt also makes a hidden 1x1 "leader" window with the same name: take the mapped one.
  for candidate in $(xwininfo -root -children 2>/dev/null \
      | sed -n 's/^ *\(0x[0-9a-f]*\) "Memory Curator".*/\1/p'); do
    if xwininfo -id "$candidate" | grep -q 'Map State: IsViewable'; then id=$candidate; fi
  done
  [ -n "$id" ] && break
  sleep 0.25
done
if [ -z "$id" ]; then kill "$app" 2>/dev/null; cat "$LOG" >&2; exit 3; fi
sleep 1
xprop -len 64 -id "$id" WM_CLASS WM_NAME _NET_WM_PID _NET_WM_ICON
xwininfo -id "$id" | grep -E 'Map State|Width|Height'
# Launching again from the menu: the second copy hands over to the first and exits.
"$LAUNCHER" --data-dir "$DATA" >"$LOG2" 2>&1
echo "second launch exited $?"
sleep 0.5
mapped=0
for candidate in $(xwininfo -root -children 2>/dev/null \
    | sed -n 's/^ *\(0x[0-9a-f]*\) "Memory Curator".*/\1/p'); do
  if xwininfo -id "$candidate" | grep -q 'Map State: IsViewable'; then mapped=$((mapped + 1)); fi
done
echo "mapped windows: $mapped"
kill -0 "$app" 2>/dev/null && echo "first instance still running"
kill "$app"
wait "$app" 2>/dev/null
exit 0
"""


@pytest.mark.slow
def test_the_window_appears_with_the_menu_entrys_wm_class_and_a_second_launch_hands_over(
    tmp_path: Path,
) -> None:
    xvfb_run = system_tool("xvfb-run")
    system_tool("xwininfo")
    system_tool("xprop")
    launcher = Path(sys.executable).parent / "memory-app"
    assert launcher.is_file(), "the memory-app launcher is not installed in this environment"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")},
        "QT_QPA_PLATFORM": "xcb",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_RUNTIME_DIR": str(tmp_path / "runtime"),
        "LAUNCHER": str(launcher),
        "DATA": str(tmp_path / "data"),
        "LOG": str(tmp_path / "app.log"),
        "LOG2": str(tmp_path / "second.log"),
    }
    (tmp_path / "runtime").mkdir(mode=0o700)
    result = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1280x1024x24", "sh", "-c", SCRIPT],
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=180,
    )
    log = (tmp_path / "app.log").read_text() if (tmp_path / "app.log").exists() else ""
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n{log}"
    props = result.stdout

    entry = configparser.RawConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(asset_path(f"resources/{APP_ID}.desktop"), encoding="utf-8")
    wm_class = entry["Desktop Entry"]["StartupWMClass"]
    assert wm_class == APP_ID
    assert entry["Desktop Entry"]["Exec"] == launcher.name  # what the menu starts
    # WM_CLASS is (instance, class): the launcher's name and Qt's application name.
    assert f'WM_CLASS(STRING) = "{launcher.name}", "{wm_class}"' in props, props
    assert re.search(r'WM_NAME\(\w+\) = ".*Memory Curator"', props), props
    assert "_NET_WM_PID(CARDINAL) = " in props, props
    assert "_NET_WM_ICON(CARDINAL) = " in props, props  # the app icon reached the window
    assert "Map State: IsViewable" in props, props
    assert "Traceback" not in log, log

    # The second launch found the first through its socket: one window, the first app alive.
    second = (tmp_path / "second.log").read_text()
    assert "second launch exited 0" in props, second
    assert "already running; brought its window to the front" in second, second
    assert "mapped windows: 1" in props, props
    assert "first instance still running" in props, props
