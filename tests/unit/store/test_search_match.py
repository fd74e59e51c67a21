"""The search syntax compiled to FTS5 and run on a real store: prefix, phrase, exclusion,
category and project filters, the any-word fallback, and raw text that never breaks."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_app.config import Settings
from memory_app.domain.records import ItemQuery, MemoryRecord
from memory_app.domain.search_syntax import SearchSyntaxError, parse_search
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import MEMORY_RANK
from memory_app.store.search_match import match_for
from memory_app.store.typed_prefix import stems_beyond_prefix
from tests.helpers import ScriptedExtractor, conversation

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
# (project, category, content), memorized in this order, one minute apart.
MEMORIES = [
    ("/home/dev/shop", "coding_preferences", "Use pytest fixtures, never unittest setUp"),
    ("/home/dev/shop", "bug_patterns", "Flaky tests came from a shared event loop"),
    ("/home/dev/blog", "coding_preferences", "Prefer pathlib over os.path in pytest helpers"),
    ("/home/dev/blog/", "project_conventions", "Tests mirror the package layout"),
    (None, "architectural_decisions", "The loop of events runs in one worker thread"),
]


def compiled(text: str, match_any: bool = False) -> str | None:
    match, exclude = match_for(parse_search(text), match_any=match_any, columns=())
    return match if match is not None else f"everything except {exclude}"


def test_compiled_match_strings() -> None:
    assert compiled("pyt") == '"pyt"*'
    assert compiled("pyt ") == '"pyt"'
    assert compiled("fix* tests") == '"fix"* AND ("tests"* OR "test")'
    assert compiled('"pytest fixtures"') == '"pytest fixtures"'
    assert compiled('use "pytest fixtures" -flaky -"event loop" ') == (
        '("use" AND "pytest fixtures") NOT ("flaky" OR "event loop")'
    )
    assert compiled('use "pytest fixtures" -flaky', match_any=True) == (
        '("use" OR "pytest fixtures") NOT ("flaky")'
    )
    assert compiled("-flaky -pyt*") == 'everything except "flaky" OR "pyt"*'
    # Stop words go unless nothing else is there, the word being typed included.
    assert compiled("why do we use pyt") == '"use" AND "pyt"*'
    assert compiled("python a") == '"python"'
    assert compiled("the") == '"the"*'
    # Operators and punctuation stay quoted words.
    assert compiled("C++ foo-bar NEAR(x) col:val ") == (
        '"c" AND "foo" AND "bar" AND "near" AND "x" AND "col" AND "val"'
    )
    # The memory table's columns by default: a memory's context is never what is shown.
    assert match_for(parse_search("-flaky pyt"))[0] == ('{content tags} : (("pyt"*) NOT ("flaky"))')
    assert match_for(parse_search("-flaky")) == (None, '{content tags} : ("flaky")')
    assert match_for(parse_search("category:bug_patterns ")) == (None, None)


def test_ranking_stays_the_memory_index_bm25() -> None:
    assert MEMORY_RANK == "bm25(memory_fts, 1.0, 0.5, 0.5)"


@pytest.fixture
def store(settings: Settings) -> Iterator[MemoryService]:
    minutes = itertools.count()
    svc = MemoryService.open(
        settings,
        ScriptedExtractor(),
        clock=lambda: START + timedelta(minutes=next(minutes)),
    )
    for n, (project, category, content) in enumerate(MEMORIES):
        svc.extractor = ScriptedExtractor([ExtractedItem(category, content, 0.9)])
        svc.memorize(
            conversation(
                (f"Conversation number {n} about {category} in enough words.", "Noted."),
                session=f"s{n}",
                project=project,
            )
        )
    yield svc
    svc.close()


def found(store: MemoryService, text: str, **options: object) -> list[str]:
    """What the CLI's search finds, checked against what the memory table shows."""
    results = [r.content for r in store.search(text, **options)]  # type: ignore[arg-type]
    return results


def table(store: MemoryService, text: str) -> set[str]:
    query = ItemQuery(text=text)
    rows = store.query_items(query)
    assert store.count_items(query) == len(rows)
    return {r.content for r in rows}


