"""Compression levels in context assembly on a real store, through `memory-app context`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.service import MemoryService
from tests.small_store import build_small_store


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        build_small_store(service)
    finally:
        service.close()
    return folder


def context(capsys: pytest.CaptureFixture[str], data: Path, budget: int) -> dict:
    capsys.readouterr()
    args = ["context", "pytest fixtures", "--budget", str(budget), "--json"]
    code = main([*args, "--data-dir", str(data)])
    out, _ = capsys.readouterr()
    assert code == 0
    plan: dict = json.loads(out)
    assert plan["used_tokens"] <= budget
    assert estimate_tokens(plan["context"]) <= plan["used_tokens"]
    return plan


def entries(plan: dict) -> list[dict]:
    return [e for t in plan["tiers"] for e in t["entries"] if e["item_id"] is not None]


def test_a_small_budget_shortens_memories_instead_of_dropping_them(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    roomy = entries(context(capsys, data, 4000))
    assert roomy and {e["level"] for e in roomy} == {"full"}
    plan = context(capsys, data, 120)
    small = entries(plan)
    shortened = [e for e in small if e["level"] != "full"]
    assert shortened, "a 120-token budget holds some memories only in a shorter form"
    for e in shortened:
        assert e["level"] in {"summary", "compressed", "index"}
        assert f"#{e['item_id']}" in e["text"]  # the id, so the assistant can ask for it
        assert f"- {e['text']}\n" in plan["context"]
        full = next(r for r in roomy if r["item_id"] == e["item_id"])
        assert e["tokens"] < full["tokens"]
    # The same budget without levels would have dropped them: more memories are mentioned.
    assert len(small) > sum(1 for e in small if e["level"] == "full")


def test_the_tersest_budget_shows_compressed_and_index_forms(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    plan = context(capsys, data, 60)
    assert plan["used_tokens"] <= 60
    rendered = plan["context"]
    levels = {e["level"] for e in entries(plan)}
    assert levels & {"compressed", "index"}
    assert "compressed]" in rendered or "[index]" in rendered
