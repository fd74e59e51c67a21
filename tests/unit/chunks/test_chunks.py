"""Conversation chunks with progressive summaries (seed 003): built from a real Claude
Code session, merged into a rolling summary, stored on import and by the version 8
migration, sent with extraction requests, shown in context and by `memory-app chunks`."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memory_app.chunks import store as chunk_store
from memory_app.chunks.builder import (
    SUMMARY_TOKENS,
    build_chunks,
    rolling_summary,
    split_turns,
)
from memory_app.chunks.extraction import fit_for_extraction
from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.offline import OfflineExtractor
from memory_app.ingest import parse_source
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError
from tests.helpers import conversation, make_version_7
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude

SPOTTER = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "claude-code"
SPOTTER = SPOTTER / "spotter_subagent.jsonl"
SPOTTER_SESSION = "491e126e-1e71-469c-ade2-fcc8af567c74"
PYTEST_RULE = "We use pytest for every test in this repo, never unittest."
NOTHING = {"no_content_to_extract": True}


def spotter() -> Transcript:
    return parse_source(SPOTTER, None).transcripts[0]


def open_service(data: Path, extractor: Any = None) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), extractor or OfflineExtractor())


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def long_chat(exchanges: int, *, early: str = "", late: str = "", pad: int = 0) -> Transcript:
    """`exchanges` user/assistant pairs; `early` is the first request, `late` the last."""
    pairs = []
    for n in range(exchanges):
        ask = f"Step {n}: please refactor module_{n} to use pathlib."
        if n == 0 and early:
            ask = early
        if n == exchanges - 1 and late:
            ask = late
        pairs.append((ask, f"Refactored module_{n} as asked. " + "y" * pad))
    return conversation(*pairs, session="long")


# -- building -------------------------------------------------------------------------


def test_a_real_session_in_chunks_of_three_messages_reads_as_it_went() -> None:
    """The spotter session: research for a /create-beads request, the user's answers and
    a plan approved, then "create the beads" and the beads created. Tool traffic stays
    with the message it follows: every turn is in exactly one chunk, in order."""
    transcript = spotter()
    chunks = build_chunks(transcript, size=3)
    assert [(c.turn_start, c.turn_end) for c in chunks] == [(0, 19), (20, 31), (32, 41)]
    runs = split_turns(transcript.turns, 3)
    assert [t.position for run in runs for t in run] == [t.position for t in transcript.turns]

    first, second, third = (c.summary for c in chunks)
    assert first.startswith("Asked: create-beads: websearch to learn how to fastest setup credo")
    assert "Researched: 5 web searches, 1 web page" in first
    assert "Answered: No rig; Credo + Dialyxir + mix_audit" in second
    assert "Wrote plan.md" in second and "Plan approved" in second
    assert third.startswith("Asked: create the beads")
    assert "Created issue: spotter-0p7" in third
    for chunk in chunks:
        assert chunk.summary_tokens <= SUMMARY_TOKENS
        assert len(set(chunk.key_topics)) == len(chunk.key_topics)
        assert chunk.token_count > chunk.summary_tokens  # a summary is shorter than its turns
    assert "plan.md" in chunks[1].key_topics and "elixir" in chunks[1].key_topics
    # Seed 003's default of ten messages: the session's eight make one chunk.
    assert len(build_chunks(transcript)) == 1


def test_the_rolling_summary_merges_the_oldest_chunks_and_stays_within_its_cap() -> None:
    chunks = build_chunks(long_chat(30, early="Switch the job queue to Redis streams."))
    assert len(chunks) == 6 and all(c.turn_end - c.turn_start == 9 for c in chunks)
    rolling = rolling_summary(chunks, max_chunks=4, max_tokens=2000)
    parts = rolling.text.split("\n\n")
    assert parts[0].startswith("Earlier: Asked: Switch the job queue to Redis streams")
    assert len(parts) == 5 and all(p.startswith("Then: ") for p in parts[1:])
    assert " / Asked: Step 5:" in parts[0]  # chunk 2 merged into the Earlier part
    assert parts[-1] == "Then: " + chunks[-1].summary  # the latest chunk whole
    assert rolling.merged == 2 and rolling.chunks == 6 and rolling.turn_end == 59
    assert len(rolling.topics) == len(set(rolling.topics)) and "pathlib" in rolling.topics

    # Tighter: the oldest parts shrink to their headlines, then leave; the goal (the
    # first request) and the latest chunk stay longest.
    tight = rolling_summary(chunks, max_chunks=4, max_tokens=200)
    assert tight.tokens <= 200
    assert tight.text.startswith("Earlier: Asked: Switch the job queue to Redis streams.")
    assert "(4 chunks not shown)\n\nThen: Asked: Step 25" in tight.text
    assert "Step 29: please refactor" in tight.text
    tighter = rolling_summary(chunks, max_chunks=4, max_tokens=100)
    assert tighter.tokens <= 100 and "Step 29: please refactor" in tighter.text
    tiny = rolling_summary(chunks, max_tokens=10)
    assert tiny.tokens <= 10 and tiny.text


# -- the store -------------------------------------------------------------------------


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with the spotter session and a long conversation (six chunks)."""
    folder = tmp_path / "data"
    service = open_service(folder)
    try:
        service.import_paths([SPOTTER])
        service.memorize(long_chat(30, early=PYTEST_RULE))
    finally:
        service.close()
    return folder