def test_every_memory_is_stored(store: MemoryService) -> None:
    assert store.count_items(ItemQuery()) == len(MEMORIES)


def test_the_word_being_typed_finds_longer_words(store: MemoryService) -> None:
    pytest_ones = {MEMORIES[0][2], MEMORIES[2][2]}
    assert set(found(store, "pyt")) == pytest_ones == table(store, "pyt")
    assert found(store, "pyt ") == [] and table(store, "pyt ") == set()
    assert set(found(store, "fixt* pytest ")) == {MEMORIES[0][2]}


def test_the_word_being_typed_finds_the_stem_of_its_finished_form(store: MemoryService) -> None:
    """The index stores "flaki" for "Flaky": a plain prefix search for the typed `flaky`
    (no space after it yet) found nothing until the space was typed."""
    flaky = [MEMORIES[1][2]]
    assert found(store, "flaky") == flaky == list(table(store, "flaky"))
    assert found(store, "flaky ") == flaky
    # "runs" is stored as "run": typing "runn" (on its way to "running") finds it.
    assert found(store, "runn") == [MEMORIES[4][2]]
    assert compiled("runn") == '("runn"* OR "run")'
    # An exclusion is a whole word: `-flaky` leaves out what "flaky" finds, nothing wider.
    assert compiled("-flaky") == 'everything except "flaky"'


def test_words_being_typed_find_their_stems_on_either_engine(settings: Settings) -> None:
    """SQLite stores porter stems, PostgreSQL snowball ones: "dependencies" is "depend"
    and "flaky" is "flaki" in both, so the widened prefix finds them on both."""
    svc = MemoryService.open(settings, ScriptedExtractor())
    try:
        _, pinned = svc.remember("Pin the dependencies of flaky services")
        for typed in ("dependenc", "flaky", "configura", "depend"):
            assert [m.id for m in svc.search(typed)] == (
                [pinned.id] if typed != "configura" else []
            )
    finally:
        svc.close()


def test_typed_prefixes_widen_only_to_stems_of_their_own_endings() -> None:
    assert stems_beyond_prefix("configura") == ["configur"]  # configuration
    assert stems_beyond_prefix("dependenc") == ["depend"]  # dependencies
    assert stems_beyond_prefix("deploy") == ["deploi"]  # deploy itself
    assert stems_beyond_prefix("pyt") == []  # pytest starts with it: the prefix finds it
    assert stems_beyond_prefix("fixtur") == []
    assert stems_beyond_prefix("go") == []  # too short to guess from


def test_phrases_keep_their_words_together(store: MemoryService) -> None:
    assert found(store, '"event loop"') == [MEMORIES[1][2]] == list(table(store, '"event loop"'))
    # The same words apart are no match for the phrase (the plain words find both).
    assert found(store, '"loop event"') == []
    assert set(found(store, "loop event ")) == {MEMORIES[1][2], MEMORIES[4][2]}


def test_exclusions_leave_memories_out(store: MemoryService) -> None:
    assert found(store, "pytest -pathlib") == [MEMORIES[0][2]]
    assert table(store, 'tests -"event loop"') == {MEMORIES[3][2]}
    # The any-word fallback keeps the exclusion: "zzz" matches nothing, pytest does.
    assert found(store, "pytest zzz -pathlib") == [MEMORIES[0][2]]


def test_only_exclusions_mean_everything_else_newest_first(store: MemoryService) -> None:
    results = store.search("-pytest")
    assert [r.content for r in results] == [
        m[2] for m in reversed(MEMORIES) if "pytest" not in m[2]
    ]
    assert {r.score for r in results} == {0.0}
    assert table(store, "-pytest -loop") == {MEMORIES[3][2]}


def test_category_filters_by_key_or_name(store: MemoryService) -> None:
    prefs = {MEMORIES[0][2], MEMORIES[2][2]}
    assert set(found(store, "category:coding_preferences")) == prefs
    assert set(found(store, 'Category:"CODING preferences" ')) == prefs
    assert table(store, "category:cod") == prefs  # still being typed: its start is enough
    assert set(found(store, "-category:coding_preferences -category:bug_patterns")) == {
        MEMORIES[3][2],
        MEMORIES[4][2],
    }
    assert table(store, "category:bug_patterns category:project_conventions ") == {
        MEMORIES[1][2],
        MEMORIES[3][2],
    }
    # A filter still without its value: the table shows what the rest selects.
    assert len(table(store, "category:")) == len(MEMORIES)


