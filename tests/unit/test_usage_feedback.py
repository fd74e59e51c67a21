"""Usage feedback (seed 004) end to end: the recall hook's answer is logged, the session's
transcript arrives, each injected memory is judged cited or ignored, and ranking uses it.
The topic window (seed 002) and a session that grows between two captures are here too,
since both hinge on the same session id."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_app.config import Settings
from memory_app.domain import citation
from memory_app.domain.scoring import RankingWeights, ScoringFacts, score, usefulness
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.hooks import injections, runtime
from memory_app.service import MemoryService
from tests.helpers import claude_session_file

PROJECT = "/home/user/shop"
SESSION = "5e55-feedback"
PROMPT = "Write the factorial function for the pricing module"
USED = "Compute a factorial iteratively with math.prod, never recursively"
UNUSED = "The pricing module rounds every amount with banker's rounding"
OTHER = "Deploys go through the staging cluster before production"


def hook_env(settings: Settings) -> dict[str, str]:
    return {"MEMORY_APP_DATA_DIR": str(settings.data_dir), "MEMORY_APP_HOOK_WORKER": "0"}


def ask(
    settings: Settings, prompt: str, now: datetime, session: str = SESSION, cwd: str = PROJECT
) -> dict[str, Any] | None:
    """One UserPromptSubmit through the hook's own code path."""
    payload = {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    raw = json.dumps(payload).encode()
    return runtime.handle("UserPromptSubmit", raw, hook_env(settings), now)


def start(settings: Settings, now: datetime, session: str = SESSION) -> None:
    payload = {"session_id": session, "cwd": PROJECT, "source": "compact"}
    runtime.handle("SessionStart", json.dumps(payload).encode(), hook_env(settings), now)


def log_lines(settings: Settings) -> list[dict[str, Any]]:
    path = Path(injections.log_path(hook_env(settings)))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_session(path: Path, exchanges: list[tuple[datetime, str, str]]) -> Path:
    return claude_session_file(path, SESSION, PROJECT, exchanges)


@pytest.fixture
def store(settings: Settings, service: MemoryService) -> dict[str, int]:
    ids = {}
    for text in (USED, UNUSED, OTHER):
        _, record = service.remember(text, category="coding_preferences", project=PROJECT)
        ids[text] = record.id
    return ids


def test_an_answer_that_uses_a_memory_cites_it_and_one_that_does_not_ignores_it(
    settings: Settings, service: MemoryService, store: dict[str, int], tmp_path: Path
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    answer = ask(settings, PROMPT, now)
    assert answer is not None
    given = [m[0] for m in log_lines(settings)[-1]["memories"]]
    assert set(given) == {store[USED], store[UNUSED]}
    answer_text = (
        "Here it is: `def factorial(n): return math.prod(range(1, n + 1))` computed "
        "iteratively, so no recursion limit is hit."
    )
    session = write_session(tmp_path / f"{SESSION}.jsonl", [(now, PROMPT, answer_text)])

    service.import_paths([session])

    # Taken once, by a cursor: the log stays for the hook's topic window.
    assert Path(injections.log_path(hook_env(settings))).exists()
    assert service.take_injection_log() == 0
    (seen,) = service.recent_injections()
    assert seen.outcome == "injected" and seen.project == PROJECT
    assert seen.prompt == PROMPT  # found in the transcript, never written by the hook
    verdicts = {m.item_id: m.verdict for m in seen.memories}
    assert verdicts == {store[USED]: "cited", store[UNUSED]: "ignored"}
    assert all(m.score is not None and 0 < m.score <= 1 for m in seen.memories)
    used, unused = service.get_item(store[USED]), service.get_item(store[UNUSED])
    assert (used.injected_count, used.cited_count, used.ignored_count) == (1, 1, 0)
    assert (unused.injected_count, unused.cited_count, unused.ignored_count) == (1, 0, 1)
    assert service.recent_injections(item_id=store[USED])[0].id == seen.id

    # Importing the same transcript again judges nothing twice.
    service.import_paths([session])
    assert service.get_item(store[USED]).cited_count == 1


def test_the_hook_log_holds_no_word_of_the_prompt(
    settings: Settings, store: dict[str, int]
) -> None:
    secret_prompt = "factorial pricing with the password hunter22xyzzy"
    ask(settings, secret_prompt, datetime.now(UTC))
    raw = Path(injections.log_path(hook_env(settings))).read_bytes()
    for word in secret_prompt.split():
        assert word.encode() not in raw
    assert log_lines(settings)[-1]["prompt_chars"] == len(secret_prompt)


def test_an_unanswered_prompt_waits_for_the_grown_transcript(
    settings: Settings, service: MemoryService, store: dict[str, int], tmp_path: Path
) -> None:
    """Captured at PreCompact before the answer: pending; captured again whole at
    SessionEnd: one conversation, judged then."""
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    earlier = now - timedelta(minutes=10)
    first = "Set up the pricing module tests and the fixtures they share"
    ask(settings, PROMPT, now)
    (tmp_path / "projects").mkdir()
    path = tmp_path / "projects" / f"{SESSION}.jsonl"
    write_session(path, [(earlier, first, "Tests are in tests/test_pricing.py now.")])
    lines = path.read_text(encoding="utf-8")
    path.write_text(
        lines + json.dumps(_user_line(now, PROMPT)) + "\n", encoding="utf-8"
    )  # the prompt, no answer yet
    service.import_paths([path])
    (seen,) = service.recent_injections()
    assert {m.verdict for m in seen.memories} == {"pending"}

    write_session(
        path,
        [
            (earlier, first, "Tests are in tests/test_pricing.py now."),
            (now, PROMPT, "Done, using math.prod iteratively for the factorial."),
        ],
    )
    report = service.import_paths([path])

    (result,) = report.results
    assert any("grew by" in note for note in result.notes)
    assert len(service.resources()) == 1  # one conversation, not two
    (resource,) = service.resources()
    assert resource.turn_count == 4
    # The startup check agrees.
    assert service.new_sessions(tmp_path / "projects", settle_seconds=0) == []
    (seen,) = service.recent_injections()
    assert {m.item_id: m.verdict for m in seen.memories}[store[USED]] == "cited"
    # The grown text is searchable: the index followed the update.
    with service.db.reading() as db:
        hits = service.db.dialect.search_resource_ids(db.connection(), "iteratively", limit=5)
    assert hits == [resource.id]


def _user_line(at: datetime, text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "sessionId": SESSION,
        "cwd": PROJECT,
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "uuid": "user-late",
        "message": {"role": "user", "content": text},
    }


def test_a_prompt_on_the_same_topic_reuses_the_last_answer(
    settings: Settings, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    assert ask(settings, PROMPT, now) is not None
    again = "And the factorial function in the pricing module should accept zero"
    assert ask(settings, again, now + timedelta(seconds=30)) is None  # already in context
    line = log_lines(settings)[-1]
    assert line["outcome"] == "reused"
    assert {m[0] for m in line["memories"]} == {store[USED], store[UNUSED]}

    # Another topic: only what the conversation lacks is added.
    answer = ask(
        settings, "How do deploys to staging and pricing work", now + timedelta(seconds=60)
    )
    assert answer is not None
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert OTHER in text and USED not in text and UNUSED not in text
    line = log_lines(settings)[-1]
    assert [m[0] for m in line["memories"]] == [store[OTHER]]
    assert line["already"] == [store[UNUSED]]
    # Another session has none of it.
    assert ask(settings, PROMPT, now + timedelta(seconds=61), session="another") is not None


def test_the_topic_window_ends_after_its_turns_its_time_or_a_session_start(
    settings: Settings, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    assert ask(settings, PROMPT, now) is not None
    assert ask(settings, PROMPT, now + injections.TOPIC_TTL + timedelta(seconds=1)) is not None
    later = now + timedelta(minutes=20)
    assert ask(settings, PROMPT, later) is not None
    start(settings, later + timedelta(seconds=1))  # e.g. after a compaction
    assert ask(settings, PROMPT, later + timedelta(seconds=2)) is not None
    base = later + timedelta(seconds=3)
    for turn in range(injections.TOPIC_TURNS):
        ask(settings, "ok", base + timedelta(seconds=turn))  # trivial: skipped, but a turn
    assert ask(settings, PROMPT, base + timedelta(seconds=30)) is not None


def test_a_session_in_a_subfolder_gets_its_projects_memories(
    settings: Settings, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    answer = ask(settings, PROMPT, now, cwd=PROJECT + "/api/handlers")
    assert answer is not None
    assert USED in answer["hookSpecificOutput"]["additionalContext"]
    sibling = ask(settings, PROMPT, now, session="s2", cwd=PROJECT + "-legacy")
    assert sibling is None  # a folder merely starting with the same letters is another project


def test_why_explains_the_last_prompt_with_scores(
    settings: Settings, service: MemoryService, store: dict[str, int], tmp_path: Path
) -> None:
    env = hook_env(settings)
    assert "No prompt of this project" in injections.explain_last(env, PROJECT)
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    ask(settings, PROMPT, now)
    text = injections.explain_last(env, PROJECT + "/")
    assert "2 memories were injected (budget 800 tokens)" in text
    assert f"#{store[USED]}  score 0." in text and USED in text
    ask(settings, "thanks", now + timedelta(seconds=5))
    assert "the recall gate" in injections.explain_last(env, PROJECT)
    ask(settings, "pricing factorial function again", now + timedelta(seconds=9))
    assert "the topic window" in injections.explain_last(env, PROJECT)

    # Once the app took the log, the store answers, with the verdicts.
    session = write_session(
        tmp_path / f"{SESSION}.jsonl",
        [(now + timedelta(seconds=9), "pricing factorial function again", "math.prod it is")],
    )
    ask(settings, "tell me about deploys to the staging cluster", now + timedelta(seconds=20))
    service.import_paths([session])
    text = injections.explain_last(env, PROJECT)
    assert "1 memory was injected" in text
    assert f"#{store[OTHER]}  score" in text and OTHER[:40] in text


def test_usage_feedback_moves_the_ranking() -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)  # after the memories were said
    facts = dict(relevance=0.8, confidence=0.8, importance=0.5, access_count=0, last_used=now)
    plain = score(ScoringFacts(**facts), RankingWeights(), now).total  # type: ignore[arg-type]
    cited = score(ScoringFacts(**facts, cited=6), RankingWeights(), now)  # type: ignore[arg-type]
    ignored = score(ScoringFacts(**facts, ignored=6), RankingWeights(), now)  # type: ignore[arg-type]
    assert ignored.total < plain < cited.total <= 1.0
    assert usefulness(0, 0) == 1.0
    assert 0.75 <= usefulness(0, 1000) < usefulness(0, 1) < 1.0 < usefulness(1, 0) <= 1.25
    assert "use feedback x1.19" in cited.describe()


def test_a_cited_memory_outranks_an_ignored_twin(
    open_service: Callable[[Any], MemoryService], settings: Settings
) -> None:
    from memory_app.extract.offline import OfflineExtractor

    service = open_service(OfflineExtractor())
    _, a = service.remember("Deploy the pricing service with blue green releases", project=PROJECT)
    _, b = service.remember("Deploy the pricing service with rolling releases", project=PROJECT)
    first = [r.record.id for r in service.retrieve("deploy pricing service releases")]
    with service.db.writing() as session:
        from memory_app.store.injections import _count

        loser, winner = first[0], first[1]
        _count(session, [loser], "ignored_count")
        _count(session, [loser], "ignored_count")
        _count(session, [winner], "cited_count")
        _count(session, [winner], "cited_count")
    service.flush_access()
    after = [r.record.id for r in service.retrieve("deploy pricing service releases")]
    assert after[:2] == [winner, loser]
    assert {a.id, b.id} == set(after[:2])


@pytest.mark.parametrize(
    ("memory", "answer", "prompt", "cited"),
    [
        (USED, "I used math.prod so it is iterative.", None, True),
        (USED, "See memory #7 for why.", None, True),  # named by id
        (USED, "Done.", None, False),
        # The answer only echoes the prompt's words: not evidence the memory was used.
        (
            "Factorial helpers belong in the pricing module",
            "I wrote the factorial in the pricing module.",
            "write factorial in the pricing module",
            False,
        ),
        (
            "Factorial helpers belong in mathutils, tested with hypothesis",
            "Moved it into mathutils and added a hypothesis test.",
            "write a factorial helper",
            True,
        ),
    ],
)
def test_is_cited(memory: str, answer: str, prompt: str | None, cited: bool) -> None:
    assert citation.is_cited(7, memory, answer, prompt) is cited


def test_the_exchange_is_found_by_the_prompts_time() -> None:
    t0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def turn(i: int, speaker: str, text: str, seconds: int, kind: str = "message") -> Turn:
        return Turn(i, speaker, text, kind, t0 + timedelta(seconds=seconds))

    transcript = Transcript(
        source_kind="claude-code",
        turns=(
            turn(0, "user", "first question", 0),
            turn(1, "assistant", "first answer", 5),
            turn(2, "user", "second question", 60),
            turn(3, "assistant", "ran a tool", 62, "tool_use"),
            turn(4, "user", "tool output", 63, "tool_result"),
            turn(5, "assistant", "second answer", 65),
            turn(6, "user", "third question", 120),
        ),
    )
    at = t0 + timedelta(seconds=61)
    assert citation.exchange_after(transcript, at, "UserPromptSubmit") == (
        "second question",
        "ran a tool\nsecond answer",
    )
    assert (
        citation.exchange_after(transcript, t0 + timedelta(seconds=121), "UserPromptSubmit") is None
    )
    assert citation.exchange_after(transcript, t0 + timedelta(hours=1), "UserPromptSubmit") is None
    prompt, said = citation.exchange_after(
        transcript, t0 + timedelta(seconds=30), "SessionStart"
    ) or ("", "")
    assert prompt is None and said == "ran a tool\nsecond answer"


def test_private_text_in_a_prompt_neither_drives_recall_nor_reaches_the_log(
    settings: Settings, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)
    prompt = "<private>factorial pricing therapist divorce</private> tell me about staging"
    answer = ask(settings, prompt, now)
    assert answer is not None
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert OTHER in text and USED not in text  # "factorial" was private
    raw = Path(injections.log_path(hook_env(settings))).read_bytes()
    for word in ("factorial", "pricing", "therapist", "divorce", "staging"):
        assert word.encode() not in raw


def test_a_command_prompt_is_neither_answered_nor_logged(
    settings: Settings, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)
    ask(settings, PROMPT, now)
    before = log_lines(settings)
    assert ask(settings, "/mem why", now + timedelta(seconds=3)) is None
    assert log_lines(settings) == before  # /mem why still explains the prompt before it
    assert "2 memories were injected" in injections.explain_last(hook_env(settings), PROJECT)


def test_the_topic_window_survives_the_app_taking_the_log(
    settings: Settings, service: MemoryService, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)
    ask(settings, PROMPT, now)
    assert service.take_injection_log() == 1
    assert ask(settings, PROMPT, now + timedelta(seconds=10)) is None  # still in context
    assert log_lines(settings)[-1]["outcome"] == "reused"
    assert service.take_injection_log() == 1  # only the new line
    assert [r.outcome for r in service.recent_injections()] == ["reused", "injected"]


def test_a_line_the_store_cannot_hold_is_skipped_not_blocking(
    settings: Settings, service: MemoryService, store: dict[str, int]
) -> None:
    now = datetime.now(UTC) + timedelta(seconds=1)
    ask(settings, PROMPT, now)
    path = Path(injections.log_path(hook_env(settings)))
    good = log_lines(settings)[-1]
    bad = {**good, "at": (now + timedelta(seconds=1)).isoformat(), "memories": [[2**70, 0.5]]}
    with path.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(bad) + "\n" + "{not json\n")
    ask(settings, "tell me about deploys to the staging cluster", now + timedelta(seconds=20))
    assert service.take_injection_log() == 2  # the two good ones
    assert service.take_injection_log() == 0


def test_a_subfolder_gets_its_projects_memories_in_the_apps_retrieval_too(
    service: MemoryService, store: dict[str, int]
) -> None:
    from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery

    def found(folder: str) -> set[int]:
        query = RetrievalQuery("factorial pricing", filters=RetrievalFilters(project=folder))
        return {r.record.id for r in service.retrieve(query)}

    assert store[USED] in found(PROJECT + "/api")
    assert found(PROJECT + "-legacy") == set()
    assert found("/home/user") == set()  # a parent folder is not the project
