"""Episodes in a real store: built on import, by the version 6 migration and by
`episodes rebuild`; listed and shown by the CLI with their memories."""

from __future__ import annotations

import json
import shlex
import sqlite3
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.episodes import builder
from memory_app.episodes import store as episode_store
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store.insights import count_resources
from tests.helpers import conversation, make_version_5

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "claude-code"
SPOTTER = SAMPLES / "spotter_subagent.jsonl"
SUBAGENT = SAMPLES / "spotter_subagents_agent-acompact-e1f845.jsonl"
PYTEST_RULE = "We use pytest for every test in this repo, never unittest."


def open_service(data: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def episodes(service: MemoryService) -> list[episode_store.EpisodeRecord]:
    with service.db.reading() as session:
        return episode_store.list_episodes(session.connection())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with the spotter session, a sub-agent's session and a short
    conversation the offline extractor learns one memory from."""
    folder = tmp_path / "data"
    service = open_service(folder)
    try:
        service.import_paths([SPOTTER, SUBAGENT])
        service.memorize(conversation((PYTEST_RULE, "Understood: pytest only.")))
    finally:
        service.close()
    return folder


def test_importing_a_conversation_stores_its_episode(data: Path) -> None:
    service = open_service(data)
    try:
        found = episodes(service)
    finally:
        service.close()
    # Newest first: the short conversation (May 2026), then spotter (February 2026); the
    # sub-agent's conversation has no episode of its own.
    assert [e.title for e in found] == [
        PYTEST_RULE,
        "create-beads: websearch to learn how to fastest setup credo, dialyzer, mix_audit",
    ]
    spotter = found[1]
    assert spotter.outcome == "succeeded"
    assert spotter.project == "/home/marco/projects/spotter"
    assert spotter.duration == "9m 35s"
    assert len(spotter.milestones) == 10
    assert found[0].memory_count == 1


def test_a_failing_builder_never_costs_the_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(_transcript: object) -> None:
        raise RuntimeError("builder bug")

    monkeypatch.setattr(episode_store, "build_episode", broken)
    service = open_service(tmp_path / "data")
    try:
        report = service.import_paths([SPOTTER])
        assert [r.status for r in report.results] == ["empty"]  # stored, nothing learnt
        assert episodes(service) == []
        with service.db.reading() as session:
            assert count_resources(session) == 1
    finally:
        service.close()
    monkeypatch.setattr(episode_store, "build_episode", builder.build_episode)
    code, out, _ = run(capsys, "episodes", "rebuild", "--json", "--data-dir", tmp_path / "data")
    assert (code, json.loads(out)) == (0, {"built": 1, "joined": 0})


def test_a_version_5_store_gains_the_episodes_of_its_conversations(data: Path) -> None:
    fresh = open_service(data.parent / "fresh")
    fresh.close()
    make_version_5(data / "memory.db")
    service = open_service(data)
    try:
        assert service.db.previous_version == 5
        assert list((data / "backups").glob("memory.v5.*.bak"))
        assert [e.outcome for e in episodes(service)] == ["unknown", "succeeded"]
    finally:
        service.close()

    def schema(db: Path) -> list[tuple[str, str]]:
        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'episode' ORDER BY name"
            ).fetchall()
        conn.close()
        return rows

    assert schema(data / "memory.db") == schema(data.parent / "fresh" / "memory.db")
    assert schema(data / "memory.db")  # the table and its indexes


def test_list_and_show_from_the_command_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "episodes", "list", "--json", "--data-dir", data)
    listed = json.loads(out)
    assert code == 0 and [e["outcome"] for e in listed] == ["unknown", "succeeded"]
    spotter = listed[1]["id"]

    code, out, _ = run(capsys, "episodes", "list", "--outcome", "succeeded", "--data-dir", data)
    assert code == 0
    assert "create-beads: websearch to learn how to fastest setup credo" in out
    assert "10 milestones, 0 problems, 0 memories" in out and PYTEST_RULE not in out

    code, out, _ = run(
        capsys,
        "episodes",
        "list",
        "--project",
        "/home/marco/projects/spotter/",
        "--json",
        "--data-dir",
        data,
    )
    assert code == 0 and [e["id"] for e in json.loads(out)] == [spotter]

    code, out, _ = run(capsys, "episodes", "show", str(spotter), "--data-dir", data)
    assert code == 0
    assert "Outcome: succeeded: ended after: Added dependency" in out
    assert "  turn   28  Wrote plan.md" in out
    assert "  plan.md  (written)" in out

    pytest_episode = listed[0]["id"]
    code, out, _ = run(
        capsys, "episodes", "show", str(pytest_episode), "--json", "--data-dir", data
    )
    shown = json.loads(out)
    assert [m["content"] for m in shown["memories"]] == [PYTEST_RULE]
    assert shown["goal_turn"] == 0 and shown["memories"][0]["turn_start"] == 0


def test_an_unknown_episode_is_a_clear_error(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "episodes", "show", "99", "--json", "--data-dir", data)
    assert (code, json.loads(out)) == (1, {"error": "no episode with id 99"})
    code, _, err = run(capsys, "episodes", "list", "--limit", "0", "--data-dir", data)
    assert code == 1 and "--limit must be at least 1, not 0" in err


def test_a_conversation_that_grows_gets_its_episode_again(
    tmp_path: Path,
) -> None:
    """Captured at PreCompact, then whole at SessionEnd: one conversation, one episode,
    told to its end."""
    lines = SPOTTER.read_text(encoding="utf-8").splitlines(keepends=True)
    early = tmp_path / "early" / SPOTTER.name
    early.parent.mkdir()
    early.write_text("".join(lines[:75]), encoding="utf-8")  # to the last bead
    service = open_service(tmp_path / "data")
    try:
        service.import_paths([early])
        before = episodes(service)
        service.import_paths([SPOTTER])
        after = episodes(service)
    finally:
        service.close()
    assert len(before) == len(after) == 1
    assert before[0].resource_id == after[0].resource_id
    assert len(after[0].milestones) == 10 > len(before[0].milestones)


def test_the_readme_commands_run_as_written(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Episodes\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert [shlex.split(line, comments=True)[:3] for line in lines] == [
        ["memory-app", "episodes", "list"],
        ["memory-app", "episodes", "show"],
        ["memory-app", "episodes", "show"],
        ["memory-app", "episodes", "rebuild"],
        ["memory-app", "episodes", "enrich"],
    ]
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))
    # `enrich` talks to Claude through the real SDK, its HTTP transport scripted.
    from memory_app.episodes import enrich
    from tests.unit.episodes.test_enrich import ANSWER
    from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude, message

    client = make_claude(FakeMessagesAPI(message(ANSWER))).client
    monkeypatch.setattr(enrich, "make_enricher", lambda *_a, **_k: enrich.EpisodeEnricher(client))
    for line in lines:
        code, out, err = run(capsys, *shlex.split(line, comments=True)[1:])
        assert code == 0, f"`{line}`: {err}"
        assert out.strip(), line