@pytest.mark.parametrize("text", ["category:nope", "pytest category:cod ", "category:bugs x"])
def test_an_unknown_category_is_a_clear_error(store: MemoryService, text: str) -> None:
    with pytest.raises(SearchSyntaxError, match=r"no category '(nope|cod|bugs)'; use one of"):
        store.search(text)
    with pytest.raises(SearchSyntaxError, match="use one of coding_preferences"):
        store.count_items(ItemQuery(text=text))
    with pytest.raises(SearchSyntaxError):
        store.query_items(ItemQuery(text=text))


def test_project_filters_by_folder_or_its_name(store: MemoryService) -> None:
    shop = {MEMORIES[0][2], MEMORIES[1][2]}
    blog = {MEMORIES[2][2], MEMORIES[3][2]}
    assert set(found(store, "project:shop")) == shop == table(store, "project:SHOP")
    assert table(store, "project:/home/dev/blog") == blog == table(store, "project:/home/dev/blog/")
    assert table(store, 'project:"/home/dev/shop" project:blog') == shop | blog
    # No memory's folder is called "dev": the folder's name is its last part only.
    assert table(store, "project:dev") == set()
    # Leaving a project out keeps the memories that have none.
    assert table(store, "-project:shop -project:blog") == {MEMORIES[4][2]}


def test_everything_combines(store: MemoryService) -> None:
    assert found(store, "category:coding_preferences project:blog pyt") == [MEMORIES[2][2]]
    assert found(store, 'tests -"event loop" -project:shop') == [MEMORIES[3][2]]
    assert table(store, "-fixtures -category:bug_patterns project:blog pyt") == {MEMORIES[2][2]}
    # The CLI's --category and a category: in the text both hold.
    assert found(store, "pytest category:coding_preferences", category="bug_patterns") == []


def test_the_fallback_never_drops_filters(store: MemoryService) -> None:
    # All words fail; any word finds pytest and loop memories, but only in bug_patterns.
    assert found(store, "pytest loop category:bug_patterns") == [MEMORIES[1][2]]
    assert found(store, "pytest zzz project:shop -fixtures") == []


def test_nothing_to_search_for(store: MemoryService) -> None:
    for text in ("***", "  ", "-", '""', "category:"):
        with pytest.raises(EmptyQueryError, match="type at least one word"):
            store.search(text)


# -- raw text never breaks MATCH -----------------------------------------------------

PIECES = [
    "pyt",
    "pytest",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b)",
    "don't",
    "C++",
    "foo-bar",
    '"',
    '"event loop"',
    "-",
    "--",
    "*",
    "**",
    "-*",
    "^",
    "+",
    ":",
    "(",
    ")",
    "{content}",
    "col:val",
    "category:",
    "project:",
    "category:bug_patterns",
    'category:"Bug patterns"',
    "category:nope",
    "project:shop",
    '-project:"/home/dev/blog"',
    "_",
    "é",
    "\u0301",
    "日本語",
    "\x00",
    "'",
    "\\",
    "%",
]
QUERIES = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=8).map(" ".join),
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(list("ab -*\":()^+{}_'")), max_size=30),
)


def test_raw_text_never_breaks_the_search(store: MemoryService) -> None:
    """Whatever is typed, the search answers or says clearly what is wrong with a filter
    (or that there is nothing to search for): never an FTS5 syntax error."""

    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(QUERIES, st.booleans())
    def check(text: str, finished: bool) -> None:
        typed = text + " " if finished else text
        results: list[MemoryRecord] = []
        with contextlib.suppress(SearchSyntaxError, EmptyQueryError):
            results = store.search(typed, limit=5)
        assert len(results) <= 5
        try:
            assert store.count_items(ItemQuery(text=typed)) >= len(
                store.query_items(ItemQuery(text=typed, limit=5))
            )
        except SearchSyntaxError as exc:
            assert str(exc)

    check()
