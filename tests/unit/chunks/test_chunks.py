"""Conversation chunks with progressive summaries (seed 003): built from a real Claude
Code session, merged into a rolling summary, stored on import and by the version 8
migration, sent with extraction requests, shown in context and by `memory-app chunks`."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memory_app.chunks import store as chunk_store
from memory_app.chunks.builder import (
    SUMMARY_TOKENS,
    ConversationChunk,
    build_chunks,
    rolling_summary,
    split_turns,
)
from memory_app.chunks.extraction import fit_for_extraction
from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.domain.gates import truncate_for_extraction
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.chunking import EARLIER_HEADING, earlier_contexts
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.offline import OfflineExtractor
from memory_app.ingest import parse_source
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError
from tests.helpers import conversation, make_version_7
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

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
    assert tight.text.startswith("Earlier: Asked: Switch the job queue to Redis streams; Step 1")
    assert "(4 chunks not shown)\n\nThen: Asked: Step 25" in tight.text
    assert "Step 29: please refactor" in tight.text
    tighter = rolling_summary(chunks, max_chunks=4, max_tokens=100)
    assert tighter.tokens <= 100 and "Step 29: please refactor" in tighter.text
    tiny = rolling_summary(chunks, max_tokens=10)
    assert tiny.tokens <= 10 and tiny.text


def test_the_rolling_summary_of_twenty_thousand_chunks_keeps_the_goal_and_the_latest() -> None:
    """A week-long session: the summary is worked out in one pass (it used to re-render
    everything for each headline it left out: seconds for a few thousand chunks)."""
    count = 20_000
    chunks = [
        ConversationChunk(
            number=n + 1,
            turn_start=10 * n,
            turn_end=10 * n + 9,
            summary=f"Asked: Step {n}: refactor module_{n}\nDone: Edited module_{n}.py",
            key_topics=(f"module_{n}.py", "pathlib"),
            token_count=400,
        )
        for n in range(count)
    ]
    rolling = rolling_summary(chunks)
    assert rolling.tokens <= 600 and rolling.merged == count - 4 and rolling.turn_end == 199_999
    assert rolling.text.startswith("Earlier: Asked: Step 0: refactor module_0 / (")
    shown = re.findall(r"Asked: Step (\d+):", rolling.text)
    (gap,) = re.findall(r"\((\d+) chunks not shown\)", rolling.text)
    assert len(shown) + int(gap) == count  # every chunk is either shown or counted
    assert shown[-1] == str(count - 1) and rolling.text.endswith("Edited module_19999.py")
    assert rolling.topics[:3] == ("module_0.py", "pathlib", "module_1.py")
    assert len(rolling.topics) == 16 == len(set(rolling.topics))


def test_each_requests_earlier_summary_is_that_of_the_turns_before_it() -> None:
    """The chunks are built once per extraction: the summary sent with a request chunk
    is the same as if the turns before it were chunked on their own, whether its first
    turn starts a chunk or falls inside one."""
    chat = long_chat(45, early="Switch the job queue to Redis streams.")
    befores = [1, 9, 10, 11, 20, 37, 60, 89]
    found = earlier_contexts(chat, befores, 1200)
    room = 1200 - len(EARLIER_HEADING) - 3
    for before, text in zip(befores, found, strict=True):
        prior = replace(chat, turns=tuple(t for t in chat.turns if t.position < before))
        alone = rolling_summary(build_chunks(prior), max_tokens=room // 4).text
        assert text == f"{EARLIER_HEADING}:\n{alone}", before
    assert earlier_contexts(chat, [0], 1200) == [""]  # nothing came before
    assert "Redis streams" in found[-1]


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


def test_a_version_7_store_opens_at_once_and_builds_chunks_when_one_is_read(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The migration only adds the table: a conversation the builder cannot read does
    not keep the store closed, and a conversation's chunks are built when it is read."""
    make_version_7(data / "memory.db")
    with sqlite3.connect(data / "memory.db") as conn:
        found = conn.execute("SELECT name FROM sqlite_master WHERE name='conversation_chunk'")
        assert not found.fetchall()
    conn.close()

    asked: list[str | None] = []

    def broken(transcript: Transcript, size: int = 10) -> list[Any]:
        asked.append(transcript.session_id)
        raise RuntimeError("a builder bug")

    with monkeypatch.context() as patch:
        patch.setattr(chunk_store, "build_chunks", broken)
        service = open_service(data)
    try:
        assert service.db.previous_version == 7
        assert asked == []  # nothing built at startup
        assert stored_chunks(service, "long") == []
    finally:
        service.close()
    code, out, _ = run(capsys, "chunks", "long", "--json", "--data-dir", data)
    assert code == 0 and len(json.loads(out)["chunks"]) == 6  # built as it is read
    with sqlite3.connect(data / "memory.db") as conn:  # ON DELETE CASCADE
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("INSERT INTO conversation_chunk (resource_id, chunk_number, turn_start,"
                     " turn_end, summary, key_topics, token_count)"
                     " VALUES (2, 1, 0, 9, 's', '[]', 1)")  # fmt: skip
        conn.execute("DELETE FROM resource")
        assert conn.execute("SELECT count(*) FROM conversation_chunk").fetchone() == (0,)
    conn.close()


