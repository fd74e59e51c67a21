"""The managed block of memories in Claude Code's CLAUDE.md: rendering and splicing.

Claude Code reads CLAUDE.md into every session, so that is where curated memories reach it.
The file belongs to the person, though: the app owns only the text between two marker
comments and must leave every other byte alone. Everything here works on strings; reading
and writing the file lives in `memory_app.retrieval.export_file`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

BEGIN_PREFIX = "<!-- memory-curator:begin"
END_PREFIX = "<!-- memory-curator:end"
BEGIN_MARKER = (
    "<!-- memory-curator:begin (managed block: edits inside are replaced on the next export) -->"
)
END_MARKER = "<!-- memory-curator:end -->"

# Category keys in priority order (seed: conventions first, then decisions, then bug
# patterns). Implementation notes and unknown categories are facts rather than instructions
# and are left out.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("project_conventions", "Conventions"),
    ("coding_preferences", "Coding Preferences"),
    ("architectural_decisions", "Architectural Decisions"),
    ("bug_patterns", "Bug Patterns"),
)
DEFAULT_MAX_CHARS = 4000
DEFAULT_TITLE = "Memory (curated by Memory Curator)"
EMPTY_NOTE = "_No memories to share yet._"

_WHITESPACE = re.compile(r"\s+")
# Only "\n" ends a line (str.splitlines also splits on form feeds and other separators).
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


@dataclass(frozen=True)
class BlockLine:
    """One memory to write; callers pass lines best-first within a category."""

    item_id: int
    category: str
    content: str
    resource_id: int | None = None
    said: date | None = None


@dataclass(frozen=True)
class RenderedBlock:
    """The block text and which memory ids made it in.

    `dropped` holds lines of included categories that did not fit the cap; lines of
    excluded categories (and blank ones) are in neither tuple.
    """

    text: str
    included: tuple[int, ...]
    dropped: tuple[int, ...]


class ManagedBlockError(ValueError):
    """The markers in a file are malformed; the caller must then change nothing."""


# --- rendering ---------------------------------------------------------------------------


def render_block(
    lines: Iterable[BlockLine],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    title: str = DEFAULT_TITLE,
) -> RenderedBlock:
    """The managed block, never longer than `max_chars` (markers and heading included).

    Sections are filled in priority order, line by line. The first line that does not fit
    ends the filling: it and everything after it are dropped, even if a later, shorter line
    would still fit. That keeps the rule of the seed ("items one by one until the cap is
    reached, then remaining content is dropped"), so a low-priority line never takes the
    place of a more important one that was too long.
    """
    return render_parts([BlockPart(title, tuple(lines))], max_chars=max_chars)


@dataclass(frozen=True)
class BlockPart:
    """One titled part of a block: the base memories, or one branch's (seed 001 §7).

    Parts are shown in the order given and filled by `priority` (lower first, then that
    order): a branch's own memories may go in before the base ones, though shown after."""

    title: str
    lines: tuple[BlockLine, ...]
    priority: int = 0


def branch_title(branch: str) -> str:
    return f"Branch memory: {branch}"


def render_parts(
    parts: Sequence[BlockPart],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    opener: str = BEGIN_MARKER + "\n",
    closer: str = END_MARKER,
) -> RenderedBlock:
    """Titled parts between `opener` and `closer`, capped as `render_block` says: the
    first part's title always shows, a later part's only with its first line."""
    head = f"{opener}## {_one_line(parts[0].title)}\n\n"
    empty_body = f"{EMPTY_NOTE}\n\n"
    minimum = len(head) + len(empty_body) + len(closer)
    if max_chars < minimum:
        raise ValueError(
            f"max_chars={max_chars} is too small for the managed block: "
            f"it needs at least {minimum} characters even without memories"
        )
    budget = max_chars - len(head) - len(closer)
    bodies: dict[int, list[str]] = {}
    included: list[int] = []
    dropped: list[int] = []
    full = False
    order = sorted(range(len(parts)), key=lambda n: (parts[n].priority, n))
    for number in order:
        title = "" if number == 0 else f"## {_one_line(parts[number].title)}\n\n"
        chunks: list[str] = []
        for name, section in _by_section(parts[number].lines):
            heading = f"### {name}\n\n"
            body: list[str] = []
            for line in section:
                text = f"{_line_text(line)}\n"
                # A section costs its heading and one trailing blank line once, with its
                # first line; a part its title, with its first line.
                cost = len(text) if body else len(heading) + len(text) + 1
                cost += 0 if chunks or body else len(title)
                if full or cost > budget:
                    full = True
                    dropped.append(line.item_id)
                    continue
                budget -= cost
                body.append(text)
                included.append(line.item_id)
            if body:
                chunks.append(heading + "".join(body) + "\n")
        if chunks:
            bodies[number] = [title, *chunks]
    shown = "".join("".join(bodies.get(n, ())) for n in range(len(parts)))
    text = head + (shown or empty_body) + closer
    assert len(text) <= max_chars, "the cap accounting is wrong"
    return RenderedBlock(text, tuple(included), tuple(dropped))


def _by_section(lines: Iterable[BlockLine]) -> list[tuple[str, list[BlockLine]]]:
    """Lines grouped by section in priority order, keeping the callers' order inside one."""
    groups: dict[str, list[BlockLine]] = {key: [] for key, _ in SECTIONS}
    for line in lines:
        if line.category in groups and _one_line(line.content):
            groups[line.category].append(line)
    return [(name, groups[key]) for key, name in SECTIONS]


def _line_text(line: BlockLine) -> str:
    where = [f"memory {line.item_id}"]
    if line.resource_id is not None:
        where.append(f"conversation {line.resource_id}")
    if line.said is not None:
        where.append(f"{line.said:%Y-%m-%d}")
    return f"- {_one_line(line.content)} <!-- {' · '.join(where)} -->"


def _one_line(text: str) -> str:
    """Collapsed to one line, with comment openers defused.

    A memory that quotes our marker (or any `<!--`) must not open a comment that swallows
    the rest of the block, nor be mistaken for a marker by the next export.
    """
    return _WHITESPACE.sub(" ", text).strip().replace("<!--", "&lt;!--")


# --- splicing ------------------------------------------------------------------------------


def splice(existing: str | None, block: str) -> str:
    """`existing` with `block` in place of its managed block, or appended when it has none.

    Text outside the block stays byte-for-byte identical, and the block takes on the file's
    newline style so a CRLF file does not end up with mixed line endings.
    """
    if not existing:
        return block + "\n"
    newline = _newline_of(existing)
    block = _with_newline(block, newline)
    span = _find_block(existing)
    if span is None:
        return _append(existing, block, newline)
    start, end = span
    return existing[:start] + block + existing[end:]


def extract_block(existing: str) -> str | None:
    """The managed block as it stands in `existing` (markers included), or None."""
    span = _find_block(existing)
    return None if span is None else existing[span[0] : span[1]]


def ensure_import_line(existing: str | None, import_path: str) -> str:
    """`existing` with an `@import_path` line, for a block that lives in a file of its own.

    Unchanged when the line is already there, so exporting twice never duplicates it.
    """
    wanted = f"@{import_path}"
    if not existing:
        return wanted + "\n"
    if any(line.strip() == wanted for line, _, _ in _lines(existing)):
        return existing
    return _append(existing, wanted, _newline_of(existing))


def unified_diff(old: str | None, new: str, name: str) -> str:
    """A unified diff from `old` to `new`, or "" when they are the same."""
    old = old or ""
    if old == new:
        return ""
    diff = difflib.unified_diff(
        _diff_lines(old), _diff_lines(new), fromfile=f"a/{name}", tofile=f"b/{name}"
    )
    return "".join(diff)


def _diff_lines(text: str) -> list[str]:
    """Lines for difflib; a missing final newline is marked the way git does."""
    lines = _LINE.findall(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _append(existing: str, addition: str, newline: str) -> str:
    """`existing` untouched, then one blank line, then `addition` and a newline."""
    text = existing if existing.endswith("\n") else existing + newline
    if not text.endswith(("\n\n", "\n\r\n")):
        text += newline
    return text + addition + newline


def _newline_of(text: str) -> str:
    """The newline style of `text`, judged by its first line break."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _with_newline(text: str, newline: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", newline)


def _lines(text: str) -> list[tuple[str, int, int]]:
    """Each line as (text without its line break, start offset, offset of its line break).

    Only "\\n" (with an optional "\\r" before it) ends a line, unlike str.splitlines, so
    offsets map back onto the file exactly.
    """
    found: list[tuple[str, int, int]] = []
    start = 0
    while start < len(text):
        stop = text.find("\n", start)
        stop = len(text) if stop < 0 else stop
        end = stop - 1 if stop > start and text[stop - 1] == "\r" else stop
        found.append((text[start:end], start, end))
        start = stop + 1
    return found


def _find_block(text: str) -> tuple[int, int] | None:
    """(start of the begin marker's line, end of the end marker's line), or None.

    The begin marker is matched by its stable prefix so its wording can change later.
    """
    begins: list[tuple[int, int]] = []
    ends: list[tuple[int, int]] = []
    for number, (line, start, end) in enumerate(_lines(text), start=1):
        stripped = line.strip()
        if stripped.startswith(BEGIN_PREFIX):
            begins.append((number, start))
        elif stripped.startswith(END_PREFIX):
            ends.append((number, end))
    if not begins and not ends:
        return None
    _check_markers(begins, ends)
    return begins[0][1], ends[0][1]


def _check_markers(begins: list[tuple[int, int]], ends: list[tuple[int, int]]) -> None:
    if len(begins) > 1:
        raise ManagedBlockError(
            f"two begin markers of the managed block, on lines {begins[0][0]} and {begins[1][0]}"
        )
    if len(ends) > 1:
        raise ManagedBlockError(
            f"two end markers of the managed block, on lines {ends[0][0]} and {ends[1][0]}"
        )
    if not ends:
        raise ManagedBlockError(
            f"the begin marker of the managed block on line {begins[0][0]} has no end marker"
        )
    if not begins:
        raise ManagedBlockError(
            f"the end marker of the managed block on line {ends[0][0]} has no begin marker"
        )
    if ends[0][0] < begins[0][0]:
        raise ManagedBlockError(
            f"the end marker of the managed block on line {ends[0][0]} comes before "
            f"its begin marker on line {begins[0][0]}"
        )
