"""Semantic similarity of two statements from static word embeddings, offline.

Word sets miss paraphrases that share few words ("tests live next to the code" / "put
each test file beside its module"). WordLlama ships 256-dimension static embeddings in its
wheel (16 MB) and loads them from the package's own folder with downloads disabled, so
nothing here touches the network: about a second to load, a tenth of a millisecond per
statement. It only *proposes*: "use pytest" and "use unittest" score 0.6, so a high
similarity can vouch for a restatement the slot/value reading already finds plausible
(conflicts.judge), never decide one on its own, and it is kept off the recall path
(measured: no gain on LoCoMo).

When the package is missing or fails to load, `similarity` returns None and callers fall
back to words alone.
"""

from __future__ import annotations

import logging
import math
import threading
import warnings
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

_lock = threading.Lock()
_model: Any = None
_failed = False


def _load() -> Any:
    global _model, _failed
    with _lock:
        if _model is None and not _failed:
            try:
                from pathlib import Path

                import wordllama

                folder = Path(wordllama.__file__).resolve().parent
                _model = wordllama.WordLlama.load(cache_dir=folder, disable_download=True)
            except Exception as exc:  # missing package, missing weights: words alone then
                log.info("semantic similarity unavailable (%s); using words alone", exc)
                _failed = True
    return _model


def available() -> bool:
    return _load() is not None


@lru_cache(maxsize=4096)
def _vector(text: str) -> Any:
    model = _load()
    with warnings.catch_warnings():
        # Text with no word the model knows has a zero vector: normalising it divides
        # by zero. It is read as "nothing to compare" below, not as a warning.
        warnings.simplefilter("ignore", RuntimeWarning)
        vector = model.embed([text], norm=True)[0]
    import numpy  # comes with wordllama; only needed once the model has loaded

    return numpy.nan_to_num(vector, nan=0.0, posinf=0.0, neginf=0.0)


DIMENSIONS = 256


def vector(text: str) -> list[float] | None:
    """The statement's unit vector (zeros for text with no known word), or None
    without the model."""
    if _load() is None:
        return None
    try:
        values = [float(x) for x in _vector(text)]
    except Exception as exc:  # an odd input must never stop a write
        log.warning("semantic embedding failed: %s", exc)
        return None
    if len(values) != DIMENSIONS:
        return None
    return [x if math.isfinite(x) else 0.0 for x in values]


def similarity(a: str, b: str) -> float | None:
    """Cosine similarity in [-1, 1] of the two statements, or None without the model or
    when one has no word the model knows (its vector is undefined)."""
    if _load() is None:
        return None
    try:
        va, vb = _vector(a), _vector(b)
        if not va.any() or not vb.any():
            return None  # one side has no word the model knows
        value = float(va @ vb)
    except Exception as exc:  # an odd input must never stop a write
        log.warning("semantic similarity failed: %s", exc)
        return None
    return value if math.isfinite(value) else None
