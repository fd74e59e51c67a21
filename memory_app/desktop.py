"""The desktop menu entry and icons for the current user (freedesktop.org XDG layout).

`memory-app desktop install` copies the entry, the icon at every size and the AppStream
metainfo into the user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`), with
`Exec` and `TryExec` pointing at this installation's launcher by absolute path: a menu
started from a desktop session has no virtualenv or pipx folder on its PATH.

The entry, the window and the icon share one name, the reverse-DNS `APP_ID`
("io.github.memorycurator.MemoryCurator", see memory_app/config.py): the entry's file
name, its `Icon=` and `StartupWMClass=`, the metainfo's id, Qt's application name (the
window's WM_CLASS class) and desktop file name (the Wayland app id). A desktop only puts
the running window under its menu entry when they match. The first versions named all of
them `memory-app`; install and uninstall remove such an entry too, so an upgrade does not
leave two entries in the menu.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memory_app.assets import ICON_SIZES, asset_path
from memory_app.config import APP_ID

DESKTOP_FILE = f"{APP_ID}.desktop"
METAINFO_FILE = f"{APP_ID}.metainfo.xml"
LEGACY_ID = "memory-app"  # the entry, metainfo and icon name of the first versions
APP_NAME = "Memory Curator"  # the entry's Name=: how an old entry is known to be ours
LAUNCHER = "memory-app"  # the console script pyproject.toml installs
REFRESH_TIMEOUT_S = 20
# Characters the Desktop Entry spec reserves inside a quoted Exec argument.
_EXEC_RESERVED = ("\\", '"', "`", "$")  # the backslash first


class DesktopError(RuntimeError):
    """The entry could not be installed or removed; the message says what to do."""


@dataclass(frozen=True)
class DesktopFiles:
    """Where each installed file goes under one XDG data folder; `name` is the id the
    files are named by (LEGACY_ID for those of the first versions)."""

    data_home: Path
    name: str = APP_ID

    @property
    def entry(self) -> Path:
        return self.data_home / "applications" / f"{self.name}.desktop"

    @property
    def metainfo(self) -> Path:
        return self.data_home / "metainfo" / f"{self.name}.metainfo.xml"

    @property
    def icons(self) -> dict[str, Path]:
        """Theme folder ("48x48", "scalable") → the icon file there."""
        icon = self.name  # the app icon is named by the id (assets.APP_ICON_NAME)
        hicolor = self.data_home / "icons" / "hicolor"
        found = {
            f"{size}x{size}": hicolor / f"{size}x{size}" / "apps" / f"{icon}.png"
            for size in ICON_SIZES
        }
        found["scalable"] = hicolor / "scalable" / "apps" / f"{icon}.svg"
        return found

    def all(self) -> list[Path]:
        return [self.entry, self.metainfo, *self.icons.values()]


def legacy_files(home: Path) -> list[Path]:
    """The files of a menu entry an earlier version installed under LEGACY_ID, when that
    entry (or its metainfo) is ours: another program may be called memory-app too."""
    old = DesktopFiles(home, LEGACY_ID)
    ours = False
    try:
        if old.entry.is_file():
            text = old.entry.read_text("utf-8", errors="replace")
            ours = f"Name={APP_NAME}" in text.splitlines()
        if not ours and old.metainfo.is_file():
            ours = f"<name>{APP_NAME}</name>" in old.metainfo.read_text("utf-8", errors="replace")
    except OSError:
        return []
    return [path for path in old.all() if path.is_file() or path.is_symlink()] if ours else []


def _remove(paths: list[Path]) -> list[Path]:
    removed = []
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise DesktopError(f"could not remove {path}: {exc}") from exc
        removed.append(path)
    return removed


@dataclass(frozen=True)
class DesktopReport:
    """What install or uninstall did, for the CLI to print."""

    action: str  # "installed" | "removed"
    data_home: Path
    files: tuple[Path, ...]
    launcher: Path | None = None
    refreshed: tuple[str, ...] = ()  # the cache tools that ran
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        return {
            "action": self.action,
            "data_home": str(self.data_home),
            "files": [str(p) for p in self.files],
            "launcher": str(self.launcher) if self.launcher else None,
            "refreshed": list(self.refreshed),
            "notes": list(self.notes),
        }


def data_home(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME` when set to an absolute path (the spec ignores relative ones),
    else `~/.local/share`."""
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    return Path.home() / ".local" / "share"


