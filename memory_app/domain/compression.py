"""A memory at four levels of detail (seed 004 "Hierarchical Compression").

Context assembly shows each memory as richly as its tier's budget allows instead of
dropping it, so every memory has, from richest to tersest:

- **full**: its text, whitespace collapsed;
- **summary**: one sentence, the first clause that carries the rule or value (seed 003's
  "summary: compressed representation"), at most ~25 words;
- **compressed**: a keyword form read from the statement's slot and values
  (domain/statements.py), e.g. "tests: pytest fixtures > unittest setUp", at most ~10 words;
- **index**: one line naming the memory, `#12 coding preferences: Use pytest fixtures…`,
  so the assistant knows it exists and can ask for it by id.

The forms are computed from the text, offline and deterministically (nothing is stored:
they follow every edit for free); a small cache keeps repeated assemblies cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memory_app.domain.statements import STOP_WORDS, frame, stem
from memory_app.domain.workflows import CODE_PATTERN, WORKFLOW, parse_pattern, parse_workflow

LEVELS = ("full", "summary", "compressed", "index")
SUMMARY_WORDS = 25
COMPRESSED_WORDS = 10
INDEX_WORDS = 2
_TOPIC_WORDS = 2
_VALUES = 4

# A sentence ends at . ! ? before a capital, digit or quote (not inside "e.g. the").
_SENTENCE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<=[.!?])\s+(?=[A-Z0-9`'\"])")
# Where a clause ends inside a long sentence: a semicolon, a colon, a dash, or a comma
# before a joining word.
_CLAUSE = re.compile(r"\s*(?:;|:\s|\s[-–—]\s|,\s+(?:but|and|so|because|which|since)\s)\s*")
_WORD = re.compile(r"[\w][\w.+#/@'-]*[\w+#]|\w")


@dataclass(frozen=True)
class Forms:
    """One memory's text at each level, richest first."""

    full: str
    summary: str
    compressed: str
    index: str

    def at(self, level: str) -> str:
        if level not in LEVELS:
            raise ValueError(f"unknown compression level {level!r}; one of {', '.join(LEVELS)}")
        text: str = getattr(self, level)
        return text


def forms(item_id: int, category: str, content: str, memory_type: str | None = None) -> Forms:
    """The four forms of memory `item_id` in `category` (its name as people read it); a
    workflow or code pattern (`memory_type`) has forms of its own (structured_forms)."""
    structured = structured_forms(item_id, content, memory_type)
    if structured is not None:
        return structured
    full = " ".join(content.split())
    summary = summarise(full)
    return Forms(
        full=full,
        summary=summary,
        compressed=compress(summary.removesuffix("…")),  # the rule's own sentence
        index=index_line(item_id, category, full),
    )


@lru_cache(maxsize=4096)
def summarise(text: str) -> str:
    """The first sentence that carries a value, cut to its first valued clause when it is
    long, at most SUMMARY_WORDS words."""
    text = " ".join(text.split())
    sentences = [s for s in _SENTENCE.split(text) if s.strip()] or [text]
    chosen = next((s for s in sentences if _carries_value(s)), sentences[0])
    if len(chosen.split()) > SUMMARY_WORDS:
        clauses = [c for c in _CLAUSE.split(chosen) if len(c.split()) >= 3] or [chosen]
        chosen = next((c for c in clauses if _carries_value(c)), clauses[0])
    return _cut(chosen.strip(), SUMMARY_WORDS)


@lru_cache(maxsize=4096)
def compress(text: str) -> str:
    """ "topic: chosen > rejected", in the statement's own spellings and word order; the
    first content words when the statement names no value."""
    text = " ".join(text.split())
    reading = frame(text)
    words = _WORD.findall(text)
    topic = _in_order(words, reading.slot, _TOPIC_WORDS)
    endorsed = _named(reading.names, reading.endorsed, text)
    rejected = _named(reading.names, reading.rejected, text)
    if endorsed and rejected:
        said = " ".join(endorsed) + " > " + " ".join(rejected)
    elif endorsed:
        said = " ".join(endorsed)
    elif rejected:
        said = "not " + " ".join(rejected)
    else:  # no value named: the content words, in order
        content = [w for w in words if w.lower() not in STOP_WORDS]
        return _cut(" ".join(content) or text, COMPRESSED_WORDS)
    body = f"{' '.join(topic)}: {said}" if topic else said
    return _cut(body, COMPRESSED_WORDS)


