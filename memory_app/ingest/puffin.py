"""Puffin (github.com/jdubray/puffin): a project's prompt history and its branch memory.

- `.puffin/history.json` holds every prompt of every branch (Puffin's threads:
  `specifications`, `backend`, ...): `{"branches": {id: {"name", "prompts": [{"content",
  "timestamp", "response": {"content", "timestamp"}}]}}}`. As the memory plugin's
  `getBranchPrompts` reads it (seed 001 §2), each branch is one conversation: its prompts
  and their responses in order, with the branch on the transcript. A branch without
  prompts has nothing to import.
- `.puffin/memory/branches/<branch>.md`, written by Puffin's memory plugin (seed 001 §3):
  a `# Branch Memory: {branchId}` title and four sections of bullet items. Those items are
  memories already, so they are taken as they are (`extract/listed.py`), each in the
  category its section maps to (`SECTION_CATEGORIES`), learnt on that branch. Each item is
  one turn of the stored file, `Conventions: <item>`, so a memory points at its line.

The project is the folder holding `.puffin`, when the file lies inside one.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import ParsedSource, ParseProblem, Transcript, Turn
from memory_app.ingest.chatgpt import load_json
from memory_app.ingest.claude_code import parse_timestamp
from memory_app.ingest.files import UnreadableFile, require_regular_file, shown_path, too_large
from memory_app.ingest.plain_text import decode_text

BRANCH_MEMORY_KIND = "puffin-memory"
# Puffin's four sections, and the category each one's items are filed in.
SECTION_CATEGORIES = {
    "Facts": "implementation_notes",
    "Architectural Decisions": "architectural_decisions",
    "Conventions": "project_conventions",
    "Bug Patterns": "bug_patterns",
}
TITLE = re.compile(r"#[ \t]+Branch Memory:[ \t]*(?P<branch>\S.*?)[ \t]*")
_UPDATED = re.compile(r">.*Last updated:[ \t]*(?P<when>\S+)")
_SECTION = re.compile(r"##[ \t]+(?P<name>.*?)[ \t]*#*[ \t]*")
_ITEM = re.compile(r"[-*+][ \t]+(?P<text>.*)")
_NO_ENTRIES = "_No entries yet._"


def project_of(path: Path) -> str | None:
    """The project a Puffin file belongs to: the folder that holds its `.puffin`."""
    for folder in path.resolve().parents:
        if folder.name == ".puffin":
            return str(folder.parent)
    return None


# --- history.json ----------------------------------------------------------------------


def parse_puffin_history(path: Path) -> ParsedSource:
    """One transcript per branch with prompts; UnreadableFile when the file is not JSON or
    holds no `branches`."""
    require_regular_file(path)
    source = shown_path(path)
    problem = too_large(path, source)
    if problem is not None:
        return ParsedSource(source, (), (problem,))
    data = load_json(path, "a Puffin history.json")
    branches = data.get("branches") if isinstance(data, dict) else None
    if not isinstance(branches, dict):
        raise UnreadableFile(
            f'{source}: not a Puffin history (expected an object with "branches", as '
            ".puffin/history.json holds them)"
        )
    project = project_of(path)
    problems: list[ParseProblem] = []
    transcripts: list[Transcript] = []
    for key, branch in branches.items():
        if not isinstance(branch, dict) or not isinstance(branch.get("prompts", []), list):
            message = f"branch {key!r} has no prompt list; skipped"
            problems.append(ParseProblem(source, None, message))
            continue
        turns = _branch_turns(source, key, branch.get("prompts", []), problems)
        if not turns:
            continue
        name = branch.get("name")
        name = name.strip() if isinstance(name, str) and name.strip() else key
        moments = [t.timestamp for t in turns if t.timestamp is not None]
        transcripts.append(
            Transcript(
                source_kind="puffin-history",
                turns=turns,
                source_path=source,
                session_id=f"puffin:{project}:{key}" if project else f"puffin:{key}",
                branch=key,
                project=project,
                title=f"Puffin: {name}",
                started_at=min(moments, default=None),
                ended_at=max(moments, default=None),
            )
        )
    return ParsedSource(source, tuple(transcripts), tuple(problems))


def _branch_turns(
    source: str, branch: str, prompts: list[Any], problems: list[ParseProblem]
) -> tuple[Turn, ...]:
    """A branch's prompts and their responses, in order."""
    turns: list[Turn] = []

    def add(speaker: str, entry: dict[str, Any]) -> None:
        text = entry.get("content")
        if isinstance(text, str) and text.strip():
            moment = parse_timestamp(entry.get("timestamp"))
            turns.append(Turn(len(turns), speaker, text.strip(), timestamp=moment))

    for number, prompt in enumerate(prompts, start=1):
        if not isinstance(prompt, dict):
            message = f"branch {branch!r}, prompt {number} is not an object; skipped"
            problems.append(ParseProblem(source, None, message))
            continue
        add("user", prompt)
        response = prompt.get("response")
        if isinstance(response, dict):
            add("assistant", response)
    return tuple(turns)


