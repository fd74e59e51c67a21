"""Turning what a person types into a safe full-text query.

Raw text breaks FTS5 MATCH (`don't`, `C++`, `foo-bar`, a bare `AND`): every word is
quoted, so operators typed by a person are searched as words, never interpreted.
"""

from __future__ import annotations

import re

from memory_app.store.errors import EmptyQueryError

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32
# The Memories table finds what a memory says, not the circumstances it was said in.
TABLE_COLUMNS = ("content", "tags")
# bm25 weights of the memory index's columns (content, tags, context): content counts
# twice as much as tags; context weighs like tags, measured best on LoCoMo (0.3-0.7
# tried). Called explicitly: measured a quarter faster than the same function
# configured as the index's `rank`.
MEMORY_RANK = "bm25(memory_fts, 1.0, 0.5, 0.5)"
# Words that match a large share of any English text and say nothing about what is
# wanted; dropping them keeps "why do we use X over Y" from ranking half the store. The
# fuller list (pronouns, auxiliaries, common adverbs, question words) measured about a
# point of recall better on LoCoMo than a short one.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing don down during
    each ever few for from further get go had has have having he her here hers herself him
    himself his how i if in into is it its itself just kind like likely me might more most
    much my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such t than that the their theirs them themselves then
    there these they this those through to too under until up us very was we went were
    what when where which while who whom why will with would you your yours yourself
    yourselves s many think
    """.split()
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


def match_expression(text: str, *, match_any: bool = False, columns: tuple[str, ...] = ()) -> str:
    """An FTS5 MATCH expression: all words (or any, for recall-oriented ranking),
    optionally only in some columns."""
    terms = query_terms(text)
    if not terms:
        raise EmptyQueryError(f"nothing to search for in {text!r}: type at least one word")
    return terms_expression(terms, match_any=match_any, columns=columns)


def terms_expression(
    terms: list[str], *, match_any: bool = False, columns: tuple[str, ...] = ()
) -> str:
    """The MATCH expression for words already chosen (each must be a \\w+ word)."""
    quoted = [f'"{t}"' for t in terms]  # \w+ never contains a double quote
    expression = (" OR " if match_any else " ").join(quoted)
    if columns:
        return f"{{{' '.join(columns)}}} : ({expression})"
    return expression
