"""Build the Debian package of Memory Curator from a PyInstaller one-folder bundle.

    python packaging/build_deb.py                    build the bundle, then the .deb
    python packaging/build_deb.py --bundle DIR       package a bundle built before
    python packaging/build_deb.py --out DIR          where the .deb goes (default: dist/)

Run it with the project's environment (it imports memory_app for the version and the
desktop entry; building the bundle also needs `pip install -e '.[packaging]'`), on the
Debian or Ubuntu release the package is for: the bundle carries the build machine's
Python and several of its system libraries.

The package installs
    /opt/memory-curator/                       the bundle (program: memory-app)
    /usr/bin/memory-app                        -> /opt/memory-curator/memory-app
    /usr/share/applications/memory-app.desktop Exec="/usr/bin/memory-app"
    /usr/share/icons/hicolor/*/apps/memory-app.{png,svg}
    /usr/share/metainfo/memory-app.metainfo.xml
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "pyinstaller" / "memory-app.spec"
sys.path.insert(0, str(ROOT))

try:
    from memory_app import __version__
    from memory_app.assets import asset_path
    from memory_app.desktop import METAINFO_FILE, DesktopFiles, desktop_entry
except ImportError as exc:  # pragma: no cover - depends on how the script is started
    sys.exit(
        f"build_deb.py: cannot import memory_app ({exc}); run it with the project's "
        "environment, e.g. .venv/bin/python packaging/build_deb.py"
    )

PACKAGE = "memory-curator"
PROGRAM = "memory-app"  # the bundle's executable, and the command on PATH
INSTALL_DIR = PurePosixPath("/opt") / PACKAGE
COMMAND = PurePosixPath("/usr/bin") / PROGRAM
# A placeholder (".invalid" is a reserved domain): pass --maintainer or set DEB_MAINTAINER.
DEFAULT_MAINTAINER = "The Memory Curator developers <maintainers@memory-curator.invalid>"

# What Qt's xcb platform needs from the system on Debian 12. PyInstaller copies many of
# these libraries into the bundle from the build machine, but not libGL, libEGL and
# libxcb (always the system's: they must match the graphics driver and X server), and a
# copied fontconfig still reads the system's /etc/fonts, which libfontconfig1 brings.
# Listing them all keeps the package correct when PyInstaller's choice changes;
# `check_system_libraries` reports anything the built bundle links that is missing here.
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
    "libglib2.0-0 | libglib2.0-0t64",  # renamed in Debian 13 and Ubuntu 24.04
)
# Only the Wayland platform plugin links these; without them Qt falls back to X11
# (XWayland), so they are recommended rather than required.
RECOMMENDS = ("libwayland-client0", "libwayland-cursor0", "libwayland-egl1")

SUMMARY = "curate the long-term memory of AI coding assistants"
DESCRIPTION = """\
Memory Curator is a local-first desktop application (and a command line tool) that keeps
the long-term memory of AI coding assistants in the open. It imports Claude Code
sessions and text or Markdown transcripts, learns coding preferences, architectural
decisions, project conventions and bug patterns from them (offline, or with Claude when
an API key is set), and lets a person browse, search, edit, pin and delete what was
learned, resolve contradictions side by side, and write a ranked, token-budgeted memory
block into CLAUDE.md. Duplicates are merged and stale memories archived in the
background, every change reviewed and undoable.

This package is a self-contained build: Python and Qt are bundled under
/opt/memory-curator."""

REFRESH = """\
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q /usr/share/applications || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -d /usr/share/icons/hicolor ]; then
    gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor || true
fi
"""


class BuildError(RuntimeError):
    """A step failed; the message says which and why."""


# -- the maintainer scripts -----------------------------------------------------------------


def _script(action: str, when: Sequence[str]) -> str:
    body = "".join(f"        {line}\n" if line else "\n" for line in REFRESH.splitlines())
    return (
        "#!/bin/sh\n"
        f"# {action}: refresh the menu and icon caches where the tools exist.\n"
        "set -e\n"
        'case "$1" in\n'
        f"    {'|'.join(when)})\n"
        f"{body}"
        "        ;;\n"
        "esac\n"
        "exit 0\n"
    )


POSTINST = _script("After installing or upgrading", ("configure",))
POSTRM = _script("After removing", ("remove", "purge"))


# -- measuring and checking the bundle ------------------------------------------------------


def tree_bytes(folder: Path) -> int:
    """Bytes of the regular files under `folder` (symbolic links not followed)."""
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def installed_size_kib(root: Path) -> int:
    """dpkg's Installed-Size: KiB per file rounded up, one per folder and link."""
    total = 0
    for path in root.rglob("*"):
        if path.relative_to(root).parts[0] == "DEBIAN":
            continue
        if path.is_symlink() or path.is_dir():
            total += 1
        else:
            total += max(1, math.ceil(path.stat().st_size / 1024))
    return total


