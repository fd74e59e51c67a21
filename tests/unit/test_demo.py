"""The demo store behind the README's pictures: hand-written Claude Code sessions of four
invented projects, imported through the real pipeline (`memory-app demo`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from memory_app import demo
from memory_app.config import resolve_settings
from memory_app.ingest.claude_code import parse_claude_code
from memory_app.service import MemoryService

PROJECTS = {f"/home/dev/code/{name}" for name in demo.PROJECTS}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def old_generator_patterns() -> list[re.Pattern[str]]:
    """The generated statements' shapes ("Prefer github over numpy in views"), any words."""
    patterns = []
    for template in demo.TEMPLATES:
        pattern = re.escape(template)
        pattern = re.sub(r"\\\{(t1|t2|a1|a2)\\\}", r"[\\w-]+", pattern)
        pattern = re.sub(r"\\\{(fn|path)\\\}", r"\\S+", pattern)
        patterns.append(re.compile(f"^(?:{pattern})\\.?$"))
    return patterns


# -- the data and the session files ----------------------------------------------------------


def test_every_project_has_weeks_of_sessions_with_prompts() -> None:
    sessions = demo.demo_sessions()
    assert {s.folder for s in sessions} == PROJECTS
    assert len(sessions) >= 60
    for session in sessions:
        assert any(m.kind == "user" for m in session.messages), session.summary
        assert any(m.kind == "assistant" for m in session.messages), session.summary
    recent = [s.workday for s in sessions if s.workday < 30]
    assert max(recent) - min(recent) >= 25  # five weeks of working days and more
    assert len({s.session_id for s in sessions}) == len(sessions)


def test_the_sessions_end_on_the_last_working_day_before_now() -> None:
    monday = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    assert demo.last_workday(monday) == date(2026, 11, 20)  # Friday
    assert demo.last_workday(monday + timedelta(days=2)) == date(2026, 11, 24)
    assert demo.workday_before(date(2026, 11, 20), 5) == date(2026, 11, 13)
    assert demo.workday_before(date(2026, 11, 20), 0) == date(2026, 11, 20)


def test_a_session_file_reads_as_claude_code_wrote_it(tmp_path: Path) -> None:
    sessions = demo.demo_sessions()
    titled = next(s for s in sessions if s.summary and any(m.kind == "tool" for m in s.messages))
    untitled = next(s for s in sessions if not s.summary)
    start = datetime(2026, 10, 5, 9, 30, tzinfo=UTC)
    read = {}
    for session in (titled, untitled):
        path, ended = demo.write_session(tmp_path / "a", session, start)
        again, _ = demo.write_session(tmp_path / "b", session, start)
        assert path.read_bytes() == again.read_bytes()  # deterministic
        assert path.name == f"{session.session_id}.jsonl"
        (transcript,) = parse_claude_code(path).transcripts
        assert transcript.project == session.folder
        assert transcript.branch == session.branch
        assert transcript.session_id == session.session_id
        assert transcript.started_at is not None and transcript.started_at > start
        assert transcript.ended_at == ended
        assert transcript.title and not UUID.search(transcript.title)
        read[session.session_id] = transcript
    with_summary = read[titled.session_id]
    assert with_summary.title == titled.summary
    assert {"message", "tool_use", "tool_result"} <= {t.kind for t in with_summary.turns}
    # Without a summary record the first prompt names the session.
    first_prompt = next(m.text for m in untitled.messages if m.kind == "user")
    title = read[untitled.session_id].title or ""
    assert first_prompt.startswith(title.rstrip("…"))


