"""The word being typed, matched against an index that stores stems.

The index keeps porter stems: "running" is stored as "run", "dependencies" as "depend",
"deploy" as "deploi". A prefix query looks for terms starting with what was typed, so
`runn*`, `dependenc*` and `deploy*` miss those memories until the word is finished, and
the list empties while the person types. The stems those words are on their way to are
found by completing the typed text with common English endings (a typed "configura" may
be "configuration"; "runn" may be "running") and stemming each completion with the
index's own tokenizer; a stem that the prefix cannot reach is matched as a whole term
beside it. Only endings are guessed, never other words, so the search widens only to
what the finished word would find.
"""

from __future__ import annotations

from memory_app.store.term_stats import default_stemmer

# Endings a word may be on its way to. The typed text may already hold the start of one
# ("configura" holds "a" of "ation"), so each is tried from every split point.
ENDINGS = (
    "", "e", "s", "es", "ed", "ing", "er", "ers", "y", "ies", "ied", "ion", "ions",
    "ation", "ations", "ational", "ment", "ments", "ness", "able", "ible", "ity", "ive",
    "ize", "ized", "izing", "ise", "ised", "al", "ally", "ous", "ly", "ful", "ism", "ist",
    "ence", "ences", "ance", "ent", "ant", "ator", "ic", "ical",
)  # fmt: skip
SHORTEST = 3  # typed prefixes and stems shorter than this are not widened


def completions(typed: str) -> set[str]:
    """Words `typed` may become by finishing one of ENDINGS it may have started."""
    found = {typed}
    for ending in ENDINGS:
        for held in range(len(ending)):
            if typed.endswith(ending[:held]):
                found.add(typed + ending[held:])
    return found


def stems_beyond_prefix(typed: str) -> list[str]:
    """Indexed terms the finished word may have that a prefix search for `typed` misses
    (they do not start with it), in a stable order."""
    if len(typed) < SHORTEST:
        return []
    words = sorted(completions(typed))
    stems = default_stemmer().stems(words)
    return sorted(
        {stem for stem in stems if stem and len(stem) >= SHORTEST and not stem.startswith(typed)}
    )
