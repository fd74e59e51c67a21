"""A new user's first command: the README's `make run` opens the window on a real X server.

Runs `make run` in the repository under `xvfb-run`, as a person would type it (Qt picks
its xcb platform by itself), with a temporary home, so the data, settings and log
folders are new. It waits for the window to be mapped, reads which shared libraries the
running app has loaded, and closes it.

`.ci/run` installs the system packages of packaging/debian-packages.txt (the README's
apt-get line) and only test tools beside them, but a CI machine may have more installed
than a bare Debian. So the test also checks the list itself: every system library the
window loaded for Qt (not those the Python interpreter needs anyway) must come from a
package on the list, a package they depend on, or one every Debian has (Essential or
Priority: required). A library Qt needs that the list does not bring fails here, even on
a machine where it happens to be installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memory_app.config import APP_FOLDER, APP_ID, LEGACY_FOLDER
from tests.helpers import system_tool

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PACKAGES = ROOT / "packaging" / "debian-packages.txt"

# In the virtual X server: start `make run`, wait for the app's mapped top-level window,
# save its WM_CLASS and the libraries its process has mapped, then end the app. Exits 3
# when no window appeared in time.
SCRIPT = r"""
make run >"$LOG" 2>&1 &
runner=$!
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
if [ -z "$id" ]; then kill "$runner" 2>/dev/null; cat "$LOG" >&2; exit 3; fi
sleep 1  # the window is up: let the first paint and the startup work load what they load
pid=$(xprop -id "$id" _NET_WM_PID | sed -n 's/.* = \([0-9]*\)$/\1/p')
xprop -id "$id" WM_CLASS
cat "/proc/$pid/maps" >"$MAPS"
kill "$pid"
wait "$runner"
exit 0
"""


def _first_installed(choices: list[str], installed: dict[str, list[str]]) -> str | None:
    for name in choices:
        if name in installed:
            return installed[name][0]
    return None


def installed_packages() -> tuple[dict[str, list[list[str]]], set[str], dict[str, list[str]]]:
    """dpkg's view of this machine: each installed package's dependencies (groups of
    alternatives, versions and architectures dropped), the packages every Debian has
    (Essential or Priority: required), and each name (real or provided) → its packages."""
    fields = "${db:Status-Abbrev}\t${Package}\t${Essential}\t${Priority}\t"
    fields += "${Pre-Depends}, ${Depends}\t${Provides}\n"
    listing = subprocess.run(
        [system_tool("dpkg-query"), "-W", "-f", fields], capture_output=True, text=True, check=True
    ).stdout
    depends: dict[str, list[list[str]]] = {}
    base: set[str] = set()
    names: dict[str, list[str]] = {}
    for line in listing.splitlines():
        status, package, essential, priority, relations, provides = line.split("\t")
        if not status.startswith("ii"):
            continue
        groups = []
        for group in relations.split(","):
            alternatives = [re.split(r"[\s(:]", a.strip())[0] for a in group.split("|")]
            if any(alternatives):
                groups.append([a for a in alternatives if a])
        depends[package] = groups
        names.setdefault(package, []).insert(0, package)
        for provided in provides.split(","):
            if provided.strip():
                names.setdefault(re.split(r"[\s(:]", provided.strip())[0], []).append(package)
        if essential == "yes" or priority == "required":
            base.add(package)
    return depends, base, names


def closure(roots: set[str], depends: dict[str, list[list[str]]], names: dict[str, list[str]]):
    """The packages apt installs for `roots`: each dependency's first installed choice."""
    found: set[str] = set()
    todo = list(roots)
    while todo:
        package = todo.pop()
        if package in found:
            continue
        found.add(package)
        for group in depends.get(package, []):
            chosen = _first_installed(group, names)
            if chosen is not None:
                todo.append(chosen)
    return found


