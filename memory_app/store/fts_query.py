"""Turning what a person types into a safe full-text query.

Raw text breaks FTS5 MATCH (`don't`, `C++`, `foo-bar`, a bare `AND`): every word is
quoted, so operators typed by a person are searched as words, never interpreted.
"""

from __future__ import annotations

import re

from memory_app.store.errors import EmptyQueryError

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32
# Words that match a large share of any English text and say nothing about what is
# wanted; dropping them keeps "why do we use X over Y" from ranking half the store.
STOP_WORDS = frozenset(
    "a about an and are as at be but by can could did do does for from had has have how "
    "i if in into is it its me my of on or our over should so than that the their them "
    "then there these they this to us was we were what when where which who why will "
    "with would you your".split()
)


def query_terms(text: str) -> list[str]:
    """The distinct searchable words of a query, in order, lower-cased; stop words are
    left out unless nothing else is there."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        seen.setdefault(word, None)
    words = list(seen)
    meaningful = [w for w in words if w not in STOP_WORDS]
    return (meaningful or words)[:MAX_TERMS]


def match_expression(text: str, *, match_any: bool = False) -> str:
    """An FTS5 MATCH expression: all words (or any, for recall-oriented ranking)."""
    terms = query_terms(text)
    if not terms:
        raise EmptyQueryError(f"nothing to search for in {text!r}: type at least one word")
    quoted = [f'"{t}"' for t in terms]  # \w+ never contains a double quote
    return (" OR " if match_any else " ").join(quoted)
