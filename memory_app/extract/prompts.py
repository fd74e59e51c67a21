"""The prompt templates of seed 000 §2.1–2.3 (kept as text files in `prompts/`) and how
they are filled in: the conversation, the categories, the existing summary, new items.
Beyond §2, `compression.txt` is seed 000 §6.3's `compressItems`: older memories of a
category folded into a digest by topic, and `known_memories.txt` lists existing memories
in the extraction prompt so an answer can say which one a new value `updates` (§2.4
evolution) instead of adding a rival beside it.

Templates are plain text so they can be read and reviewed as prose, diffed, and changed
without touching code. `string.Template` ($name) is used because the prompts are full of
JSON braces that `str.format` would trip over.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from string import Template

from memory_app.domain.categories import Category
from memory_app.domain.records import MemoryRecord
from memory_app.domain.similarity import content_words
from memory_app.extract.base import KnownMemory
from memory_app.extract.schemas import structured_targets

# The existing memories shown with each chunk: enough for the rules a conversation is
# likely to change, bounded so they never crowd out the conversation.
MAX_KNOWN_ITEMS = 60
MAX_KNOWN_CHARS = 6000
KNOWN_CONTENT_CHARS = 300  # one long memory is cut, not left out

# What each item of a category looks like in the answer: the shapes of seed 000 §2.1.
# Categories a person adds use the generic shape.
ITEM_EXAMPLES: dict[str, dict[str, object]] = {
    "coding_preferences": {
        "content": "[Clear, actionable statement]",
        "confidence": 0.85,
        "context": "[Why this matters or how it was mentioned]",
    },
    "architectural_decisions": {
        "content": "[Decision statement]",
        "rationale": "[Why was this chosen]",
        "trade_offs": "[What was given up]",
        "confidence": 0.90,
    },
    "project_conventions": {
        "content": "[Convention description]",
        "scope": "[Where does this apply]",
        "confidence": 0.95,
    },
    "bug_patterns": {
        "pattern": "[Pattern description]",
        "fix": "[How to prevent/fix]",
        "occurrences": 2,
        "confidence": 0.85,
    },
    "implementation_notes": {
        "topic": "[Topic area]",
        "approach": "[Recommended approach]",
        "lessons_learned": "[Key insights]",
        "confidence": 0.88,
    },
}
# Seed 004's workflows and code patterns: lists beside the categories (schemas.py).
STRUCTURED_EXAMPLES: dict[str, dict[str, object]] = {
    "workflows": {
        "name": "[What it does, e.g. release]",
        "steps": ["[First step]", "[Second step]", "[...]"],
        "confidence": 0.85,
    },
    "code_patterns": {
        "description": "[What the pattern is for]",
        "snippet": "[The code to follow, at most 15 lines, without ``` fences]",
        "language": "[python, typescript, ...]",
        "applies_to": "[Where it applies: a module, a file glob, a kind of code]",
        "confidence": 0.85,
    },
}
GENERIC_EXAMPLE: dict[str, object] = {
    "content": "[Clear, actionable statement]",
    "confidence": 0.85,
    "context": "[Why this matters or how it was mentioned]",
}


@cache
def template(name: str) -> str:
    """A prompt file's text, from the installed package (works in a wheel and a checkout)."""
    return resources.files("memory_app.extract").joinpath("prompts", name).read_text("utf-8")


@cache
def category_guides() -> dict[str, str]:
    """The seed's section for each default category, keyed by category key."""
    guides: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in template("extraction_categories.txt").splitlines():
        if line.startswith("[") and line.rstrip().endswith("]"):
            current = guides.setdefault(line.strip()[1:-1], [])
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines).strip() for key, lines in guides.items()}


def system_prompt() -> str:
    """The edge-case instructions of seed 000 §2.3, sent with every extraction request:
    an empty conversation answers `no_content_to_extract`, unclear items get a lower
    confidence instead of being invented or silently dropped."""
    return template("edge_empty.txt").strip() + "\n\n" + template("edge_unclear.txt").strip()


def categories_section(categories: Sequence[Category]) -> str:
    guides = category_guides()
    parts = []
    for category in categories:
        guide = guides.get(category.key)
        if guide is None:
            guide = f"### {category.name}\n{category.description}"
        parts.append(f"{guide}\n(JSON key: `{category.key}`)")
    return "\n\n".join(parts)


def response_format(categories: Sequence[Category]) -> str:
    shape: dict[str, list[dict[str, object]]] = {
        c.key: [ITEM_EXAMPLES.get(c.key, GENERIC_EXAMPLE)] for c in categories
    }
    for name in structured_targets([c.key for c in categories]):
        shape[name] = [STRUCTURED_EXAMPLES[name]]
    return json.dumps(shape, indent=2, ensure_ascii=False)


def structured_note(categories: Sequence[Category]) -> str:
    """What the prompt says of the workflow and code-pattern lists, when it has them."""
    if not structured_targets([c.key for c in categories]):
        return ""
    return template("structured.txt").strip() + "\n\n"