def test_the_backfill_skips_a_conversation_the_builder_cannot_read(
    data: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """build_all_chunks (a maintenance step, not the migration): one savepoint per
    conversation, so a failure is logged and the other conversations get their chunks."""
    make_version_7(data / "memory.db")
    built = chunk_store.build_chunks

    def fails_on_long(transcript: Transcript, size: int = 10) -> list[Any]:
        if transcript.session_id == "long":
            raise RuntimeError("a builder bug")
        return built(transcript, size)

    monkeypatch.setattr(chunk_store, "build_chunks", fails_on_long)
    service = open_service(data)
    try:
        with service.db.writing() as session:
            assert chunk_store.build_all_chunks(session.connection()) == 1
        assert "Could not build the chunks of conversation #2" in caplog.text
        assert stored_chunks(service, SPOTTER_SESSION)[0].turn_end == 41
        assert stored_chunks(service, "long") == []
        monkeypatch.setattr(chunk_store, "build_chunks", built)
        with service.db.writing() as session:  # only the ones still missing
            assert chunk_store.build_all_chunks(session.connection()) == 1
        assert len(stored_chunks(service, "long")) == 6
    finally:
        service.close()


def test_the_monthly_reindex_gives_older_conversations_their_chunks(data: Path) -> None:
    """A store from before chunks (version 7) opens without building them; the monthly
    re-index, which rebuilds derived data, stores them."""
    make_version_7(data / "memory.db")
    service = open_service(data)
    try:
        assert stored_chunks(service, "long") == []
        run = service.run_maintenance("monthly")
        assert run.status == "success", run.error
        assert run.result["chunks_built"] == 2
        assert len(stored_chunks(service, "long")) == 6
        assert stored_chunks(service, SPOTTER_SESSION)[0].turn_end == 41
        assert service.run_maintenance("monthly").result["chunks_built"] == 0
    finally:
        service.close()


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
    # Too much to summarize in what the old cut leaves: a fifth of the budget is theirs.
    verbatim = [t for t in fitted.turns if t.kind != "summary"]
    assert sum(len(t.text) for t in verbatim) <= limit - limit // 5
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
    assert late.rstrip(".") in summarized_part


def test_a_conversation_just_over_the_limit_keeps_the_verbatim_turns_it_had() -> None:
    """When the summary of what does not fit goes in what the old truncation's cut
    leaves, the verbatim part is the same turns as before summaries: what was learnt
    from it is found again, not learnt in other words."""
    chat = long_chat(60, pad=100)
    last = Turn(120, "assistant", "Settled on the blue-green deploy. " + "z" * 2500)
    chat = replace(chat, turns=(*chat.turns, last))
    limit = sum(len(t.text) for t in chat.turns[:-1]) + 1500  # the last turn is over
    assert limit // 5 > 1500  # a fifth of the budget would cut into the turns before
    fitted, summarized = fit_for_extraction(chat, max_total_chars=limit)
    old, dropped = truncate_for_extraction(chat, max_total_chars=limit)
    assert summarized == dropped == 1
    assert fitted.turns[:-1] == old.turns[:-1] == chat.turns[:-1]  # the same verbatim turns
    (summary,) = fitted.turns[-1:]
    assert summary.text.startswith("Summary of turns 120-120 (not sent verbatim): Said: Settled")
    assert sum(len(t.text) for t in fitted.turns) <= limit


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