def stored_chunks(service: MemoryService, ident: str) -> list[Any]:
    with service.db.reading() as session:
        conn = session.connection()
        return chunk_store.conversation_chunks(conn, chunk_store.find_conversation(conn, ident))


def test_importing_stores_the_chunks_found_by_session_id_prefix_or_number(data: Path) -> None:
    service = open_service(data)
    try:
        by_session = stored_chunks(service, SPOTTER_SESSION)
        assert by_session == stored_chunks(service, SPOTTER_SESSION[:8])
        assert by_session == stored_chunks(service, "1")
        assert by_session[0].summary == build_chunks(spotter())[0].summary
        assert len(stored_chunks(service, "long")) == 6
        with pytest.raises(NotFoundError, match="no conversation with session id or number"):
            stored_chunks(service, "no-such-session")
    finally:
        service.close()


def test_a_version_7_store_gains_the_chunks_of_its_conversations(data: Path) -> None:
    make_version_7(data / "memory.db")
    with sqlite3.connect(data / "memory.db") as conn:
        found = conn.execute("SELECT name FROM sqlite_master WHERE name='conversation_chunk'")
        assert not found.fetchall()
    conn.close()
    service = open_service(data)
    try:
        assert service.db.previous_version == 7
        assert len(stored_chunks(service, "long")) == 6
        assert stored_chunks(service, SPOTTER_SESSION)[0].turn_end == 41
    finally:
        service.close()
    with sqlite3.connect(data / "memory.db") as conn:  # ON DELETE CASCADE
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("DELETE FROM resource")
        assert conn.execute("SELECT count(*) FROM conversation_chunk").fetchone() == (0,)
    conn.close()


# -- extraction -------------------------------------------------------------------------


def test_each_request_after_the_first_carries_the_summary_of_what_came_before() -> None:
    """The choice made in chunk one ("Redis streams") reaches the request that holds
    "do it the other way", within the request's characters."""
    chat = long_chat(60, early="Switch the job queue to Redis streams.", pad=200)
    chat = Transcript(
        source_kind="text",
        session_id="long",
        turns=(
            *chat.turns[:-2],
            Turn(118, "user", "Actually, do it the other way: keep the queue as it was."),
            Turn(119, "assistant", "Reverted the queue change."),
        ),
    )
    api = FakeMessagesAPI(NOTHING)
    settings = ClaudeSettings(concurrency=1, chunk_chars=8000)
    extractor = make_claude(api, settings=settings)
    from memory_app.domain.categories import DEFAULT_CATEGORIES

    extractor.extract(chat, DEFAULT_CATEGORIES)
    prompts = api.prompts()
    assert len(prompts) >= 3
    assert "Earlier in this conversation" not in prompts[0]
    for prompt in prompts[1:]:
        earlier = prompt.split("Earlier in this conversation", 1)[1].split("\n---\n", 1)[0]
        assert "Asked: Switch the job queue to Redis streams" in earlier
    last = prompts[-1]
    assert "do it the other way" in last.split("\n---\n", 1)[1]
    conversation_part = last.split("## Conversation", 1)[1].split("## Extraction Task", 1)[0]
    assert len(conversation_part) <= settings.chunk_chars + 200  # the prompt's own lines


