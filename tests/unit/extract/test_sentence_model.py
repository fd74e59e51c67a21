"""The sentence model: shipped weights, what it may add, what stays ruled out, and the
fallback to the rules alone when its weights are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import train_sentences
from memory_app.conflicts import semantic
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract import sentence_model
from memory_app.extract.base import CONFIDENCE_THRESHOLD
from memory_app.extract.offline import OfflineExtractor, score_sentence

# Rules in shapes the rule table does not list (none of them is in the benchmark sets).
UNLISTED = "Every repository class that talks to the database gets the suffix Repo."


@pytest.fixture
def fresh_model():
    sentence_model.model.cache_clear()
    yield
    sentence_model.model.cache_clear()


def said(text: str) -> Transcript:
    return Transcript(source_kind="text", turns=(Turn(position=0, speaker="user", text=text),))


def contents(text: str) -> list[str]:
    items = OfflineExtractor().extract(said(text), DEFAULT_CATEGORIES)
    return [i.content for i in items]


def test_the_shipped_weights_fit_the_features() -> None:
    fitted = sentence_model.model()
    assert fitted is not None
    assert len(fitted.weights) == len(sentence_model.FORM_NAMES) + semantic.DIMENSIONS
    assert 0.5 <= fitted.keep_at < 1
    data = json.loads(sentence_model.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert all(not name.startswith("test") for name in data["fitted_on"])


def test_a_rule_the_table_misses_is_kept_on_the_models_word() -> None:
    scored = score_sentence(UNLISTED, "user")
    assert scored is None or scored.confidence < CONFIDENCE_THRESHOLD  # the rules miss it
    assert sentence_model.vouches_for(UNLISTED, None if scored is None else scored.confidence)
    assert contents(UNLISTED) == [UNLISTED]


@pytest.mark.parametrize(
    "text",
    [
        "Remember that teamwork matters.",
        "Good morning everyone, how was the weekend?",
        "Thanks, that looks great.",
    ],
)
def test_chatter_stays_out(text: str) -> None:
    assert contents(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Maybe every repository class should get the suffix Repo.",
        "If every repository class got the suffix Repo we would need a rename.",
        "It must be something in the repository classes.",
        "Should every repository class get the suffix Repo?",
        "We haven't decided whether repository classes get the suffix Repo.",
    ],
)
def test_hedges_guesses_conditions_and_questions_stay_ruled_out(text: str) -> None:
    assert sentence_model.ruled_out(text)
    assert not sentence_model.vouches_for(text, None)
    assert contents(text) == []


def test_missing_or_foreign_weights_leave_the_rules_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_model
) -> None:
    for text in ("not json", json.dumps({"form": ["other"], "keep_at": 0.5, "weights": []})):
        path = tmp_path / "weights.json"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(sentence_model, "WEIGHTS_FILE", path)
        sentence_model.model.cache_clear()
        assert sentence_model.model() is None
        assert not sentence_model.vouches_for(UNLISTED, None)
        assert contents(UNLISTED) == []
        # What the rules keep is still kept.
        assert contents("We always write docstrings for public functions.")


def test_the_trainer_refuses_the_frozen_test_set() -> None:
    with pytest.raises(ValueError, match="frozen"):
        train_sentences.examples(["test_a.json"])


def test_held_out_figures_count_what_the_model_adds() -> None:
    row = [0.0] * 3
    rule = train_sentences.Example("a", row, False, True, False)
    chatter = train_sentences.Example("b", row, False, False, False)
    guess = train_sentences.Example("c", row, False, True, True)
    readings = [(rule, 0.9), (chatter, 0.7), (guess, 0.95)]
    assert train_sentences.figures(readings, 2.0)["recall"] == 0  # the rules kept none
    added = train_sentences.figures(readings, 0.8)
    assert added["recall"] == 0.5 and added["precision"] == 1.0  # the guess stays out
    assert train_sentences.figures(readings, 0.6)["precision"] == 0.5


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        (
            "Tag images with the git sha. Never push latest.",
            "Tag images with the git sha. Never push latest.",
        ),
        (
            "Money is stored as integer cents. Never double, never float.",
            "Money is stored as integer cents. Never double, never float.",
        ),
    ],
)
def test_a_short_follow_up_completes_the_rule_before_it(text: str, memory: str) -> None:
    # One memory with both halves, not the first half alone beside it.
    assert contents(text) == [memory]


def test_a_pleasantry_after_a_rule_is_not_joined_to_it() -> None:
    found = contents(
        "Make sure every constant name ends with '_k'. Remember that teamwork matters."
    )
    assert found == ["Make sure every constant name ends with '_k'."]
