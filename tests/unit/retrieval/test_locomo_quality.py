"""The LoCoMo benchmark's own helpers. Its recall figures come from `python -m
benchmarks locomo`, never from the test suite: the data is CC BY-NC, for evaluation
only, so it is neither in the repository nor read by tests (a plain clone passes)."""

from __future__ import annotations

from benchmarks import locomo


def test_evidence_ids_are_normalised_like_the_readme_says() -> None:
    assert locomo.normalise_evidence(["D8:6; D9:17", "D30:05", "D1:2 D1:3"]) == [
        "D8:6",
        "D9:17",
        "D30:5",
        "D1:2",
        "D1:3",
    ]
