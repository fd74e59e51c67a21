"""Turning a chat turn into clean prose sentences the offline rules can read.

Real coding conversations are mostly not prose: fenced code, pasted stack traces, file
listings, markdown tables, hook output wrapped in `<system-reminder>` tags and whole skill
documents injected as "user" text. The offline extractor's patterns would happily match
"always" or "prefer" inside any of those, so everything that is not a person's own sentence
is removed here first, line by line, with plain string work (no regex that can backtrack
badly on an 80,000-character transcript).
"""

from __future__ import annotations

import re
from bisect import bisect_left

# Tags Claude Code (and similar tools) wrap injected content in. Their whole block is
# removed; any other lowercase `<tag>...</tag>` block is removed too (see strip_injected).
_OPEN_TAG = re.compile(r"<([a-z][a-z0-9_-]{0,40})(?:\s[^<>\n]{0,200})?>")
_CLOSE_TAG = re.compile(r"</([a-z][a-z0-9_-]{0,40})>")
# Left over after pairing: closing tags, and openers that are clearly machine tags
# (hyphenated like `<system-reminder>`). `<ticket>` in "feature/<ticket>" stays.
_STRAY_TAG = re.compile(
    r"</[a-z][a-z0-9_-]{0,40}>|<[a-z][a-z0-9_]*-[a-z0-9_-]+(?:\s[^<>\n]{0,200})?/?>"
)