def owners(paths: list[str]) -> dict[str, str | None]:
    """The package owning each file (usrmerge: a library in /usr/lib may be registered
    under /lib), or None."""
    found: dict[str, str | None] = dict.fromkeys(paths)
    candidates = {p: [p, p.removeprefix("/usr")] for p in paths}
    asked = sorted({c for cs in candidates.values() for c in cs})
    result = subprocess.run([system_tool("dpkg"), "-S", *asked], capture_output=True, text=True)
    by_path = {}
    for line in result.stdout.splitlines():
        package, _, path = line.partition(": ")
        by_path[path.strip()] = package.split(",")[0].split(":")[0].strip()
    for path, options in candidates.items():
        found[path] = next((by_path[o] for o in options if o in by_path), None)
    return found


def ldd_closure(objects: list[str]) -> set[str]:
    """Every library the dynamic linker loads for these files (ldd resolves the whole tree)."""
    result = subprocess.run([system_tool("ldd"), *objects], capture_output=True, text=True)
    return {os.path.realpath(m) for m in re.findall(r"=> (/\S+)", result.stdout)}


def libraries_qt_loaded(maps: str) -> list[str]:
    """The system libraries the process mapped, less those the interpreter and the Python
    extensions outside Qt (numpy, the standard library's modules...) link themselves."""
    mapped = set()
    for line in maps.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and re.search(r"\.so(\.[\d.]+)?$", parts[5]):
            mapped.add(os.path.realpath(parts[5]))
    qt_folders = tuple(
        str(Path(p).resolve()) + os.sep
        for p in (__import__("PySide6").__path__[0], __import__("shiboken6").__path__[0])
    )
    system = {p for p in mapped if p.startswith(("/usr/lib", "/lib")) and "/local/" not in p}
    python_side = [p for p in mapped - system if not p.startswith(qt_folders)]
    python_side.append(os.path.realpath(sys.executable))
    return sorted(system - ldd_closure(python_side))


def read_list() -> list[list[str]]:
    entries = []
    for line in SYSTEM_PACKAGES.read_text("utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            entries.append([name.strip() for name in entry.split("|")])
    return entries


@pytest.mark.slow
def test_make_run_opens_the_window_with_only_the_readmes_system_packages(
    tmp_path: Path,
) -> None:
    xvfb_run = system_tool("xvfb-run")
    system_tool("xwininfo")
    system_tool("xprop")
    system_tool("make")
    # `make run` sets .venv up when pyproject.toml or the pins are newer than it; here that
    # would reinstall the environment these tests run in.
    stale = subprocess.run(["make", "--question", ".venv/bin/memory-app"], cwd=ROOT)
    assert stale.returncode == 0, "the .venv is older than pyproject.toml: run `make` first"
    home = tmp_path / "home"
    (home / "runtime").mkdir(parents=True, mode=0o700)
    dropped = ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")
    env = {
        **{k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("XDG_")},
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(home / "runtime"),
        "LOG": str(tmp_path / "make-run.log"),
        "MAPS": str(tmp_path / "maps"),
    }
    result = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1280x1024x24", "sh", "-c", SCRIPT],
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        cwd=ROOT,
        timeout=180,
    )
    log = (tmp_path / "make-run.log").read_text(errors="replace")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n{log}"
    assert f'WM_CLASS(STRING) = "memory-app", "{APP_ID}"' in result.stdout, result.stdout
    assert "Traceback" not in log, log

    # A new home: data, settings and log each in a folder of the one name, none other.
    local = home / ".local"
    assert (local / "share" / APP_FOLDER / "memory.db").is_file()
    assert (local / "state" / APP_FOLDER / "logs" / "memory-app.log").is_file()
    assert not [p for p in home.rglob(f"*{LEGACY_FOLDER}*")]

    # What the window loaded for Qt comes from the list (or a bare Debian).
    loaded = libraries_qt_loaded((tmp_path / "maps").read_text())
    assert any("libxcb-cursor" in p for p in loaded), loaded  # the xcb platform ran
    depends, base, names = installed_packages()
    roots = {p for p in (_first_installed(e, names) for e in read_list()) if p is not None}
    allowed = closure(roots | base, depends, names)
    outside = {path: package for path, package in owners(loaded).items() if package not in allowed}
    assert not outside, (
        "the window loads these libraries, whose packages packaging/debian-packages.txt "
        f"does not bring: {outside}"
    )
