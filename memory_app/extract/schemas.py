"""The answers we accept from the model, as pydantic models (seed 000 §2.4).

The same models give the JSON schema sent as the request's structured-output format and
validate the text that comes back, so what we ask for and what we accept cannot drift.
Rules of §2.4: confidences in [0, 1], non-empty content, arrays of any length, no extra
fields, and `no_content_to_extract` only on its own. Beyond the seed, every item may
name its `source_turns` (provenance: which turns it came from) and a few `tags`.

Evolution answers (seed 001 §5) carry the sections of the merged summary and the change
log; facts must cite items that exist.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Sequence
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model, model_validator

from memory_app.domain.categories import Category
from memory_app.domain.summary import EvolvedSummary, SummaryChange, SummaryFact
from memory_app.extract.base import ExtractedItem

Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    confidence: Confidence
    source_turns: list[int] = Field(default_factory=list)
    tags: list[Tag] = Field(default_factory=list, max_length=8)

    def to_item(self, category: str) -> ExtractedItem:
        content, context = self.content_and_context()
        turns = sorted(set(self.source_turns))
        return ExtractedItem(
            category=category,
            content=content,
            confidence=self.confidence,
            tags=tuple(dict.fromkeys(t.lower() for t in self.tags)),
            context=context or None,
            turn_start=turns[0] if turns else None,
            turn_end=turns[-1] if turns else None,
        )

    @abstractmethod
    def content_and_context(self) -> tuple[str, str]:
        """The statement and its context, from whichever fields this category uses."""


class CodingPreference(_Item):
    content: Text
    context: Note

    def content_and_context(self) -> tuple[str, str]:
        return self.content, self.context


class ArchitecturalDecision(_Item):
    content: Text
    rationale: Note
    trade_offs: Note

    def content_and_context(self) -> tuple[str, str]:
        parts = []
        if self.rationale:
            parts.append(f"Rationale: {self.rationale}")
        if self.trade_offs:
            parts.append(f"Trade-offs: {self.trade_offs}")
        return self.content, "; ".join(parts)


class ProjectConvention(_Item):
    content: Text
    scope: Note

    def content_and_context(self) -> tuple[str, str]:
        return self.content, f"Scope: {self.scope}" if self.scope else ""


class BugPattern(_Item):
    pattern: Text
    fix: Note
    occurrences: int = Field(ge=1)

    def content_and_context(self) -> tuple[str, str]:
        # The fix is what makes a bug pattern actionable, so it belongs in the memory.
        content = self.pattern
        if self.fix:
            content = f"{content.rstrip('.')}. Fix: {self.fix}"
        seen = f"seen {self.occurrences} times" if self.occurrences > 1 else ""
        return content, seen


class ImplementationNote(_Item):
    topic: Text
    approach: Text
    lessons_learned: Note

    def content_and_context(self) -> tuple[str, str]:
        return f"{self.topic.rstrip('.:')}: {self.approach}", self.lessons_learned


class GenericItem(_Item):
    """The shape for categories a person added (not in the seed)."""

    content: Text
    context: Note

    def content_and_context(self) -> tuple[str, str]:
        return self.content, self.context


ITEM_MODELS: dict[str, type[_Item]] = {
    "coding_preferences": CodingPreference,
    "architectural_decisions": ArchitecturalDecision,
    "project_conventions": ProjectConvention,
    "bug_patterns": BugPattern,
    "implementation_notes": ImplementationNote,
}


class ExtractionResponseBase(BaseModel):
    """Shared by every per-category-set response model built below."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    no_content_to_extract: bool | None = None

    @model_validator(mode="after")
    def _nothing_means_nothing(self) -> ExtractionResponseBase:
        if self.no_content_to_extract and any(self.category_lists().values()):
            raise ValueError('"no_content_to_extract": true must come with no items')
        return self

    def category_lists(self) -> dict[str, list[_Item]]:
        out: dict[str, list[_Item]] = {}
        for name, info in type(self).model_fields.items():
            if name != "no_content_to_extract":
                out[info.alias or name] = getattr(self, name)
        return out

    def items(self) -> list[ExtractedItem]:
        return [item.to_item(key) for key, found in self.category_lists().items() for item in found]


@cache
def extraction_model(keys: tuple[str, ...]) -> type[ExtractionResponseBase]:
    """The response model for a set of category keys (cached: the schema is sent with every
    request, and the SDK caches its transformation per type)."""
    fields: dict[str, Any] = {}
    for index, key in enumerate(keys):
        model = ITEM_MODELS.get(key, GenericItem)
        # Keys are data (a person may add "ui-notes"), so fields are named by position and
        # aliased to the key, which is what the JSON uses.
        fields[f"category_{index}"] = (list[model], Field(default_factory=list, alias=key))
    return create_model("ExtractionResponse", __base__=ExtractionResponseBase, **fields)


def extraction_model_for(categories: Sequence[Category]) -> type[ExtractionResponseBase]:
    return extraction_model(tuple(c.key for c in categories))


# -- evolution ------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FactModel(_Strict):
    title: Text
    statement: Text
    confidence: Confidence
    source_item_ids: list[int]


class ChangeModel(_Strict):
    action: Literal["added", "updated", "removed", "kept"]
    statement: Text
    item_id: int | None
    reason: Text


class EvolutionResponse(_Strict):
    summary: Text
    key_facts: list[FactModel]
    contradictions: list[Note]
    usage_notes: Note
    changes: list[ChangeModel]

    def to_summary(self, known_item_ids: Collection[int]) -> EvolvedSummary:
        """The evolved summary, with citations limited to items that exist.

        An unknown id in a fact is dropped (the model misremembered one number); a fact
        left citing nothing, or no facts at all for a category that has items, makes the
        whole answer invalid (seed 000 §1.3: each fact references at least one item).
        """
        known = set(known_item_ids)
        facts = []
        for fact in self.key_facts:
            cited = tuple(dict.fromkeys(i for i in fact.source_item_ids if i in known))
            if not cited:
                raise ValueError(f"fact {fact.title!r} cites no existing item")
            facts.append(SummaryFact(fact.title, fact.statement, fact.confidence, cited))
        if known and not facts:
            raise ValueError("the summary lists no key facts although the category has items")
        changes = tuple(
            SummaryChange(
                c.action, c.statement, c.reason, c.item_id if c.item_id in known else None
            )
            for c in self.changes
        )
        return EvolvedSummary(
            narrative=self.summary,
            facts=tuple(facts),
            contradictions=tuple(c for c in self.contradictions if c),
            usage_notes=self.usage_notes,
            changes=changes,
        )