# Openings of turns that are machine-written prompts rather than the user's words.
_INJECTED_OPENINGS = (
    "this session is being continued from a previous conversation",
    "your task is to create a detailed summary",
    "caveat: the messages below were generated",
    "base directory for this skill:",
    "please continue the conversation from where we left",
    "[request interrupted",
)
_INSTRUCTION_OPENINGS = ("you are ", "your task is", "you will ", "# ")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.MULTILINE)
_SHOUTED_RULE = re.compile(r"\b(?:MUST|NEVER|ALWAYS|DO NOT|IMPORTANT|CRITICAL|ONLY)\b")
DOCUMENT_MIN_CHARS = 1500
_TRUNCATION_MARK = "[...truncated]"

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_CODE_START = re.compile(
    r"^\s*(?:def \w+\s*\(|async def |class \w+\s*[(:{]|from [\w.]+ import |"
    r"import (?:[\w.]+(?: as \w+)?\s*;?$|\{|\*)|(?:const|let|var) \w+\s*=|function\s*\w*\s*\(|"
    r"export (?:default |const |function |class |type |interface )|return\b.*;$|"
    r"(?:pub )?fn \w+|impl\b|defmodule |defp? \w+|end$|elif |else:|try:|except\b.*:$|"
    r"finally:|#include|package [\w.]+;?$|using [\w.]+;|namespace |select .* from |"
    r"insert into |update \w+ set |delete from |create (?:table|index) |alter table |"
    r"if .*:$|for .* in .*:$|while .*:$|with .*:$|"
    r"\$ |>>> |\.\.\. |//|/\*|\*/|<!--|[})\]]|\{|\|>|@\w+(?:\(|$))",
    re.IGNORECASE,
)
_TRACE_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \".*\", line \d+|at [\w.$<>]+\(|"
    r"[\w.]*(?:Error|Exception)(?::|\s*$)|\*\* \(|== .* ==|\d+\s*[│|]|[│└├┌┐┘┬┴┼─╭╰]|"
    r"warning:|error:|E\s{2,}|FAILED |PASSED |ERROR |\[[\w -]+\]$|\^+$|~+$)"
)
_PATH_ONLY = re.compile(r"^\s*[~./]?[\w@.+-]*(?:/[\w@.+-]+)+/?(?::\d+(?::\d+)?)?\s*$")
_LS_LINE = re.compile(r"^\s*(?:total \d+|[dlrwxs-]{10}[@+.]?\s)")
_URL_ONLY = re.compile(r"^\s*<?https?://\S+>?\s*$")
_SYMBOLS = frozenset("{}[]<>=;$|\\&^~#@%*")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Za-z0-9`\x00])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "resp.")
_SPACES = re.compile(r"\s+")

# Leading filler that carries no meaning ("ok so", "also,", "btw"). Some words only count
# as filler when a comma follows ("no, we always ..." but not "no semicolons").
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|btw|by the way|and|but|oh|fyi|anyway|hmm+|um+|uh+|plus|"
    r"then|one more thing|just so you know|for the record|ah|now)\b[\s,:;.!-]*|"
    r"(?:no|yes|yeah|yep|right|well|great|thanks|thank you|cool|perfect|nice|sure|"
    r"alright|honestly|basically|actually|hey|hi|hello|good catch|nice catch|good point|"
    r"aha|i see|got it|makes sense|true|good question|fair enough|scratch that|wait|"
    r"never mind|nvm)\s*[,:;!.-]+\s*|"
    r"(?:you're|you are) (?:right|correct)(?: that)?[\s,:;!.-]+)",
    re.IGNORECASE,
)
_TRAILING_FILLER = re.compile(
    r"(?:[,;]?\s*(?:thanks|thank you|thx|please|pls|btw|fyi|ok\??|okay\??|!+))+\s*$",
    re.IGNORECASE,
)
# A trailing "..., let me fix that" is narration, not part of the statement.
_TRAILING_NARRATION = re.compile(
    r"(?:[,;:]|\s[—–-])\s*(?:so\s+|and\s+)?(?:let me|let's|i'll|i will|i'm going to)\b.*$",
    re.IGNORECASE,
)
# Tools whose names are spelled in lower case even at the start of a sentence.
# fmt: off
_LOWERCASE_NAMES = frozenset({
    "npm", "pnpm", "npx", "yarn", "pip", "pipx", "uv", "git", "make", "pytest", "ruff", "mypy",
    "eslint", "jest", "vitest", "cargo", "mix", "bd", "gh", "kubectl", "docker-compose",
    "webpack", "vite", "tsc", "node", "deno", "bun", "brew", "apt",
})
# fmt: on
_LONE_I = re.compile(r"(?<![`\w])i(?=\s|'[a-z])")


def normalize_text(text: str) -> str:
    """Straight quotes, Unix newlines, plain spaces: so patterns need only one spelling."""
    return (
        text.replace("\r\n", "\n")
        .replace("\r", "\n")
        .replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u00a0", " ")
    )


def strip_injected(text: str) -> str:
    """Remove `<tag>...</tag>` blocks (system reminders, slash-command echoes, hook output,
    a compaction's `<analysis>`), then any stray tags.

    Closing tags are indexed in one pass and each opener is paired with the next closing
    tag of its name by bisection, never by a backtracking regex: linear in the text. An
    unclosed opener is kept as text unless it is a hyphenated machine tag.
    """
    if "<" not in text:
        return text
    closings: dict[str, list[int]] = {}
    for match in _CLOSE_TAG.finditer(text):
        closings.setdefault(match.group(1), []).append(match.start())
    out: list[str] = []
    pos = 0
    while True:
        opener = _OPEN_TAG.search(text, pos)
        if opener is None:
            out.append(text[pos:])
            break
        name = opener.group(1)
        starts = closings.get(name, [])
        i = bisect_left(starts, opener.end())
        out.append(text[pos : opener.start()])
        if i == len(starts):
            out.append(opener.group(0))
            pos = opener.end()
        else:
            out.append("\n")
            pos = starts[i] + len(name) + 3
    return _STRAY_TAG.sub(" ", "".join(out))


def is_injected_turn(text: str) -> bool:
    """True for turns that a tool wrote in the user's name: skill bodies, compaction
    prompts, "[Request interrupted]" markers and long instruction documents."""
    stripped = text.lstrip()
    head = stripped[:120].lower()
    if head.startswith(_INJECTED_OPENINGS):
        return True
    if len(stripped) < DOCUMENT_MIN_CHARS:
        return False
    headings = len(_HEADING.findall(stripped))
    shouted = len(_SHOUTED_RULE.findall(stripped))
    truncated = stripped.endswith(_TRUNCATION_MARK)
    return (
        headings >= 2
        or (headings >= 1 and (truncated or shouted >= 2))
        or shouted >= 4
        or head.startswith(_INSTRUCTION_OPENINGS)
    )


def _is_code_like(line: str) -> bool:
    """Heuristic: source code, shell, traces, listings, tables, URLs are not prose."""
    stripped = line.strip()
    if not stripped:
        return False
    if _TRACE_LINE.match(stripped) or _PATH_ONLY.match(stripped) or _LS_LINE.match(stripped):
        return True
    if _URL_ONLY.match(stripped) or stripped.startswith("|") or stripped.endswith(("{", ";")):
        return True
    if _CODE_START.match(stripped):
        return True
    prose = _INLINE_CODE.sub("x", stripped)
    symbols = sum(1 for ch in prose if ch in _SYMBOLS)
    letters = sum(1 for ch in prose if ch.isalpha())
    if len(prose) >= 8 and symbols / len(prose) > 0.08:
        return True
    if letters < 0.55 * len(prose):
        return True
    # identifier soup: "foo_bar(baz) -> qux" has few real words
    words = prose.split()
    plain = sum(1 for w in words if w.strip(",.:;!?'\"()").isalpha())
    return len(words) >= 3 and plain < 0.5 * len(words)


def prose_lines(text: str) -> list[str]:
    """The lines of a turn that read as prose, markdown decoration removed.

    Drops fenced blocks (an unclosed fence runs to the end), indented code, headings,
    blockquotes (quoted text is someone else's words), tables, bracket-only notices like
    "[Request interrupted by user]" and anything `_is_code_like`.
    """
    lines: list[str] = []
    in_fence = False
    for raw in text.split("\n"):
        if _FENCE.match(raw):
            in_fence = not in_fence
            lines.append("")
            continue
        if in_fence:
            continue
        bullet = _BULLET.match(raw)
        line = raw.strip()
        indented_code = raw.startswith(("    ", "\t")) and not bullet
        decoration = line.startswith(("#", ">", "---", "===", "***")) or (
            line.startswith("[") and line.endswith("]")
        )
        if not line or indented_code or decoration:
            lines.append("")
            continue
        if bullet:
            line = _BULLET.sub("", line, count=1)
            lines.append("")  # a bullet starts a new unit
        line = _EMPHASIS.sub(r"\2", line)
        if _is_code_like(line):
            lines.append("")
            continue
        lines.append(line)
    return lines


def paragraphs(lines: list[str]) -> list[str]:
    """Join wrapped lines back into paragraphs: a line continues the previous one when
    the previous has no closing punctuation and this one starts in lower case."""
    units: list[str] = []
    current = ""
    for line in lines:
        if not line:
            if current:
                units.append(current)
            current = ""
            continue
        if current and not current.endswith((".", "!", "?", ":")) and line[0].islower():
            current = f"{current} {line}"
        else:
            if current:
                units.append(current)
            current = line
    if current:
        units.append(current)
    return units


def split_sentences(paragraph: str) -> list[str]:
    """Split on sentence punctuation, never inside `inline code` (".then()" or "os.path"
    stay whole because no space follows their dot) nor after "e.g." and friends."""
    codes: list[str] = []

    def _hide(match: re.Match[str]) -> str:
        codes.append(match.group(0))
        return f"\x00{len(codes) - 1}\x00"

    hidden = _INLINE_CODE.sub(_hide, paragraph)
    parts = _SENTENCE_END.split(hidden)
    merged: list[str] = []
    for part in parts:
        if merged and merged[-1].lower().endswith(_ABBREVIATIONS):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    out: list[str] = []
    for part in merged:
        restored = re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], part).strip()
        if restored:
            out.append(restored)
    return out


