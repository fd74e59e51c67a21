"""The rules judge on a small labelled set: what it must catch, and what it must not."""

from __future__ import annotations

import pytest

from memory_app.conflicts.judge import judge

CONTRADICTIONS = [
    ("We always indent with tabs in this repo.", "We switched from tabs to spaces last week."),
    ("Always use tabs for indentation.", "Never use tabs for indentation."),
    ("I prefer tabs over spaces.", "I prefer spaces over tabs."),
    ("Use Promise.then() chains.", "Use async/await instead of promise chains."),
    ("We use MySQL for the main database.", "We no longer use MySQL; Postgres it is."),
    ("The line length is 88.", "The line length is 100."),
    ("Max line length of 88 characters.", "Line length is 100 in this project."),
    ("Use npm to install packages.", "Use pnpm to install packages."),
    ("Always run the linter before committing.", "Never run the linter before committing."),
    ("Deploy with Heroku.", "We replaced Heroku with Fly.io for deploys."),
    ("Prefer unittest for tests.", "We moved from unittest to pytest."),
]
AGREEMENTS = [
    ("We always indent with tabs.", "Use pytest for the tests."),
    ("Prefer pytest over unittest.", "We prefer pytest to unittest."),
    ("Use spaces for indentation.", "Indent with spaces."),
    ("We always indent with tabs.", "We always indent with tabs."),
    ("Never commit secrets to the repo.", "Always run tests in this repo."),
    ("Line length is 88.", "Python version is 3.12."),
    ("Use npm to install packages.", "Use eslint to lint the code."),
    ("We switched from tabs to spaces.", "Indent with spaces, never tabs."),
    ("The API timeout is 30 seconds.", "Retries are set to 3."),
    ("Prefer async/await.", "Avoid callbacks in new code."),
    ("Use ruff for linting.", "Run ruff before each commit."),
    ("Line length is 88.", "The line length is 88 characters."),
]


@pytest.mark.parametrize(("older", "newer"), CONTRADICTIONS)
def test_contradictions_are_caught_with_a_reason(older: str, newer: str) -> None:
    verdict = judge(older, newer)
    assert verdict.contradicts, verdict.reason
    assert verdict.reason and len(verdict.reason) < 80 and verdict.judge == "rules"


@pytest.mark.parametrize(("older", "newer"), AGREEMENTS)
def test_agreeing_or_unrelated_statements_do_not_contradict(older: str, newer: str) -> None:
    assert not judge(older, newer).contradicts


def test_precision_and_recall_on_the_labelled_set() -> None:
    labelled = [(a, b, True) for a, b in CONTRADICTIONS] + [(a, b, False) for a, b in AGREEMENTS]
    said_yes = [(truth) for a, b, truth in labelled if judge(a, b).contradicts]
    precision = sum(said_yes) / len(said_yes)
    recall = sum(said_yes) / len(CONTRADICTIONS)
    assert precision == 1.0  # a false conflict costs a person's attention
    assert recall >= 0.9


@pytest.mark.parametrize(
    ("older", "newer", "reason"),
    [
        ("We always indent with tabs.", "We switched from tabs to spaces.", "tabs → spaces"),
        ("Always use tabs.", "Never use tabs.", "‘always’ vs ‘never’ on tabs"),
        ("The line length is 88.", "The line length is 100.", "88 → 100"),
        ("Use npm to install packages.", "Use pnpm to install packages.", "npm → pnpm"),
    ],
)
def test_reasons_say_what_differs(older: str, newer: str, reason: str) -> None:
    assert reason in judge(older, newer).reason


def test_the_judge_is_symmetric_enough() -> None:
    for older, newer in CONTRADICTIONS:
        assert judge(newer, older).contradicts, (newer, older)
