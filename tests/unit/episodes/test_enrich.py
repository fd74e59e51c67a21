"""Claude's reading of an episode through the real SDK (its HTTP transport scripted):
stored beside the offline facts, its tokens recorded, and every failure keeps the
offline episode and says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import select

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.episodes import store as episode_store
from memory_app.episodes.enrich import (
    MAX_INPUT_CHARS,
    MAX_OUTPUT_TOKENS,
    enrich_episodes,
    make_enricher,
)
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store.tables import ExtractionRunRow
from tests.unit.episodes.test_runs import FIRST, T0, session_file
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude, message

ANSWER = {
    "title": "Discount codes in the checkout cart",
    "narrative": "The user asked for a discount field; it was added to the cart form.",
    "lessons": ["Cart totals live in cart/totals.py"],
    "outcome": "succeeded",
    "outcome_reason": "the field was added and shown",
}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    session_file(tmp_path / "in" / "a.jsonl", "a", T0, [*FIRST, ("user", "x " * 15000)])
    service = MemoryService.open(resolve_settings(tmp_path / "data", env={}), OfflineExtractor())
    try:
        service.import_paths([tmp_path / "in" / "a.jsonl"])
    finally:
        service.close()
    return tmp_path / "data"


def enrich(data: Path, *replies: Any) -> tuple[FakeMessagesAPI, Any, list[Any]]:
    api = FakeMessagesAPI(*replies)
    extractor = make_claude(api, settings=ClaudeSettings(concurrency=1, timeout=1))
    service = MemoryService.open(resolve_settings(data, env={}), extractor)
    try:
        enricher = make_enricher(service.extractor, env={}, use_keyring=False)
        assert not isinstance(enricher, str)
        results = enrich_episodes(service.db, enricher)
        with service.db.reading() as session:
            run = episode_store.get_run(session.connection(), 1)
            runs = list(session.exec(select(ExtractionRunRow)).scalars())
    finally:
        service.close()
    assert [r.episode_id for r in results] == [1]
    return api, (results[0], run), runs


def test_claude_reads_an_episode_and_it_is_kept_beside_the_offline_one(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api, (result, run), usage = enrich(data, message(ANSWER, input_tokens=900, output_tokens=80))
    assert result.error is None
    assert run.enrichment is not None and run.enrichment.title == ANSWER["title"]
    assert run.title == "Add a discount code field to the checkout cart page"  # offline kept
    (request,) = api.requests
    assert request["max_tokens"] == MAX_OUTPUT_TOKENS
    prompt = request["messages"][0]["content"]
    assert len(prompt) <= MAX_INPUT_CHARS  # the 80,000-character prompt was cut
    assert "Goal: Add a discount code field" in prompt and "cart/views.py" in prompt
    assert [(u.kind, u.status, u.input_tokens, u.output_tokens) for u in usage] == [
        ("episode", "success", 900, 80)
    ]
    assert usage[0].cost_usd is not None and usage[0].cost_usd > 0

    code = main(["episodes", "show", "1", "--data-dir", str(data)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Claude's reading (claude-haiku-4-5" in out
    assert "  Lesson: Cart totals live in cart/totals.py" in out
    code = main(["episodes", "show", "1", "--json", "--data-dir", str(data)])
    assert json.loads(capsys.readouterr().out)["claude"]["outcome"] == "succeeded"
    # Enriched already: `--all` has nothing left to ask.
    code = main(["episodes", "enrich", "--all", "--data-dir", str(data)])
    assert (code, capsys.readouterr().out) == (0, "Every episode is enriched already.\n")


@pytest.mark.parametrize(
    ("reply", "error", "paid"),
    [
        (api_error(500, "api_error", "boom"), "refused the request (500)", False),
        (api_error(429, "rate_limit_error", "slow down"), "refused the request (429)", False),
        (httpx2.ReadTimeout("silent"), "Claude did not answer in time", False),
        (httpx2.ConnectError("refused"), "the Anthropic API could not be reached", False),
        (message("not json at all"), "not usable", True),
        (message({**ANSWER, "outcome": "maybe"}), "not usable (outcome", True),
        (message(ANSWER, stop_reason="max_tokens"), "cut off at the token limit", True),
        (httpx2.Response(200, json={"foo": 1}), "not a Messages response", False),
    ],
    ids=["500", "429", "timeout", "unreachable", "not-json", "bad-outcome", "cut-off", "not-msg"],
)
def test_every_failure_keeps_the_offline_episode_and_says_why(
    data: Path, reply: Any, error: str, paid: bool
) -> None:
    _, (result, run), usage = enrich(data, reply)
    assert result.enrichment is None and error in (result.error or "")
    assert run.enrichment is None and run.outcome in ("succeeded", "abandoned", "unknown")
    assert [(u.kind, u.status) for u in usage] == [("episode", "error")]
    assert (usage[0].input_tokens > 0) == paid  # tokens of an unusable answer still count


def test_without_a_key_enrich_says_so_and_changes_nothing(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert make_enricher(OfflineExtractor(), env={}, use_keyring=False) == (
        "no Anthropic API key: set ANTHROPIC_API_KEY"
    )
    monkeypatch.setattr("memory_app.episodes.enrich.find_api_key", lambda *a, **k: None)
    code = main(["episodes", "enrich", "1", "--json", "--data-dir", str(data)])
    out = capsys.readouterr().out
    assert code == 1
    assert json.loads(out) == {
        "error": "cannot ask Claude: no Anthropic API key: set ANTHROPIC_API_KEY; "
        "the episodes stay as they are"
    }
    code = main(["episodes", "enrich", "--json", "--data-dir", str(data)])
    assert code == 1 and "IDs" in json.loads(capsys.readouterr().out)["error"]
