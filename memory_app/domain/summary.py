"""Deterministic category summaries in the markdown template of seed 000 §1.3.

Used whenever no LLM is configured, and as the fallback when LLM evolution fails, so a
category always has a readable, truthful summary built only from its items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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
    lines = [f"# {category.name}", ""]
    lines.append(f"**Last Updated:** {_stamp(now)}  ")
    lines.append(f"**Item Count:** {item_count}  ")
    if confidence_range is not None:
        low, high = confidence_range
        lines.append(f"**Confidence Range:** {low:.2f}-{high:.2f}  ")
    else:
        lines.append("**Confidence Range:** —  ")
    review = f"User review at {_stamp(last_review)}" if last_review else "Not reviewed yet"
    lines += [
        f"**Last Review:** {review}",
        "",
        "## Summary",
        "",
        _narrative(category, ranked, item_count),
    ]
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
