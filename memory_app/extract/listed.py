"""Memories a source already lists: Puffin's branch memory files (`ingest/puffin.py`).

Their items were extracted (and merged) by Puffin's own model, so running an extractor
over them again could only lose or reword some. Each item is taken as it is, one memory
per turn, in the category its section maps to, with that turn as its provenance; the
store's validation, redaction, dedupe and possible-secret hold still apply to each.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_app.domain.categories import Category
from memory_app.domain.transcripts import Transcript
from memory_app.extract.base import ExtractedItem, KnownMemory
from memory_app.ingest.puffin import BRANCH_MEMORY_KIND, SECTION_CATEGORIES

# Above the threshold, below what a person states by hand (0.9): another tool's model
# wrote them, and a person curated that file at most.
LISTED_CONFIDENCE = 0.85


class ListedMemories:
    """The extractor for sources that list their memories: no rules, no model."""

    name = "listed"

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]:
        from memory_app.extract.offline import extract_tags  # its rules load on first use

        wanted = {c.key for c in categories}
        items: list[ExtractedItem] = []
        for turn in transcript.turns:
            section, _, content = turn.text.partition(": ")
            category = SECTION_CATEGORIES.get(section)
            if category is None or category not in wanted or not content.strip():
                continue
            of = f" of {transcript.branch}" if transcript.branch else ""
            items.append(
                ExtractedItem(
                    category=category,
                    content=content.strip(),
                    confidence=LISTED_CONFIDENCE,
                    tags=extract_tags(content),
                    context=f"From Puffin's branch memory{of} ({section})",
                    turn_start=turn.position,
                    turn_end=turn.position,
                )
            )
        return items


def listed_extractor(transcript: Transcript) -> ListedMemories | None:
    """The extractor for a transcript whose turns are memories already; None for a
    conversation (the store's extractor reads it)."""
    return ListedMemories() if transcript.source_kind == BRANCH_MEMORY_KIND else None
