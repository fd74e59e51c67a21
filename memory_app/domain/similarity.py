"""When two memories say the same thing: normalization and word-set similarity.

Write-time deduplication needs to be cheap and predictable: an exact match on the
normalized text, else a near match on content words among a handful of FTS candidates.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w.+#/-]*\w", re.UNICODE)
# Words that carry no meaning for "is this the same statement".
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "we",
        "i",
        "you",
        "our",
        "my",
        "is",
        "are",
        "be",
        "it",
        "this",
        "that",
        "should",
        "always",
        "use",
        "uses",
        "using",
    ]
)
NEAR_DUPLICATE = 0.85


def content_key(text: str) -> str:
    """Case-, punctuation- and spacing-insensitive form of a statement."""
    return " ".join(_WORD.findall(text.lower()))


def content_words(text: str) -> frozenset[str]:
    words = {w.strip(".") for w in _WORD.findall(text.lower())}
    meaningful = {w for w in words if w and w not in _STOP}
    return frozenset(meaningful or words)


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two statements' content words, in [0, 1]."""
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def reinforced_confidence(old: float, new: float) -> float:
    """Confidence after the same memory was seen again: it rises, never past 1."""
    best = max(old, new)
    return round(min(1.0, best + (1.0 - best) * 0.25), 4)
