"""SessionStart after a compaction or a resume gives back "This conversation so far" from
the session's stored chunk summaries: the hook run as Claude Code runs it (a process,
JSON on stdin) over a store the app built, within the hook's budget, and nothing (and no
complaint) at a startup, for a session the app has not stored, or on an older store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_app.config import resolve_settings
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.hooks.conversation import HEADING
from memory_app.service import MemoryService
from tests.helpers import ScriptedExtractor, make_version_7
from tests.unit.hooks.test_runtime import HEAVY, context_of, hook_env, log_lines, run_hook

SESSION = "5f1c0de2-compact-me"
PROJECT = "/home/user/shop"
CONVENTION = "Payment calls go through the gateway client, never straight to the bank API."


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with one project convention and a long session (60 turns: six chunks)."""
    folder = tmp_path / "data"
    extractor = ScriptedExtractor([ExtractedItem("project_conventions", CONVENTION, 0.9)])
    service = MemoryService.open(resolve_settings(folder, env={}), extractor)
    try:
        turns: list[Turn] = []
        for i in range(30):
            ask = f"Step {i}: make the checkout page retry payment call number {i} with backoff"
            turns.append(Turn(2 * i, "user", ask))
            turns.append(Turn(2 * i + 1, "assistant", f"Done step {i}: it waits longer now."))
        service.memorize(
            Transcript(
                source_kind="claude-code",
                turns=tuple(turns),
                session_id=SESSION,
                project=PROJECT,
            )
        )
    finally:
        service.close()
    return folder


def _start(source: str, session: str = SESSION) -> bytes:
    stdin = {"session_id": session, "cwd": PROJECT, "hook_event_name": "SessionStart"}
    return json.dumps({**stdin, "source": source}).encode()


def _summaries(data: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(data / "memory.db") as conn:
        rows = conn.execute(
            "SELECT c.turn_start, c.turn_end, c.summary FROM conversation_chunk AS c "
            "JOIN resource AS r ON r.id = c.resource_id WHERE r.session_id = ? "
            "ORDER BY c.chunk_number",
            (SESSION,),
        ).fetchall()
    conn.close()
    return rows


@pytest.mark.parametrize("source", ["compact", "resume"])
def test_a_compaction_or_resume_brings_back_the_conversation_so_far(
    data: Path, source: str
) -> None:
    chunks = _summaries(data)
    assert len(chunks) == 6
    result = run_hook("SessionStart", _start(source), hook_env(data))
    text = context_of(result, "SessionStart")
    assert text.index(HEADING) < text.index("Project conventions:") < text.index(CONVENTION)
    section = text.split(HEADING)[1].split("Project conventions:")[0]
    last_start, last_end, last_summary = chunks[-1]
    # The latest chunk in full, its own words: what was asked last.
    assert f"- Turns {last_start}-{last_end}: {last_summary.splitlines()[0]}" in section
    assert "Step 29: make the checkout page retry payment call number 29" in section
    # The earlier chunks as one line of headlines, from the first turn on, oldest first.
    assert section.index("- Earlier, turns 0-") < section.index(f"- Turns {last_start}-")
    assert "Step 0: make the checkout page" in section
    assert len(text) <= 800 * 4  # MEMORY_APP_HOOK_BUDGET's default, in characters
    assert log_lines(data) == []


def test_the_section_keeps_within_its_share_of_a_small_budget(data: Path) -> None:
    env = hook_env(data, MEMORY_APP_HOOK_BUDGET="150")
    text = context_of(run_hook("SessionStart", _start("compact"), env), "SessionStart")
    assert len(text) <= 150 * 4
    section = text.split(HEADING)[1].split("Project conventions:")[0]
    assert len(HEADING) + len(section) <= 150 * 4 // 2
    # Too little room for the latest chunk in full: the start of its headline.
    assert "- Turns 50-59: Asked: Step 25" in section and section.rstrip().endswith("…")
    assert "Done:" not in section and "- Earlier" not in section
    assert CONVENTION in text  # the standing context keeps the other half


def test_a_startup_gets_no_conversation(data: Path) -> None:
    for source in ("startup", "clear"):
        result = run_hook("SessionStart", _start(source), hook_env(data))
        text = context_of(result, "SessionStart")
        assert HEADING not in text and CONVENTION in text


def test_an_unknown_session_or_an_older_store_fails_open_silently(data: Path) -> None:
    result = run_hook("SessionStart", _start("compact", "not-stored"), hook_env(data))
    text = context_of(result, "SessionStart")
    assert HEADING not in text and CONVENTION in text
    make_version_7(data / "memory.db")  # before conversation chunks existed
    result = run_hook("SessionStart", _start("compact"), hook_env(data))
    text = context_of(result, "SessionStart")
    assert HEADING not in text and CONVENTION in text
    assert log_lines(data) == []


def test_the_compact_path_imports_nothing_heavy(data: Path) -> None:
    result = run_hook("SessionStart", _start("compact"), hook_env(data), "-X", "importtime")
    assert (
        result.returncode == 0
        and HEADING in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    imported = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in result.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert not imported & set(HEAVY), imported & set(HEAVY)
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "memory_app.chunks" not in modules  # the stored text, never rebuilt