def find_launcher() -> Path:
    """This installation's `memory-app` script: beside the running interpreter (a venv
    or pipx), else the one on PATH."""
    beside = Path(sys.executable).parent / LAUNCHER
    candidates = [beside]
    on_path = shutil.which(LAUNCHER)
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.absolute()
    raise DesktopError(
        f"cannot find the {LAUNCHER} launcher (looked beside {sys.executable} and on PATH); "
        "install the package (pip or pipx) first, or pass --launcher PATH"
    )


def quote_exec(path: Path) -> str:
    """`path` as one quoted argument of an `Exec` key: spaces and reserved characters
    survive, and `%` is not read as a field code."""
    text = str(path)
    if any(c in text for c in "\n\r\t"):
        raise DesktopError(f"the launcher path cannot contain control characters: {text!r}")
    for char in _EXEC_RESERVED:
        text = text.replace(char, "\\" + char)
    text = text.replace("%", "%%")
    # The value is then a string of the desktop file, where a backslash is written twice.
    return '"' + text.replace("\\", "\\\\") + '"'


def _plain_value(path: Path) -> str:
    text = str(path)
    if any(c in text for c in "\n\r\t"):
        raise DesktopError(f"the launcher path cannot contain control characters: {text!r}")
    return text.replace("\\", "\\\\")


def desktop_entry(launcher: Path) -> str:
    """The packaged entry with `Exec` and `TryExec` set to `launcher` (absolute)."""
    if not launcher.is_absolute():
        raise DesktopError(f"the launcher must be an absolute path, not {launcher}")
    lines = []
    for line in asset_path(f"resources/{DESKTOP_FILE}").read_text("utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={quote_exec(launcher)}"
        elif line.startswith("TryExec="):
            line = f"TryExec={_plain_value(launcher)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _write(target: Path, data: bytes) -> None:
    """Write through a temporary file and a rename, so a menu never reads half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_bytes(data)
    partial.chmod(0o644)
    partial.replace(target)


def _refresh(files: DesktopFiles) -> tuple[list[str], list[str]]:
    """Refresh the menu cache where the tool exists; desktops also watch the folders,
    so a missing tool only delays the entry, never breaks it."""
    ran: list[str] = []
    notes: list[str] = []
    tool = shutil.which("update-desktop-database")
    if tool:
        try:
            subprocess.run(
                [tool, "-q", str(files.entry.parent)],
                check=True,
                capture_output=True,
                timeout=REFRESH_TIMEOUT_S,
            )
            ran.append("update-desktop-database")
        except (OSError, subprocess.SubprocessError) as exc:
            notes.append(f"update-desktop-database failed ({exc}); the menu updates later")
    # The icon theme folder's time tells icon caches to look again (no cache is built
    # here: a stale user-level cache would hide icons installed later).
    hicolor = files.data_home / "icons" / "hicolor"
    if hicolor.is_dir():
        os.utime(hicolor)
    return ran, notes


def install(launcher: Path | None = None, home: Path | None = None) -> DesktopReport:
    """Install (or update) the menu entry, icons and metainfo for the current user."""
    launcher = (launcher or find_launcher()).absolute()
    if not launcher.is_file():
        raise DesktopError(f"the launcher {launcher} does not exist")
    files = DesktopFiles(home or data_home())
    try:
        entry = desktop_entry(launcher).encode("utf-8")
        _write(files.entry, entry)
        _write(files.metainfo, asset_path(f"resources/{METAINFO_FILE}").read_bytes())
        for folder, target in files.icons.items():
            source = asset_path(f"resources/icons/hicolor/{folder}/apps/{target.name}")
            _write(target, source.read_bytes())
    except OSError as exc:
        raise DesktopError(f"could not install into {files.data_home}: {exc}") from exc
    replaced = _remove(legacy_files(files.data_home))
    ran, notes = _refresh(files)
    if replaced:
        notes.append(
            f"removed the earlier {LEGACY_ID}.desktop entry and its icons ({len(replaced)} files)"
        )
    return DesktopReport(
        "installed", files.data_home, tuple(files.all()), launcher, tuple(ran), tuple(notes)
    )


def uninstall(home: Path | None = None) -> DesktopReport:
    """Remove what `install` wrote, and an entry of an earlier version; folders stay
    (other applications share them)."""
    files = DesktopFiles(home or data_home())
    removed = _remove([*files.all(), *legacy_files(files.data_home)])
    ran, notes = _refresh(files) if removed else ([], [])
    if not removed:
        notes.append(f"nothing to remove: no menu entry was installed in {files.data_home}")
    return DesktopReport("removed", files.data_home, tuple(removed), None, tuple(ran), tuple(notes))
