"""The file mirror's layout on disk (seed 000 §1): where each file goes, how it is written
so that git diffs stay small, and how it is read back with errors that name the line.

    manifest.json                 format name and version (refused when newer), counts
    items/<category>/<id>-<slug>.json   one memory: its columns, history, context exclusions
    categories/index.json         the categories, each with its summary's figures
    categories/<key>.md           a category's summary, exactly as stored
    categories/<key>.digest.md    its weekly digest, when it has one
    categories/history.json       changes to categories and digests (undo needs them)
    conflicts.json                conflicts with members, resolution, history; verdicts
    links.json                    a person's links between the mirror's memories (by id)
    resources/index.json          the conversations, by reference: no text

JSON is written with sorted keys, two-space indents and one trailing newline, so the
same store always gives the same bytes; a memory's file name keeps the words it was
first learnt with, so editing it changes the file rather than renaming it.

Symbolic links are never followed, written, removed or read through below the mirror's
folder (the folder itself may be one): a link in a cloned or shared mirror could lead an
export to overwrite or delete files elsewhere, or an import to read them. A link is
refused with its name before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from json.decoder import JSONObject  # type: ignore[attr-defined]  # public, undeclared
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from pathlib import Path, PurePosixPath
from typing import Any

FORMAT = "memory-curator-mirror"
VERSION = 1  # raise it when a reader of this version would misread the files
MANIFEST = "manifest.json"
ITEMS = "items"
CATEGORIES = "categories"
RESOURCES = "resources"
CONFLICTS = "conflicts.json"
LINKS = "links.json"  # optional: mirrors written before links have none
CATEGORY_INDEX = f"{CATEGORIES}/index.json"
CATEGORY_HISTORY = f"{CATEGORIES}/history.json"
RESOURCE_INDEX = f"{RESOURCES}/index.json"
REQUIRED = (MANIFEST, CATEGORY_INDEX, CATEGORY_HISTORY, CONFLICTS, RESOURCE_INDEX)
# Folders the export owns: a file of ours in them that the store no longer gives is stale.
OWNED_FOLDERS = (ITEMS, CATEGORIES, RESOURCES)
OWNED_SUFFIXES = (".json", ".md")
# The content hash of a conversation known only by reference (imported from a mirror,
# with no text): kept apart from real hashes, so importing it for real still stores it.
REFERENCE_PREFIX = "reference:"
_SLUG_WORDS = 8
_SLUG_CHARS = 48
LINK = (
    "is a symbolic link: the mirror's files must be in its folder "
    "(links are never followed; replace it with the folder or file itself)"
)


class MirrorError(ValueError):
    """A mirror that cannot be read or written: the file, the line when known, and why."""

    def __init__(self, path: Path | str, message: str, line: int | None = None) -> None:
        where = f"{path}: line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.line = line


# -- names --------------------------------------------------------------------------------


def slug(text: str) -> str:
    """The first words of a text as a file-name part: "Use pathlib, not os.path" →
    "use-pathlib-not-os-path" (ASCII letters and digits only)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())[:_SLUG_WORDS]
    out = ""
    for word in words:
        longer = f"{out}-{word}" if out else word
        if len(longer) > _SLUG_CHARS:
            break
        out = longer
    if not out and words:  # one very long word
        out = words[0][:_SLUG_CHARS]
    return out


def folder_name(key: str) -> str:
    """A category key as a file-name part: keys are lower-case words already; anything
    else (a key made by hand) becomes its slug and a short hash, so two keys never
    share a name."""
    if re.fullmatch(r"[a-z0-9_]+", key):
        return key
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return f"{slug(key) or 'category'}-{digest}"


def item_path(item_id: int, category: str, first_words: str) -> str:
    name = f"{item_id}-{slug(first_words)}" if slug(first_words) else str(item_id)
    return f"{ITEMS}/{folder_name(category)}/{name}.json"


def summary_path(key: str) -> str:
    return f"{CATEGORIES}/{folder_name(key)}.md"


def digest_path(key: str) -> str:
    return f"{CATEGORIES}/{folder_name(key)}.digest.md"


# -- writing --------------------------------------------------------------------------------


def canonical(value: Any) -> Any:
    """A JSON value with every object's keys sorted (the top level's order is the
    caller's, so a memory's own fields can come before its history)."""
    if isinstance(value, Mapping):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    return value


def dumps(value: Any) -> bytes:
    """The bytes of a JSON file: nested keys sorted, top-level order kept."""
    if isinstance(value, Mapping):
        value = {k: canonical(v) for k, v in value.items()}
    else:
        value = canonical(value)
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0


