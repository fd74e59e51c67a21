"""The numpy sentence encoder gives the model's published vectors, alone or in batches."""

from __future__ import annotations

import numpy as np
import pytest

from memory_app.conflicts import semantic
from memory_app.conflicts.encoder import Encoder


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(semantic._weights_folder())


def test_matches_the_published_similarity(encoder: Encoder) -> None:
    # sentence-transformers' documentation scores this pair 0.7553 with all-MiniLM-L6-v2:
    # a wrong attention, activation or pooling step moves it by far more than 0.001.
    a, b = encoder.embed(["A man is eating food.", "A man is eating a piece of bread."])
    assert float(a @ b) == pytest.approx(0.7553, abs=0.001)


def test_a_batch_gives_what_each_text_gives_alone(encoder: Encoder) -> None:
    texts = ["Use pytest.", "We always format Python code with black, max line length 100.", "ok"]
    together = encoder.embed(texts)
    alone = np.vstack([encoder.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_a_value_put_in_another_place_moves_the_vector_more_than_a_rewording(
    encoder: Encoder,
) -> None:
    older, reworded, changed = encoder.embed(
        [
            "We always use black with line length 100 for Python formatting.",
            "Python formatting: always black, line length 100.",
            "We always use ruff format for Python formatting.",
        ]
    )
    assert float(older @ reworded) > float(older @ changed)


def test_text_with_no_token_is_a_zero_vector(encoder: Encoder) -> None:
    vectors = encoder.embed(["", "   ", "Use tabs."])
    assert not vectors[0].any() and not vectors[1].any() and vectors[2].any()


def test_long_text_is_cut_not_refused(encoder: Encoder) -> None:
    vector = encoder.embed(["word " * 5000])[0]
    assert np.isfinite(vector).all() and vector.any()
