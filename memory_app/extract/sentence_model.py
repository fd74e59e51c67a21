"""Is this sentence a standing rule? A second opinion beside the rule table.

The rule table (offline_rules.py) and the directive form (directives.py) each know some
shapes of instruction; people keep finding others ("Every injectable class which talks
with backend has suffix Service", "Whatever you write in CI from here on is Buildkite").
Here the table's own reading, the directive score and a few forms of language (length,
values named, hedges, questions, stances, a change cue, who speaks: "I", "we") sit beside
the sentence encoder's vector of it (conflicts/semantic.py) in a small logistic model,
which can vouch for a sentence the rules left out.

The weights (sentence_weights.json) are fitted by `python -m benchmarks.train_sentences`
on the quality benchmark's development dialogues only. Without the weights or the
embedding model the extractor keeps the rules' reading alone.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from memory_app.conflicts import semantic
from memory_app.domain.statements import TOKEN, frame, value_like
from memory_app.extract import offline_rules as rules
from memory_app.extract.directives import directive_score, is_one_off, is_technical
from memory_app.extract.sentences import word_count

WEIGHTS_FILE = Path(__file__).with_name("sentence_weights.json")
_SPEAKS_FOR_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|my)\b")
_SPEAKS_FOR_TEAM = re.compile(r"\b(?:we|we're|we've|our|us)\b", re.IGNORECASE)

FORM_NAMES = (
    "bias",
    "rules' confidence",
    "rules keep it",
    "directive score",
    "directive form",
    "technical",
    "length",
    "four words or fewer",
    "over thirty words",
    "values named",
    "hedged",
    "question",
    "conditional",
    "always / never / every",
    "a reason given",
    "change cue",
    "values endorsed",
    "values rejected",
    "speaks for self",
    "speaks for the team",
)


def form(text: str, rules_confidence: float | None, kept_by_rules: bool) -> list[float]:
    """The forms of language one sentence shows, in FORM_NAMES order."""
    directive = directive_score(text)
    words = word_count(text)
    tokens = TOKEN.findall(text)
    values = sum(value_like(t, first=n == 0) for n, t in enumerate(tokens))
    read = frame(text)
    return [
        1.0,
        rules_confidence or 0.0,
        float(kept_by_rules),
        directive or 0.0,
        float(directive is not None),
        float(is_technical(text)),
        min(words, 60) / 60,
        float(words <= 4),
        float(words > 30),
        min(values, 5) / 5,
        float(bool(rules.HEDGE.search(text))),
        float(bool(rules.QUESTION_START.match(text)) or text.rstrip().endswith("?")),
        float(bool(rules.CONDITIONAL_START.match(text))),
        float(bool(rules.STRONG_MARKER.search(text))),
        float(bool(rules.RATIONALE.search(text))),
        float(read.change_cue),
        min(len(read.endorsed), 3) / 3,
        min(len(read.rejected), 3) / 3,
        float(bool(_SPEAKS_FOR_SELF.search(text))),
        float(bool(_SPEAKS_FOR_TEAM.search(text))),
    ]


def features(text: str, rules_confidence: float | None, kept_by_rules: bool) -> list[float] | None:
    """Form and embedding, or None when the embedding model is unavailable."""
    vector = semantic.vector(text)
    if vector is None:
        return None
    return form(text, rules_confidence, kept_by_rules) + vector


@dataclass(frozen=True)
class Model:
    weights: tuple[float, ...]
    keep_at: float  # a sentence the rules left out is kept from this probability on


@lru_cache(maxsize=1)
def model() -> Model | None:
    """The fitted model, or None when the file is missing or fits other features."""
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        if list(data["form"]) != list(FORM_NAMES):
            return None
        weights = tuple(float(w) for w in data["weights"])
        keep_at = float(data["keep_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if len(weights) != len(FORM_NAMES) + semantic.DIMENSIONS:
        return None
    return Model(weights, keep_at)


def probability(row: list[float], weights: tuple[float, ...]) -> float:
    score = sum(w * x for w, x in zip(weights, row, strict=True))
    return 1.0 / (1.0 + math.exp(-max(min(score, 40.0), -40.0)))


def ruled_out(text: str) -> bool:
    """What the rules reject on purpose stays rejected, whatever the model says: a
    hedge ("maybe we should"), a guess ("it must be the cache"), a condition ("if we
    decided to"), a question, a negated decision ("we haven't decided"), a pointer
    to something said before ("let's go with the second option"), or a task for now
    ("create a hello world function")."""
    opening = " ".join(text.split()[:6])
    return bool(
        rules.HEDGE.search(text)
        or rules.CONDITIONAL_START.match(text)
        or rules.QUESTION_START.match(text)
        or text.rstrip().endswith("?")
        or rules.NEGATED.search(text)
        or rules.SPECULATION.search(text)
        or rules.VAGUE.search(opening)
        or is_one_off(text)
    )


def vouches_for(text: str, rules_confidence: float | None) -> bool:
    """Does the model, on its own, call this sentence (which the rules did not keep)
    a standing rule?"""
    fitted = model()
    if fitted is None or ruled_out(text):
        return False
    row = features(text, rules_confidence, kept_by_rules=False)
    return row is not None and probability(row, fitted.weights) >= fitted.keep_at
