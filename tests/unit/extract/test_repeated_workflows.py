"""Workflows from command runs repeated across sessions: imported one by one into a real
store, three sessions running the same steps make one workflow memory, a fourth
reinforces it, two are not a habit, and commands that only look around never are. A loop
is one workflow, not one per rotation; a task resumed into new session files is one
session; a conversation kept pending gets its workflows when it is extracted again; and a
failure of the step never costs the import."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from memory_app.domain.transcripts import Transcript, Turn
from memory_app.domain.workflows import parse_workflow
from memory_app.extract import repeated_workflows
from memory_app.extract.offline import OfflineExtractor
from memory_app.extract.procedures import (
    normalise_command,
    recurring_runs,
    session_commands,
    step_key,
)
from memory_app.ingest import parse_source
from memory_app.service import MemoryService
from memory_app.store.tables import MemoryItemRow
from tests.helpers import ScriptedExtractor

PROJECT = "/home/dev/shop"
CHECK_TEST_COMMIT = [
    "cd /home/dev/shop && ruff check .",
    "pytest tests/unit -q 2>&1 | tail -20",
    "git add -A",
    "git commit -m 'Fix the basket total'",
]


def _session(
    name: str, commands: list[str], *, day: int, project: str = PROJECT, prompt: str = ""
) -> Transcript:
    start = datetime(2026, 5, day, 9, 0, tzinfo=UTC)
    turns = [
        Turn(0, "user", prompt or f"Please fix issue {name} in the basket and commit the fix."),
        Turn(1, "assistant", "I will look at the code, fix it, check it and commit it."),
    ]
    for command in commands:
        at = start + timedelta(minutes=len(turns))
        turns.append(Turn(len(turns), "assistant", f"[Bash] {command}", "tool_use", at))
    turns.append(Turn(len(turns), "assistant", "Done: the fix is committed and tests pass."))
    return Transcript(
        source_kind="claude-code",
        turns=tuple(turns),
        session_id=name,
        project=project,
        started_at=start,
        ended_at=start + timedelta(minutes=len(turns)),
    )


def _noise(*extra: str) -> list[str]:
    return ["ls -la", "cd src", "git status", "cat README.md", *extra, "git status", "ls"]


def _workflows(service: MemoryService) -> list[MemoryItemRow]:
    with service.db.reading() as session:
        rows = session.exec(select(MemoryItemRow).where(MemoryItemRow.type == "workflow"))
        return list(rows)


def test_steps_are_the_same_across_sessions_whatever_their_arguments() -> None:
    def key(command: str) -> str:
        normal = normalise_command(command)
        assert normal is not None
        return step_key(normal)

    assert key("pytest tests/unit/test_x.py -q") == key(".venv/bin/pytest") == "pytest"
    assert key("git commit -m 'Fix it'") == "git commit"
    assert key("git push origin feature/basket") == "git push"
    assert key("cd /repo && ruff check .") == "ruff check"
    assert key("npm run build 2>&1 | tail -5") == "npm run build"
    assert key("python -m pytest -x") == "python -m pytest"
    assert key("mix ecto.migrate") == "mix ecto.migrate"
    assert key("python manage.py migrate") == "python"
    # Codex's shell tool counts as a command too.
    codex = Transcript("codex", (Turn(0, "assistant", "[exec_command] make dist", "tool_use"),))
    assert session_commands(codex) == [("make dist", 0)]


def test_a_run_needs_three_sessions_and_re_runs_count_once() -> None:
    steps = ["ruff check", "pytest", "git commit"]
    assert recurring_runs({"a": steps, "b": steps}) == []
    rerun = ["ruff check", "pytest", "pytest", "pytest", "git commit"]
    found = recurring_runs({"a": steps, "b": rerun, "c": ["git add", *steps, "git push"]})
    assert found == [(("ruff check", "pytest", "git commit"), ["a", "b", "c"])]


def test_three_sessions_with_the_same_steps_make_one_workflow_and_a_fourth_reinforces_it(
    service: MemoryService,
) -> None:
    first = service.memorize(_session("s1", _noise(*CHECK_TEST_COMMIT), day=1))
    second = service.memorize(_session("s2", CHECK_TEST_COMMIT, day=2))
    assert _workflows(service) == []  # two sessions: one piece of work carried over

    # The third runs the same steps, with other arguments, a re-run and noise between.
    third_run = [
        "ruff check src/",
        "git status",
        ".venv/bin/pytest -x",
        ".venv/bin/pytest -x",
        "git add basket.py",
        'git commit -m "Round the total"',
    ]
    third = service.memorize(_session("s3", third_run, day=3))
    (flow,) = _workflows(service)
    parsed = parse_workflow(flow.content)
    assert parsed is not None
    assert parsed.name == "check, test and commit"
    assert parsed.steps == ("`ruff check`", "`pytest`", "`git add`", "`git commit`")
    assert flow.category == "project_conventions"
    assert flow.project == PROJECT
    # Provenance: stored with the conversation that completed it, its first step's turn,
    # and naming the other sessions it was seen in.
    assert flow.source_resource_id == third.resource_id
    assert flow.turn_start == 2
    assert flow.context is not None
    assert f"#{first.resource_id}" in flow.context and f"#{second.resource_id}" in flow.context
    assert flow.id in third.items_added

    fourth = service.memorize(_session("s4", [*CHECK_TEST_COMMIT, "git push"], day=4))
    (again,) = _workflows(service)
    assert again.id == flow.id
    assert again.reinforcement_count == 1
    assert flow.id in fourth.items_reinforced

    # A session without the run reinforces nothing.
    service.memorize(_session("s5", ["make docs", "make dist", "twine upload dist/*"], day=5))
    (same,) = _workflows(service)
    assert same.reinforcement_count == 1


def test_noise_and_other_projects_make_no_workflow(service: MemoryService) -> None:
    looking = ["ls", "cd app", "git status", "git diff", "cat setup.cfg", "git log -5", "pwd"]
    for n in range(4):
        service.memorize(_session(f"n{n}", looking, day=n + 1))
    # The same real steps, but each session in another project.
    for n in range(3):
        service.memorize(_session(f"p{n}", CHECK_TEST_COMMIT, day=n + 1, project=f"/p{n}"))
    assert _workflows(service) == []


def test_a_session_that_grows_is_counted_once(service: MemoryService) -> None:
    for n in range(2):
        service.memorize(_session(f"g{n}", CHECK_TEST_COMMIT, day=n + 1))
    whole = _session("g2", CHECK_TEST_COMMIT, day=3)
    start = replace_turns(whole, whole.turns[:3])  # captured early: one command run so far
    service.memorize(start)
    assert _workflows(service) == []
    grown = service.memorize(whole)
    assert any("grew" in note for note in grown.notes)
    (flow,) = _workflows(service)
    assert flow.id in grown.items_added
    later = replace_turns(whole, (*whole.turns, Turn(len(whole.turns), "user", "Thanks a lot!")))
    service.memorize(later)
    (same,) = _workflows(service)
    assert same.reinforcement_count == 0


def replace_turns(transcript: Transcript, turns: tuple[Turn, ...]) -> Transcript:
    return replace(transcript, turns=turns)


def test_the_real_sample_sessions_make_no_cross_session_workflow(
    service: MemoryService, samples_dir: Path
) -> None:
    """The samples hold few commands and no routine: importing them all adds none,
    even with three copies of the one with the most commands under other session ids."""
    for path in sorted((samples_dir / "claude-code").glob("*.jsonl")):
        for transcript in parse_source(path).transcripts:
            service.memorize(transcript)
    spotter = parse_source(samples_dir / "claude-code" / "spotter_subagent.jsonl").transcripts[0]
    assert len(session_commands(spotter)) >= 4
    for n in range(2):
        service.memorize(replace(spotter, session_id=f"copy-{n}", turns=spotter.turns[: -1 - n]))
    assert [r.content for r in _workflows(service) if "commands" in r.tags] == []


LOOP = ["pytest -q", "git add -A", "git commit -m 'Next fix'"]


def test_a_loop_run_again_and_again_is_one_run_told_from_where_the_sessions_start_it() -> None:
    loop = ["pytest", "git add", "git commit"] * 2
    assert recurring_runs({"a": loop, "b": loop, "c": loop}) == [
        (("pytest", "git add", "git commit"), ["a", "b", "c"])
    ]
    # One session joins the loop half-way: most start it with the tests.
    late = ["git add", "git commit", *loop]
    assert recurring_runs({"a": loop, "b": late, "c": loop}) == [
        (("pytest", "git add", "git commit"), ["a", "b", "c"])
    ]
    # A longer loop holds the shorter one and the runs across its end.
    long = ["ruff check", "pytest", "git add", "git commit"] * 3
    short = ["ruff check", "pytest", "git add"] * 2
    assert recurring_runs({"a": long, "b": long, "c": [*short, *long]}) == [
        (("ruff check", "pytest", "git add", "git commit"), ["a", "b", "c"])
    ]


def test_sessions_looping_over_their_steps_make_one_workflow_named_by_what_it_does(
    service: MemoryService,
) -> None:
    for n in range(3):
        service.memorize(_session(f"l{n}", _noise(*LOOP * 4), day=n + 1))
    # One routine: seen run twice in the first session, then across the three.
    (in_one, across) = sorted(_workflows(service), key=lambda r: r.id or 0)
    assert in_one.content == (
        'test and commit:\n1. `pytest -q`\n2. `git add -A`\n3. `git commit -m "…"`'
    )
    assert in_one.context == "the same commands run twice in one session"
    assert across.content == "test and commit:\n1. `pytest`\n2. `git add`\n3. `git commit`"
    assert across.context is not None and "in 3 sessions" in across.context


def _resumed(earlier: Transcript, name: str, commands: list[str]) -> Transcript:
    """Claude Code's --resume: a new session file that starts with a copy of the turns
    of the session it resumes (their times unchanged), then its own."""
    more = _session(name, commands, day=earlier.started_at.day if earlier.started_at else 1)
    at = (earlier.ended_at or datetime(2026, 5, 1, tzinfo=UTC)) + timedelta(hours=1)
    own = tuple(
        Turn(len(earlier.turns) + n, t.speaker, t.text, t.kind, at + timedelta(minutes=n))
        for n, t in enumerate(more.turns)
    )
    return replace(
        earlier,
        session_id=name,
        turns=(*earlier.turns, *own),
        ended_at=at + timedelta(minutes=len(own)),
    )


def test_a_task_resumed_twice_is_one_session_not_a_routine(service: MemoryService) -> None:
    first = _session("r1", CHECK_TEST_COMMIT, day=1)
    second = _resumed(first, "r2", ["make docs"])
    third = _resumed(second, "r3", ["twine upload dist/*"])
    for transcript in (first, second, third):
        service.memorize(transcript)
    assert _workflows(service) == []  # the same calls three times, run once
    # Two separate sessions with the same steps: now three sessions ran them.
    service.memorize(_session("x1", CHECK_TEST_COMMIT, day=8))
    assert _workflows(service) == []
    service.memorize(_session("x2", CHECK_TEST_COMMIT, day=9))
    (flow,) = _workflows(service)
    assert flow.context is not None and flow.context.startswith("the same commands in 3 sessions")


def test_sessions_continuing_one_task_count_as_one(service: MemoryService) -> None:
    """Continued after its context ran out, a task goes on in a new session that opens
    with Claude Code's summary: the episodes join them into one run, counted once."""
    opening = "This session is being continued from a previous conversation that ran out"
    first = _session("c1", CHECK_TEST_COMMIT, day=1)
    service.memorize(first)
    for n in (2, 3):
        later = _session(f"c{n}", CHECK_TEST_COMMIT, day=1, prompt=f"{opening} (part {n}).")
        shift = timedelta(hours=n)
        turns = tuple(
            replace(t, timestamp=t.timestamp and t.timestamp + shift) for t in later.turns
        )
        service.memorize(
            replace(
                later,
                turns=turns,
                started_at=(later.started_at or first.started_at or datetime.now(UTC)) + shift,
                ended_at=(later.ended_at or datetime.now(UTC)) + shift,
            )
        )
    assert _workflows(service) == []
    service.memorize(_session("y1", CHECK_TEST_COMMIT, day=5))
    assert _workflows(service) == []  # the task and one other session
    service.memorize(_session("y2", CHECK_TEST_COMMIT, day=7))
    assert len(_workflows(service)) == 1


