"""The trainers' logistic fit: it reaches the optimum of its own objective, and the two-answer
shortcut gives the same model as the general multinomial path."""

from __future__ import annotations

import numpy as np

from benchmarks import logistic


def _problem(classes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.ones(600), rng.normal(size=(600, 6))])
    scores = x @ rng.normal(size=(7, classes))
    y = np.array([rng.choice(classes, p=np.exp(s) / np.exp(s).sum()) for s in scores])
    return x, y


def _gradient(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> np.ndarray:
    """The objective's gradient as documented in logistic.fit, computed independently."""
    n, classes = len(y), w.shape[1]
    onehot = np.eye(classes)[y]
    sample = (n / (classes * onehot.sum(axis=0)))[y]
    p = np.exp(x @ w)
    p /= p.sum(axis=1, keepdims=True)
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    return (x.T @ ((p - onehot) * sample[:, None]) + penalty[:, None] * w) / n


def test_the_fit_reaches_the_optimum_of_the_weighted_penalised_loss() -> None:
    x, y = _problem(3)
    w = logistic.fit(x, y, 3, l2=1.0)
    assert np.abs(_gradient(x, y, w, 1.0)).max() < 1e-8
    # Fitted on its own data, the model beats always guessing the commonest answer.
    assert np.mean(np.argmax(x @ w, axis=1) == y) > np.bincount(y).max() / len(y)


def test_two_answers_give_the_multinomial_optimum() -> None:
    x, y = _problem(2, seed=1)
    w = logistic.fit(x, y, 2, l2=3.0)
    assert np.abs(_gradient(x, y, w, 3.0)).max() < 1e-8
    assert np.allclose(w[:, 0], -w[:, 1])


def test_a_stronger_penalty_gives_smaller_weights() -> None:
    x, y = _problem(3, seed=2)
    loose, tight = logistic.fit(x, y, 3, l2=0.1), logistic.fit(x, y, 3, l2=300.0)
    assert np.abs(tight[1:]).sum() < np.abs(loose[1:]).sum()
