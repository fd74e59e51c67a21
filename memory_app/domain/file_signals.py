"""When a memory is about a file (seed 004's predictive context): the ways a person or an
assistant names a file in prose, and the tool calls that touched it.

`src/api/client.ts` is named by its path, by its name `client.ts`, as the module
"api client", and weakly by its stem "client" (too weak alone when the stem is a name
every project has: index, main, utils). Claude Code's tool calls are stored as turns
like `[Edit] /home/dev/shop/src/api/client.ts` (ingest/claude_code.py render_tool_use).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# How strongly a mention ties a memory to the file, in [0, 1].
PATH_MENTION = 1.0
NAME_MENTION = 0.9
MODULE_MENTION = 0.7
STEM_MENTION = 0.35
# Provenance: the conversation a memory was learnt from touched the file; "near" when
# the tool call is within NEAR_TURNS turns of the ones the memory came from.
# A memory said far from the edit is weakly about the file (the convention stated at
# a session's start is about the project, not the file edited an hour later).
EDITED_NEAR = 0.8
EDITED = 0.3
READ_NEAR = 0.4
READ = 0.15
NEAR_TURNS = 8

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
READ_TOOLS = frozenset({"Read"})
# Stems and folders that name nothing in particular: every project has an index.ts.
GENERIC_STEMS = frozenset(
    """index main init __init__ __main__ mod lib utils util helpers common types test tests
    app src source sources pkg internal core base config setup default module package
    readme""".split()
)
# A turn's span reads "Assistant (tool call): [Edit] /path"; the path is the line's rest.
_TOOL_LINE = re.compile(r"\[(?P<tool>[A-Za-z]+)\] (?P<path>\S[^\n]*?)\s*$", re.MULTILINE)
_WORD = re.compile(r"\w+")
_GAP = r"[\s/._-]+"


@dataclass(frozen=True)
class FileSignal:
    """One open or recently edited file, in the forms a memory may name it by."""

    given: str  # as the person or the hook gave it
    path: str  # relative to the project when it is inside it, with "/" separators
    name: str  # client.ts
    stem: str  # client
    folder: str  # api (the file's own folder, "" at the top or when generic)

    @property
    def module(self) -> str:
        """How prose names it: "api client"; "" when that says no more than the stem."""
        return f"{self.folder} {self.stem}" if self.folder else ""

    @property
    def distinctive_stem(self) -> bool:
        return len(self.stem) >= 4 and self.stem.lower() not in GENERIC_STEMS

    def search_words(self) -> list[str]:
        """The words a full-text index holds for a mention: the stem when it is
        distinctive, else the name's words (the caller makes them a phrase)."""
        if self.distinctive_stem:
            return [self.stem.lower()]
        return [w.lower() for w in _WORD.findall(self.name)]


def file_signal(given: str, project: str | None = None) -> FileSignal | None:
    """The file as a signal; None when it names no file ("", ".", a bare folder "/")."""
    path = given.strip().replace("\\", "/")
    root = (project or "").rstrip("/")
    if root and path.startswith(root + "/"):
        path = path[len(root) + 1 :]
    while path.startswith("./"):
        path = path[2:]
    path = path.rstrip("/")
    name = path.rsplit("/", 1)[-1]
    if not name or name in (".", ".."):
        return None
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    parts = path.split("/")
    folder = parts[-2] if len(parts) > 1 else ""
    if folder.lower() in GENERIC_STEMS or folder.startswith(".") or folder.lower() == stem.lower():
        folder = ""
    return FileSignal(given=given, path=path, name=name, stem=stem or name, folder=folder)


def mention(signal: FileSignal, text: str) -> tuple[float, str] | None:
    """How strongly `text` names the file and the reason to show, or None."""
    lowered = text.lower()
    relative = "/" in signal.path and not signal.path.startswith("/")
    if relative and _bounded(signal.path.lower()).search(lowered):
        return PATH_MENTION, f"mentions {signal.path}"
    if signal.name != signal.stem and _bounded(signal.name.lower()).search(lowered):
        return NAME_MENTION, f"mentions {signal.name}"
    stem = _spelt(signal.stem)
    if signal.module and re.search(rf"\b{_spelt(signal.folder)}{_GAP}{stem}\b", lowered):
        return MODULE_MENTION, f"mentions the {signal.module}"
    if signal.distinctive_stem and re.search(rf"\b{stem}\b", lowered):
        return STEM_MENTION, f"mentions {signal.stem}"
    return None


def _spelt(name: str) -> str:
    """A name's words as prose may spell them: email_worker, email-worker, email worker."""
    return _GAP.join(re.escape(w) for w in re.split(r"[_\-\s]+", name.lower()) if w)


def _bounded(literal: str) -> re.Pattern[str]:
    """The literal not inside a longer path or name (`client.ts` is not `myclient.ts`)."""
    return re.compile(rf"(?<![\w.-]){re.escape(literal)}(?![\w-])")


@dataclass(frozen=True)
class ToolTouch:
    """A tool call that read or changed a file, at a turn position."""

    position: int
    tool: str
    path: str

    @property
    def edits(self) -> bool:
        return self.tool in EDIT_TOOLS


def tool_touch(position: int, turn_text: str) -> ToolTouch | None:
    """The file a tool-call turn read or changed, or None for other tools (Bash, Grep)."""
    found = _TOOL_LINE.search(turn_text)
    if found is None or found["tool"] not in EDIT_TOOLS | READ_TOOLS:
        return None
    return ToolTouch(position, found["tool"], found["path"])


def touches(signal: FileSignal, touched_path: str) -> bool:
    """True when a tool's (usually absolute) path is the signal's file."""
    path = touched_path.replace("\\", "/")
    if signal.given.startswith("/"):
        return path == signal.given.rstrip("/")
    return path == signal.path or path.endswith("/" + signal.path)


def provenance(
    signal: FileSignal,
    touched: list[ToolTouch],
    turn_start: int | None,
    turn_end: int | None,
) -> tuple[float, str] | None:
    """How strongly the memory's conversation ties it to the file, with the reason."""
    best: tuple[float, str] | None = None
    for touch in touched:
        if not touches(signal, touch.path):
            continue
        near = turn_start is not None and (
            turn_start - NEAR_TURNS <= touch.position <= (turn_end or turn_start) + NEAR_TURNS
        )
        if touch.edits:
            found = (
                (EDITED_NEAR, f"learnt while editing {signal.path}")
                if near
                else (EDITED, f"learnt in a conversation that edited {signal.path}")
            )
        else:
            found = (
                (READ_NEAR, f"learnt while reading {signal.path}")
                if near
                else (READ, f"learnt in a conversation that read {signal.path}")
            )
        if best is None or found[0] > best[0]:
            best = found
    return best