def sentences(text: str) -> list[str]:
    """All prose sentences of one turn's text, in order."""
    return [s for p in paragraph_sentences(text) for s in p]


def paragraph_sentences(text: str) -> list[list[str]]:
    """The prose sentences of one turn's text, paragraph by paragraph (a list item or a
    line of its own is a paragraph: what it says stands apart from its neighbours)."""
    clean = strip_injected(normalize_text(text))
    return [found for p in paragraphs(prose_lines(clean)) if (found := split_sentences(p))]


def strip_filler(sentence: str) -> str:
    """Remove leading filler ("ok so", "also,", "btw", "and") and trailing "thanks"."""
    text = _SPACES.sub(" ", sentence).strip()
    for _ in range(6):
        new = _FILLER.sub("", text, count=1).lstrip()
        if new == text or not new:
            break
        text = new
    text = _TRAILING_NARRATION.sub("", text)
    return _TRAILING_FILLER.sub("", text).strip()


def clean_content(sentence: str) -> str:
    """A memory's content: the speaker's own words, tidied into one sentence."""
    text = strip_filler(sentence).strip(" -:;,")
    parts = text.split("`")
    text = "`".join(_LONE_I.sub("I", p) if i % 2 == 0 else p for i, p in enumerate(parts))
    first = text.split(" ", 1)[0]
    if text and text[0].isalpha() and first.lower() not in _LOWERCASE_NAMES:
        text = text[0].upper() + text[1:]
    text = text.rstrip(" .!:;,")
    return f"{text}." if text else ""


def normalized_key(text: str) -> str:
    """Lowercase alphanumeric words only: the key near-duplicates are compared on."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def word_count(text: str) -> int:
    return len(text.split())
