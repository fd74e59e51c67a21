"""Retrieval quality on one LoCoMo conversation (the benchmark's own code, 197
questions): a drop here means ranking got worse. Full figures: `python -m benchmarks
locomo`. The data lives next to the repository (CC BY-NC, evaluation only)."""

from __future__ import annotations

import json

import pytest

from benchmarks import locomo


def test_evidence_ids_are_normalised_like_the_readme_says() -> None:
    assert locomo.normalise_evidence(["D8:6; D9:17", "D30:05", "D1:2 D1:3"]) == [
        "D8:6",
        "D9:17",
        "D30:5",
        "D1:2",
        "D1:3",
    ]


def test_recall_on_the_first_conversation() -> None:
    path = locomo.default_path()
    if not path.is_file():
        pytest.fail(f"LoCoMo data not found at {path} (next to the repository)")
    first = json.loads(path.read_text(encoding="utf-8"))[:1]
    with_context = locomo._evaluate(first, with_context=True)
    content_only = locomo._evaluate(first, with_context=False)
    assert with_context["questions"] == 197
    # Measured 65.6 / 75.8 and 51.2 / 60.2; a couple of points of slack for ties.
    assert with_context["r5"] >= 63.0 and with_context["r10"] >= 73.0
    assert content_only["r5"] >= 49.0 and content_only["r10"] >= 58.0
    assert (
        with_context["evidence_within_budget"]["1000"]
        > content_only["evidence_within_budget"]["1000"]
    )