def elf_files(bundle: Path) -> Iterable[Path]:
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    yield path


def glibc_needed(bundle: Path) -> str | None:
    """The newest glibc symbol version any program or library in the bundle asks for
    (e.g. "2.36"): the build machine's, which the target must have at least."""
    newest: tuple[int, int] | None = None
    pattern = re.compile(rb"GLIBC_2\.(\d+)")
    for path in elf_files(bundle):
        for match in pattern.finditer(path.read_bytes()):
            version = (2, int(match.group(1)))
            newest = version if newest is None or version > newest else newest
    return None if newest is None else f"{newest[0]}.{newest[1]}"


def _needed(path: Path) -> list[str]:
    found = subprocess.run(
        ["objdump", "-p", str(path)], capture_output=True, text=True, check=False
    ).stdout
    return re.findall(r"^\s*NEEDED\s+(\S+)", found, re.MULTILINE)


def _owner(library: str) -> str | None:
    found = subprocess.run(
        ["dpkg", "-S", f"*/{library}"], capture_output=True, text=True, check=False
    ).stdout
    return found.split(":", 1)[0].strip() if found else None


def _package_name(library: str) -> str | None:
    """The package Debian's naming rule gives a library that is not installed here:
    libfoo.so.1 is in libfoo1, libfoo2.so.0 in libfoo2-0."""
    match = re.fullmatch(r"(lib[\w.+-]+?)\.so\.(\d+)", library)
    if match is None:
        return None
    name, soname = match.groups()
    return f"{name}-{soname}".lower() if name[-1].isdigit() else f"{name}{soname}".lower()


def check_system_libraries(bundle: Path) -> list[str]:
    """Warnings for libraries the bundle links but neither carries nor declares.

    Reads each ELF file's NEEDED entries (objdump, from binutils) and asks dpkg which
    package owns each library the bundle does not contain. Skipped, with a note, where
    those tools are missing.
    """
    if not shutil.which("objdump") or not shutil.which("dpkg"):
        return ["objdump or dpkg is missing: the system libraries were not checked"]
    inside = {path.name for path in bundle.rglob("*.so*")}
    outside: dict[str, set[str]] = {}
    for path in elf_files(bundle):
        for library in _needed(path):
            if library not in inside:
                outside.setdefault(library, set()).add(path.name)
    declared = {"libc6"}
    for entry in (*DEPENDS, *RECOMMENDS):
        declared.update(part.split()[0] for part in entry.split("|"))
    warnings = []
    for library, users in sorted(outside.items()):
        owner = _owner(library) or _package_name(library)
        if owner is None or owner.split(":")[0] not in declared:
            who = ", ".join(sorted(users)[:3])
            warnings.append(
                f"{library} (linked by {who}) comes from {owner or 'no installed package'}, "
                "which the package does not declare"
            )
    return warnings


# -- building ---------------------------------------------------------------------------------


def build_bundle(dist: Path, work: Path) -> Path:
    """Run PyInstaller on the spec; the one-folder bundle is dist/memory-app."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise BuildError(
            "PyInstaller is not installed in this environment: pip install -e '.[packaging]' "
            "(or pass --bundle DIR with a bundle built before)"
        ) from None
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--log-level",
        "WARN",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        str(SPEC),
    ]
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        raise BuildError("PyInstaller failed (its messages are above)")
    return dist / PROGRAM


def check_bundle(bundle: Path) -> None:
    program = bundle / PROGRAM
    if not bundle.is_dir():
        raise BuildError(f"{bundle} is not a folder (expected a one-folder bundle)")
    if not program.is_file() or not os.access(program, os.X_OK):
        raise BuildError(f"{program} is missing or not executable")
    for link in (p for p in bundle.rglob("*") if p.is_symlink()):
        target = os.readlink(link)
        resolved = (link.parent / target).resolve()
        if os.path.isabs(target) or bundle.resolve() not in resolved.parents:
            raise BuildError(f"{link} points outside the bundle ({target})")


def _mode(path: Path) -> int:
    """0755 for folders and programs, 0644 for everything else (shared libraries too)."""
    if path.is_dir():
        return 0o755
    executable = path.stat().st_mode & 0o111
    library = re.search(r"\.so(\.[\d.]+)?$", path.name) is not None
    return 0o755 if executable and not library else 0o644


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def lay_out(bundle: Path, root: Path) -> None:
    """The package's files under `root`, as they will be installed."""
    shutil.copytree(bundle, root / INSTALL_DIR.relative_to("/"), symlinks=True)
    command = root / COMMAND.relative_to("/")
    command.parent.mkdir(parents=True, exist_ok=True)
    command.symlink_to(INSTALL_DIR / PROGRAM)  # absolute: it crosses top-level folders

    # The same layout and entry `memory-app desktop install` writes for one user.
    share = DesktopFiles(root / "usr" / "share")
    _write(share.entry, desktop_entry(Path(str(COMMAND))).encode("utf-8"))
    _write(share.metainfo, asset_path(f"resources/{METAINFO_FILE}").read_bytes())
    for folder, target in share.icons.items():
        icon = asset_path(f"resources/icons/hicolor/{folder}/apps/{target.name}")
        _write(target, icon.read_bytes())

    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(_mode(path))


