"""The desktop menu entry: `memory-app desktop install|uninstall` into an XDG folder."""

from __future__ import annotations

import configparser
import json
import re
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from memory_app import __version__
from memory_app.assets import APP_ICON_NAME, ICON_SIZES, asset_path
from memory_app.cli import main
from memory_app.config import APP_ID
from memory_app.desktop import (
    LEGACY_ID,
    DesktopError,
    DesktopFiles,
    data_home,
    desktop_entry,
    install,
    uninstall,
)
from tests.helpers import system_tool

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def launcher(tmp_path: Path) -> Path:
    """A launcher in a folder whose name needs quoting and escaping."""
    folder = tmp_path / 'my $apps 100% "new" back\\slash `tick`'
    folder.mkdir()
    path = folder / "memory-app"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.RawConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def string_value(value: str) -> str:
    """A desktop file string with its escapes (\\s, \\n, \\t, \\\\) read."""
    return re.sub(r"\\(.)", lambda m: {"s": " ", "n": "\n", "t": "\t"}.get(m[1], m[1]), value)


def exec_arguments(value: str) -> list[str]:
    """Split an Exec value as the Desktop Entry spec says a launcher must: string escapes
    first, then quoted arguments with backslash escapes, and %% for a percent."""
    unescaped = string_value(value)
    args, current, quoted, i = [], "", False, 0
    while i < len(unescaped):
        char = unescaped[i]
        if quoted and char == "\\":
            current += unescaped[i + 1]
            i += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            if current:
                args.append(current)
            current = ""
        else:
            current += char
        i += 1
    if current:
        args.append(current)
    return [a.replace("%%", "%") for a in args]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_install_writes_a_valid_entry_that_starts_this_launcher(
    tmp_path: Path, launcher: Path
) -> None:
    share = tmp_path / "share"
    report = install(launcher, share)
    files = DesktopFiles(share)
    assert report.action == "installed" and report.launcher == launcher
    assert set(report.files) == set(files.all())

    validator = system_tool("desktop-file-validate")
    result = subprocess.run([validator, str(files.entry)], capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr

    entry = read_entry(files.entry)
    # The quoting desktop-file-validate does not check: the menu must start exactly this.
    assert exec_arguments(entry["Exec"]) == [str(launcher)]
    assert string_value(entry["TryExec"]) == str(launcher)
    assert entry["Name"] == "Memory Curator"
    # Window and menu entry match: file name, WM class and icon are the app's id.
    assert files.entry.name == f"{APP_ID}.desktop"
    assert entry["StartupWMClass"] == APP_ID
    assert entry["Icon"] == APP_ICON_NAME
    assert entry["Terminal"] == "false"


def test_icons_at_every_size(tmp_path: Path, launcher: Path) -> None:
    share = tmp_path / "share"
    install(launcher, share)
    icons = DesktopFiles(share).icons
    assert {f"{s}x{s}" for s in ICON_SIZES} | {"scalable"} == set(icons)
    assert {16, 32, 48, 64, 128, 256, 512} <= set(ICON_SIZES)
    for folder, path in icons.items():
        assert path.parent.parent.name == folder and path.stat().st_size > 0
        if folder != "scalable":
            size = int(folder.split("x")[0])
            assert png_size(path) == (size, size), path
    svg = ET.parse(icons["scalable"]).getroot()
    assert svg.tag.endswith("svg") and svg.get("viewBox") == "0 0 256 256"


def test_the_packaged_icons_are_rendered_from_the_svg() -> None:
    """Every size is committed (packaging/render_icons.py) and no stray size lingers."""
    hicolor = ROOT / "resources" / "icons" / "hicolor"
    sizes = sorted(p.name for p in hicolor.iterdir() if p.name != "scalable")
    assert sizes == sorted(f"{s}x{s}" for s in ICON_SIZES)
    source = hicolor / "scalable" / "apps" / f"{APP_ICON_NAME}.svg"
    for size in ICON_SIZES:
        png = hicolor / f"{size}x{size}" / "apps" / f"{APP_ICON_NAME}.png"
        assert png_size(png) == (size, size)
        # Re-render the PNGs after editing the SVG.
        assert png.stat().st_mtime >= source.stat().st_mtime - 5 or _same_commit(png, source)


def _same_commit(a: Path, b: Path) -> bool:
    """In a fresh clone every file has the checkout's time: compare the last commits."""
    try:
        dates = [
            subprocess.run(
                ["git", "log", "-1", "--format=%ct", "--", str(p)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                check=True,
            ).stdout.strip()
            for p in (a, b)
        ]
    except (OSError, subprocess.CalledProcessError):
        return True  # not a git checkout (an unpacked sdist): nothing to compare
    return dates[0] >= dates[1]


def test_uninstall_removes_everything_it_installed(tmp_path: Path, launcher: Path) -> None:
    share = tmp_path / "share"
    (share / "applications").mkdir(parents=True)
    neighbour = share / "applications" / "other.desktop"
    neighbour.write_text("[Desktop Entry]\n")
    install(launcher, share)
    report = uninstall(share)
    assert set(report.files) == set(DesktopFiles(share).all())
    assert not [p for p in DesktopFiles(share).all() if p.exists()]
    assert neighbour.exists()  # someone else's entry stays
    again = uninstall(share)
    assert again.files == () and "nothing to remove" in again.notes[0]


def test_install_again_updates_in_place(tmp_path: Path, launcher: Path) -> None:
    share = tmp_path / "share"
    install(launcher, share)
    other = launcher.with_name("memory-app-2")
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    install(other, share)
    entry = read_entry(DesktopFiles(share).entry)
    assert exec_arguments(entry["Exec"]) == [str(other)]
    leftovers = [p for p in share.rglob("*") if p.name.endswith(".partial")]
    assert leftovers == []


def test_the_data_home_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert data_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    # A relative value is ignored, as the XDG spec says.
    assert data_home({"XDG_DATA_HOME": "relative/share"}) == tmp_path / "home/.local/share"
    assert data_home({}) == tmp_path / "home/.local/share"


def test_bad_launchers_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DesktopError, match="does not exist"):
        install(tmp_path / "missing" / "memory-app", tmp_path / "share")
    with pytest.raises(DesktopError, match="absolute"):
        desktop_entry(Path("memory-app"))
    with pytest.raises(DesktopError, match="control characters"):
        desktop_entry(tmp_path / "new\nline")
    assert not (tmp_path / "share").exists()


def test_an_unwritable_folder_is_a_clear_error(tmp_path: Path, launcher: Path) -> None:
    blocked = tmp_path / "share"
    blocked.write_text("a file where a folder should be")
    with pytest.raises(DesktopError, match="could not install"):
        install(launcher, blocked)


def test_the_cli_installs_and_uninstalls(
    tmp_path: Path, launcher: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    share = tmp_path / "share"
    code = main(["desktop", "install", "--launcher", str(launcher), "--data-home", str(share)])
    assert code == 0
    assert "Installed the Memory Curator menu entry" in capsys.readouterr().out
    assert DesktopFiles(share).entry.is_file()
    assert not (tmp_path / "data").exists()  # no store was opened

    code = main(["desktop", "uninstall", "--data-home", str(share), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["action"] == "removed"
    assert len(payload["files"]) == len(DesktopFiles(share).all())

    code = main(["desktop", "install", "--launcher", str(tmp_path / "nope"), "--data-home", "x"])
    assert code == 1
    assert "memory-app: error: the launcher" in capsys.readouterr().err


def test_the_metainfo_describes_this_app() -> None:
    path = asset_path(f"resources/{APP_ID}.metainfo.xml")
    root = ET.parse(path).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert re.fullmatch(r"[a-z]+(\.[a-z][a-z0-9]*)+\.[A-Za-z][A-Za-z0-9]*", APP_ID)  # reverse DNS
    launchable = root.find("launchable")
    assert launchable is not None and launchable.text == f"{APP_ID}.desktop"
    assert root.find("provides/binary").text == "memory-app"  # type: ignore[union-attr]
    assert root.findtext("replaces/id") == LEGACY_ID  # software centres follow the rename
    assert root.findtext("project_license") == "MIT"
    assert root.find("releases/release").get("version") == __version__  # type: ignore[union-attr]
    # No address the project does not have: no home page, bug tracker or screenshot URL.
    assert root.find("url") is None and root.find("screenshots") is None


def test_the_metainfo_passes_appstream_validation() -> None:
    """`appstreamcli validate`: no errors and no warnings (the id is reverse-DNS)."""
    tool = system_tool("appstreamcli")
    path = asset_path(f"resources/{APP_ID}.metainfo.xml")
    result = subprocess.run(
        [tool, "validate", "--no-net", "--no-color", str(path)], capture_output=True, text=True
    )
    issues = re.findall(r"^([EW]): \S+:\d*:? ?(\S+)", result.stdout, flags=re.MULTILINE)
    assert issues == [], result.stdout
    assert result.returncode == 0, result.stdout


def test_the_packaged_entry_passes_desktop_file_validate() -> None:
    tool = system_tool("desktop-file-validate")
    path = asset_path(f"resources/{APP_ID}.desktop")
    result = subprocess.run([tool, str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def legacy_install(share: Path, name: str = "Memory Curator") -> list[Path]:
    """The menu entry, metainfo and icons an earlier version installed as memory-app."""
    old = DesktopFiles(share, LEGACY_ID)
    old.entry.parent.mkdir(parents=True)
    old.entry.write_text(f"[Desktop Entry]\nType=Application\nName={name}\nExec=memory-app\n")
    old.metainfo.parent.mkdir(parents=True)
    old.metainfo.write_text(f"<component><id>memory-app</id><name>{name}</name></component>")
    for icon in old.icons.values():
        icon.parent.mkdir(parents=True, exist_ok=True)
        icon.write_bytes(b"old icon")
    return old.all()


def test_install_replaces_the_entry_of_an_earlier_version(tmp_path: Path, launcher: Path) -> None:
    share = tmp_path / "share"
    old = legacy_install(share)
    report = install(launcher, share)
    assert not [p for p in old if p.exists()]  # one entry in the menu, not two
    assert all(p.is_file() for p in DesktopFiles(share).all())
    assert any("earlier memory-app.desktop" in note for note in report.notes)


def test_uninstall_also_removes_the_entry_of_an_earlier_version(tmp_path: Path) -> None:
    share = tmp_path / "share"
    old = legacy_install(share)
    report = uninstall(share)
    assert set(report.files) == set(old)
    assert not [p for p in old if p.exists()]


def test_another_programs_memory_app_entry_is_left_alone(tmp_path: Path, launcher: Path) -> None:
    share = tmp_path / "share"
    theirs = legacy_install(share, name="Memory App of Someone Else")
    install(launcher, share)
    uninstall(share)
    assert all(p.exists() for p in theirs)