def index_line(item_id: int, category: str, text: str) -> str:
    """`#12 coding preferences: pytest fixtures…`: enough to know what to ask for. Leading
    words that say nothing ("Use", "For the") are skipped."""
    words = text.split()
    start = next((n for n, w in enumerate(words) if w.lower() not in STOP_WORDS), 0)
    return f"#{item_id} {category}: {_cut(' '.join(words[start:]), INDEX_WORDS)}"


def structured_forms(item_id: int, content: str, memory_type: str | None) -> Forms | None:
    """Seed 004's forms of a workflow (its numbered steps; "release: bump version → tag →
    build"; `#12 workflow: release`) and of a code pattern (its snippet and scope; its
    description; `#12 code pattern: …`), or None when the content is not in that form."""
    if memory_type == WORKFLOW and (flow := parse_workflow(content)) is not None:
        steps = [f"{n}. {step}" for n, step in enumerate(flow.steps, start=1)]
        head = f"{flow.name}: " if flow.name else ""
        return Forms(
            full="\n".join(([f"{flow.name}:"] if flow.name else []) + steps),
            summary=_cut(head + " → ".join(flow.steps), SUMMARY_WORDS),
            compressed=head + " → ".join(_key_words(s) for s in flow.steps),
            index=f"#{item_id} workflow: {_cut(flow.name or flow.steps[0], INDEX_WORDS + 2)}",
        )
    if memory_type == CODE_PATTERN and (pattern := parse_pattern(content)) is not None:
        scope = pattern.applies_to
        code = next((line.strip() for line in pattern.snippet.splitlines() if line.strip()), "")
        described = pattern.description or code
        said = scope.lower() in described.lower()
        fence = f"```{pattern.language}\n{pattern.snippet}\n```"
        return Forms(
            full="\n".join(p for p in (pattern.description, fence) if p)
            + (f"\nApplies to: {scope}" if scope else ""),
            summary=_cut(described, SUMMARY_WORDS)
            + (f" (in {scope})" if scope and not said else ""),
            compressed=f"{scope or 'pattern'}: {_cut(code, COMPRESSED_WORDS - 2)}",
            index=f"#{item_id} code pattern: {_cut(scope or described, INDEX_WORDS + 2)}",
        )
    return None


def _key_words(step: str) -> str:
    """A step in two words: "bump the version" → "bump version"."""
    words = [w for w in step.split() if w.lower() not in STOP_WORDS or w == step.split()[0]]
    return " ".join(words[:2]) or step


def _carries_value(text: str) -> bool:
    return bool(frame(text).values)


def _named(names: dict[str, str], keys: frozenset[str], text: str) -> list[str]:
    """The values as written, in the order the text says them, at most _VALUES."""
    written = [names.get(k, k) for k in keys]
    lowered = text.lower()
    written.sort(key=lambda w: (_position(lowered, w.lower()), w))
    return written[:_VALUES]


def _position(text: str, word: str) -> int:
    at = text.find(word)
    return at if at >= 0 else len(text)


def _in_order(words: list[str], keys: frozenset[str], limit: int) -> list[str]:
    """The first `limit` words of the text whose stem is among `keys`, once each."""
    seen: set[str] = set()
    out: list[str] = []
    for word in words:
        k = stem(word)
        if k in keys and k not in seen and not _describes(word):
            seen.add(k)
            out.append(word.lower())
            if len(out) == limit:
                break
    return out


def _describes(word: str) -> bool:
    """A word that says how or what was done ("strongly", "mentioned"), not what about."""
    low = word.lower()
    return low in STOP_WORDS or low.endswith(("ly", "ed"))


def _cut(text: str, limit: int) -> str:
    words = text.split()
    if len(words) <= limit:
        return text
    return " ".join(words[:limit]).rstrip(",;:.") + "…"
