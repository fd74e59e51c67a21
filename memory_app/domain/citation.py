"""Did the assistant use a memory it was given? Seed 004's usage tracker, judged offline.

A memory counts as cited when the assistant's answer after the injection names it
(`#12`, as the injected lines show ids), uses a name from its code (`math.prod`,
`snake_case`) or says what it says: at least half of the memory's content words, and
two or more of them, appear in the answer. Words the prompt
itself used are left out of that count when the memory has others, because an answer
echoes its prompt whether or not the memory helped. Words are compared after the light
stem statements.py uses ("tests", "tested" and "testing" are one word).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from memory_app.domain.statements import STOP_WORDS, stem
from memory_app.domain.transcripts import Transcript

PENDING = "pending"  # not judged yet: the session's transcript has not arrived
CITED = "cited"
IGNORED = "ignored"
REUSED = "reused"  # given again by the topic window: not a new injection, not judged
VERDICTS = (PENDING, CITED, IGNORED, REUSED)

MIN_SHARE = 0.5
MIN_WORDS = 2
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# A dotted or snake_case name, a camelCase one, or a call.
_CODE = re.compile(r"\b(?:\w+[._]\w[\w.]*|[a-z]+[A-Z]\w*|\w+\(\))", re.UNICODE)


def content_words(text: str) -> set[str]:
    """The stems of the words that carry meaning: no stop words, nothing under 3 letters
    (identifiers split at `_`, `.` and `-`, so `snake_case` is two words)."""
    return {
        stem(_adverb(w)) for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in STOP_WORDS
    }


def code_names(text: str) -> set[str]:
    """Names only code uses (`math.prod`, `snake_case`, `camelCase`, `run()`): one of
    them in the answer is evidence on its own."""
    return {m.rstrip(".") for m in _CODE.findall(text) if len(m) >= 4}


def is_cited(item_id: int, memory: str, answer: str, prompt: str | None = None) -> bool:
    if re.search(rf"#{item_id}\b", answer):
        return True
    names = code_names(memory) - (code_names(prompt) if prompt else set())
    if any(name in answer for name in names):
        return True
    words = content_words(memory)
    if prompt:
        novel = words - content_words(prompt)
        if len(novel) >= MIN_WORDS:
            words = novel
    if not words:
        return False
    used = words & content_words(answer)
    return len(used) >= min(MIN_WORDS, len(words)) and len(used) >= MIN_SHARE * len(words)


def _adverb(word: str) -> str:
    """ "iteratively" → "iterative": stem() leaves adverbs whole."""
    return word[:-2] if word.endswith("ly") and len(word) > 6 else word


def verdicts(
    memories: Iterable[tuple[int, str]], answer: str, prompt: str | None = None
) -> dict[int, str]:
    """CITED or IGNORED for each (id, content) given before `answer`."""
    return {
        item_id: CITED if is_cited(item_id, content, answer, prompt) else IGNORED
        for item_id, content in memories
    }


# The hook runs as the prompt is submitted; the transcript's record of the prompt is
# written within moments of it, before or after.
PROMPT_CLOCK_SLACK = timedelta(minutes=2)


def exchange_after(
    transcript: Transcript, at: datetime, event: str
) -> tuple[str | None, str] | None:
    """(the prompt, the assistant's answer to it) for an injection at `at`: for a prompt,
    the user's message nearest that time and everything the assistant said or ran until
    the next message of the user; for a session start, all the assistant did after it.
    None while the transcript holds no answer yet (judged when it grows)."""
    timed = [(t.timestamp, t) for t in transcript.turns if t.timestamp is not None]
    if event == "SessionStart":
        said = [t.text for when, t in timed if t.speaker == "assistant" and when >= at]
        return (None, "\n".join(said)) if said else None
    prompts = [
        (abs(when - at), i)
        for i, (when, t) in enumerate(timed)
        if t.speaker == "user" and t.kind == "message" and abs(when - at) <= PROMPT_CLOCK_SLACK
    ]
    if not prompts:
        return None
    _, start = min(prompts)
    answer = []
    for _, turn in timed[start + 1 :]:
        if turn.speaker == "user" and turn.kind == "message":
            break
        if turn.speaker == "assistant":
            answer.append(turn.text)
    return (timed[start][1].text, "\n".join(answer)) if answer else None
