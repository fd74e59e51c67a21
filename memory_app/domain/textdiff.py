"""Which words differ between two statements, for highlighting a conflict side by side."""

from __future__ import annotations

import difflib
import re

_TOKEN = re.compile(r"\s+|[^\s]+")


def word_differences(a: str, b: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts as (piece, differs) runs; whitespace is kept so they join back exactly.

    Words are compared case-insensitively without trailing punctuation, so "Tabs." and
    "tabs" count as the same word.
    """
    pieces_a, pieces_b = _TOKEN.findall(a), _TOKEN.findall(b)
    words_a = [i for i, p in enumerate(pieces_a) if not p.isspace()]
    words_b = [i for i, p in enumerate(pieces_b) if not p.isspace()]
    key_a = [_key(pieces_a[i]) for i in words_a]
    key_b = [_key(pieces_b[i]) for i in words_b]
    same_a: set[int] = set()
    same_b: set[int] = set()
    matcher = difflib.SequenceMatcher(a=key_a, b=key_b, autojunk=False)
    for block in matcher.get_matching_blocks():
        same_a.update(words_a[block.a + k] for k in range(block.size))
        same_b.update(words_b[block.b + k] for k in range(block.size))
    return _runs(pieces_a, same_a), _runs(pieces_b, same_b)


def _key(word: str) -> str:
    return word.lower().strip(".,;:!?\"'()[]")


def _runs(pieces: list[str], same: set[int]) -> list[tuple[str, bool]]:
    return [(p, not p.isspace() and i not in same) for i, p in enumerate(pieces)]
