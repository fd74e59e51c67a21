"""The store's match expressions made into PostgreSQL tsquery text.

The store writes its full-text matches in FTS5's syntax (fts_query.py, search_match.py),
from a small grammar: double-quoted words or phrases, `*` after a quoted prefix, AND, OR,
NOT (binary: `a NOT b`), juxtaposition (AND), parentheses and one column filter
`{content tags} : (...)`. This reads that grammar and writes the same query for
`to_tsquery`: phrases become `<->` chains, a prefix `:*`, a column filter the weight
labels of those columns (dialects/postgresql.py gives content A, tags B, context C), and
every lexeme is quoted, so nothing a person typed is read as a tsquery operator.

FTS5's precedence (NOT over AND over OR) is kept by writing every group in parentheses.

`scored_operands` lists the words and phrases a match looks for (not the ones after NOT),
each as its own tsquery: FTS5's bm25 scores per phrase, and so does the PostgreSQL
dialect's bm25 (dialects/pg_bm25.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The weight label each memory index column is stored under (setweight).
COLUMN_WEIGHTS = {"content": "A", "tags": "B", "context": "C", "title": "A", "text": "B"}

_TOKEN = re.compile(
    r'\s*(?:(?P<cols>\{[^}]*\}\s*:)|(?P<quoted>"[^"]*"\*?)|(?P<op>AND|OR|NOT)\b|(?P<paren>[()]))'
)


class MatchSyntaxError(ValueError):
    """A match expression outside the grammar the store writes (a bug, not user input)."""


@dataclass(frozen=True)
class Operand:
    """One word or phrase a match looks for: its tsquery text (weights and prefix
    included), its words as typed, and whether its last word is a prefix."""

    tsquery: str
    words: tuple[str, ...]
    prefix: bool


@dataclass
class _Reader:
    tokens: list[str]
    at: int = 0
    weights: str = ""
    negated: int = 0
    operands: list[Operand] = field(default_factory=list)

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token


def _tokens(expression: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(expression):
        if expression[position:].strip() == "":
            break
        found = _TOKEN.match(expression, position)
        if found is None or found.end() == position:
            raise MatchSyntaxError(f"cannot read the match {expression!r} at {position}")
        tokens.append(found.group().strip())
        position = found.end()
    return tokens


def to_tsquery_text(expression: str) -> str:
    """The tsquery text (for `to_tsquery(config, ...)`) of an FTS5 match expression."""
    return _read(expression).tsquery


def scored_operands(expression: str) -> list[Operand]:
    """The words and phrases an FTS5 match expression looks for, in order, without the
    ones it excludes (after NOT) and without repeats."""
    seen: dict[Operand, None] = {}
    for operand in _read(expression).operands:
        seen.setdefault(operand, None)
    return list(seen)


@dataclass(frozen=True)
class _Read:
    tsquery: str
    operands: list[Operand]


def _read(expression: str) -> _Read:
    reader = _Reader(_tokens(expression))
    result = _or(reader)
    if reader.peek() is not None:
        raise MatchSyntaxError(f"unexpected {reader.peek()!r} in the match {expression!r}")
    return _Read(result, reader.operands)


def _or(reader: _Reader) -> str:
    parts = [_and(reader)]
    while reader.peek() == "OR":
        reader.take()
        parts.append(_and(reader))
    return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"


def _starts_operand(token: str | None) -> bool:
    return token is not None and (token.startswith(('"', "(", "{")))


def _and(reader: _Reader) -> str:
    parts = [_not(reader)]
    while reader.peek() == "AND" or _starts_operand(reader.peek()):
        if reader.peek() == "AND":
            reader.take()
        parts.append(_not(reader))
    return parts[0] if len(parts) == 1 else "(" + " & ".join(parts) + ")"


def _not(reader: _Reader) -> str:
    left = _operand(reader)
    while reader.peek() == "NOT":
        reader.take()
        reader.negated += 1
        try:
            left = f"({left} & !{_operand(reader)})"
        finally:
            reader.negated -= 1
    return left


def _operand(reader: _Reader) -> str:
    token = reader.peek()
    if token is None:
        raise MatchSyntaxError("the match ends where a word was expected")
    reader.take()
    if token.startswith("{"):
        names = token[1 : token.index("}")].split()
        unknown = [n for n in names if n not in COLUMN_WEIGHTS]
        if unknown:
            raise MatchSyntaxError(f"no index column {unknown[0]!r}")
        outer, reader.weights = reader.weights, "".join(sorted({COLUMN_WEIGHTS[n] for n in names}))
        try:
            return _operand(reader)
        finally:
            reader.weights = outer
    if token == "(":
        inner = _or(reader)
        if reader.peek() != ")":
            raise MatchSyntaxError("a parenthesis is not closed")
        reader.take()
        return inner
    if token.startswith('"'):
        phrase = _phrase(token, reader.weights)
        if not reader.negated:
            words = tuple(token.rstrip("*").strip('"').split())
            reader.operands.append(Operand(phrase, words, token.endswith("*")))
        return phrase
    raise MatchSyntaxError(f"unexpected {token!r}")


def _phrase(token: str, weights: str) -> str:
    prefix = token.endswith("*")
    words = token.rstrip("*").strip('"').split()
    if not words:
        raise MatchSyntaxError("an empty phrase")
    lexemes = []
    for n, word in enumerate(words):
        marks = ("*" if prefix and n == len(words) - 1 else "") + weights
        quoted = "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"
        lexemes.append(quoted + (f":{marks}" if marks else ""))
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"