# -- the store `memory-app demo` fills ------------------------------------------------------


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, int], MemoryService]]:
    """`memory-app demo` run once, in its own process as a person runs it."""
    folder = tmp_path_factory.mktemp("demo") / "data"
    done = subprocess.run(
        [sys.executable, "-m", "memory_app", "demo", "--data-dir", str(folder), "--json"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        yield json.loads(done.stdout), service
    finally:
        service.close()


@pytest.mark.slow
def test_the_demo_fills_a_store_with_hundreds_of_memories(
    built: tuple[dict[str, int], MemoryService],
) -> None:
    figures, service = built
    assert figures["conversations"] == len(demo.demo_sessions())
    assert figures["memories"] >= 200
    active = service.list_items(status="active", limit=10_000)
    assert len(active) >= 200
    assert {path for path, _count in service.projects()} == PROJECTS
    assert {item.category for item in active} == {
        "coding_preferences",
        "architectural_decisions",
        "project_conventions",
        "bug_patterns",
        "implementation_notes",
    }
    # Every one learnt from a conversation, with the turn it came from.
    assert all(item.source_resource_id and item.turn_start is not None for item in active)
    assert len(service.list_items(pinned=True, limit=100)) == len(demo.PINNED)
    archived = service.list_items(status="archived", limit=100)
    assert sorted(i.content[:20] for i in archived) == sorted(m[:20] for m in demo.MINOR)


@pytest.mark.slow
def test_the_demo_has_open_conflicts_and_ones_resolved_by_a_change(
    built: tuple[dict[str, int], MemoryService],
) -> None:
    _, service = built
    conflicts = service.conflicts()
    contents = {c.id: [service.get_item(i).content for i in c.item_ids] for c in conflicts}
    open_ = [c for c in conflicts if c.status == "unresolved"]
    auto = [c for c in conflicts if c.status == "auto_resolved"]
    assert len(open_) >= 3 and len(auto) >= 2
    assert any("Fly.io" in " ".join(contents[c.id]) for c in open_)  # no word of a change
    tabs = next(c for c in auto if "tabs" in " ".join(contents[c.id]))
    older, newer = (service.get_item(i) for i in tabs.item_ids)
    assert older.status == "superseded" and newer.status == "active"
    assert "switched" in newer.content
    for conflict in conflicts:  # each within one project
        assert len({service.get_item(i).project for i in conflict.item_ids}) == 1


@pytest.mark.slow
def test_the_demo_sessions_span_weeks_and_read_as_sessions(
    built: tuple[dict[str, int], MemoryService],
) -> None:
    _, service = built
    resources = service.resources(limit=1000)
    assert len(resources) == len(demo.demo_sessions())
    assert all(r.source_kind == "claude-code" for r in resources)
    for resource in resources:
        assert resource.title and not UUID.search(resource.title), resource.title
        assert resource.started_at is not None and resource.started_at.time() >= time(8)
    newest = max(r.started_at for r in resources if r.started_at)
    recent = [
        r.started_at
        for r in resources
        if r.started_at and newest - r.started_at < timedelta(weeks=7)
    ]
    weeks = {moment.isocalendar()[:2] for moment in recent}
    assert len(weeks) >= 5
    # Imported as the sessions ended, not all at once.
    assert all(r.imported_at > r.ended_at for r in resources if r.ended_at)
    assert max(r.imported_at for r in resources) - min(
        r.imported_at for r in resources
    ) > timedelta(weeks=5)
    busy = [count for _week, count in service.dashboard().weekly_added if count]
    assert len(busy) >= 5


@pytest.mark.slow
def test_no_statement_comes_from_the_old_generator(
    built: tuple[dict[str, int], MemoryService],
) -> None:
    _, service = built
    patterns = old_generator_patterns()
    assert patterns[1].match("Prefer github over numpy in views.")  # the shapes it made
    for item in service.list_items(status=None, limit=10_000):
        assert not any(p.match(item.content) for p in patterns), item.content
        assert item.project in PROJECTS


@pytest.mark.slow
def test_the_recall_hooks_answered_the_last_sessions_and_were_judged(
    built: tuple[dict[str, int], MemoryService],
) -> None:
    _, service = built
    answers = service.recent_injections(limit=1000)
    assert {a.event for a in answers} == {"SessionStart", "UserPromptSubmit"}
    hooked = [s for s in demo.demo_sessions() if s.workday <= demo.HOOKS_SINCE]
    assert len({a.session_id for a in answers}) == len(hooked)
    given = [a for a in answers if a.outcome == "injected"]
    assert all(a.prompt for a in given if a.event == "UserPromptSubmit")  # imported since
    verdicts = {m.verdict for a in given for m in a.memories}
    assert verdicts == {"cited", "ignored"}  # every one judged when its session arrived
    items = service.list_items(status="active", limit=10_000)
    assert any(item.cited_count for item in items)
