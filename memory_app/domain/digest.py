"""The deterministic compression of a category's older memories (seed 000 §6.3).

Weekly maintenance folds memories older than 30 days into a short digest kept beside the
category summary: one line per topic (the memories' commonest tag), its strongest
statements and the ids it covers, so the summary stays short while nothing is lost (the
memories themselves stay in the store). With no model it must be stable: the same
memories always give the same digest, so a weekly run with nothing new proposes nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

from memory_app.domain.records import MemoryRecord

MAX_TOPICS = 12
STATEMENTS_PER_TOPIC = 3
MAX_STATEMENT_CHARS = 120
MAX_IDS_SHOWN = 8
OTHER = "other"


def _strength(item: MemoryRecord) -> tuple[float, int, int]:
    return (item.confidence * item.importance, item.reinforcement_count, -item.id)


def _short(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    if len(text) <= MAX_STATEMENT_CHARS:
        return text
    return text[: MAX_STATEMENT_CHARS - 1].rsplit(" ", 1)[0] + "…"


def topics(items: Sequence[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    """Memories grouped by their commonest tag across the set (ties: alphabetical)."""
    counts = Counter(tag for item in items for tag in item.tags)
    grouped: dict[str, list[MemoryRecord]] = defaultdict(list)
    for item in items:
        best = min(item.tags, key=lambda t: (-counts[t], t)) if item.tags else OTHER
        grouped[best].append(item)
    return dict(grouped)


def compress(items: Sequence[MemoryRecord]) -> str:
    """Markdown digest of `items`; empty when there are none."""
    if not items:
        return ""
    grouped = topics(items)
    order = sorted(grouped, key=lambda t: (t == OTHER, -len(grouped[t]), t))
    count = len(items)
    newest: datetime = max(i.extracted_at for i in items)
    lines = [
        f"{count} {'memory' if count == 1 else 'memories'} learnt up to "
        f"{newest:%Y-%m-%d}, by topic:",
        "",
    ]
    for topic in order[:MAX_TOPICS]:
        members = sorted(grouped[topic], key=_strength, reverse=True)
        statements = "; ".join(_short(m.content) for m in members[:STATEMENTS_PER_TOPIC])
        ids = ", ".join(f"#{m.id}" for m in sorted(members, key=lambda m: m.id)[:MAX_IDS_SHOWN])
        more = len(members) - MAX_IDS_SHOWN
        ids += f" and {more} more" if more > 0 else ""
        lines.append(f"- **{topic}** ({len(members)}): {statements}. ({ids})")
    rest = order[MAX_TOPICS:]
    if rest:
        hidden = sum(len(grouped[t]) for t in rest)
        lines.append(f"- …and {len(rest)} more topics ({hidden} memories).")
    return "\n".join(lines) + "\n"
