"""Runs that change after they were stored: an earlier session imported later, a first
episode deleted, a conversation that grows. Claude's reading follows its run and says
when it is outdated; members never point at a gone episode; an import only works out
the runs around its session, and gets what a full rebuild gets."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.episodes import store as episode_store
from memory_app.episodes.enrich import (
    enrich_episodes,
    make_enricher,
    runs_to_enrich,
    save_enrichment,
)
from memory_app.episodes.model import Enrichment
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.service import MemoryService
from tests.unit.episodes.test_enrich import ANSWER
from tests.unit.episodes.test_runs import FIRST, T0, Step, open_service, runs, session_file
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude, message

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

SUMMARY = (
    "This session is being continued from a previous conversation that ran out of "
    "context. The conversation is summarized below: the discount code field."
)
SECOND: list[Step] = [
    ("summary", SUMMARY),
    ("user", "Now update the total when a code is applied"),
    ("edit", "cart/totals.py"),
]


def cli(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str]:
    code = main([*args, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return code, out + err


def import_files(data: Path, *files: Path) -> None:
    service = open_service(data)
    try:
        for path in files:  # one at a time, in this order, as separate imports
            service.import_paths([path])
    finally:
        service.close()


def enrich_all(data: Path, answer: dict[str, Any]) -> list[int]:
    """Claude (the SDK, its HTTP transport scripted) reads every episode `--all` offers;
    the ids of the runs it read."""
    api = FakeMessagesAPI(message(answer))
    extractor = make_claude(api, settings=ClaudeSettings(concurrency=1, timeout=1))
    service = MemoryService.open(resolve_settings(data, env={}), extractor)
    try:
        enricher = make_enricher(service.extractor, env={}, use_keyring=False)
        assert not isinstance(enricher, str)
        results = enrich_episodes(service.db, enricher)
    finally:
        service.close()
    assert all(r.error is None for r in results)
    return [r.episode_id for r in results]


def offered(data: Path) -> list[int]:
    service = open_service(data)
    try:
        return [r.id for r in runs_to_enrich(service.db)]
    finally:
        service.close()


def stored_runs(data: Path) -> list[tuple[int, int | None, str | None, int | None]]:
    with sqlite3.connect(data / "memory.db") as conn:
        rows = conn.execute(
            "SELECT id, run_id, run_reason, run_from_turn FROM episode ORDER BY id"
        ).fetchall()
    conn.close()
    return rows


def test_an_earlier_session_imported_later_takes_claudes_reading_marked_outdated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(two, "b", T0 + timedelta(hours=2), SECOND)
    data = tmp_path / "data"
    import_files(data, two)  # the later session first: a run of one, read by Claude
    assert enrich_all(data, ANSWER) == [1]
    (alone,) = runs(data)
    assert alone.enrichment is not None and not alone.enrichment.outdated

    import_files(data, one)  # the session it continues: the run now starts there
    (run,) = runs(data)
    assert [s.id for s in run.sessions] == [2, 1]
    reading = run.enrichment
    assert reading is not None and reading.title == ANSWER["title"]  # not orphaned
    assert reading.outdated  # it read the second session alone
    assert offered(data) == [2]  # `enrich --all` offers the run again

    code, out = cli(capsys, data, "episodes", "list")
    assert code == 0 and f"✦ {ANSWER['title']} (outdated)" in out
    code, out = cli(capsys, data, "episodes", "show", "1")
    assert "outdated: the episode changed since, `memory-app episodes enrich 2` reads it" in out
    code, out = cli(capsys, data, "episodes", "show", "2", "--json")
    assert json.loads(out)["claude"]["outdated"] is True

    assert enrich_all(data, {**ANSWER, "title": "The whole cart discount"}) == [2]
    (run,) = runs(data)
    assert run.enrichment is not None and run.enrichment.title == "The whole cart discount"
    assert not run.enrichment.outdated
    assert offered(data) == []
    code, out = cli(capsys, data, "episodes", "show", "2", "--json")
    assert json.loads(out)["claude"]["outdated"] is False


def test_a_conversation_that_grows_after_claude_read_it_is_outdated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in" / "a.jsonl"
    path.parent.mkdir()
    session_file(path, "a", T0, FIRST)
    data = tmp_path / "data"
    import_files(data, path)
    assert enrich_all(data, ANSWER) == [1]
    code, _ = cli(capsys, data, "episodes", "rebuild")  # the same content built again
    assert code == 0
    (run,) = runs(data)
    assert run.enrichment is not None and not run.enrichment.outdated
    assert offered(data) == []

    session_file(path, "a", T0, [*FIRST, ("user", "Also show the code on the receipt")])
    import_files(data, path)  # the same session, grown
    (run,) = runs(data)
    assert run.enrichment is not None and run.enrichment.outdated
    assert offered(data) == [1]


def test_a_deleted_first_episode_leaves_its_sessions_listed_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "in" / "a.jsonl", tmp_path / "in" / "b.jsonl"
    one.parent.mkdir()
    session_file(one, "a", T0, FIRST)
    session_file(two, "b", T0 + timedelta(hours=2), SECOND)
    data = tmp_path / "data"
    import_files(data, one, two)
    assert [len(r.sessions) for r in runs(data)] == [2]

    # The first conversation grows and its episode is deleted (the builder finds no goal).
    monkeypatch.setattr(episode_store, "build_episode", lambda _transcript: None)
    session_file(one, "a", T0, [*FIRST, ("answer", "One more thing was checked.")])
    import_files(data, one)
    monkeypatch.undo()
    assert stored_runs(data) == [(2, None, None, None)]  # no run points at episode 1
    (run,) = runs(data)
    assert run.id == 2 and len(run.sessions) == 1
    code, out = cli(capsys, data, "episodes", "show", "2")
    assert code == 0 and "Episode 2: Now update the total" in out


def test_a_member_whose_first_episode_is_gone_is_still_listed_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store an earlier version left with a member pointing at a deleted episode."""
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(two, "b", T0 + timedelta(hours=2), SECOND)
    data = tmp_path / "data"
    import_files(data, one, two)
    with sqlite3.connect(data / "memory.db") as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM episode WHERE id = 1")
    conn.close()
    assert stored_runs(data)[0][1] == 1  # episode 2 still points at episode 1

    code, out = cli(capsys, data, "episodes", "list", "--json")
    assert code == 0 and [e["id"] for e in json.loads(out)] == [2]
    code, out = cli(capsys, data, "episodes", "show", "2")
    assert code == 0 and "Episode 2: Now update the total" in out
    code, out = cli(capsys, data, "episodes", "rebuild", "--json")
    assert (code, json.loads(out)) == (0, {"built": 2, "joined": 1})


