"""The answers we accept from the model, as pydantic models (seed 000 §2.4).

The same models give the JSON schema sent as the request's structured-output format and
validate the text that comes back, so what we ask for and what we accept cannot drift.
Rules of §2.4: confidences in [0, 1], non-empty content, arrays of any length, no extra
fields, and `no_content_to_extract` only on its own. Beyond the seed, every item may
name its `source_turns` (provenance: which turns it came from), a few `tags`, and the id
of an existing memory it `updates` (§2.4 evolution: a new value of the same rule); an id
the prompt did not list is dropped, never an error, since the item itself is still good.

Evolution answers (seed 001 §5) carry the sections of the merged summary and the change
log; facts must cite items that exist.

Compression answers (seed 000 §6.3) group a category's older memories into topics that
cite the memories they cover; they are rendered as the same markdown digest the
deterministic `memory_app.domain.digest.compress` writes.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from types import GenericAlias
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model, model_validator

from memory_app.domain.categories import Category
from memory_app.domain.digest import (
    MAX_IDS_SHOWN,
    MAX_STATEMENT_CHARS,
    MAX_TOPICS,
    OTHER,
    STATEMENTS_PER_TOPIC,
)
from memory_app.domain.records import MemoryRecord
from memory_app.domain.summary import EvolvedSummary, SummaryChange, SummaryFact
from memory_app.domain.workflows import (
    CODE_PATTERN,
    MAX_STEP_CHARS,
    MAX_STEPS,
    WORKFLOW,
    pattern_content,
    workflow_content,
)
from memory_app.extract.base import ExtractedItem

Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    memory_type: ClassVar[str | None] = None  # None: the category's default type

    confidence: Confidence
    source_turns: list[int] = Field(default_factory=list)
    tags: list[Tag] = Field(default_factory=list, max_length=8)
    updates: int | None = Field(
        default=None,
        description="The [id] of the existing memory this item gives a new value of",
    )

    def to_item(self, category: str, known_ids: Collection[int] = ()) -> ExtractedItem:
        """The item; `updates` is kept only when it names one of `known_ids` (the
        existing memories the prompt listed)."""
        content, context = self.content_and_context()
        turns = sorted(set(self.source_turns))
        return ExtractedItem(
            category=category,
            content=content,
            confidence=self.confidence,
            type=self.memory_type,
            tags=tuple(dict.fromkeys(t.lower() for t in self.tags)),
            context=context or None,
            turn_start=turns[0] if turns else None,
            turn_end=turns[-1] if turns else None,
            updates=self.updates if self.updates in known_ids else None,
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


Step = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_STEP_CHARS)
]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Language = Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^[\w+#.-]{0,20}$")]
MAX_SNIPPET_CHARS = 1500


class WorkflowItem(_Item):
    """Seed 004's workflow: a named procedure as ordered steps, one short line each."""

    memory_type: ClassVar[str | None] = WORKFLOW
    name: Name
    steps: list[Step] = Field(min_length=2, max_length=MAX_STEPS)

    @model_validator(mode="after")
    def _one_line_steps(self) -> WorkflowItem:
        if any("\n" in step for step in self.steps):
            raise ValueError("each workflow step must be one line")
        return self

    def content_and_context(self) -> tuple[str, str]:
        return workflow_content(self.name, self.steps), ""


class CodePatternItem(_Item):
    """Seed 004's code pattern: a snippet to follow and where it applies."""

    memory_type: ClassVar[str | None] = CODE_PATTERN
    description: Text
    snippet: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SNIPPET_CHARS)]
    language: Language = ""
    applies_to: Note

    @model_validator(mode="after")
    def _plain_snippet(self) -> CodePatternItem:
        if not self.snippet.strip():
            raise ValueError("a code pattern's snippet must not be empty")
        if "```" in self.snippet:
            raise ValueError("a code pattern's snippet is the code itself, without ``` fences")
        return self

    def content_and_context(self) -> tuple[str, str]:
        return pattern_content(self.description, self.snippet, self.language, self.applies_to), ""


# The answer's lists of structured memories beside the category lists, and the categories
# their items are filed in (the first of these the request has).
STRUCTURED_LISTS: dict[str, tuple[type[_Item], tuple[str, ...]]] = {
    "workflows": (WorkflowItem, ("project_conventions",)),
    "code_patterns": (CodePatternItem, ("coding_preferences", "project_conventions")),
}


def structured_targets(keys: Collection[str]) -> dict[str, str]:
    """The structured lists a request with these category keys asks for, each with the
    category its items go to (none when the categories lack one, or a category has the
    list's name)."""
    out: dict[str, str] = {}
    for name, (_, homes) in STRUCTURED_LISTS.items():
        home = next((h for h in homes if h in keys), None)
        if home is not None and name not in keys:
            out[name] = home
    return out


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
    # The structured lists (STRUCTURED_LISTS) this model has, each with its category.
    targets: ClassVar[dict[str, str]] = {}

    @model_validator(mode="after")
    def _nothing_means_nothing(self) -> ExtractionResponseBase:
        lists = {**self.category_lists(), **self.structured_lists()}
        if self.no_content_to_extract and any(lists.values()):
            raise ValueError('"no_content_to_extract": true must come with no items')
        return self

    def category_lists(self) -> dict[str, list[_Item]]:
        out: dict[str, list[_Item]] = {}
        for name, info in type(self).model_fields.items():
            if name != "no_content_to_extract" and name not in self.targets:
                out[info.alias or name] = getattr(self, name)
        return out

    def structured_lists(self) -> dict[str, list[_Item]]:
        return {name: getattr(self, name) for name in self.targets}

    def items(self, known_ids: Collection[int] = ()) -> list[ExtractedItem]:
        """Every item, with `updates` kept only for ids in `known_ids`; workflows and code
        patterns filed in their category."""
        known = frozenset(known_ids)
        listed = [
            item.to_item(key, known)
            for key, found in self.category_lists().items()
            for item in found
        ]
        return listed + [
            item.to_item(self.targets[name], known)
            for name, found in self.structured_lists().items()
            for item in found
        ]


