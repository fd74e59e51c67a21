"""The extractor protocol every extractor (offline rules, Claude) implements.

`extract` is the whole contract. A model-backed extractor may add two optional
capabilities that the service discovers at run time (so the offline path stays exactly
as it is): `evolve_summary` (merge new items into a category summary, seed 001 §5) and
`take_usage` (the tokens its calls consumed, recorded per run).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memory_app.domain.categories import Category
from memory_app.domain.records import MemoryRecord
from memory_app.domain.summary import EvolvedSummary
from memory_app.domain.transcripts import Transcript
from memory_app.domain.usage import CallUsage

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
    # The id of an existing memory (one of the `known` passed to `extract`) that this
    # item states a new value of: seed 000 §2.4 evolution. The service supersedes it.
    updates: int | None = None


@dataclass(frozen=True)
class KnownMemory:
    """An existing active memory shown to an extractor, so an answer can say which one
    a new statement updates instead of adding a rival beside it."""

    id: int
    category: str
    content: str


class Extractor(Protocol):
    """Distils memory items from a (redacted, truncated) transcript."""

    name: str

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]: ...


class ExtractorError(Exception):
    """An extractor could not do its work. The message is meant for people: it says what
    went wrong and what to do, and never contains a credential."""


@runtime_checkable
class SummaryEvolver(Protocol):
    """An extractor that can merge new items into an existing category summary."""

    def evolve_summary(
        self,
        category: Category,
        current_markdown: str,
        new_items: Sequence[MemoryRecord],
        known_item_ids: Collection[int],
    ) -> EvolvedSummary:
        """The merged summary with its change log; raises ExtractorError on failure.

        Facts may only cite `known_item_ids` (the category's active items)."""
        ...


@runtime_checkable
class UsageReporter(Protocol):
    """An extractor whose calls cost tokens: the service records them after each step."""

    def take_usage(self) -> list[CallUsage]:
        """The usage of this thread's calls since the last take, oldest first."""
        ...