def check_target(folder: Path) -> None:
    """Refuse to export into a file, or into a folder holding anything but a mirror (a
    fresh `git init` folder is fine: entries starting with a dot do not count)."""
    if folder.exists() and not folder.is_dir():
        raise MirrorError(folder, "is a file, not a folder")
    if not folder.is_dir() or (folder / MANIFEST).is_file():
        return
    others = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    if others:
        shown = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
        raise MirrorError(
            folder,
            f"is not empty and holds no {MANIFEST} ({shown}): "
            "export into an empty folder or an earlier mirror",
        )


def write_mirror(folder: Path, files: Mapping[str, bytes]) -> WriteReport:
    """Bring `folder` to exactly `files` (relative path → bytes): a file whose bytes are
    already right is not touched, a stale file of ours is removed, anything else in the
    folder (.git, a README) is left alone. Each file is replaced atomically; the manifest
    is written last. Every path is checked first (no link, inside the folder), so a
    refusal writes nothing; a file that cannot be written is a MirrorError naming it."""
    check_target(folder)
    targets = {relative: inside(folder, relative) for relative in files}
    stale = [inside(folder, r) for r in owned_files(folder) if r not in files]
    report = WriteReport()
    with _named(folder):
        folder.mkdir(parents=True, exist_ok=True)
    for relative in sorted(files, key=lambda p: (p == MANIFEST, p)):
        target = targets[relative]
        data = files[relative]
        with _named(target):
            if target.is_file() and target.read_bytes() == data:
                report.unchanged += 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            inside(folder, relative)  # a folder just made is no link; one found is refused
            _replace(target, data)
        report.written.append(relative)
    for path in stale:
        with _named(path):
            path.unlink()
        report.removed.append(path.relative_to(folder).as_posix())
    _remove_empty_folders(folder)
    return report


def _replace(target: Path, data: bytes) -> None:
    """Write `target` through a temporary file created afresh (never through a link
    left in its place), then rename it over the target."""
    temporary = target.with_name(f".{target.name}.tmp")
    if temporary.is_symlink() or temporary.exists():
        temporary.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(temporary, flags, 0o644), "wb") as out:
        out.write(data)
    os.replace(temporary, target)


def inside(folder: Path, relative: str) -> Path:
    """`folder / relative`, once no part of it below `folder` is a symbolic link and it
    stays inside `folder`; else a MirrorError naming the link (or the path)."""
    path = folder
    for part in PurePosixPath(relative).parts:
        if part in ("..", "/"):
            raise MirrorError(folder / relative, "leads out of the mirror folder")
        path = path / part
        if path.is_symlink():
            raise MirrorError(path, LINK)
    if not path.resolve().is_relative_to(folder.resolve()):
        raise MirrorError(path, "leads out of the mirror folder")
    return path


@contextmanager
def _named(path: Path) -> Iterator[None]:
    """An OSError (no permission, a full disk) as a MirrorError naming the file."""
    try:
        yield
    except OSError as exc:
        raise MirrorError(path, exc.strerror or str(exc)) from None


def owned_files(folder: Path) -> list[str]:
    """The files of the mirror's own kinds in the folders it owns, relative, sorted; a
    symbolic link there (a folder or a file) is refused, never followed."""
    found = []
    for name in OWNED_FOLDERS:
        base = inside(folder, name)
        if not base.is_dir():
            continue
        for path in walk(base):
            if path.suffix in OWNED_SUFFIXES and not path.name.startswith("."):
                found.append(path.relative_to(folder).as_posix())
    return sorted(found)


def walk(base: Path, skip_hidden: bool = False) -> Iterator[Path]:
    """Every file under `base` (a real folder), without following links: a link to a
    folder or a file is a MirrorError naming it. Hidden folders are passed over when
    `skip_hidden` (their links too)."""
    for root, folders, names in os.walk(base, followlinks=False):
        here = Path(root)
        if skip_hidden:
            folders[:] = [f for f in folders if not f.startswith(".")]
        for name in sorted((*folders, *names)):
            if (here / name).is_symlink() and not (skip_hidden and name.startswith(".")):
                raise MirrorError(here / name, LINK)
        folders.sort()
        for name in sorted(names):
            yield here / name


def _remove_empty_folders(folder: Path) -> None:
    base = folder / ITEMS
    if not base.is_dir():
        return
    for path in sorted(base.iterdir()):
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


# -- reading --------------------------------------------------------------------------------


Pointer = tuple[str | int, ...]  # the keys and indexes that lead to a value in a document


class Located(dict[str, Any]):
    """A JSON object that can say the line it starts on and the line of each key.

    Files are parsed with the fast C decoder; the lines are found only when asked (to
    report a problem), by parsing the file again with a slower one that records them."""

    _document: _Document | None = None
    _pointer: Pointer = ()

    @property
    def line(self) -> int | None:
        return self._lines()[0]

    def line_of(self, key: str) -> int | None:
        start, keys = self._lines()
        return keys.get(key, start)

    def _lines(self) -> tuple[int | None, dict[str, int]]:
        if self._document is None:
            return None, {}
        return self._document.lines(self._pointer)