def test_a_conversation_too_long_to_send_reaches_the_model_with_its_end_summarized(
    tmp_path: Path,
) -> None:
    """Past max_conversation_chars the turns used to be dropped; now the model reads the
    beginning verbatim and the rest as chunk summaries, numbered by their turns."""
    late = "From now on deploy with the blue-green script only."
    chat = long_chat(60, late=late, pad=200)
    limit = 8000
    fitted, summarized = fit_for_extraction(chat, max_total_chars=limit)
    assert summarized > 60 and sum(len(t.text) for t in fitted.turns) <= limit
    api = FakeMessagesAPI(NOTHING)
    settings = ClaudeSettings(concurrency=1, max_conversation_chars=limit)
    service = open_service(tmp_path / "data", make_claude(api, settings=settings))
    try:
        service.memorize(chat)
    finally:
        service.close()
    sent = "\n".join(api.prompts())
    assert "[0] User: Step 0" in sent  # the beginning, verbatim
    assert "[119] Assistant" not in sent  # the end is not sent verbatim…
    summaries = re.findall(r"^\[(\d+)\] Summary of turns (\d+)-(\d+)", sent, re.MULTILINE)
    assert summaries and summaries[-1][2] == "119"  # …but reaches the model summarized
    summarized_part = sent.split("Summary of turns", 1)[1]
    assert late in summarized_part


# -- context -----------------------------------------------------------------------------


def test_context_fills_what_the_memories_leave_with_the_conversation(data: Path) -> None:
    service = open_service(data)
    try:
        for budget in (2000, 600, 250, 120, 60):
            plan = service.build_context(
                ContextRequest(task="pytest", budget=budget, conversation="long")
            )
            assert plan.used <= budget, budget
            assert estimate_tokens(plan.render()) <= budget
            tier = plan.tier("conversation")
            assert tier.title == "This conversation so far"
            if budget == 2000:
                texts = [e.text for e in tier.entries]
                assert texts[0].startswith("Turns 0-29, in short:\n  Earlier: Asked: We use")
                # then the latest chunks, most recent first
                assert [t.split(":", 1)[0] for t in texts[1:]] == [
                    "Turns 50-59",
                    "Turns 40-49",
                    "Turns 30-39",
                ]
                assert plan.tier("relevant").entries  # the memories come first
        assert not tier.entries and tier.left_out  # at 60 tokens nothing of it fits
        plain = service.build_context(ContextRequest(task="pytest", budget=2000))
        assert [t.key for t in plain.tiers] == ["critical", "relevant", "background", "index"]
    finally:
        service.close()


def test_the_cli_shows_chunks_and_the_conversation_in_context(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "chunks", SPOTTER_SESSION, "--data-dir", data)
    assert code == 0
    assert "Conversation #1: 1 chunks" in out and "Asked: create-beads" in out
    assert "Rolling summary (" in out

    code, out, _ = run(capsys, "chunks", "2", "--json", "--data-dir", data)
    payload = json.loads(out)
    assert code == 0 and payload["conversation"] == 2 and len(payload["chunks"]) == 6
    assert payload["chunks"][0]["turn_start"] == 0 and payload["chunks"][5]["turn_end"] == 59
    assert payload["rolling_summary"]["merged"] == 2

    args = ("context", "pytest", "--session", "long", "--budget", "500", "--json")
    code, out, _ = run(capsys, *args, "--data-dir", data)
    payload = json.loads(out)
    assert code == 0 and payload["used_tokens"] <= 500
    section = next(t for t in payload["tiers"] if t["tier"] == "conversation")
    assert section["entries"] and "## This conversation so far" in payload["context"]

    code, out, _ = run(capsys, "chunks", "nope", "--json", "--data-dir", data)
    assert code == 1
    assert json.loads(out) == {"error": "no conversation with session id or number 'nope'"}
    code, _, err = run(capsys, "context", "--session", "nope", "--data-dir", data)
    assert code == 1 and "no conversation with session id or number 'nope'" in err


README_LINES = (
    "memory-app chunks 491e126e",
    'memory-app context "add the quality alias" --session 491e126e --budget 800',
)


def test_the_readme_lines_run_as_written(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    outputs = []
    for line in README_LINES:
        assert line in readme
        code, out, err = run(capsys, *shlex.split(line)[1:], "--data-dir", data)
        assert code == 0, err
        outputs.append(out)
    assert "Asked: create-beads: websearch" in outputs[0] and "; create the beads" in outputs[0]
    assert "## This conversation so far" in outputs[1] and "Turns 0-41:" in outputs[1]
