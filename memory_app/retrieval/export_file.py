"""Writing the managed block into CLAUDE.md on disk, safely.

CLAUDE.md is the person's file. So an export is planned first (old text, new text, diff),
shown, and only then applied; applying re-reads the file and refuses if it changed since
the preview, and every write goes through a temporary file and `os.replace`, so the file
is either the old one or the new one, never half of each.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from memory_app.domain.claude_md import (
    ManagedBlockError,
    ensure_import_line,
    splice,
    unified_diff,
)

# A CLAUDE.md is a few kilobytes; anything this big is some other file given by mistake.
MAX_FILE_BYTES = 5 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


class ExportError(Exception):
    """An export that could not be done; the message says which file and that nothing changed."""


@dataclass(frozen=True)
class FileText:
    """A file's text, and whether it started with a UTF-8 byte-order mark to write back."""

    text: str
    bom: bool = False


def read_text_file(path: Path) -> FileText | None:
    """The file's UTF-8 text, or None when it does not exist."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ExportError(f"cannot read {path}: {error.strerror}; nothing was changed") from error
    if stat.S_ISDIR(info.st_mode):
        raise ExportError(f"{path} is a folder, not a file; nothing was changed")
    if info.st_size > MAX_FILE_BYTES:
        raise ExportError(
            f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, "
            "not a CLAUDE.md file; nothing was changed"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ExportError(f"cannot read {path}: {error.strerror}; nothing was changed") from error
    bom = data.startswith(_BOM)
    try:
        text = data[len(_BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise ExportError(
            f"{path} is not UTF-8 text (invalid byte at offset {error.start}); nothing was changed"
        ) from error
    return FileText(text, bom)


def write_atomically(path: Path, text: str, *, bom: bool = False) -> None:
    """Replace `path` with `text` in one step, keeping its permission bits.

    The text is written as is (no newline translation) so the caller's line endings
    survive. A symbolic link is followed, so the link stays a link. A missing folder is an
    error rather than created: a typo in a path should not make new folders.
    """
    target = _written_file(path)
    temporary = _temporary_copy(target, _encoded(target, text, bom), "the file was not changed")
    try:
        os.replace(temporary, target)
    except OSError as error:
        with suppress(OSError):
            os.unlink(temporary)
        raise ExportError(f"cannot write {target}: {error}; the file was not changed") from error
    _sync_folder(target.parent)


@dataclass(frozen=True)
class FileChange:
    """One file of a set written all together: `new` None removes it. `old` is its text
    when planned (None: no file), put back if the set cannot be completed."""

    path: Path
    old: str | None
    new: str | None
    bom: bool = False


def write_together(changes: Sequence[FileChange]) -> None:
    """Write (or remove) every file, in order, or leave them all as they were.

    Every new text is first written to a temporary file beside its target; only when all
    are there are they renamed into place (the same file system: each rename is atomic).
    Should a rename or removal still fail, the files already changed get their old text
    back, and the message says so."""
    targets = [_written_file(c.path) for c in changes]
    temporaries: list[Path | None] = []
    try:
        for change, target in zip(changes, targets, strict=True):
            data = None if change.new is None else _encoded(target, change.new, change.bom)
            temporaries.append(
                None if data is None else _temporary_copy(target, data, "nothing was changed")
            )
    except ExportError:
        _discard(temporaries)
        raise
    done: list[FileChange] = []
    for change, target, temporary in zip(changes, targets, temporaries, strict=True):
        try:
            if temporary is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(temporary, target)
        except OSError as error:
            _discard(temporaries[len(done) :])
            left = _put_back(done)
            outcome = (
                "the files written before it were put back as they were"
                if not left
                else f"could not put back {', '.join(map(str, left))}: check them"
            )
            raise ExportError(f"cannot write {target}: {error}; {outcome}") from error
        done.append(change)
    for folder in dict.fromkeys(t.parent for t in targets):
        _sync_folder(folder)


def _put_back(done: Sequence[FileChange]) -> list[Path]:
    """Give the files already written their old text again; those that could not be."""
    left = []
    for change in reversed(done):
        try:
            if change.old is None:
                _written_file(change.path).unlink(missing_ok=True)
            else:
                write_atomically(change.path, change.old, bom=change.bom)
        except (OSError, ExportError):
            left.append(change.path)
    return left


def _discard(temporaries: Sequence[Path | None]) -> None:
    for temporary in temporaries:
        if temporary is not None:
            with suppress(OSError):
                os.unlink(temporary)


def _written_file(path: Path) -> Path:
    """The file a write replaces: a symbolic link's target (the link stays a link); its
    folder must exist and it must not be a folder."""
    target = path.resolve() if path.is_symlink() else path
    if not target.parent.is_dir():
        raise ExportError(f"the folder {target.parent} does not exist; nothing was written")
    if target.is_dir():
        raise ExportError(f"{target} is a folder, not a file; nothing was written")
    return target


def _encoded(target: Path, text: str, bom: bool) -> bytes:
    try:
        return (_BOM if bom else b"") + text.encode("utf-8")
    except UnicodeEncodeError as error:
        message = f"the text for {target} is not valid Unicode; nothing was written"
        raise ExportError(message) from error


def _temporary_copy(target: Path, data: bytes, unchanged: str) -> Path:
    """`data` in a new file beside `target`, synced and with the permission bits `target`
    has (or a new file would get), ready to be renamed onto it."""
    temporary: str | None = None
    try:
        mode = _mode_of(target)
        with tempfile.NamedTemporaryFile(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
        ) as handle:
            temporary = handle.name
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
    except OSError as error:
        if temporary is not None:
            with suppress(OSError):
                os.unlink(temporary)
        raise ExportError(f"cannot write {target}: {error}; {unchanged}") from error
    return Path(temporary)


def _mode_of(path: Path) -> int:
    """The permission bits to give the new file: the old file's, or what open() would give."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it (os.umask would race other threads)."""
    with suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it (POSIX only)."""
    if os.name != "posix":
        return
    with suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


# --- planned exports ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExportPlan:
    """What an export will write, computed before anything is touched.

    `path` is the file that holds the block: CLAUDE.md itself, or with `via` the app's own
    file. `import_path` is then the CLAUDE.md that imports it with an `@` line. `old` and
    `import_old` are the texts read when planning (None: the file did not exist); `bom` and
    `import_bom` say whether each file starts with a byte-order mark to keep.
    """

    path: Path
    old: str | None
    new: str
    import_path: Path | None = None
    import_old: str | None = None
    import_new: str | None = None
    bom: bool = False
    import_bom: bool = False

    @property
    def changed(self) -> bool:
        return self.old != self.new or (
            self.import_path is not None and self.import_old != self.import_new
        )

    def diff(self) -> str:
        """Unified diffs of both files, named relative to CLAUDE.md's folder; "" if unchanged."""
        base = (self.import_path or self.path).parent
        parts = [unified_diff(self.old, self.new, _display_name(self.path, base))]
        if self.import_path is not None and self.import_new is not None:
            name = _display_name(self.import_path, base)
            parts.append(unified_diff(self.import_old, self.import_new, name))
        return "".join(parts)


