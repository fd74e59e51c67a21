"""The search field's query language: what each piece of a typed query means."""

from __future__ import annotations

import pytest

from memory_app.domain.search_syntax import (
    SearchQuery,
    SearchSyntaxError,
    Term,
    parse_search,
    resolve_category,
)

CATEGORIES = [
    ("coding_preferences", "Coding preferences"),
    ("architectural_decisions", "Architectural decisions"),
    ("project_conventions", "Project conventions"),
    ("bug_patterns", "Bug patterns"),
]


def word(text: str, prefix: bool = False) -> Term:
    return Term((text,), prefix=prefix, bare=True)


def test_the_word_being_typed_is_a_prefix() -> None:
    assert parse_search("pyt").terms == (word("pyt", prefix=True),)
    assert parse_search("use pyt").terms == (word("use"), word("pyt", prefix=True))
    # A space after it: the word is finished.
    assert parse_search("use pyt ").terms == (word("use"), word("pyt"))
    # Only the last word, and only when a word character ends the query.
    assert parse_search("C++").terms == (word("c"),)
    assert parse_search("foo-ba").terms == (word("foo"), word("ba", prefix=True))


def test_an_explicit_star_is_a_prefix_anywhere() -> None:
    assert parse_search("fix* tests ").terms == (Term(("fix",), prefix=True), word("tests"))
    assert parse_search("fix** ").terms == (Term(("fix",), prefix=True),)
    assert parse_search("*").terms == ()
    assert parse_search("a*b ").terms == (word("a"), word("b"))


def test_quoted_phrases() -> None:
    assert parse_search('"pytest fixtures"').terms == (Term(("pytest", "fixtures")),)
    assert parse_search('"Event-Loop" bug ').terms == (Term(("event", "loop")), word("bug"))
    assert parse_search('"pytest fix"*').terms == (Term(("pytest", "fix"), prefix=True),)
    assert parse_search('""').empty


def test_an_unbalanced_quote_is_plain_text() -> None:
    assert parse_search('"pytest fix').terms == (word("pytest"), word("fix", prefix=True))
    assert parse_search('a " b ').terms == (word("a"), word("b"))


def test_exclusions() -> None:
    query = parse_search('tests -flaky -"event loop" -foo-bar -pyt* ')
    assert query.terms == (word("tests"),)
    assert query.excluded == (
        Term(("flaky",)),
        Term(("event", "loop")),
        Term(("foo", "bar")),
        Term(("pyt",), prefix=True),
    )
    # An exclusion being typed stays a whole word: `-pyt` never hides pytest.
    assert parse_search("-pyt").excluded == (Term(("pyt",)),)
    # A lone dash, or one inside a word, is no exclusion.
    assert parse_search("a - b ").terms == (word("a"), word("b"))
    assert parse_search("- ").empty
    assert parse_search("foo-bar ").excluded == ()


def test_filters() -> None:
    query = parse_search(
        'category:bug_patterns CATEGORY:"Coding preferences" project:shop '
        'project:"/home/dev/my app" -project:blog -category:project_conventions tests '
    )
    assert query.categories == ("bug_patterns", "Coding preferences")
    assert query.projects == ("shop", "/home/dev/my app")
    assert query.excluded_projects == ("blog",)
    assert query.excluded_categories == ("project_conventions",)
    assert query.terms == (word("tests"),)
    # Something else before a colon is just words.
    assert parse_search("tag:python ").terms == (word("tag"), word("python"))


def test_a_category_being_typed_is_partial() -> None:
    query = parse_search("tests category:cod")
    assert query.categories == () and query.partial_category == "cod"
    assert parse_search("-category:bug").partial_category_excluded
    assert parse_search('category:"Coding pre').partial_category == "Coding pre"
    # Nothing typed after the colon yet: no filter so far.
    assert parse_search("category:") == SearchQuery()
    assert parse_search("project:") == SearchQuery()
    # Finished with a space: a whole value.
    assert parse_search("category:cod ").categories == ("cod",)


def test_a_filter_without_a_value_is_a_clear_error() -> None:
    with pytest.raises(SearchSyntaxError, match="category: needs a value"):
        parse_search("category: bug_patterns")
    with pytest.raises(SearchSyntaxError, match="project: needs a value"):
        parse_search('project:"" tests')


def test_operators_are_words() -> None:
    query = parse_search("tabs AND spaces OR NOT NEAR(a b) ")
    assert [t.words for t in query.terms] == [
        ("tabs",),
        ("and",),
        ("spaces",),
        ("or",),
        ("not",),
        ("near",),
        ("a",),
        ("b",),
    ]
    assert parse_search("don't").terms == (word("don"), word("t", prefix=True))


def test_resolve_category_by_key_or_name_in_any_case() -> None:
    assert resolve_category("bug_patterns", CATEGORIES) == "bug_patterns"
    assert resolve_category("BUG PATTERNS", CATEGORIES) == "bug_patterns"
    assert resolve_category("cod", CATEGORIES, partial=True) == "coding_preferences"
    assert resolve_category("project c", CATEGORIES, partial=True) == "project_conventions"
    assert resolve_category("", CATEGORIES, partial=True) is None
    with pytest.raises(SearchSyntaxError, match="no category 'nope'; use one of coding_pre"):
        resolve_category("nope", CATEGORIES)
    with pytest.raises(SearchSyntaxError, match="no category 'cod'"):
        resolve_category("cod", CATEGORIES)  # a finished value must be whole
    both = [("coding_preferences", "Coding"), ("bug_patterns", "Crashes")]
    with pytest.raises(SearchSyntaxError, match="could be coding_preferences, bug_patterns"):
        resolve_category("c", both, partial=True)