def test_a_conversation_kept_pending_gets_its_workflows_when_extracted_again(
    open_service: Any,
) -> None:
    service = open_service(OfflineExtractor())
    for n in range(2):
        service.memorize(_session(f"p{n}", CHECK_TEST_COMMIT, day=n + 1))
    service.extractor = ScriptedExtractor(fail_with=RuntimeError("the API is overloaded"))
    third = service.memorize(_session("p2", CHECK_TEST_COMMIT, day=3))
    assert third.status == "pending" and _workflows(service) == []
    service.extractor = OfflineExtractor()
    (retried,) = service.retry_pending().results
    (flow,) = _workflows(service)
    assert flow.source_resource_id == third.resource_id and flow.id in retried.items_added
    # Extracted again later, it reinforces the same workflow, never copies it.
    again = service.reextract(third.resource_id)
    (same,) = _workflows(service)
    assert same.id == flow.id and flow.id in again.items_reinforced


def test_a_failure_in_the_step_is_logged_and_the_import_goes_on(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("a step nobody foresaw")

    monkeypatch.setattr(repeated_workflows, "step_key", broken)
    with caplog.at_level(logging.ERROR):
        result = service.memorize(
            _session("f1", CHECK_TEST_COMMIT, prompt="We always use pnpm, never npm.", day=1)
        )
    assert result.status == "success" and result.items_added
    assert "workflows across sessions skipped" in caplog.text