def plan_export(target: Path, block: str, *, via: Path | None = None) -> ExportPlan:
    """The plan to put `block` into `target` (a CLAUDE.md), changing nothing on disk.

    Without `via` the block is spliced into `target`. With `via` (a file wholly owned by
    the app, e.g. `.claude/memory-curator.md`) that file becomes the block and `target`
    only gets an `@path` import line, so CLAUDE.md itself stays almost untouched.
    """
    _require_folder(target)
    current = read_text_file(target)
    if via is None:
        new = _splice_or_refuse(target, current, block)
        return ExportPlan(target, _text(current), new, bom=_bom(current))
    if _absolute(via) == _absolute(target):
        raise ExportError(f"{via} is CLAUDE.md itself; choose another file; nothing was changed")
    _require_folder(via)
    via_current = read_text_file(via)
    via_new = _newlines_like(block + "\n", _text(via_current))
    import_new = ensure_import_line(_text(current), _import_reference(target, via))
    return ExportPlan(
        via,
        _text(via_current),
        via_new,
        import_path=target,
        import_old=_text(current),
        import_new=import_new,
        bom=_bom(via_current),
        import_bom=_bom(current),
    )


def apply_export(plan: ExportPlan) -> None:
    """Write what `plan` previewed, or nothing if any of its files changed meanwhile.

    Both files are checked before either is written; the block file is written before the
    importing one so CLAUDE.md never imports a file that is not there yet.
    """
    check_unchanged(plan)
    if plan.old != plan.new:
        write_atomically(plan.path, plan.new, bom=plan.bom)
    path, new = plan.import_path, plan.import_new
    if path is not None and new is not None and new != plan.import_old:
        write_atomically(path, new, bom=plan.import_bom)


def check_unchanged(plan: ExportPlan) -> None:
    """Refuse (ExportError) when a file of the plan changed since it was planned, so a
    caller writing several plans can check them all before writing any."""
    _check_unchanged(plan.path, plan.old, plan.bom)
    if plan.import_path is not None:
        _check_unchanged(plan.import_path, plan.import_old, plan.import_bom)


def _require_folder(path: Path) -> None:
    """Refuse at planning time what writing would refuse, before a preview is shown."""
    if not path.parent.is_dir():
        raise ExportError(f"the folder {path.parent} does not exist; nothing was changed")


def _check_unchanged(path: Path, expected: str | None, bom: bool) -> None:
    now = read_text_file(path)
    if _text(now) != expected or (now is not None and now.bom != bom):
        raise ExportError(f"{path} changed since the preview; nothing written")


def _splice_or_refuse(target: Path, current: FileText | None, block: str) -> str:
    try:
        return splice(_text(current), block)
    except ManagedBlockError as error:
        raise ExportError(
            f"{target}: {error}; fix the markers by hand, nothing was changed"
        ) from error


def _import_reference(target: Path, via: Path) -> str:
    """How CLAUDE.md names `via`: relative to its folder (posix style), else absolute."""
    folder = _absolute(target).parent
    file = _absolute(via)
    if file.is_relative_to(folder):
        return file.relative_to(folder).as_posix()
    return file.as_posix()


def _display_name(path: Path, base: Path) -> str:
    file, folder = _absolute(path), base.resolve()
    return file.relative_to(folder).as_posix() if file.is_relative_to(folder) else str(file)


def _absolute(path: Path) -> Path:
    """An absolute path with its folder's symbolic links resolved (the file's own is kept)."""
    return path.absolute().parent.resolve() / path.name


def _newlines_like(text: str, model: str | None) -> str:
    """`text` (with "\\n" line breaks) in CRLF style if `model`'s first line break is CRLF.

    Keeps a block file checked out with CRLF line endings from showing every line changed.
    """
    first = -1 if model is None else model.find("\n")
    if first <= 0 or model is None or model[first - 1] != "\r":
        return text
    return text.replace("\n", "\r\n")


def _text(file: FileText | None) -> str | None:
    return None if file is None else file.text


def _bom(file: FileText | None) -> bool:
    return file is not None and file.bom