def known_line(memory: KnownMemory) -> str:
    """One existing memory as the prompt lists it: `[id] (category) content`."""
    content = " ".join(memory.content.split())
    if len(content) > KNOWN_CONTENT_CHARS:
        content = content[: KNOWN_CONTENT_CHARS - 1].rstrip() + "…"
    return f"[{memory.id}] ({memory.category}) {content}"


def select_known(
    known: Sequence[KnownMemory],
    text: str,
    *,
    max_items: int = MAX_KNOWN_ITEMS,
    max_chars: int = MAX_KNOWN_CHARS,
) -> list[KnownMemory]:
    """The existing memories to show with `text` (a chunk), most relevant first.

    Relevance is the number of content words a memory shares with the chunk: cheap, and
    a rule the chunk changes nearly always shares its subject words with it. Ties keep
    the caller's order (the strongest memories first). At most `max_items` lines and
    `max_chars` characters."""
    words = content_words(text)
    ranked = sorted(
        enumerate(known), key=lambda pair: (-len(content_words(pair[1].content) & words), pair[0])
    )
    chosen: list[KnownMemory] = []
    size = 0
    seen: set[int] = set()
    for _, memory in ranked:
        if len(chosen) >= max_items:
            break
        if memory.id in seen:
            continue
        line = len(known_line(memory)) + 1
        if size + line > max_chars:
            continue  # a shorter one further down may still fit
        chosen.append(memory)
        seen.add(memory.id)
        size += line
    return chosen


def known_section(known: Sequence[KnownMemory], total: int | None = None) -> str:
    """The "Existing Memories" part of the extraction prompt; empty without memories.
    `total`: how many there were when only the most relevant are shown."""
    if not known:
        return ""
    note = ""
    if total is not None and total > len(known):
        note = (
            f"These are {len(known)} of the {total} stored memories: those sharing the most "
            "words with this conversation.\n"
        )
    return Template(template("known_memories.txt")).substitute(
        known_note=note, known_memories="\n".join(known_line(m) for m in known)
    )


def extraction_prompt(
    conversation: str,
    categories: Sequence[Category],
    *,
    part: int = 1,
    parts: int = 1,
    known: Sequence[KnownMemory] = (),
    known_total: int | None = None,
) -> str:
    """The extraction prompt for one chunk; `known` are the existing memories it shows
    (already selected, see `select_known`), out of `known_total`."""
    note = ""
    if parts > 1:
        note = (
            f"This is part {part} of {parts} of a long conversation; extract what this part "
            "supports on its own.\n"
        )
    return Template(template("extraction.txt")).substitute(
        part_note=note,
        conversation=conversation,
        categories=categories_section(categories),
        known_section=known_section(known, known_total),
        response_format=response_format(categories),
        structured_note=structured_note(categories),
    )


def retry_note(error: str) -> str:
    return Template(template("retry.txt")).substitute(error=error)


def item_for_prompt(item: MemoryRecord) -> dict[str, object]:
    data: dict[str, object] = {
        "id": item.id,
        "content": item.content,
        "confidence": round(item.confidence, 2),
        "type": item.type,
        "seen": item.reinforcement_count + 1,
        "extracted_at": item.extracted_at.strftime("%Y-%m-%d"),
    }
    if item.tags:
        data["tags"] = list(item.tags)
    if item.context:
        data["context"] = item.context
    return data


def evolution_prompt(
    category: Category, current_markdown: str, new_items: Sequence[MemoryRecord], max_facts: int
) -> str:
    items = json.dumps([item_for_prompt(i) for i in new_items], indent=2, ensure_ascii=False)
    return Template(template("evolution.txt")).substitute(
        category_name=category.name,
        category_description=category.description,
        current_summary=current_markdown.strip(),
        new_items=items,
        max_facts=max_facts,
    )


def compression_item(item: MemoryRecord) -> dict[str, object]:
    """What the compression prompt shows of one memory (seed 000 §6.3)."""
    return {
        "id": item.id,
        "content": item.content,
        "confidence": round(item.confidence, 2),
        "importance": round(item.importance, 2),
        "tags": list(item.tags),
        "date": item.extracted_at.strftime("%Y-%m-%d"),
    }


def compression_item_chars(item: MemoryRecord) -> int:
    """How many characters one memory adds to the compression prompt's JSON list: its
    object indented one level deeper than on its own, and the separator after it."""
    text = json.dumps(compression_item(item), indent=2, ensure_ascii=False)
    return len(text) + 2 * (text.count("\n") + 1) + 2


def compression_prompt(
    category: Category,
    items: Sequence[MemoryRecord],
    max_topics: int,
    *,
    total: int | None = None,
) -> str:
    """The prompt asking for a digest of `items`; `total` is how many memories the
    category had to compress when only the strongest of them are sent."""
    note = ""
    if total is not None and total > len(items):
        note = (
            f"These are the {len(items)} strongest of {total} older memories of this category "
            "(by confidence and importance); compress only these.\n"
        )
    data = json.dumps([compression_item(i) for i in items], indent=2, ensure_ascii=False)
    return Template(template("compression.txt")).substitute(
        category_name=category.name,
        category_description=category.description,
        items_note=note,
        items=data,
        max_topics=max_topics,
    )
