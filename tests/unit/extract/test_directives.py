"""Standing rules recognised by their form: here the topic-and-colon form."""

from __future__ import annotations

import pytest

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.directives import form, is_one_off
from memory_app.extract.offline import OfflineExtractor


def contents(text: str) -> list[str]:
    said = Transcript(source_kind="text", turns=(Turn(position=0, speaker="user", text=text),))
    return [i.content for i in OfflineExtractor().extract(said, DEFAULT_CATEGORIES)]


@pytest.mark.parametrize(
    "text",
    [
        "Outbound calls: 3 second context timeout.",
        "Interfaces: no 'I' prefix.",
        "Dependency injection: constructor injection only.",
        "Topic names: always kebab-case, max 40 characters.",
    ],
)
def test_a_topic_and_its_specification_is_a_rule(text: str) -> None:
    assert form(text) == "label"
    assert contents(text) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Note: lunch is at noon.",
        "Quick update: I am out tomorrow.",
        "Agenda: standup, then retro.",
        "Here is the plan:",
    ],
)
def test_a_label_without_a_rule_is_not(text: str) -> None:
    assert contents(text) == []


@pytest.mark.parametrize(
    ("text", "one_off"),
    [
        ("Create a hello world function.", True),
        ("First, clean up the payroll module.", True),
        ("Fix this bug today.", True),
        ("Always add docstrings.", False),
        ("From now on, create a changelog entry for every release.", False),
        ("Validate request bodies.", False),
        ("The config has an old key in it, ignore that.", True),
        ("Always ignore the generated files in code reviews.", False),
        ("Ignore that kind of warning in the vendored code.", False),
    ],
)
def test_a_task_for_now_is_not_a_standing_rule(text: str, one_off: bool) -> None:
    assert is_one_off(text) is one_off


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # A technical thing said to be one named thing, typed in lowercase.
        ("the cache is redis", "statement"),
        ("the queue is rabbitmq", "statement"),
        # A state, a judgement or no technical subject is not a rule.
        ("The cache is fine", None),
        ("the tests are flaky", None),
        ("the weather is lovely", None),
    ],
)
def test_a_thing_named_in_lowercase_is_a_statement(text: str, kind: str | None) -> None:
    assert form(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("No rush, end of sprint is fine.", None),
        ("No blame, it's how we all learn.", None),
        ("No worries at all.", None),
        ("No provider package, no bloc.", "imperative"),
        ("No print for debug output.", "imperative"),
    ],
)
def test_no_that_reassures_is_not_a_ban(text: str, kind: str | None) -> None:
    assert form(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # A verbless note typed fast about code or tools.
        ("json with moshi", "label"),
        ("migrations via alembic.", "label"),
        ("sql keywords in uppercase", "label"),
        # Not about code, or saying something happened.
        ("lunch on fridays", None),
        ("fixed in prod", None),
    ],
)
def test_a_terse_note_about_a_tool_is_a_rule(text: str, kind: str | None) -> None:
    assert form(text) == kind