class _Document:
    """A file's text, and once asked for, where each object and key sits in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._tree: Any = None

    def lines(self, pointer: Pointer) -> tuple[int | None, dict[str, int]]:
        if self._tree is None:
            self._tree = _located_decoder(self.text).decode(self.text)
        node = self._tree
        for step in pointer:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                return None, {}
        if not isinstance(node, _Positioned):
            return None, {}
        return node.line, node.key_lines


class _Positioned(dict[str, Any]):
    line: int = 1
    key_lines: dict[str, int]


def _attach(value: Any, document: _Document, pointer: Pointer) -> None:
    """Tell every object of a parsed document where it is, for its lines later."""
    if isinstance(value, Located):
        value._document, value._pointer = document, pointer
        for key, inner in value.items():
            if isinstance(inner, dict | list):
                _attach(inner, document, (*pointer, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            if isinstance(inner, dict | list):
                _attach(inner, document, (*pointer, index))


def read_text(folder: Path, relative: str) -> str:
    path = inside(folder, relative)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise MirrorError(path, f"is not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise MirrorError(path, exc.strerror or str(exc)) from None


def read_markdown(folder: Path, relative: str) -> str:
    """A markdown file's text exactly as written: no newline translation."""
    path = inside(folder, relative)
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MirrorError(path, f"is not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise MirrorError(path, exc.strerror or str(exc)) from None


def load_json(folder: Path, relative: str) -> Any:
    """A JSON file whose objects are Located; syntax errors and git merge-conflict
    markers become MirrorErrors naming the file and line."""
    path = folder / relative
    text = read_text(folder, relative)
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line == "=======":
            raise MirrorError(path, "an unresolved git merge conflict (<<<<<<<)", number)
    try:
        value = json.loads(text, object_hook=Located)
    except json.JSONDecodeError as exc:
        message = f"not valid JSON: {exc.msg} (column {exc.colno})"
        raise MirrorError(path, message, exc.lineno) from None
    _attach(value, _Document(text), ())
    return value


def _located_decoder(text: str) -> json.JSONDecoder:
    """A pure-Python JSON decoder whose objects record their lines (the C scanner
    cannot be hooked): ten times slower, so used only to report a problem."""
    newlines = [i for i, c in enumerate(text) if c == "\n"]

    def line_at(offset: int) -> int:
        return bisect_right(newlines, offset - 1) + 1

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[_Positioned, int]:
        s, start = s_and_end
        value, end = JSONObject(s_and_end, *args)
        located = _Positioned(value)
        located.line = line_at(start - 1)
        located.key_lines = _key_lines(s, start, end, line_at)
        return located, end

    decoder = json.JSONDecoder()
    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder


def _key_lines(s: str, start: int, stop: int, line_at: Callable[[int], int]) -> dict[str, int]:
    """The line of each key of the object whose text runs from `start` (just after
    its `{`) to `stop`: strings at depth zero that follow `{` or `,`."""
    out: dict[str, int] = {}
    depth, expect_key, i = 0, True, start
    while i < stop:
        c = s[i]
        if c == '"':
            j = _string_end(s, i)
            if depth == 0 and expect_key:
                out.setdefault(json.loads(s[i:j]), line_at(i))
                expect_key = False
            i = j
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            expect_key = True
        i += 1
    return out


def _string_end(s: str, i: int) -> int:
    """The index just after the string literal starting at `i` (a valid one: the
    decoder read it already)."""
    j = i + 1
    while s[j] != '"':
        j += 2 if s[j] == "\\" else 1
    return j + 1


def files_under(folder: Path, relative: str, suffix: str) -> list[str]:
    """Files with the suffix under a folder of the mirror (hidden ones skipped), sorted;
    a symbolic link there is a MirrorError naming it (never read through)."""
    base = inside(folder, relative)
    if not base.is_dir():
        return []
    return sorted(
        p.relative_to(folder).as_posix()
        for p in walk(base, skip_hidden=True)
        if p.name.endswith(suffix) and not p.name.startswith(".")
    )


def require(
    value: Any,
    kind: type,
    path: Path,
    what: str,
    owner: Located | None = None,
    key: str | None = None,
) -> Any:
    """`value` when it is of `kind`, else a MirrorError saying what was expected, at the
    line of `key` in `owner` (or of `owner`) when given."""
    if not isinstance(value, kind):
        expected = {dict: "an object", list: "a list", str: "text", int: "a number"}
        line = None if owner is None else owner.line if key is None else owner.line_of(key)
        raise MirrorError(path, f"{what} must be {expected.get(kind, kind.__name__)}", line)
    return value