def architecture() -> str:
    found = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    )
    return found.stdout.strip()


def control(arch: str, installed_kib: int, glibc: str | None, maintainer: str) -> str:
    depends = [f"libc6 (>= {glibc})" if glibc else "libc6", *DEPENDS]
    paragraphs = [
        textwrap.wrap(" ".join(p.split()), 72, break_on_hyphens=False)
        for p in DESCRIPTION.split("\n\n")
    ]
    long_description = "\n .\n".join("\n".join(f" {line}" for line in p) for p in paragraphs)
    fields = [
        ("Package", PACKAGE),
        ("Version", __version__),
        ("Architecture", arch),
        ("Maintainer", maintainer),
        ("Installed-Size", str(installed_kib)),
        ("Depends", ", ".join(depends)),
        ("Recommends", ", ".join(RECOMMENDS)),
        ("Section", "devel"),
        ("Priority", "optional"),
        ("Description", f"{SUMMARY}\n{long_description}"),
    ]
    return "".join(f"{name}: {value}\n" for name, value in fields)


def write_debian(root: Path, arch: str, glibc: str | None, maintainer: str) -> None:
    """The control folder: control, md5sums and the maintainer scripts."""
    sums = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest = hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()
            sums.append(f"{digest}  {path.relative_to(root).as_posix()}\n")
    files = {
        "control": (control(arch, installed_size_kib(root), glibc, maintainer), 0o644),
        "md5sums": ("".join(sums), 0o644),
        "postinst": (POSTINST, 0o755),
        "postrm": (POSTRM, 0o755),
    }
    debian = root / "DEBIAN"
    debian.mkdir()
    debian.chmod(0o755)
    for name, (text, mode) in files.items():
        (debian / name).write_text(text, "utf-8")
        (debian / name).chmod(mode)


def build_deb(bundle: Path, out: Path, maintainer: str, compression: str = "xz") -> Path:
    check_bundle(bundle)
    arch = architecture()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{PACKAGE}_{__version__}_{arch}.deb"
    with tempfile.TemporaryDirectory(prefix=f"{PACKAGE}-deb-") as staging:
        root = Path(staging) / "root"
        root.mkdir()
        lay_out(bundle, root)
        write_debian(root, arch, glibc_needed(bundle), maintainer)
        result = subprocess.run(
            [
                "dpkg-deb",
                "--build",
                "--root-owner-group",
                f"-Z{compression}",
                str(root),
                str(target),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise BuildError(f"dpkg-deb failed: {result.stderr.strip() or result.stdout}")
    return target


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, help="a one-folder bundle built before")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the .deb goes")
    parser.add_argument(
        "--dist", type=Path, default=ROOT / "dist", help="where PyInstaller puts the bundle"
    )
    parser.add_argument(
        "--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's cache"
    )
    parser.add_argument(
        "--maintainer",
        default=os.environ.get("DEB_MAINTAINER", DEFAULT_MAINTAINER),
        help="the control file's Maintainer (default: $DEB_MAINTAINER or the project)",
    )
    parser.add_argument(
        "--compression",
        choices=("xz", "zstd", "gzip"),
        default="xz",
        help="of the .deb's contents (xz: readable by every dpkg; zstd: faster to build)",
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    for tool in ("dpkg-deb", "dpkg"):
        if not shutil.which(tool):
            print(f"build_deb.py: {tool} is missing (Debian/Ubuntu only)", file=sys.stderr)
            return 1

    started = time.monotonic()
    try:
        if args.bundle is None:
            print(f"Building the bundle with PyInstaller into {args.dist} …", flush=True)
            bundle = build_bundle(args.dist.absolute(), args.work.absolute())
        else:
            bundle = args.bundle
        bundled = time.monotonic()
        for warning in check_system_libraries(bundle):
            print(f"warning: {warning}", file=sys.stderr)
        deb = build_deb(bundle.absolute(), args.out.absolute(), args.maintainer, args.compression)
    except (BuildError, OSError, subprocess.CalledProcessError) as exc:
        print(f"build_deb.py: {exc}", file=sys.stderr)
        return 1
    finished = time.monotonic()

    print(f"Bundle:  {bundle}  {_mb(tree_bytes(bundle))}")
    print(f"Package: {deb}  {_mb(deb.stat().st_size)}")
    timing = f"{finished - started:.0f} s"
    if args.bundle is None:
        timing += f" (PyInstaller {bundled - started:.0f} s, .deb {finished - bundled:.0f} s)"
    print(f"Time:    {timing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
