"""The extractor protocol every extractor (offline rules, Claude) implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memory_app.domain.categories import Category
from memory_app.domain.transcripts import Transcript

# Seed 000 §2.1: items below this confidence are dropped before they are stored.
CONFIDENCE_THRESHOLD = 0.75


@dataclass(frozen=True)
class ExtractedItem:
    """A candidate memory, before it is validated, deduplicated and stored."""

    category: str
    content: str
    confidence: float
    type: str | None = None  # None: the category's default type
    importance: float | None = None  # None: the type's default importance
    tags: tuple[str, ...] = ()
    context: str | None = None  # why it matters / how it was said
    turn_start: int | None = None  # positions of the turns it came from
    turn_end: int | None = None


class Extractor(Protocol):
    """Distils memory items from a (redacted, truncated) transcript."""

    name: str

    def extract(
        self, transcript: Transcript, categories: Sequence[Category]
    ) -> list[ExtractedItem]: ...