@cache
def extraction_model(keys: tuple[str, ...]) -> type[ExtractionResponseBase]:
    """The response model for a set of category keys (cached: the schema is sent with every
    request, and the SDK caches its transformation per type)."""
    fields: dict[str, Any] = {}
    for index, key in enumerate(keys):
        model = ITEM_MODELS.get(key, GenericItem)
        # Keys are data (a person may add "ui-notes"), so fields are named by position and
        # aliased to the key, which is what the JSON uses.
        # GenericAlias(list, (model,)) is list[model], spelled so for a model held in a variable.
        items = GenericAlias(list, (model,))
        fields[f"category_{index}"] = (items, Field(default_factory=list, alias=key))
    targets = structured_targets(keys)
    for name in targets:
        model = STRUCTURED_LISTS[name][0]
        fields[name] = (GenericAlias(list, (model,)), Field(default_factory=list))
    response = create_model("ExtractionResponse", __base__=ExtractionResponseBase, **fields)
    response.targets = targets
    return response


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


# -- compression ----------------------------------------------------------------------------

TopicName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


class CompressedTopic(_Strict):
    topic: TopicName
    summary: Text
    item_ids: list[int]


class CompressionResponse(_Strict):
    topics: list[CompressedTopic] = Field(min_length=1, max_length=MAX_TOPICS)

    def to_topics(self, items: Sequence[MemoryRecord]) -> list[DigestTopic]:
        """The topics, citing only `items`, with every item covered.

        An unknown id is dropped (the model misremembered one number) and a topic left
        citing nothing is dropped with it; no topic left at all makes the answer invalid.
        Items no topic covers are not worth another request: they end up in a final
        "other" topic built from their own statements, as the deterministic digest does.
        """
        known = {item.id for item in items}
        topics = []
        for topic in self.topics:
            ids = tuple(dict.fromkeys(i for i in topic.item_ids if i in known))
            if ids:
                topics.append(DigestTopic(_topic_name(topic.topic), _sentence(topic.summary), ids))
        if not topics:
            raise ValueError("no topic cites any of the given item ids")
        covered = {i for topic in topics for i in topic.item_ids}
        missing = [item for item in items if item.id not in covered]
        if missing:
            topics.append(other_topic(missing))
        return topics

    def to_digest(self, sent: Sequence[MemoryRecord], left_out: Sequence[MemoryRecord] = ()) -> str:
        """The markdown digest of `sent` (the items in the prompt) and a line about those
        `left_out` of it; raises ValueError (an invalid answer) as `to_topics` does."""
        return render_digest(self.to_topics(sent), [*sent, *left_out], left_out)


@dataclass(frozen=True)
class DigestTopic:
    """One line of a compressed digest: a topic, what its memories say, their ids."""

    topic: str
    summary: str
    item_ids: tuple[int, ...]


def _strength(item: MemoryRecord) -> tuple[float, int, int]:
    # The order of memory_app.domain.digest: strongest first, older ids on ties.
    return (-(item.confidence * item.importance), -item.reinforcement_count, item.id)


def _short(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    if len(text) <= MAX_STATEMENT_CHARS:
        return text
    return text[: MAX_STATEMENT_CHARS - 1].rsplit(" ", 1)[0] + "…"


def _topic_name(text: str) -> str:
    # The name sits between ** markers: stars inside it would break the bold.
    return " ".join(text.replace("*", " ").split()) or OTHER


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def other_topic(items: Sequence[MemoryRecord]) -> DigestTopic:
    """The deterministic topic for items the model left out: their strongest statements."""
    members = sorted(items, key=_strength)
    statements = "; ".join(_short(m.content) for m in members[:STATEMENTS_PER_TOPIC])
    return DigestTopic(OTHER, statements + ".", tuple(sorted(m.id for m in members)))


def id_list(ids: Collection[int]) -> str:
    """Ids as "#3, #8, #9" in id order, at most MAX_IDS_SHOWN of them, then "and N more"."""
    ordered = sorted(set(ids))
    text = ", ".join(f"#{i}" for i in ordered[:MAX_IDS_SHOWN])
    more = len(ordered) - MAX_IDS_SHOWN
    return text + (f" and {more} more" if more > 0 else "")


def render_digest(
    topics: Sequence[DigestTopic],
    items: Sequence[MemoryRecord],
    left_out: Sequence[MemoryRecord] = (),
) -> str:
    """Markdown in the shape of `memory_app.domain.digest.compress`: a first line with how
    many memories up to which date, then one bullet per topic, then how many of `items`
    were left out of the model's prompt (if any)."""
    if not items:
        return ""
    count = len(items)
    newest: datetime = max(i.extracted_at for i in items)
    lines = [
        f"{count} {'memory' if count == 1 else 'memories'} learnt up to "
        f"{newest:%Y-%m-%d}, by topic:",
        "",
    ]
    for topic in topics:
        lines.append(
            f"- **{topic.topic}** ({len(topic.item_ids)}): {topic.summary} "
            f"({id_list(topic.item_ids)})"
        )
    if left_out:
        noun = "memory" if len(left_out) == 1 else "memories"
        lines.append(
            f"- …and {len(left_out)} weaker {noun} left out of the model's prompt "
            f"({id_list([m.id for m in left_out])})."
        )
    return "\n".join(lines) + "\n"
