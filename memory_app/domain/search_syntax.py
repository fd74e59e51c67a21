"""The search field's small query language, parsed without the store.

    pyt                    the word being typed matches as a prefix (finds pytest)
    fixture*               an explicit prefix, anywhere in the query
    "pytest fixtures"      a phrase: these words, next to each other, in this order
    -flaky  -"event loop"  leaves out memories with that word or phrase
    category:bug_patterns  only that category (its key or its name, any case)
    project:shop           only memories of that project: its folder or the folder's name
    -category:…  -project:…  leaves that category or project out

`category:` and `project:` values may be quoted (`category:"Coding preferences"`);
several of the same filter mean any of them. A category still being typed at the end of
the query may be the start of one category's key or name (`category:cod`); a finished one
must be whole, and one the store does not have is an error, never an empty result.

Everything else is read as plain words, as the search always did: each word is matched
as a word, never as an operator, so `don't`, `C++`, `foo-bar`, a bare `AND`, an unbalanced
quote or a lone `-` search for their words (or for nothing). Only the last bare word of a
query that does not end with a space is a prefix: that is the word still being typed.
The index stores stems ("running" as "run"), so the store also matches the stems the
typed word's finished forms would have (`runn` finds "running": store/typed_prefix.py).

A query of exclusions and filters only (`-flaky`, `category:bug_patterns`) means every
memory except those, newest first: there is nothing to rank them by.

The result is a plain description (`SearchQuery`); the store turns it into a full-text
expression and SQL filters, and resolves category names against the categories it has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_WORD = re.compile(r"\w+", re.UNICODE)
_FILTER = re.compile(r"(category|project):", re.IGNORECASE)
_ENDS_WITH_STAR = re.compile(r"\w\*+\Z", re.UNICODE)

# The one-paragraph hint `memory-app search --help` shows (the search field's tooltip
# says the same for typing).
SYNTAX_HELP = (
    "Finds memories with all the words; the last word also finds longer ones unless a "
    'space follows it (pyt finds pytest), and word* does anywhere. "a phrase" finds '
    'those words together; -word or -"a phrase" leaves them out. category:KEY (or '
    "category:\"Its name\") and project:NAME (a project's folder or the folder's name) "
    "filter; -category: and -project: leave one out. Exclusions and filters alone list "
    "every other memory, newest first."
)


class SearchSyntaxError(ValueError):
    """A filter the search cannot apply (an unknown category, a filter with no value);
    the message says what to type instead."""


@dataclass(frozen=True)
class Term:
    """Something a memory's text must contain (or, excluded, must not).

    One word, or several in a row (a phrase). `prefix`: the last word may be the start of
    a longer one. `bare`: a plain word the person typed, which a search may skip when it
    says nothing ("the", "of") and other words are there.
    """

    words: tuple[str, ...]
    prefix: bool = False
    bare: bool = False


@dataclass(frozen=True)
class SearchQuery:
    """What a typed query asks for, before the store resolves and compiles it."""

    terms: tuple[Term, ...] = ()  # every one must match (any, for a wider search)
    excluded: tuple[Term, ...] = ()  # none may match
    categories: tuple[str, ...] = ()  # as typed: a key or a name
    excluded_categories: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()  # as typed: a folder or its last part
    excluded_projects: tuple[str, ...] = ()
    # A category value still being typed (the query's last thing, no space after it):
    # its start names a category when only one category starts that way.
    partial_category: str | None = None
    partial_category_excluded: bool = False

    @property
    def empty(self) -> bool:
        """Nothing to search for and nothing to filter by."""
        return not (
            self.terms
            or self.excluded
            or self.categories
            or self.excluded_categories
            or self.projects
            or self.excluded_projects
            or self.partial_category
        )


@dataclass
class _Builder:
    terms: list[Term] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)
    filters: dict[tuple[str, bool], list[str]] = field(default_factory=dict)
    partial_category: tuple[str, bool] | None = None

    def add(self, term: Term, negated: bool) -> None:
        target = self.excluded if negated else self.terms
        if term.words and term not in target:
            target.append(term)

    def add_filter(self, key: str, value: str, negated: bool) -> None:
        values = self.filters.setdefault((key, negated), [])
        if value not in values:
            values.append(value)

    def build(self) -> SearchQuery:
        def values(key: str, negated: bool) -> tuple[str, ...]:
            return tuple(self.filters.get((key, negated), ()))

        partial, partial_excluded = self.partial_category or (None, False)
        return SearchQuery(
            terms=tuple(self.terms),
            excluded=tuple(self.excluded),
            categories=values("category", False),
            excluded_categories=values("category", True),
            projects=values("project", False),
            excluded_projects=values("project", True),
            partial_category=partial or None,
            partial_category_excluded=partial_excluded,
        )


def _run_end(text: str, start: int) -> int:
    """Where the run of non-space characters starting at `start` ends."""
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    return end


def parse_search(text: str) -> SearchQuery:
    """Read a typed query.

    Raises SearchSyntaxError only for a filter left without a value (`category: x`);
    whether a category exists is the store's to say, since only it knows them.
    """
    out = _Builder()
    typing = bool(text) and not text[-1].isspace()
    n = len(text)
    i = 0
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        negated = text[i] == "-" and i + 1 < n and not text[i + 1].isspace()
        if negated:
            i += 1
        found = _FILTER.match(text, i)
        if found:
            i = _read_filter(text, found, negated, typing, out)
            continue
        if text[i] == '"':
            close = text.find('"', i + 1)
            if close != -1:  # a phrase; an unbalanced quote is just a character
                words = tuple(_WORD.findall(text[i + 1 : close].lower()))
                i = close + 1
                prefix = i < n and text[i] == "*"
                while i < n and text[i] == "*":
                    i += 1
                out.add(Term(words, prefix=prefix), negated)
                continue
        end = _run_end(text, i)
        _read_words(text[i:end], negated, typing and end == n, out)
        i = end
    return out.build()


def _read_filter(
    text: str, found: re.Match[str], negated: bool, typing: bool, out: _Builder
) -> int:
    """Record a `category:` or `project:` filter; returns where the query goes on."""
    key = found.group(1).lower()
    start = found.end()
    n = len(text)
    if start < n and text[start] == '"':
        close = text.find('"', start + 1)
        # An unclosed quote runs to the end: the value is still being typed.
        end = n if close == -1 else close
        value, after, last = text[start + 1 : end], min(end + 1, n), close == -1
    else:
        end = _run_end(text, start)
        value, after, last = text[start:end], end, end == n
    value = value.strip()
    being_typed = typing and last
    if key == "category" and being_typed:
        out.partial_category = (value, negated)
    elif value:
        out.add_filter(key, value, negated)
    elif not being_typed:
        example = "category:coding_preferences" if key == "category" else "project:shop"
        raise SearchSyntaxError(f"{key}: needs a value right after the colon, e.g. {example}")
    return after


def _read_words(chunk: str, negated: bool, typing: bool, out: _Builder) -> None:
    """Plain text: its words, each matched as a word; the one being typed as a prefix."""
    words = _WORD.findall(chunk.lower())
    if not words:
        return
    starred = bool(_ENDS_WITH_STAR.search(chunk))
    if negated:  # `-foo-bar` leaves out "foo-bar", not every foo and every bar
        out.add(Term(tuple(words), prefix=starred), True)
        return
    typed = typing and bool(_WORD.fullmatch(chunk[-1]))
    for index, word in enumerate(words):
        last = index == len(words) - 1
        if last and starred:
            out.add(Term((word,), prefix=True), False)
        else:
            out.add(Term((word,), prefix=last and typed, bare=True), False)


def resolve_category(
    value: str, categories: Iterable[tuple[str, str]], *, partial: bool = False
) -> str | None:
    """The key of the category `value` names: its key or its display name, any case.

    `partial` (still being typed): the start of exactly one category's key or name names
    it too, and an empty value names none (None). Raises SearchSyntaxError otherwise.
    """
    known = list(categories)
    wanted = value.casefold()
    for key, name in known:
        if wanted in (key.casefold(), name.casefold()):
            return key
    keys = [key for key, _ in known]
    if partial:
        if not wanted:
            return None
        starts = [
            key
            for key, name in known
            if key.casefold().startswith(wanted) or name.casefold().startswith(wanted)
        ]
        if len(starts) == 1:
            return starts[0]
        if starts:
            raise SearchSyntaxError(
                f"category {value!r} could be {', '.join(starts)}: type more of it"
            )
    raise SearchSyntaxError(
        f"no category {value!r}; use one of {', '.join(keys)} (or its name, e.g. "
        'category:"Coding preferences")'
    )
