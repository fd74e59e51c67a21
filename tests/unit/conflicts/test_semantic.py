"""Sentence-encoder similarity: offline, bounded, and silent on text it cannot read."""

from __future__ import annotations

import math

import pytest

from memory_app.conflicts import semantic
from memory_app.conflicts.restatements import judge_with_meaning


def test_paraphrases_score_above_unrelated_rules() -> None:
    close = semantic.similarity(
        "We always use black with line length 100 for Python formatting.",
        "Python formatting: always black, line length 100.",
    )
    far = semantic.similarity("Use pnpm for installs.", "Log request bodies at debug level.")
    assert close is not None and far is not None
    assert close > 0.75 > far


def test_text_with_no_known_word_has_no_similarity() -> None:
    # Its vector has no direction (normalising it divides by zero); a NaN would make
    # every later comparison false, so "nothing to compare" is said as None.
    assert semantic.similarity("", "Use tabs for indentation.") is None
    vector = semantic.vector("")
    assert vector is not None and not any(vector)
    assert all(math.isfinite(x) for x in vector)


@pytest.mark.parametrize("text", ["", "…", "   "])
def test_odd_text_never_stops_a_judgement(text: str) -> None:
    similarity = semantic.similarity(text, "Use tabs for indentation.")
    assert similarity is None or -1.0 <= similarity <= 1.0
    assert judge_with_meaning(text, "Use tabs for indentation.").relation == "compatible"