def chain(folder: Path, count: int, every: timedelta) -> list[Path]:
    """`count` sessions on one task, each continuing the one before after its context ran
    out, `every` apart, and one of another project in between."""
    files = []
    for number in range(count):
        path = folder / f"s{number:02d}.jsonl"
        steps: Sequence[Step] = (
            FIRST if number == 0 else [*SECOND, ("user", f"Step {number} is done, thanks")]
        )
        session_file(path, f"s{number}", T0 + every * number, steps)
        files.append(path)
    other = folder / "other.jsonl"
    start = T0 + every * 3 + timedelta(hours=1)
    session_file(other, "x", start, [("user", "Release notes")], project="/home/dev/blog")
    return [*files, other]


def test_an_import_in_any_order_gets_the_runs_of_a_full_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chain longer than the window an import reads (14 sessions 15 hours apart: more
    than eight days, where an import reads seven days and 16 hours either side), its
    first session imported last: every session of it joins the run, as a rebuild of all
    would have it."""
    (tmp_path / "in").mkdir()
    files = chain(tmp_path / "in", 14, timedelta(hours=15))
    later = files[1:]
    random.Random(19).shuffle(later)
    data = tmp_path / "data"
    import_files(data, *later, files[0])
    after_imports = stored_runs(data)
    found = runs(data)
    assert sorted(len(r.sessions) for r in found) == [1, 14]
    assert max(found, key=lambda r: len(r.sessions)).resource_id == 15  # imported last
    code, _ = cli(capsys, data, "episodes", "rebuild")
    assert code == 0
    assert stored_runs(data) == after_imports


def test_a_reading_saved_for_a_session_is_kept_on_its_runs_first_episode(
    tmp_path: Path,
) -> None:
    """An import during Claude's request may have made the episode read a later session
    of a run: the reading goes to the run's first episode, where the run shows it."""
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    session_file(one, "a", T0, FIRST)
    session_file(two, "b", T0 + timedelta(hours=2), SECOND)
    data = tmp_path / "data"
    import_files(data, one, two)
    reading = Enrichment("Cart", "A story.", (), "succeeded", "works", "m", "2026-03-02", "f")
    service = open_service(data)
    try:
        with service.db.writing() as session:
            save_enrichment(session.connection(), 2, reading)
            save_enrichment(session.connection(), 99, reading)  # gone: nothing is kept
        with service.db.reading() as session:
            run = episode_store.get_run(session.connection(), 2)
    finally:
        service.close()
    assert run.id == 1 and run.enrichment is not None
    assert run.enrichment.title == "Cart" and run.enrichment.outdated  # "f" is not this run