# --- branch memory markdown ------------------------------------------------------------


def is_branch_memory(text: str) -> bool:
    """True when the text's first line is Puffin's `# Branch Memory: {branchId}` title."""
    first = next((line for line in text.lstrip("\ufeff").splitlines() if line.strip()), "")
    return TITLE.fullmatch(first.strip()) is not None


def parse_branch_memory(path: Path) -> ParsedSource:
    """The file's items as the turns of one transcript (see the module's docstring);
    UnreadableFile when it has no Branch Memory title. Items of a section Puffin does not
    write are problems, not imported."""
    require_regular_file(path)
    source = shown_path(path)
    refused = too_large(path, source)
    if refused is not None:
        return ParsedSource(source, (), (refused,))
    text, problem = decode_text(path.read_bytes(), source)
    problems = [problem] if problem else []
    lines = (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    title = next((i for i, line in enumerate(lines) if line.strip()), 0)
    match = TITLE.fullmatch(lines[title].strip())
    if match is None:
        raise UnreadableFile(
            f"{source}: not a Puffin branch memory file (its first line is not "
            "'# Branch Memory: <branch>')"
        )
    updated: datetime | None = None
    items: list[tuple[str, int, list[str]]] = []  # section, line, the item's lines
    section: str | None = None
    open_item: list[str] | None = None  # the item the next indented line continues
    for number, line in enumerate(lines[title + 1 :], start=title + 2):
        stripped = line.strip()
        heading = _SECTION.fullmatch(stripped)
        item = _ITEM.fullmatch(stripped)
        when = _UPDATED.match(stripped)
        if heading:
            section, open_item = heading["name"], None
            if section not in SECTION_CATEGORIES:
                known = ", ".join(SECTION_CATEGORIES)
                message = f"section {section!r} is not one of Puffin's ({known}); not imported"
                problems.append(ParseProblem(source, number, message))
        elif item and section in SECTION_CATEGORIES:
            open_item = [item["text"]]
            items.append((section, number, open_item))
        elif open_item is not None and stripped and line[:1].isspace():
            open_item.append(stripped)  # an item wrapped onto the next line
        else:
            open_item = None
            if when and updated is None:
                updated = parse_timestamp(when["when"])
    turns: list[Turn] = []
    for name, number, parts in items:
        content = " ".join(parts).strip()
        if content and content != _NO_ENTRIES:
            text = f"{name}: {content}"
            turns.append(Turn(len(turns), "system", text, "summary", updated, number))
    transcript = Transcript(
        source_kind=BRANCH_MEMORY_KIND,
        turns=tuple(turns),
        source_path=source,
        branch=match["branch"],
        project=project_of(path),
        title=f"Branch Memory: {match['branch']}",
        started_at=updated,
        ended_at=updated,
    )
    return ParsedSource(source, (transcript,), tuple(problems))
