"""The search field's query language (domain/search_syntax.py) made into SQL.

Every word and phrase goes into the MATCH expression double-quoted, as the plain search
always did, so nothing a person types is read as an FTS5 operator; the only operators
are the ones written here (`*` after a quoted prefix, NOT, OR, a column filter).
Category and project filters become ordinary SQL conditions with bound values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, text

from memory_app.domain.search_syntax import SearchQuery, Term, parse_search, resolve_category
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import MAX_TERMS, STOP_WORDS, TABLE_COLUMNS
from memory_app.store.typed_prefix import stems_beyond_prefix

if TYPE_CHECKING:
    from memory_app.store.dialects.base import Dialect

_SEPARATORS = "/\\"


@dataclass(frozen=True)
class CompiledSearch:
    """A query ready for the memory index and the item table.

    `match`: the MATCH expression a memory must satisfy (exclusions included), None when
    nothing is to be matched; then `exclude` holds the exclusions alone, and the search
    lists every memory (the filters allowing) except the ones it matches.
    `widens`: an any-word search (`match_any=True`) would find more than this one.
    """

    match: str | None
    exclude: str | None = None
    categories: tuple[str, ...] = ()
    excluded_categories: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    excluded_projects: tuple[str, ...] = ()
    widens: bool = False

    def conditions(self, table: str, dialect: Dialect) -> list[tuple[str, dict[str, Any]]]:
        """SQL conditions on the item table (named `table` in the query), each with its
        bound values: the filters, and the exclusions too when nothing is matched (found
        through the dialect's full-text index)."""
        out: list[tuple[str, dict[str, Any]]] = []
        for negate, categories, name in (
            (False, self.categories, "sq_cat"),
            (True, self.excluded_categories, "sq_xcat"),
        ):
            if categories:
                keys: dict[str, Any] = {f"{name}{i}": v for i, v in enumerate(categories)}
                names = ", ".join(f":{k}" for k in keys)
                out.append((f"{table}.category {'NOT IN' if negate else 'IN'} ({names})", keys))
        for negate, projects, name in (
            (False, self.projects, "sq_proj"),
            (True, self.excluded_projects, "sq_xproj"),
        ):
            if projects:
                params: dict[str, Any] = {}
                for i, value in enumerate(projects):
                    params[f"{name}{i}"] = value
                    params[f"{name}{i}_n"] = len(value) + 1
                joined = " OR ".join(_project_is(table, f"{name}{i}") for i in range(len(projects)))
                out.append((f"NOT ({joined})" if negate else f"({joined})", params))
        if self.match is None and self.exclude is not None:
            hits = dialect.memory_hits(self.exclude, "sq_out")
            out.append(
                (
                    f"{table}.id NOT IN (SELECT {hits.id} FROM {hits.table} "
                    f"WHERE {hits.condition})",
                    hits.params,
                )
            )
        return out


def _project_is(table: str, name: str) -> str:
    """SQL: the item's project is the folder `:name` or its last part is `:name` (any
    ASCII case, a trailing separator ignored); false, never NULL, without a project."""
    folder = f"lower(rtrim({table}.project, '{_SEPARATORS}'))"
    return (
        f"({table}.project IS NOT NULL AND ({folder} = lower(:{name}) OR "
        f"substr({folder}, length({folder}) + 1 - :{name}_n) "
        f"IN ('/' || lower(:{name}), '\\' || lower(:{name}))))"
    )


def _quoted(term: Term) -> str:
    # \w+ words never contain a double quote, so quoting cannot be escaped from.
    quoted = f'"{" ".join(term.words[:MAX_TERMS])}"' + ("*" if term.prefix else "")
    if not term.prefix or len(term.words) != 1:
        return quoted
    # A word being typed also finds the stems its finished forms are stored as ("runn"
    # finds "running", stored as "run"): typed_prefix.py.
    beyond = [f'"{stem}"' for stem in stems_beyond_prefix(term.words[0])]
    return f"({' OR '.join([quoted, *beyond])})" if beyond else quoted


def chosen_terms(query: SearchQuery) -> list[Term]:
    """The terms to match: plain stop words ("the", "of") are left out unless nothing
    else is there, as the plain search always did."""
    meaningful = [t for t in query.terms if not (t.bare and t.words[0] in STOP_WORDS)]
    return (meaningful or list(query.terms))[:MAX_TERMS]


def match_for(
    query: SearchQuery, *, match_any: bool = False, columns: tuple[str, ...] = TABLE_COLUMNS
) -> tuple[str | None, str | None]:
    """(what must match, exclusions alone): the MATCH expression for the query's words,
    phrases and exclusions, or (None, the exclusions' expression) when it has no words
    to match; (None, None) when it has neither."""
    terms = [_quoted(t) for t in chosen_terms(query)]
    excluded = [_quoted(t) for t in query.excluded[:MAX_TERMS]]

    def within(expression: str) -> str:
        return f"{{{' '.join(columns)}}} : ({expression})" if columns else expression

    left_out = " OR ".join(excluded)
    if not terms:
        return None, within(left_out) if excluded else None
    wanted = (" OR " if match_any else " AND ").join(terms)
    if excluded:
        return within(f"({wanted}) NOT ({left_out})"), None
    return within(wanted), None


def _categories(conn: Connection) -> list[tuple[str, str]]:
    rows = conn.execute(text("SELECT key, name FROM category ORDER BY position, key"))
    return [(row[0], row[1]) for row in rows]


def _resolved(values: Sequence[str], known: list[tuple[str, str]]) -> tuple[str, ...]:
    keys: list[str] = []
    for value in values:
        key = resolve_category(value, known)
        if key is not None and key not in keys:
            keys.append(key)
    return tuple(keys)


def compile_search(
    conn: Connection,
    query: str | SearchQuery,
    *,
    match_any: bool = False,
    columns: tuple[str, ...] = TABLE_COLUMNS,
) -> CompiledSearch:
    """The typed query (or its parse) ready to run; category names are checked against
    the store's categories.

    Raises SearchSyntaxError for a filter that cannot apply (an unknown category), and
    EmptyQueryError when the query asks for nothing at all.
    """
    parsed = parse_search(query) if isinstance(query, str) else query
    if parsed.empty:
        shown = query if isinstance(query, str) else ""
        raise EmptyQueryError(f"nothing to search for in {shown!r}: type at least one word")
    known: list[tuple[str, str]] = []
    if parsed.categories or parsed.excluded_categories or parsed.partial_category:
        known = _categories(conn)
    categories = _resolved(parsed.categories, known)
    excluded_categories = _resolved(parsed.excluded_categories, known)
    if parsed.partial_category:
        key = resolve_category(parsed.partial_category, known, partial=True)
        if key is not None and parsed.partial_category_excluded:
            excluded_categories = (*excluded_categories, key)
        elif key is not None:
            categories = (*categories, key)
    match, exclude = match_for(parsed, match_any=match_any, columns=columns)
    return CompiledSearch(
        match=match,
        exclude=exclude,
        categories=categories,
        excluded_categories=excluded_categories,
        projects=tuple(_folder(p) for p in parsed.projects),
        excluded_projects=tuple(_folder(p) for p in parsed.excluded_projects),
        widens=not match_any and len(chosen_terms(parsed)) > 1,
    )


def _folder(value: str) -> str:
    """A project value as compared: without a trailing separator (but `/` stays) and
    without NUL, which no folder name holds and PostgreSQL refuses in text."""
    value = value.replace("\x00", "")
    return value.rstrip(_SEPARATORS) or value
