"""Runs of sessions: Claude Code session files on one task joined into one episode, and
planted pairs that must stay apart; in a real store, through the importer, the version 9
migration and the CLI."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.episodes import store as episode_store
from memory_app.episodes.runs import SessionFacts, continues, says_continue
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from tests.helpers import make_version_8

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "claude-code"
PROJECT = "/home/dev/shop"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# A step: ("user", text) | ("edit", path) | ("summary", text) | ("answer", text)
Step = tuple[str, str]


def session_file(
    path: Path,
    session: str,
    start: datetime,
    steps: Sequence[Step],
    *,
    project: str = PROJECT,
    branch: str = "feature/cart",
    copied: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """A Claude Code session file, a minute per step; `copied`: lines of an earlier
    session a resume copies in first (their own times kept). Returns its lines."""
    lines: list[dict[str, Any]] = [dict(line, sessionId=session) for line in copied]
    moment = start

    def add(kind: str, content: Any, **extra: Any) -> None:
        nonlocal moment
        moment += timedelta(minutes=1)
        role = "user" if kind == "user" else "assistant"
        lines.append(
            {
                "type": kind,
                "sessionId": session,
                "cwd": project,
                "gitBranch": branch,
                "timestamp": moment.isoformat().replace("+00:00", "Z"),
                "uuid": f"{session}-{len(lines)}",
                "message": {"role": role, "content": content, "id": f"m{len(lines)}"},
                **extra,
            }
        )

    if not any(kind == "answer" for kind, _ in steps):  # a real exchange, not trivial
        steps = [*steps, ("answer", "Done as asked: the change is in place and it works.")]
    for number, (kind, text) in enumerate(steps):
        if kind == "user":
            add("user", text)
        elif kind == "summary":
            add("user", text, isCompactSummary=True)
        elif kind == "answer":
            add("assistant", [{"type": "text", "text": text}])
        else:
            tool = f"toolu_{session}_{number}"
            add(
                "assistant",
                [
                    {
                        "type": "tool_use",
                        "id": tool,
                        "name": "Edit",
                        "input": {"file_path": f"{project}/{text}", "old_string": "a"},
                    }
                ],
            )
            add(
                "user",
                [{"type": "tool_result", "tool_use_id": tool, "content": "The file was updated"}],
            )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return lines


def open_service(data: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())


def runs(data: Path) -> list[episode_store.EpisodeRun]:
    service = open_service(data)
    try:
        with service.db.reading() as session:
            return episode_store.list_episodes(session.connection())
    finally:
        service.close()


def imported(data: Path, *files: Path) -> list[episode_store.EpisodeRun]:
    service = open_service(data)
    try:
        service.import_paths(list(files))
    finally:
        service.close()
    return runs(data)


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out + err


FIRST = [
    ("user", "Add a discount code field to the checkout cart page"),
    ("answer", "I'll add it to the cart form."),
    ("edit", "cart/views.py"),
    ("edit", "cart/forms.py"),
    ("answer", "The field is there; the total is not updated yet."),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    return tmp_path


def test_a_session_continued_after_its_context_ran_out_joins_the_first(folder: Path) -> None:
    one = folder / "in" / "a.jsonl"
    two = folder / "in" / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(
        two,
        "b",
        T0 + timedelta(hours=2),
        [
            (
                "summary",
                "This session is being continued from a previous conversation that ran "
                "out of context. The conversation is summarized below: discount field.",
            ),
            ("user", "Now update the total when a code is applied"),
            ("edit", "cart/totals.py"),
            ("user", "thanks, works"),
        ],
    )
    found = imported(folder / "data", one, two)
    assert len(found) == 1
    run = found[0]
    assert len(run.sessions) == 2
    assert run.goal == "Add a discount code field to the checkout cart page"
    assert run.outcome == "succeeded"  # the last session's
    assert [f.path for f in run.files] == ["cart/views.py", "cart/forms.py", "cart/totals.py"]
    assert run.sessions[1].run_reason.startswith("opens with Claude Code's summary")
    # From the first start to the last end; active time leaves the two hours out.
    assert run.duration_seconds == int((run.ended_at - run.started_at).total_seconds())
    assert run.active_seconds is not None and run.duration_seconds is not None
    assert (run.active_seconds, run.duration_seconds) == (660, 7500)  # 7 + 4 min of work
    assert [m.kind for m in run.milestones] == ["wrote", "request", "wrote", "confirmed"]
    assert run.milestones[1].text == "New request: Now update the total when a code is applied"


def test_a_resumed_session_with_the_copied_history_counts_its_turns_once(folder: Path) -> None:
    one = folder / "in" / "a.jsonl"
    two = folder / "in" / "b.jsonl"
    copied = session_file(one, "a", T0, FIRST)
    session_file(
        two,
        "b",
        T0 + timedelta(hours=5),
        [("user", "the total still doesn't change"), ("edit", "cart/totals.py")],
        copied=copied,
    )
    (run,) = imported(folder / "data", one, two)
    second = run.sessions[1]
    assert second.run_reason == "resumed: the same opening prompt"
    assert second.run_from_turn is not None and second.run_from_turn > 0
    # The first session's two edits once, then the resumed session's own.
    texts = [m.text for m in run.milestones]
    assert texts.count("Edited 2 files: cart/views.py, cart/forms.py") == 1
    assert texts[-1] == "Edited cart/totals.py"


@pytest.mark.parametrize(
    ("second_start", "branch", "steps"),
    [
        # The same project and branch an hour later, but another task.
        (timedelta(hours=1), "feature/cart", [("user", "Write the release notes for 2.3")]),
        # "continue" three days later: a new episode.
        (timedelta(days=3), "feature/cart", [("user", "continue with the discount code")]),
        # "continue" soon after, on another branch.
        (timedelta(minutes=20), "main", [("user", "continue with the discount code")]),
        # "continue" after eight hours with no file in common.
        (timedelta(hours=8), "feature/cart", [("user", "continue"), ("edit", "README.md")]),
    ],
    ids=["other-task", "days-apart", "other-branch", "late-and-nothing-shared"],
)
def test_planted_pairs_stay_apart(
    folder: Path, second_start: timedelta, branch: str, steps: list[Step]
) -> None:
    one = folder / "in" / "a.jsonl"
    two = folder / "in" / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(two, "b", T0 + second_start, steps, branch=branch)
    assert [len(r.sessions) for r in imported(folder / "data", one, two)] == [1, 1]


def test_continue_hours_later_joins_when_it_changes_the_same_files(folder: Path) -> None:
    one, two = folder / "in" / "a.jsonl", folder / "in" / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(
        two,
        "b",
        T0 + timedelta(hours=9),
        [("user", "Let's continue with the cart"), ("edit", "cart/forms.py")],
    )
    (run,) = imported(folder / "data", one, two)
    assert run.sessions[1].run_reason == "says it continues, and changes cart/forms.py again"


def test_an_unrelated_session_in_between_does_not_break_a_resume(folder: Path) -> None:
    one, other, two = (folder / "in" / f"{n}.jsonl" for n in "abc")
    copied = session_file(one, "a", T0, FIRST)
    session_file(other, "x", T0 + timedelta(hours=1), [("user", "Write the release notes for 2.3")])
    session_file(two, "c", T0 + timedelta(hours=3), [("user", "go on")], copied=copied)
    found = imported(folder / "data", one, other, two)
    assert sorted(len(r.sessions) for r in found) == [1, 2]


def test_the_real_spotter_sessions_of_one_project_and_branch_stay_apart(folder: Path) -> None:
    # Two real sessions 40 minutes apart on the same project and branch, different tasks.
    found = imported(
        folder / "data", SAMPLES / "spotter_short.jsonl", SAMPLES / "spotter_subagent.jsonl"
    )
    assert [len(r.sessions) for r in found] == [1, 1]
    assert found[0].project == found[1].project


def test_the_rule_reads_continue_words() -> None:
    assert says_continue("continue where we left off")
    assert says_continue("OK, let's continue")
    assert says_continue("the checkout test still fails")
    assert not says_continue("Add a continuation token to the API")
    facts = SessionFacts(1, PROJECT, None, None, T0, T0, "x", False, frozenset())
    later = SessionFacts(2, "/other", None, None, T0, T0, "continue", True, frozenset())
    assert continues(facts, later) is None  # another project: never


def test_runs_in_the_cli_and_a_version_8_store(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = folder / "in" / "a.jsonl", folder / "in" / "b.jsonl"
    copied = session_file(one, "a", T0, FIRST)
    session_file(
        two,
        "b",
        T0 + timedelta(hours=1),
        [("user", "go on"), ("edit", "cart/totals.py")],
        copied=copied,
    )
    data = folder / "data"
    imported(data, one, two)
    make_version_8(data / "memory.db")
    with sqlite3.connect(data / "memory.db") as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(episode)")}
    conn.close()
    assert "run_id" not in columns

    code, out = cli(capsys, "episodes", "list", "--data-dir", data)
    assert code == 0
    assert "2 sessions, " in out and out.count("Add a discount code") == 1
    assert list((data / "backups").glob("memory.v8.*.bak"))  # migrated, backed up first

    fresh = open_service(folder / "fresh")
    fresh.close()

    def schema(db: Path) -> tuple[list[Any], list[Any]]:
        """The episode table's columns (name, type, not null, default) and indexes."""
        with sqlite3.connect(db) as conn:
            columns = [r[1:5] for r in conn.execute("PRAGMA table_info(episode)")]
            indexes = conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                "AND tbl_name = 'episode' ORDER BY name"
            ).fetchall()
        conn.close()
        return columns, indexes

    assert schema(data / "memory.db") == schema(folder / "fresh" / "memory.db")

    code, out = cli(capsys, "episodes", "list", "--json", "--data-dir", data)
    (listed,) = json.loads(out)
    assert listed["session_count"] == 2
    assert [s["conversation"] for s in listed["sessions"]] == [1, 2]

    second_id = listed["sessions"][1]["id"]
    code, out = cli(capsys, "episodes", "show", str(second_id), "--data-dir", data)
    assert code == 0
    assert f"Episode {listed['id']}: Add a discount code" in out
    assert "Session 2 of 2" in out and "resumed: the same opening prompt" in out
    turn = next(
        line.split()[1]
        for line in out.splitlines()
        if line.startswith("  turn") and "Edited cart/totals.py" in line
    )
    code, out = cli(
        capsys,
        "episodes",
        "show",
        str(listed["id"]),
        "--turn",
        turn,
        "--session",
        "2",
        "--data-dir",
        data,
    )
    # The turn the milestone was read from: the edit's result in the second conversation.
    assert (code, out) == (
        0,
        f"Conversation #2, turn {turn} (tool, tool_result)\nThe file was updated\n",
    )

    code, out = cli(
        capsys,
        "episodes",
        "show",
        str(listed["id"]),
        "--turn",
        "999",
        "--json",
        "--data-dir",
        data,
    )
    assert code == 1
    assert json.loads(out) == {"error": "conversation #1 has no turn 999 (its turns are 0 to 6)"}
