"""Multinomial logistic regression by gradient descent, for the engine's small models
(the pair model, the sentence model): numpy only, deterministic, a few seconds."""

from __future__ import annotations

import numpy as np

STEPS = 4000
RATE = 0.5


def fit(x: np.ndarray, y: np.ndarray, classes: int, l2: float) -> np.ndarray:
    """Weights (features × classes), L2 on all but the bias (column 0 of x). Classes are
    weighted to equal total weight, so the rarer answers count as much."""
    onehot = np.eye(classes)[y]
    counts = onehot.sum(axis=0)
    sample = (len(y) / (classes * np.maximum(counts, 1)))[y]
    w = np.zeros((x.shape[1], classes))
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(STEPS):
        scores = x @ w
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        grad = x.T @ ((p - onehot) * sample[:, None]) / len(y) + penalty[:, None] * w / len(y)
        w -= RATE * grad
    return w
