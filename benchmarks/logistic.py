"""Multinomial logistic regression by Newton's method, for the engine's small models (the
pair model, the sentence model): numpy only, deterministic, well under a second a fit.

Gradient descent took 4000 steps (minutes across the trainers' held-out fits) and still
stopped short of the optimum; Newton's method reaches it in about ten steps because the
models have at most a few hundred weights per answer, so the Hessian is small."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MOST_STEPS = 50
CLOSE_ENOUGH = 1e-7  # the largest change of a weight at which the fit has converged
_RIDGE = 1e-9  # keeps the Hessian invertible: the answers' scores are shift-invariant


def fit(x: np.ndarray, y: np.ndarray, classes: int, l2: float) -> np.ndarray:
    """Weights (features × classes) minimising the class-weighted cross-entropy plus L2 on
    all but the bias (column 0 of x), both over the number of examples. Classes are
    weighted to equal total weight, so the rarer answers count as much."""
    n, d = x.shape
    sample = _answer_weights(y, classes)
    penalty = np.full(d, l2)
    penalty[0] = 0.0
    if classes == 2:
        # One score suffices for two answers: a Hessian a quarter the size. The two
        # answers' weights of the multinomial optimum are ±half the difference, so
        # the L2 of the difference is half as strong.
        def binary(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40.0, 40.0)))
            gradient = (x.T @ ((p - y) * sample) + penalty / 2 * w) / n
            hessian = (x.T * (sample * p * (1.0 - p))) @ x / n + np.diag(penalty / 2 / n)
            return gradient, hessian

        difference = _newton(np.zeros(d), binary)
        return np.column_stack([-difference / 2, difference / 2])

    onehot = np.eye(classes)[y]
    curvature_of_penalty = np.kron(np.eye(classes), np.diag(penalty / n))

    def multinomial(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = flat.reshape(classes, d).T  # the answers' weights one after another in `flat`
        p = _softmax(x @ w)
        gradient = (x.T @ ((p - onehot) * sample[:, None]) + penalty[:, None] * w) / n
        hessian = np.empty((d * classes, d * classes))
        for k in range(classes):
            for j in range(classes):
                weight = sample * p[:, k] * (float(k == j) - p[:, j])
                hessian[k * d : (k + 1) * d, j * d : (j + 1) * d] = (x.T * weight) @ x / n
        return gradient.T.reshape(-1), hessian + curvature_of_penalty

    return _newton(np.zeros(d * classes), multinomial).reshape(classes, d).T


def _newton(
    w: np.ndarray, gradient_and_hessian: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """Newton steps from `w` until no weight moves by CLOSE_ENOUGH (or MOST_STEPS)."""
    for _ in range(MOST_STEPS):
        gradient, hessian = gradient_and_hessian(w)
        step = np.linalg.solve(hessian + _RIDGE * np.eye(len(w)), gradient)
        w = w - step
        if np.abs(step).max() < CLOSE_ENOUGH:
            break
    return w


def _answer_weights(y: np.ndarray, classes: int) -> np.ndarray:
    """Each example's weight, so every answer has the same total weight."""
    counts = np.bincount(y, minlength=classes)
    return (len(y) / (classes * np.maximum(counts, 1)))[y]


def _softmax(scores: np.ndarray) -> np.ndarray:
    scores = scores - scores.max(axis=1, keepdims=True)
    p = np.exp(scores)
    return p / p.sum(axis=1, keepdims=True)
