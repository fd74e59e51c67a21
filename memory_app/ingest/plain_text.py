"""Plain text and markdown conversations: pasted chats, exported notes, meeting logs.

People paste conversations in many shapes, so speaker labels are recognised in the forms
they actually take: `User: ...`, `**Assistant:** ...`, or a `## Claude` heading above the
turn. A file without any label is one user turn: notes someone wrote are their words.
Labels inside fenced code blocks are ignored (a transcript quoted in a README is code).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from memory_app.domain.transcripts import ParsedSource, ParseProblem, Transcript, Turn
from memory_app.ingest.files import require_regular_file, shown_path, too_large

SPEAKER_LABELS = {
    "user": "user",
    "human": "user",
    "you": "user",
    "me": "user",
    "assistant": "assistant",
    "claude": "assistant",
    "ai": "assistant",
    "chatgpt": "assistant",
    "gpt": "assistant",
}
_LABEL = "|".join(SPEAKER_LABELS)
# "## User" / "### Assistant:" alone on a heading line.
_HEADING_LABEL = re.compile(rf"#{{1,6}}[ \t]+(?P<label>{_LABEL})[ \t]*:?[ \t]*#*[ \t]*", re.I)
# "**User:** hi", "**User**: hi", "__Claude:__ hi" ("**Claude** is great" is prose).
_BOLD_LABEL = re.compile(
    rf"(?P<mark>\*\*|__)[ \t]*(?P<label>{_LABEL})[ \t]*(?::[ \t]*(?P=mark)|(?P=mark)[ \t]*:)"
    r"[ \t]*(?P<rest>.*)",
    re.I,
)
# "**User**" alone on its line.
_BOLD_ALONE = re.compile(rf"(?P<mark>\*\*|__)[ \t]*(?P<label>{_LABEL})[ \t]*(?P=mark)", re.I)
# "User: hi" (the colon is required: "You can..." is prose).
_PLAIN_LABEL = re.compile(rf"(?P<label>{_LABEL})[ \t]*:[ \t]*(?P<rest>.*)", re.I)
_HEADING = re.compile(r"#{1,6}[ \t]+(?P<title>\S.*?)[ \t]*#*[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass
class _Block:
    speaker: str
    line: int
    lines: list[str]


def source_kind_for(path: Path) -> str:
    """ "markdown" for .md/.markdown files, "text" for anything else."""
    return "markdown" if path.suffix.lower() in (".md", ".markdown") else "text"


def parse_text(path: Path, *, source_kind: str | None = None) -> ParsedSource:
    """Read a text or markdown file as one conversation."""
    require_regular_file(path)
    source = shown_path(path)
    refused = too_large(path, source)
    if refused is not None:
        return ParsedSource(source, (), (refused,))
    text, problem = decode_text(path.read_bytes(), source)
    if text is None:
        return ParsedSource(source, (), (problem,) if problem else ())
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    transcript = Transcript(
        source_kind=source_kind or source_kind_for(path),
        turns=split_turns(text),
        source_path=source,
        title=first_heading(text) or shown_path(path.stem),
    )
    return ParsedSource(source, (transcript,), (problem,) if problem else ())


def decode_text(data: bytes, source: str) -> tuple[str | None, ParseProblem | None]:
    """The file's text and any problem; None as text when it is not a text file at all."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), None
            except UnicodeDecodeError:
                text = data.decode(encoding, errors="replace")
                problem = f"invalid {encoding.upper()} bytes replaced by U+FFFD"
                return text, ParseProblem(source, None, problem)
    if b"\x00" in data or _looks_binary(data):
        return None, ParseProblem(source, None, "not a text file (binary content); skipped")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
        encoding = "Windows-1252"
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        encoding = "Latin-1"
    message = f"not valid UTF-8; read as {encoding}, some characters may be wrong"
    return text, ParseProblem(source, None, message)


def _looks_binary(data: bytes) -> bool:
    """Many control characters (other than whitespace) in the first 8 KB: not text."""
    head = data[:8192]
    if not head:
        return False
    controls = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13, 27))
    return controls / len(head) > 0.05


def _label_of(line: str) -> tuple[str, str] | None:
    """(speaker, text after the label) when the line starts a new turn."""
    stripped = line.strip()
    for pattern in (_HEADING_LABEL, _BOLD_LABEL, _BOLD_ALONE, _PLAIN_LABEL):
        match = pattern.fullmatch(stripped)
        if match:
            rest = match.groupdict().get("rest") or ""
            return SPEAKER_LABELS[match["label"].lower()], rest
    return None


def split_turns(text: str) -> tuple[Turn, ...]:
    """Turns by speaker label; the whole text as one user turn when there are no labels."""
    preamble = _Block("user", 1, [])
    blocks: list[_Block] = []
    in_fence = False
    for number, line in enumerate(text.split("\n"), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
        label = None if in_fence else _label_of(line)
        if label is None:
            (blocks[-1] if blocks else preamble).lines.append(line)
            continue
        speaker, rest = label
        blocks.append(_Block(speaker, number, [rest] if rest else []))
    if not blocks:
        return _turns([_Block("user", _first_text_line(text), preamble.lines)])
    if not _only_headings("\n".join(preamble.lines)):
        blocks.insert(0, preamble)  # text before the first label: the user's own notes
    return _turns(blocks)


def _turns(blocks: list[_Block]) -> tuple[Turn, ...]:
    turns: list[Turn] = []
    for block in blocks:
        body = "\n".join(block.lines).strip()
        if body:
            turns.append(Turn(len(turns), block.speaker, body, source_line=block.line))
    return tuple(turns)


def _only_headings(text: str) -> bool:
    return all(not line.strip() or _HEADING.fullmatch(line.strip()) for line in text.split("\n"))


def _first_text_line(text: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return number
    return 1


def first_heading(text: str) -> str | None:
    """The first markdown heading outside code blocks that is not a speaker label."""
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _HEADING.fullmatch(line.strip())
        if match and not _HEADING_LABEL.fullmatch(line.strip()):
            return match["title"]
    return None
