"""The offline episode builder: a real Claude Code session told as a person would tell
it, and one short synthetic conversation per rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory_app.domain.transcripts import Transcript, Turn
from memory_app.episodes.builder import build_episode, condensed_goal
from memory_app.episodes.model import FileTouch, Problem
from memory_app.ingest.claude_code import parse_claude_code

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "claude-code"
START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def sample(name: str) -> Transcript:
    return parse_claude_code(SAMPLES / name).transcripts[0]


def session(*turns: tuple[str, str, str], project: str = "/repo") -> Transcript:
    """(speaker, kind, text) turns, ten seconds apart, as the importers render them."""
    built = tuple(
        Turn(n, speaker, text, kind=kind, timestamp=START + timedelta(seconds=10 * n))
        for n, (speaker, kind, text) in enumerate(turns)
    )
    return Transcript(source_kind="claude-code", turns=built, project=project)


def user(text: str) -> tuple[str, str, str]:
    return ("user", "message", text)


def says(text: str) -> tuple[str, str, str]:
    return ("assistant", "message", text)


def call(text: str) -> tuple[str, str, str]:
    return ("assistant", "tool_use", text)


def result(text: str) -> tuple[str, str, str]:
    return ("tool", "tool_result", text)


def test_the_spotter_session_reads_as_a_person_would_tell_it() -> None:
    """The session (read in full, tests/fixtures/samples/claude-code/spotter_subagent.jsonl):
    the user runs /handgemacht:create-beads asking for a web search on the fastest setup
    of credo, dialyzer and mix_audit; Claude searches the web and reads mix.exs, sums up
    its findings, asks two questions (answered "No rig" and "Credo + Dialyxir +
    mix_audit"), has a sub-agent draft the beads, writes plan.md, the plan is approved;
    the user says "create the beads" and Claude creates the epic, its two tasks and the
    dependency between them, then lists what it created. Nothing failed; it succeeded."""
    episode = build_episode(sample("spotter_subagent.jsonl"))
    assert episode is not None
    assert episode.goal == (
        "create-beads: websearch to learn how to fastest setup credo, dialyzer, mix_audit"
    )
    assert episode.goal_turn == 0
    assert [(m.turn, m.kind, m.text) for m in episode.milestones] == [
        (20, "explored", "Researched: 5 web searches, 1 web page, 1 file search, 1 file read"),
        (22, "answered", "Answered: No rig; Credo + Dialyxir + mix_audit"),
        (25, "delegated", "Sub-agent finished: Draft beads for linting setup"),
        (28, "wrote", "Wrote plan.md"),
        (30, "approved", "Plan approved"),
        (32, "request", "New request: create the beads"),
        (34, "made", "Created issue: spotter-0p7"),
        (37, "made", "Created issue: spotter-0p7.1"),
        (38, "made", "Created issue: spotter-0p7.2"),
        (40, "made", "Added dependency: spotter-0p7.2 depends on spotter-0p7.1 (blocks)"),
    ]
    assert episode.outcome == "succeeded"
    assert episode.outcome_reason == (
        "ended after: Added dependency: spotter-0p7.2 depends on spotter-0p7.1 (blocks)"
    )
    assert episode.problems == ()
    assert episode.files == (
        FileTouch("mix.exs", ("read",), 15),
        FileTouch("plan.md", ("written",), 27),
    )
    assert episode.duration_seconds == 575  # 21:54:15.9 to 22:03:51.8
    assert episode.turn_count == 42


def test_a_failing_test_fixed_then_passing_is_a_fixed_problem_and_milestones() -> None:
    episode = build_episode(
        session(
            user("The add test fails, please fix calc.py"),
            call("[Bash] .venv/bin/pytest -q tests/test_calc.py"),
            result(
                "Exit code 1\n.F.\nFAILED tests/test_calc.py::test_add - assert 3 == 4\n"
                "1 failed, 2 passed in 0.05s"
            ),
            call("[Read] /repo/calc.py"),
            result("     1→def add(a, b):\n     2→    return a - b  # Error: wrong sign"),
            call("[Edit] /repo/calc.py"),
            result("The file /repo/calc.py has been updated."),
            call("[Bash] .venv/bin/pytest -q tests/test_calc.py"),
            result("...\n3 passed in 0.04s"),
            call("[Bash] git commit -am 'Fix the sign in add'"),
            result("[main 1a2b3c4] Fix the sign in add\n 1 file changed"),
            says("Fixed: add subtracted instead of adding."),
            user("thanks, works now"),
        )
    )
    assert episode is not None
    assert episode.problems == (
        Problem(2, "FAILED tests/test_calc.py::test_add - assert 3 == 4", "tests", fixed_at=8),
    )
    assert [(m.turn, m.kind, m.text) for m in episode.milestones] == [
        (6, "wrote", "Edited calc.py"),
        (8, "tests_passed", "Tests passed: 3 passed in 0.04s"),
        (10, "committed", "Committed: Fix the sign in add"),
        (12, "confirmed", "User confirmed: thanks, works now"),
    ]
    assert episode.outcome == "succeeded"
    assert episode.files == (FileTouch("calc.py", ("read", "edited"), 3),)
    assert episode.duration_seconds == 120


def test_a_session_the_user_gives_up_on_is_abandoned() -> None:
    episode = build_episode(
        session(
            user("Deploy the site to the staging server"),
            call("[Bash] npm run deploy:staging"),
            result("Exit code 1\nnpm ERR! missing script: deploy:staging"),
            call("[Bash] npm run deploy -- --env staging"),
            result("Exit code 1\nError: no credentials for staging"),
            says("The deploy needs credentials I do not have."),
            user("forget it, I'll do it myself"),
        )
    )
    assert episode is not None
    assert episode.outcome == "abandoned"
    assert episode.outcome_reason == "the user gave up: forget it, I'll do it myself"
    assert episode.outcome_turn == 6
    assert [(p.turn, p.text, p.fixed) for p in episode.problems] == [
        (2, "npm ERR! missing script: deploy:staging", False),  # the same command failing again
    ]


def test_a_session_that_ends_on_an_error_is_abandoned() -> None:
    episode = build_episode(
        session(
            user("Run the migration"),
            call("[Bash] python manage.py migrate"),
            result(
                'Exit code 1\nTraceback (most recent call last):\n  File "manage.py"\n'
                "django.db.utils.OperationalError: no such table: shop_order"
            ),
        )
    )
    assert episode is not None
    assert episode.outcome == "abandoned"
    assert episode.outcome_reason == (
        "ended on an unfixed problem: django.db.utils.OperationalError: no such table: shop_order"
    )


def test_an_interrupted_session_never_taken_up_is_abandoned() -> None:
    """spotter_short: the user rejects both tool calls, interrupts and leaves."""
    episode = build_episode(sample("spotter_short.jsonl"))
    assert episode is not None
    assert episode.goal == "mix phx.server doesnt seem to start"
    assert episode.outcome == "abandoned"
    assert episode.outcome_reason == "interrupted by the user, and not taken up again"
    assert episode.problems == ()  # a rejected tool call is the user's choice, not an error


def test_a_commit_after_writing_and_a_new_request_leave_the_outcome_open() -> None:
    """simonw's sample: a file written and committed, then a request nobody acted on."""
    episode = build_episode(sample("simonw_sample_session.jsonl"))
    assert episode is not None
    assert [(m.kind, m.text) for m in episode.milestones] == [
        ("wrote", "Wrote hello.py"),
        ("committed", "Committed: Add hello function"),
        ("request", "New request: Now add a goodbye function"),
    ]
    assert episode.outcome == "unknown"


def test_a_user_who_reports_it_still_broken_is_a_problem_fixed_by_their_thanks() -> None:
    episode = build_episode(
        session(
            user("Make the login button work on mobile"),
            call("[Edit] /repo/src/login.css"),
            result("The file /repo/src/login.css has been updated."),
            user("still broken on my phone"),
            call("[Edit] /repo/src/login.css"),
            result("The file /repo/src/login.css has been updated."),
            user("perfect"),
        )
    )
    assert episode is not None
    assert episode.problems == (Problem(3, "still broken on my phone", "user", fixed_at=6),)
    assert episode.outcome == "succeeded"
    assert [m.kind for m in episode.milestones] == ["wrote", "wrote", "confirmed"]


def test_codex_patches_and_goals_from_slash_commands() -> None:
    episode = build_episode(
        session(
            user("List the files and add gamma"),
            call("[apply_patch] *** Begin Patch *** Add File: gamma.txt +synthetic *** End Patch"),
            result("Done!"),
        )
    )
    assert episode is not None
    assert episode.files == (FileTouch("gamma.txt", ("written",), 1),)
    assert condensed_goal(
        "/review:pr look at the auth module (see https://example.com/x)\n\nmore words"
    ) == ("pr: look at the auth module")


def test_the_builder_is_deterministic_and_needs_a_prompt() -> None:
    transcript = sample("spotter_subagent.jsonl")
    assert build_episode(transcript) == build_episode(transcript)
    assert build_episode(session(says("Hello"), call("[Bash] ls"), result("a"))) is None
