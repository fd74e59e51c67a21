"""Category summaries in the markdown template of seed 000 §1.3.

The deterministic summary is used whenever no LLM is configured, and as the fallback when
LLM evolution fails, so a category always has a readable, truthful summary built only
from its items. An evolved summary (seed 000 §2.2, seed 001 §5) comes back from the model
as sections, not markdown: rendering it here keeps one template, and the header figures
(count, confidence range) always come from the store rather than from the model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memory_app.domain.categories import Category
from memory_app.domain.records import MemoryRecord

MAX_FACTS = 50
_TITLE_WORDS = 8


def fact_title(content: str) -> str:
    words = content.rstrip(".").split()
    title = " ".join(words[:_TITLE_WORDS])
    return title + ("…" if len(words) > _TITLE_WORDS else "")


def _rank(item: MemoryRecord) -> tuple[bool, float, int]:
    return (item.pinned, item.confidence * item.importance, item.reinforcement_count)


def _stamp(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else "—"


@dataclass(frozen=True)
class SummaryFact:
    """One key fact of an evolved summary, citing the items it rests on."""

    title: str
    statement: str
    confidence: float
    source_item_ids: tuple[int, ...]


@dataclass(frozen=True)
class SummaryChange:
    """One entry of an evolution's change log (seed 001 §5): what happened and why."""

    action: str  # added | updated | removed | kept
    statement: str
    reason: str
    item_id: int | None = None


CHANGE_ACTIONS = ("added", "updated", "removed", "kept")


@dataclass(frozen=True)
class EvolvedSummary:
    """A category summary merged by a model: its sections and the change log."""

    narrative: str
    facts: tuple[SummaryFact, ...]
    contradictions: tuple[str, ...] = ()
    usage_notes: str = ""
    changes: tuple[SummaryChange, ...] = field(default=())


def _header(
    category: Category,
    now: datetime,
    item_count: int,
    confidence_range: tuple[float, float] | None,
    last_review: datetime | None,
) -> list[str]:
    lines = [f"# {category.name}", ""]
    lines.append(f"**Last Updated:** {_stamp(now)}  ")
    lines.append(f"**Item Count:** {item_count}  ")
    if confidence_range is not None:
        low, high = confidence_range
        lines.append(f"**Confidence Range:** {low:.2f}-{high:.2f}  ")
    else:
        lines.append("**Confidence Range:** —  ")
    review = f"User review at {_stamp(last_review)}" if last_review else "Not reviewed yet"
    lines += [f"**Last Review:** {review}", ""]
    return lines


def render_evolved_summary(
    category: Category,
    summary: EvolvedSummary,
    now: datetime,
    *,
    item_count: int,
    confidence_range: tuple[float, float] | None,
    last_review: datetime | None = None,
) -> str:
    """An evolved summary's markdown, in the same template as the deterministic one."""
    lines = _header(category, now, item_count, confidence_range, last_review)
    lines += ["## Summary", "", summary.narrative.strip(), "", "## Key Facts", ""]
    if not summary.facts:
        lines += ["_No entries yet._", ""]
    for number, fact in enumerate(summary.facts, start=1):
        sources = ", ".join(f"item #{i}" for i in fact.source_item_ids)
        count = len(fact.source_item_ids)
        lines += [
            f"### Fact {number}: {fact.title.strip() or fact_title(fact.statement)}",
            "",
            f"**Statement:** {fact.statement.strip()}",
            "",
            f"**Evidence:** {count} {'item' if count == 1 else 'items'}  ",
            f"**Confidence:** {fact.confidence:.2f}  ",
            f"**Last Updated:** {_stamp(now)}  ",
            f"**Source:** {sources}",
            "",
        ]
    lines += ["## Contradictions and Conflicts", ""]
    contradictions = [c.strip() for c in summary.contradictions if c.strip()]
    lines += [f"- {c}" for c in contradictions] if contradictions else ["_None open._"]
    notes = summary.usage_notes.strip() or category.description
    lines += ["", "## Usage Notes", "", notes, ""]
    return "\n".join(lines)


def render_category_summary(
    category: Category,
    top_items: Sequence[MemoryRecord],
    now: datetime,
    *,
    item_count: int | None = None,
    confidence_range: tuple[float, float] | None = None,
    open_conflicts: Sequence[str] = (),
    last_review: datetime | None = None,
) -> str:
    """The category's summary markdown.

    `top_items` are the strongest active items (at most MAX_FACTS are listed); the count
    and confidence range describe the whole category and default to those of top_items,
    so large categories never have to be loaded whole.
    """
    ranked = sorted(top_items, key=_rank, reverse=True)
    if item_count is None:
        item_count = len(ranked)
    if confidence_range is None and ranked:
        confidence_range = (min(i.confidence for i in ranked), max(i.confidence for i in ranked))
    lines = _header(category, now, item_count, confidence_range, last_review)
    lines += ["## Summary", "", _narrative(category, ranked, item_count)]
    lines += ["", "## Key Facts", ""]
    if not ranked:
        lines += ["_No entries yet._", ""]
    for number, item in enumerate(ranked[:MAX_FACTS], start=1):
        sessions = (
            "1 session"
            if item.reinforcement_count == 0
            else (f"seen {item.reinforcement_count + 1} times")
        )
        source = f"item #{item.id}"
        if item.source_resource_id is not None:
            source += f" (conversation #{item.source_resource_id})"
        lines += [
            f"### Fact {number}: {fact_title(item.content)}",
            "",
            f"**Statement:** {item.content}",
            "",
            f"**Evidence:** {sessions}" + (" · pinned" if item.pinned else "") + "  ",
            f"**Confidence:** {item.confidence:.2f}  ",
            f"**Last Updated:** {_stamp(item.updated_at)}  ",
            f"**Source:** {source}",
            "",
        ]
    if item_count > min(len(ranked), MAX_FACTS):
        more = item_count - min(len(ranked), MAX_FACTS)
        lines += [f"_…and {more} more items in this category._", ""]
    lines += ["## Contradictions and Conflicts", ""]
    lines += [f"- {c}" for c in open_conflicts] if open_conflicts else ["_None open._"]
    lines += ["", "## Usage Notes", "", category.description, ""]
    return "\n".join(lines)


def _narrative(category: Category, ranked: Sequence[MemoryRecord], count: int) -> str:
    if not ranked:
        return f"No {category.name.lower()} have been learnt yet."
    tags = Counter(tag for item in ranked for tag in item.tags)
    topics = ", ".join(tag for tag, _ in tags.most_common(4))
    lead = ranked[0].content.rstrip(".")
    text = f"{count} {'memory' if count == 1 else 'memories'} so far"
    text += f", mostly about {topics}." if topics else "."
    return f"{text} The strongest: “{lead}”."
