"""How two statements relate, weighed from many small signals rather than one rule.

The frame reading (domain/statements.py) finds slots, values and stances; alone, its
rules either miss wording they were not written for ("sessions now expire after 15
minutes" after "the session timeout is 30 minutes") or fire on parallel rules about
different things ("unit tests use Vitest" / "end-to-end tests use Playwright"). Here
each signal (semantic similarity, shared and swapped values, numbers, topic words each
side lacks, stances, a change cue, the rules' own reading) is a feature of a small
multinomial logistic model with three answers: the same rule said again, a conflict
(an update or a contradiction), or compatible.

The weights (pair_weights.json) are fitted by `python -m benchmarks.train_pairs` on the
quality benchmark's development pairs only; the frozen test pairs are never read for
it. Inference is a few dozen multiplications in pure Python, so it runs on every write.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from memory_app.conflicts import semantic
from memory_app.domain.statements import (
    SAME_SLOT,
    STOP_WORDS,
    TOKEN,
    Frame,
    frame,
    relate,
    said_for_and_against,
    says_change_over_time,
    slot_overlap,
    stem,
    topic_words,
    value_key,
    value_like,
    word_overlap,
)
from memory_app.extract.directives import VERBS

ANSWERS = ("same", "conflict", "compatible")
WEIGHTS_FILE = Path(__file__).with_name("pair_weights.json")

# fmt: off
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
    "once": 1, "twice": 2, "single": 1, "half": 0.5,
}
# fmt: on
_NUMBER = re.compile(r"(?<![\w.+])(\d+(?:\.\d+)?)(?=[a-zA-Z%]*\b)")
_WORD = re.compile(r"[A-Za-z][\w'-]*")
# "use X not Y", "X over Y": a sentence that names what it is against.
_NEGATION = re.compile(
    r"\b(?:never|don'?t|do not|not|no|avoid|without|no longer|stop|forbidden|banned)\b", re.I
)


# A time of day, 12- or 24-hour ("2pm", "2:30 p.m.", "14:00"), compared as minutes.
_TIME = re.compile(
    r"(?<![\w:.])(?P<hour>\d{1,2})(?::(?P<minute>[0-5]\d))?\s*(?P<half>[ap])\.?m\.?(?!\w)|"
    r"(?<![\w:.])(?P<hour24>[01]?\d|2[0-3]):(?P<minute24>[0-5]\d)(?![\w:])",
    re.IGNORECASE,
)


def _minutes(found: re.Match[str]) -> int:
    if found["hour24"] is not None:
        return int(found["hour24"]) * 60 + int(found["minute24"])
    hour = int(found["hour"]) % 12 + (12 if found["half"].lower() == "p" else 0)
    return hour * 60 + int(found["minute"] or 0)


# A length of time with its unit ("500 ms", "0.5 seconds", "a five-second timeout").
_DURATION = re.compile(
    r"(?<![\w.])(?:(?P<digits>\d+(?:\.\d+)?)[\s-]?|(?P<word>[a-z]+)[\s-])(?P<unit>ms|msecs?|"
    r"milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|"
    r"quarters?|years?)(?!\w)",
    re.IGNORECASE,
)
_MONTH = 2592000
# Seconds in a unit of time, by its name; a spelling is read by its first letter after
# "ms", "mi(n)" and "mo" (see _in_seconds).
_UNIT_SECONDS = {
    "second": 1, "minute": 60, "hour": 3600, "day": 86400, "night": 86400, "week": 604800,
    "month": _MONTH, "quarter": 3 * _MONTH, "year": 31536000,
}  # fmt: skip
# How often, said in one word or as "every <unit>": the period between two times.
_PERIOD_WORDS = {
    word: _UNIT_SECONDS[unit] * times
    for word, unit, times in (
        ("hourly", "hour", 1), ("daily", "day", 1), ("nightly", "night", 1),
        ("weekly", "week", 1), ("fortnightly", "week", 2), ("biweekly", "week", 2),
        ("monthly", "month", 1), ("quarterly", "quarter", 1), ("yearly", "year", 1),
        ("annually", "year", 1),
    )
}  # fmt: skip
_PERIOD = re.compile(
    r"\b(?:(?P<word>" + "|".join(_PERIOD_WORDS) + r")|every\s+(?P<unit>hour|day|night|week|"
    r"month|quarter|year))\b",
    re.IGNORECASE,
)


def _in_seconds(unit: str) -> float:
    """Seconds in a unit of time however it is spelled ("ms", "secs", "min", "hrs",
    "months", "quarter")."""
    unit = unit.lower()
    if unit.startswith(("ms", "milli")):
        return 0.001
    if unit.startswith("mi"):
        return _UNIT_SECONDS["minute"]
    if unit.startswith("mo"):
        return _UNIT_SECONDS["month"]
    return next(seconds for name, seconds in _UNIT_SECONDS.items() if name[0] == unit[0])


def _period(found: re.Match[str]) -> str:
    if found["word"]:
        return f" {_PERIOD_WORDS[found['word'].lower()]}s "
    return f" {_UNIT_SECONDS[found['unit'].lower()]}s "


# "four hundred", "two thousand": a number word times its scale.
_SCALE = {"hundred": 100, "thousand": 1000}
_SCALED = re.compile(r"\b(?P<amount>[a-z]+)[\s-]+(?P<scale>hundred|thousand)\b", re.IGNORECASE)


def _seconds(found: re.Match[str]) -> str:
    amount = _as_number((found["digits"] or found["word"]).lower())
    if amount is None:
        return found.group(0)
    return f" {_plain(amount * _in_seconds(found['unit']))}s "


def _plain(number: float) -> str:
    """A number in digits without an exponent: 34560000, 0.5."""
    return f"{number:.3f}".rstrip("0").rstrip(".")


# "half past nine", "quarter past ten": a time of day in words, read on a 24-hour clock.
_TIME_IN_WORDS = re.compile(
    r"\b(?P<part>half|quarter)\s+(?P<side>past|to)\s+(?P<hour>[a-z]+|\d{1,2})\b", re.IGNORECASE
)
# "half an hour", "an hour", "a day": a length of time with no digits.
_HALF_OF = re.compile(r"\bhalf\s+an?\s+(?=(?:hour|minute|day|week|second)\b)", re.IGNORECASE)
_ONE_OF = re.compile(r"\ban?\s+(?=(?:hour|minute|day|week)\b)", re.IGNORECASE)
# "once per 500 steps", "once a day": how often, not a quantity of one.
_ONCE_PER = re.compile(r"\bonce\s+(?=(?:per|every|a|an|each)\b)", re.IGNORECASE)


def _time_in_words(found: re.Match[str]) -> str:
    hour = _as_number(found["hour"].lower())
    if hour is None or not 0 < hour <= 24:
        return found.group(0)
    minutes = 30 if found["part"].lower() == "half" else 15
    if found["side"].lower() == "to":
        minutes, hour = 60 - minutes, hour - 1
    return f" t{int(hour) % 24 * 60 + minutes} "


# "ten in the morning", "seven in the evening", "9 o'clock", "noon": a time of day said
# with no digits or no am/pm.
_HOUR_OF_DAY = re.compile(
    r"\b(?P<hour>[a-z]+|\d{1,2})\s+(?:(?P<oclock>o'?clock)|in\s+the\s+"
    r"(?P<part>morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_NOON = re.compile(r"\b(?P<word>noon|midday|midnight)\b", re.IGNORECASE)


def _hour_of_day(found: re.Match[str]) -> str:
    hour = _as_number(found["hour"].lower())
    if hour is None or hour != int(hour) or not 1 <= hour <= 12:
        return found.group(0)
    afternoon = (found["part"] or "").lower() in ("afternoon", "evening")
    return f" t{(int(hour) % 12 + (12 if afternoon else 0)) * 60} "


def with_times_named(text: str) -> str:
    """The text with each time of day and each length of time written one way ("2pm",
    "14:00", "half past two" → "t840"...; "500 ms", "0.5 seconds" → "0.5s"; "half an
    hour" → "1800s"; "four hundred" → "400"), so a quantity is one value however it is
    written."""
    text = _TIME.sub(lambda m: f" t{_minutes(m)} ", text)
    text = _TIME_IN_WORDS.sub(_time_in_words, text)
    text = _HOUR_OF_DAY.sub(_hour_of_day, text)
    text = _NOON.sub(lambda m: " t0 " if m["word"].lower() == "midnight" else " t720 ", text)
    text = _HALF_OF.sub("0.5 ", text)
    text = _ONE_OF.sub("1 ", text)
    text = _ONCE_PER.sub("", text)
    text = _SCALED.sub(
        lambda m: (
            _plain(_NUMBER_WORDS[m["amount"].lower()] * _SCALE[m["scale"].lower()])
            if m["amount"].lower() in _NUMBER_WORDS
            else m.group(0)
        ),
        text,
    )
    return _DURATION.sub(_seconds, text)


def numbers(text: str) -> frozenset[float]:
    """The quantities a statement names, digits or words ("fifty lines", "512MB"); a
    time of day is one quantity, its minutes since midnight; how often ("quarterly",
    "every month") is one, the seconds between two times."""
    text = with_times_named(text)  # a time becomes "t840", which no number pattern reads
    text = _PERIOD.sub(_period, text)  # how often: "quarterly", "every month"
    times = {float(t) for t in re.findall(r"(?<![\w.])t(\d+)(?!\w)", text)}
    found = {float(n) for n in _NUMBER.findall(text)} | times
    found |= {
        float(_NUMBER_WORDS[w.lower()]) for w in _WORD.findall(text) if w.lower() in _NUMBER_WORDS
    }
    return frozenset(found)


def _as_number(value: str) -> float | None:
    """The quantity a value names ("3", "three"), if it is one."""
    if value in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[value])
    try:
        return float(value)
    except ValueError:
        return None


def named_values(text: str) -> frozenset[str]:
    """Every name-like token (identifier, literal, number, a capitalized word after the
    first), lowercased, stop words or not: "the suffix Repository" names a value even
    though "repository" is a common word in the slot reading."""
    tokens = TOKEN.findall(with_times_named(text))
    return frozenset(
        value_key(t) or t.lower() for n, t in enumerate(tokens) if value_like(t, first=n == 0)
    )


_PIECE = re.compile(r"[a-z]+|\d+")
_QUALIFIED = re.compile(r"\.|::|/")


def _pieces(text: str) -> list[str]:
    """Letters and digits in runs, lowercased: "512MB" and "512 MB" both give 512, mb."""
    return _PIECE.findall(text.lower())


_CAPITALS = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|\d+")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9]*")


@lru_cache(maxsize=4096)
def _abbreviates(value: str, other_text: str) -> bool:
    """Is the value a short form of words the other statement spells out: their
    initials ("TS" / "TypeScript", "TMP" / "TextMeshPro", "VM" / "view model") or a
    numeronym ("k8s" / "Kubernetes")?"""
    short = value.lower()
    numeronym = re.fullmatch(r"([a-z])(\d{1,2})([a-z])", short)
    words = _WORDS.findall(other_text)
    if numeronym:
        first, middle, last = numeronym.groups()
        return any(
            len(w) == int(middle) + 2 and w.lower()[0] == first and w.lower()[-1] == last
            for w in words
        )
    if not (2 <= len(short) <= 5 and short.isalpha()):
        return False
    lowered = [w.lower() for w in words]
    for n in range(len(words)):
        parts = _CAPITALS.findall(words[n])
        if len(parts) == len(short) and "".join(p[0].lower() for p in parts) == short:
            return True  # TypeScript, TextMeshPro
        run = lowered[n : n + len(short)]
        if (
            len(run) == len(short)
            and "".join(w[0] for w in run) == short
            and not STOP_WORDS.intersection(run)
        ):
            return True  # view model, not "the service" for "ts"
    return False


def _covered(value: str, other_values: frozenset[str], other_text: str) -> bool:
    """Does the other statement name this value too, written another way: split or
    joined ("512 MB" / "512MB", "utf8" / "UTF-8"), qualified ("Stop()" /
    "ticker.Stop()", "OnPush" / "ChangeDetectionStrategy.OnPush") or abbreviated ("TS"
    / "TypeScript")?"""
    mine = "".join(_pieces(with_times_named(value)))
    if not mine:
        return True
    if _abbreviates(value, other_text):
        return True
    theirs = _pieces(other_text)
    for start in range(len(theirs)):
        joined = ""
        for piece in theirs[start : start + 4]:
            joined += piece
            if joined == mine:
                return True
            if len(joined) >= len(mine):
                break
    parts = [p for p in _QUALIFIED.split(value) if p]
    for other in other_values:
        other_parts = [p for p in _QUALIFIED.split(other) if p]
        shorter, longer = sorted((parts, other_parts), key=len)
        ends = (longer[: len(shorter)], longer[-len(shorter) :])
        if len(longer) > 1 and shorter and shorter in ends:
            return True
    return False


def uncovered_values(text: str, other: str) -> frozenset[str]:
    """The values `text` names that `other` does not name in any writing."""
    mine, theirs = named_values(text), named_values(other)
    other_text = with_times_named(other)
    left = {v for v in mine - theirs if not _covered(v, theirs, other_text)}
    if not left:
        return frozenset()
    return frozenset(left - _one_name_with(text, theirs, other_text))


def _one_name_with(text: str, theirs: frozenset[str], other_text: str) -> set[str]:
    """Values that are part of one name the other statement also says: written as
    two words on this side and one on the other ("Argo CD" / "argocd"), or a maker or
    qualifier before a name both say ("Microsoft Teams" / "Teams"; not "Google Meet" /
    "Google Chat", whose names differ)."""
    tokens = TOKEN.findall(with_times_named(text))
    keys = [value_key(t) or t.lower() for t in tokens]
    their_words = set(_pieces(other_text))
    bare = _bare_names(other_text)
    covered: set[str] = set()
    for n in range(len(tokens) - 1):
        if not (value_like(tokens[n], first=n == 0) and value_like(tokens[n + 1], first=False)):
            continue
        joined = "".join(_pieces(tokens[n]) + _pieces(tokens[n + 1]))
        if joined in their_words:
            covered |= {keys[n], keys[n + 1]}
        elif keys[n + 1] in bare and tokens[n][:1].isupper():
            covered.add(keys[n])
    return covered


def _bare_names(text: str) -> set[str]:
    """The values a statement says with no other name right before them: "Teams" in
    "our standup: Teams", not "CD" in "Flux CD"."""
    tokens = TOKEN.findall(text)
    return {
        value_key(t) or t.lower()
        for n, t in enumerate(tokens)
        if value_like(t, first=n == 0) and not (n and value_like(tokens[n - 1], first=n == 1))
    }


# The subject of a rule stated as a fact: "Unit tests use ...", "Python services run on".
# A word of a subject: "next.js" is one, "2s." ends a sentence.
_SUBJECT_WORD = r"[\w+#/-]+(?:\.[\w+#/-]+)*"
_SUBJECT = re.compile(
    r"^(?:(?:the|our|all|every|each|any|new|in|for)\s+)?(?P<subject>(?:"
    + _SUBJECT_WORD
    + r"\s+){0,3}?"
    + _SUBJECT_WORD
    + r")\s+(?:is|are|must|should|use|uses|run|runs|get|gets|go|goes|end|ends|start|"
    r"starts|live|lives|have|has|need|needs|stay|stays|can|cannot|can't|don't|never|always|"
    r"only|happen|happens|belong|belongs|time|times|follow|follows|come|comes)\b",
    re.IGNORECASE,
)


# Or any instruction verb said of it: "Liveness probes check only the process".
def _third_person(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s")


_SUBJECT_OF_VERB = re.compile(
    r"^(?:(?:the|our|all|every|each|any|new)\s+)?(?:"
    # one thing and its verb ("The worker retries ..."), or many and theirs ("Liveness
    # probes check ...")
    r"(?P<subject>(?:"
    + _SUBJECT_WORD
    + r"\s+){0,2}?"
    + _SUBJECT_WORD
    + r")\s+(?:may|might|will|would|could|shall|"
    + "|".join(sorted(_third_person(v) for v in VERBS))
    + r")|(?P<many>(?:"
    + _SUBJECT_WORD
    + r"\s+){0,2}?[\w+#/-]*\ws)\s+(?:"
    + "|".join(sorted(VERBS))
    + r"))\b",
    re.IGNORECASE,
)
_NOT_A_SUBJECT = frozenset(
    "we i you they it this that there he she everyone please pls plz kindly".split()
)


# A clause that opens with these sets a condition or a time, not the rule's subject.
_SUBORDINATORS = frozenset("when whenever if once after before while since because unless".split())
_DETERMINERS = frozenset("every each all the a an any your our their its this these those".split())


# "Rust CLI: unit tests sit next to the code": the label names the scope, the subject
# follows it.
_LABEL = re.compile(r"^[\w .+#/-]{1,30}:\s+(?=\S)")


def _subject_match(text: str) -> tuple[re.Match[str] | None, str]:
    """Where the subject and its verb are, in the text without its label or scope."""
    text = _LABEL.sub("", text.strip(), count=1)
    text = _SCOPE.sub("", text, count=1).strip()  # "In the Rust CLI, the sync command ..."
    return _SUBJECT.match(text) or _SUBJECT_OF_VERB.match(text), text


def _subject_stems(text: str) -> tuple[str, ...]:
    found, text = _subject_match(text)
    if found is None:
        return ()
    words = (found["subject"] or found.groupdict().get("many") or "").lower().split()
    if not words:
        return ()
    if words[0] in _NOT_A_SUBJECT or words[0] in _SUBORDINATORS:
        return ()
    if words[0] in VERBS and (len(words) == 1 or words[1] in _DETERMINERS):
        return ()  # an imperative: "Wrap every Go error ...", "Make always OnPush ..."
    # "Calls to third-party APIs": the head noun is the one before the preposition; it
    # goes last, as in "internal service calls".
    cut = next((n for n, w in enumerate(words) if w in _PREPOSITIONS), len(words))
    if 0 < cut < len(words) - 1:
        words = words[cut + 1 :] + words[:cut]
    return tuple(stem(w) for w in words if w not in STOP_WORDS)


_PREPOSITIONS = frozenset("to of for on in from at under inside within against".split())
# Words between a subject and its verb: "tests must always be written with ...".
_AUXILIARIES = frozenset(
    "is are be must should can cannot can't don't never always only will would may might "
    "could shall not also all get gets".split()
)


def main_verb(text: str) -> str | None:
    """The stem of what a fact-shaped rule says its subject does ("Go services *log*
    with slog", "tickets are *tracked* in Jira"), "be" for a plain state ("base images
    are alpine"), None without a subject."""
    if not _subject_stems(text):
        return None
    found, text = _subject_match(text)
    assert found is not None
    said = found.group(0).split()[-1].lower()
    if said not in _AUXILIARIES:
        return stem(said)
    for word in text[found.end() :].lower().split()[:3]:
        word = word.strip(".,;:!?")
        if word in _AUXILIARIES:
            continue
        return stem(word) if word in VERBS or word.endswith(("ed", "en")) else "be"
    return "be"


def subject(text: str) -> frozenset[str]:
    """The stems of what a fact-shaped rule is about, empty when it has no such subject
    ("we use...", "use ...")."""
    return frozenset(_subject_stems(text))


# Qualifiers that do not tell one kind of thing from another ("new staging models").
_PLAIN_QUALIFIERS = frozenset(stem(w) for w in "new all every each any our the other".split())


def parallel(older: str, newer: str) -> bool:
    """Two rules about different kinds of one thing: the same head noun, each side
    with a qualifier the other lacks ("unit tests" / "end-to-end tests", "Python code"
    / "TypeScript code", "timestamp columns" / "boolean columns"), as the subject or
    as the scope said first ("In the billing service, ..." / "In the notifications
    service, ..."), or as a label ("Billing worker: ..." / "Notification worker: ...").
    One slot narrowed ("component files" / "React component files") is not parallel."""
    sa, sb = _scope_stems(older), _scope_stems(newer)
    return (
        _different_kinds(_subject_stems(older), _subject_stems(newer))
        or _different_kinds(sa, sb)
        or _different_places(sa, sb)
        or _different_kinds(_label_stems(older), _label_stems(newer))
    )


def _different_places(sa: tuple[str, ...], sb: tuple[str, ...]) -> bool:
    """Two scopes with no word in common ("In the bootloader, ..." / "In the application
    firmware, ..."): one rule for each place."""
    qa, qb = set(sa) - _PLAIN_QUALIFIERS - STOP_WORDS, set(sb) - _PLAIN_QUALIFIERS - STOP_WORDS
    return bool(qa) and bool(qb) and not qa & qb


def _different_kinds(ja: tuple[str, ...], jb: tuple[str, ...]) -> bool:
    if not ja or not jb or ja[-1] != jb[-1]:
        return False
    qa, qb = set(ja[:-1]) - _PLAIN_QUALIFIERS, set(jb[:-1]) - _PLAIN_QUALIFIERS
    return bool(qa - qb) and bool(qb - qa)


# A rule's scope said first: "In the billing service, ...", "For Python code: ...".
_SCOPE = re.compile(
    r"^(?:in|for|within|inside|on)\s+(?:the|our|all|every|each|any)?\s*"
    r"(?P<scope>(?:[\w.+#/-]+\s+){0,3}?[\w.+#/-]+)\s*[,:]",
    re.IGNORECASE,
)


def _label_stems(text: str) -> tuple[str, ...]:
    """The words of a leading label ("Billing worker: retry ..."): one kind of thing
    when it ends in a noun both labels share ("Notification worker: ...")."""
    found = _LABEL.match(text.strip())
    return tuple(stem(w) for w in found.group(0).rstrip(": ").lower().split()) if found else ()


def _scope_stems(text: str) -> tuple[str, ...]:
    found = _SCOPE.match(text.strip())
    return tuple(stem(w) for w in found["scope"].lower().split()) if found else ()


def flipped_words(older: str, newer: str) -> int:
    """How many content words one side says to do and the other says not to ("Squash
    commits when merging" / "Never squash on merge": squash, merge)."""
    for_a, against_a = said_for_and_against(older)
    for_b, against_b = said_for_and_against(newer)
    return len(((for_a & against_b) - against_a) | ((for_b & against_a) - against_b))


_FILLERS = frozenset("a an the our their its".split())
_MOST_REPLACED = 4  # words on each side: more is a rewording, not a value put in place


def _aligned(text: str) -> tuple[list[str], list[bool]]:
    """The statement's words as compared (case and plural ignored), and which name a
    value (a literal, number, identifier or name)."""
    tokens = [t for t in TOKEN.findall(text) if t.lower() not in _FILLERS]
    named = [
        value_like(t, first=n == 0) or t.lower() in _NUMBER_WORDS for n, t in enumerate(tokens)
    ]
    return [value_key(t) for t in tokens], named


def substitutions(older: str, newer: str) -> tuple[int, float]:
    """Values put in another's place: the two statements aligned word by word, the short
    runs each side has where the other has another, next to shared words that carry
    meaning ("names end with Payload" / "names end with Dto", "at most 400 changed
    lines" / "at 250 changed lines"). Returns how many such runs name a value on both
    sides, and how much of the wording aligns."""
    a, a_values = _aligned(older)
    b, b_values = _aligned(newer)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    codes = matcher.get_opcodes()

    def anchors(k: int) -> bool:
        if not 0 <= k < len(codes) or codes[k][0] != "equal":
            return False
        _, i1, i2, _, _ = codes[k]
        return any(w not in STOP_WORDS and len(w) > 1 for w in a[i1:i2])

    valued = 0
    for k, (tag, i1, i2, j1, j2) in enumerate(codes):
        if tag != "replace" or i2 - i1 > _MOST_REPLACED or j2 - j1 > _MOST_REPLACED:
            continue
        if not (anchors(k - 1) or anchors(k + 1)):
            continue
        if any(a_values[i1:i2]) and any(b_values[j1:j2]):
            valued += 1
    return valued, matcher.ratio()


_NEAR = 4  # tokens between a value and the word it is said of


def swapped_near_shared_word(older: str, newer: str) -> bool:
    """Each side names a value the other does not, next to a word both say ("tickets
    in Jira" / "tickets live in Linear", "on Java 17" / "to Java 21"): one thing
    given two values, however the rest is worded."""
    a_tokens, b_tokens = TOKEN.findall(older), TOKEN.findall(newer)
    a_keys = [value_key(t) for t in a_tokens]
    b_keys = [value_key(t) for t in b_tokens]
    # A name is value-like or the object a verb of choosing picks (lowercase typing:
    # "dashboards live in looker" / "moved the dashboards to metabase").
    a_named = {value_key(t) for n, t in enumerate(a_tokens) if value_like(t, first=n == 0)}
    b_named = {value_key(t) for n, t in enumerate(b_tokens) if value_like(t, first=n == 0)}
    a_named |= frame(older).endorsed
    b_named |= frame(newer).endorsed
    only_a, only_b = a_named - set(b_keys), b_named - set(a_keys)
    if not only_a or not only_b:
        return False
    # The word both say names the thing ("tickets"), not what is done ("run standardrb" /
    # "jobs run on solid_queue").
    shared = (
        {k for k in set(a_keys) & set(b_keys) if k not in STOP_WORDS and len(k) > 2}
        - _PLAIN_QUALIFIERS
        - VERBS
    )

    def near(keys: list[str], values: set[str]) -> set[str]:
        found: set[str] = set()
        for n, key in enumerate(keys):
            if key in values:
                found |= {k for k in keys[max(0, n - _NEAR) : n + _NEAR + 1] if k in shared}
        return found

    return bool(near(a_keys, only_a) & near(b_keys, only_b))


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in _WORD.findall(text) if len(w) > 2)


@dataclass(frozen=True)
class PairReading:
    """The model's answer with its probabilities, for a reason a person can check."""

    answer: str
    probabilities: dict[str, float]


def _without_values(text: str, values: frozenset[str]) -> str:
    """The statement with the values it names taken out: what the rule is about."""
    kept = [t for t in TOKEN.findall(text) if value_key(t) not in values]
    return " ".join(kept)


def _values_text(f: Frame) -> str:
    return " ".join(sorted(f.names.get(k, k) for k in f.values))


def features(older: str, newer: str, similarity: float | None) -> list[float]:
    """The signals one pair of statements gives, in a fixed order (see NAMES)."""
    a, b = frame(older), frame(newer)
    slot_sim = semantic.similarity(
        _without_values(older, a.values), _without_values(newer, b.values)
    )
    values_sim = (
        semantic.similarity(_values_text(a), _values_text(b)) if a.values and b.values else None
    )
    rules = relate(older, newer, same_topic=similarity)
    words = word_overlap(a, b)
    sim = words if similarity is None else similarity
    ta, tb = topic_words(a), topic_words(b)
    only_topic = min(len(ta - tb), len(tb - ta))
    topic_union = ta | tb
    na, nb = numbers(older), numbers(newer)
    only_a = a.endorsed - b.words
    only_b = b.endorsed - a.words
    against = (a.endorsed & b.rejected) | (a.rejected & b.endorsed)
    sa, sb = _stems(older), _stems(newer)
    valued, aligned = substitutions(older, newer)
    ra, rb = named_values(older), named_values(newer)
    ja, jb = subject(older), subject(newer)
    return [
        1.0,
        sim,
        sim * sim,
        words,
        slot_overlap(a, b),
        len(ta & tb) / len(topic_union) if topic_union else 0.0,
        len(sa & sb) / len(sa | sb) if sa | sb else 0.0,
        float(bool(a.values & b.values)),
        float(bool(only_a and only_b)),
        float(bool(only_a or only_b) and not (only_a and only_b)),
        float(bool(na and nb and na != nb)),
        float(bool(na and nb and na == nb)),
        float(bool(na) != bool(nb)),
        float(bool(against)),
        float(a.negative != b.negative),
        float(bool(_NEGATION.search(older)) != bool(_NEGATION.search(newer))),
        float(b.change_cue),
        float(rules.kind == "update"),
        float(rules.kind == "contradiction"),
        float(rules.kind == "restatement"),
        float(min(only_topic, 3)) / 3,
        float(not a.values and not b.values),
        sim if slot_sim is None else slot_sim,
        0.0 if values_sim is None else values_sim,
        float(values_sim is None),
        float(min(len(only_a), len(only_b)) >= 2),
        float(min(len(ra - rb), len(rb - ra)) >= 1),
        float(min(len(ra - rb), len(rb - ra)) >= 2),
        float(bool(ja - jb) and bool(jb - ja)),
        float(bool(ja) and ja == jb),
        float(bool(ja) and ja == jb and main_verb(older) != main_verb(newer)),
        min(flipped_words(older, newer), 3) / 3,
        float(parallel(older, newer)),
        float(valued >= 1),
        aligned,
        float(bool(ja & jb) and min(len(ra - rb), len(rb - ra)) >= 1),
        float(
            says_change_over_time(newer)
            and not says_change_over_time(older)
            and bool(_content_stems(older, newer))
        ),
    ]


NAMES = (
    "bias",
    "similarity",
    "similarity²",
    "word overlap",
    "slot overlap",
    "topic overlap",
    "stem overlap",
    "shared value",
    "values swapped",
    "value on one side only",
    "numbers differ",
    "numbers equal",
    "number on one side only",
    "opposite stances",
    "main clause polarity differs",
    "negation on one side only",
    "change cue",
    "rules: update",
    "rules: contradiction",
    "rules: restatement",
    "topic words each side lacks",
    "no values",
    "similarity without values",
    "similarity of values",
    "values missing on a side",
    "two values swapped",
    "names differ on both sides",
    "two names differ on both sides",
    "subjects differ",
    "same subject",
    "same subject, another verb",
    "words said for and against",
    "parallel subjects",
    "a value put in another's place",
    "wording aligned",
    "a subject word shared, names differ on both sides",
    "the newer says a change over time",
)


@dataclass(frozen=True)
class Thresholds:
    """The probabilities a reading needs, chosen with the weights (see train_pairs):
    a conflict the model sees alone, a conflict the rules saw and the model does not
    rule out, a merge, and a conflict where the newer says it is a change ("from now
    on", "we switched to"): such a sentence is rarely one that agrees, so less certainty
    is needed there. A reversal the rules read (one side rejects what the other
    endorses) still needs the model not to rule it out: agreeing paraphrases in
    opposite forms ("at most 1000 steps" / "no more than 1000 steps", "only the main
    thread" / "never a background queue") read as reversals to the rules alone."""

    conflict: float = 0.5
    rules_conflict: float = 0.4
    same: float = 0.5
    cue_conflict: float = 1.01  # off unless chosen
    reversed_conflict: float = 0.0  # a reversal alone is a conflict unless chosen


@dataclass(frozen=True)
class Model:
    weights: dict[str, list[float]]
    thresholds: Thresholds


@lru_cache(maxsize=1)
def model() -> Model | None:
    """The fitted model, or None when the file is missing or does not fit these
    features (callers then keep the rules' reading)."""
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        table = data["weights"]
        if list(data["features"]) != list(NAMES) or set(table) != set(ANSWERS):
            return None
        weights = {k: [float(x) for x in table[k]] for k in ANSWERS}
        thresholds = Thresholds(**{k: float(v) for k, v in data["thresholds"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return Model(weights, thresholds)


def decide(
    probs: dict[str, float],
    thresholds: Thresholds,
    *,
    rules_conflict: bool,
    reversed_stances: bool,
    value_differs: bool,
    parallel_rules: bool = False,
    change_cue: bool = False,
    swapped_stances: bool = False,
    only_and_ban: bool = False,
) -> str:
    """One of ANSWERS from the model's probabilities and the rules' hard facts.

    Rules about different kinds of one thing ("unit tests ..." / "end-to-end tests
    ...") or about two unrelated subjects never conflict, nor does an "only" beside a
    ban of something else (`allows_only_another`). Otherwise a conflict needs
    each side rejecting what the other endorses, a reversal (one rejects the value the
    other endorses and names another) or the rules' reading not ruled out by the model,
    or the model's confidence alone; a merge also needs that the two name no different
    values, whatever the similarity says (a false merge loses a rule silently)."""
    if parallel_rules:
        return "compatible"
    if not only_and_ban and (
        swapped_stances
        or (reversed_stances and probs["conflict"] >= thresholds.reversed_conflict)
        or probs["conflict"] >= thresholds.conflict
        or (rules_conflict and probs["conflict"] >= thresholds.rules_conflict)
        or (change_cue and probs["conflict"] >= thresholds.cue_conflict)
    ):
        return "conflict"
    if probs["same"] >= thresholds.same and not value_differs:
        return "same"
    return "compatible"


def probabilities(row: list[float], table: dict[str, list[float]]) -> dict[str, float]:
    scores = {k: sum(w * x for w, x in zip(table[k], row, strict=True)) for k in ANSWERS}
    top = max(scores.values())
    exp = {k: math.exp(v - top) for k, v in scores.items()}
    total = sum(exp.values())
    return {k: v / total for k, v in exp.items()}


def read_pair(
    older: str, newer: str, similarity: float | None, *, rules_conflict: bool
) -> PairReading | None:
    """The model's reading of a pair, or None without fitted weights."""
    fitted = model()
    if fitted is None:
        return None
    probs = probabilities(features(older, newer, similarity), fitted.weights)
    answer = decide(
        probs,
        fitted.thresholds,
        rules_conflict=rules_conflict,
        reversed_stances=reverses(older, newer),
        value_differs=differs_in_value(older, newer),
        parallel_rules=never_conflict(older, newer),
        change_cue=says_change(older, newer),
        swapped_stances=swaps(older, newer),
        only_and_ban=allows_only_another(older, newer),
    )
    return PairReading(answer, probs)


def says_change(older: str, newer: str) -> bool:
    """Only the newer statement says it changes something ("going forward", "we moved
    to") and both speak of one thing (a meaningful word in common): "Use async/await
    instead of .then()" changes nothing about "Use pnpm, never npm". When both say it,
    the cue tells nothing about this pair."""
    return (
        frame(newer).change_cue
        and not frame(older).change_cue
        and bool(_content_stems(older, newer))
    )


def swaps(older: str, newer: str) -> bool:
    """Each rejects what the other endorses ("tabs over spaces" / "spaces over tabs"):
    the plainest reversal, a conflict whatever the model reads."""
    a, b = frame(older), frame(newer)
    return bool(a.endorsed & b.rejected and a.rejected & b.endorsed)


_ONLY = re.compile(r"\b(?:only|exclusively|solely)\b", re.IGNORECASE)
_BANS = re.compile(
    r"\b(?:never|don'?t|do not|does not|doesn'?t|must not|mustn'?t|should not|shouldn'?t|"
    r"no|not|avoid)\b",
    re.IGNORECASE,
)


def _what_only_allows(text: str) -> str | None:
    """The word that names what "only" allows: the first meaningful word after it ("only
    the *main* thread"), or before it when it ends the clause ("the new Input *System*
    only"); verbs are skipped ("only use *pytest*")."""
    found = _ONLY.search(text)
    if found is None:
        return None
    after = [w.lower() for w in _WORD.findall(text[found.end() :])]
    before = [w.lower() for w in _WORD.findall(text[: found.start()])]
    tail = text[found.end() :].lstrip()
    words = after if after and not tail.startswith((".", ",", ";", ")")) else before[::-1]
    for word in words[:4]:
        if word not in STOP_WORDS and word not in VERBS and word not in _NOT_A_SUBJECT:
            return word
    return None


def allows_only_another(older: str, newer: str) -> bool:
    """One side allows only one thing and the other bans something else without
    endorsing anything new ("Only the main thread touches UIKit" / "never update UIKit
    from a background queue", "Use the new Input System only" / "don't use the old
    Input Manager"): the ban follows from the "only", the two agree. When the ban names
    what "only" allows ("only use pytest" / "never use pytest") they do not."""
    for exclusive, ban in ((older, newer), (newer, older)):
        if _BANS.search(exclusive) or not _BANS.search(ban) or _ONLY.search(ban):
            continue
        allowed = _what_only_allows(exclusive)
        if allowed is None:
            continue
        ban_words = _stems(ban) | _stems(re.sub(r"[-_/.]", " ", ban))
        if stem(allowed) in ban_words or any(
            stem(part) in ban_words for part in re.split(r"[-_/.]", allowed) if part
        ):
            continue
        if frame(ban).endorsed - frame(exclusive).words:
            continue  # the ban's side also names something to use instead
        return True
    return False


def reverses(older: str, newer: str) -> bool:
    """One rejects the value the other endorses, and endorses one in its place ("we
    indent with tabs" / "spaces, never tabs"; "for logs we use zap" / "we changed to
    slog, no more zap"), or the newer says it changes a thing the older gave another
    value ("dashboards live in Looker" / "we moved the dashboards to Metabase"): a
    conflict however alike or unlike the wording is."""
    a, b = frame(older), frame(newer)
    if swaps(older, newer):
        return True
    if b.change_cue and not a.change_cue and swapped_near_shared_word(older, newer):
        return True  # "Global state lives in Redux" / "We switched global state to Zustand"
    return bool(a.endorsed & b.rejected and b.endorsed - a.words) or bool(
        b.endorsed & a.rejected and a.endorsed - b.words
    )


def differs_in_value(older: str, newer: str) -> bool:
    """Do the two name different values (a number, a literal, a tool) for what could be
    one slot? Such a pair is never merged, whatever the similarity says."""
    a, b = frame(older), frame(newer)
    na, nb = numbers(older), numbers(newer)
    if na - nb and nb - na:
        return True  # one quantity for another; one more said alongside is a detail
    if uncovered_values(older, newer) and uncovered_values(newer, older):
        return True
    # "three retries" / "3 retries": one value written two ways.
    written_a, written_b = with_times_named(older), with_times_named(newer)
    only_a = {
        v
        for v in a.endorsed - b.words
        if _as_number(v) not in nb and not _covered(v, b.values, written_b)
    }
    only_b = {
        v
        for v in b.endorsed - a.words
        if _as_number(v) not in na and not _covered(v, a.values, written_a)
    }
    if only_a and only_b:
        return True
    # A quantity both name is a bound however it is said ("at most 1000 steps" / "no
    # more than 1000 steps"), not a value one of them rules out.
    if {v for v in (a.endorsed & b.rejected) | (a.rejected & b.endorsed) if _as_number(v) is None}:
        return True
    if (
        a.rejected
        and b.rejected
        and not a.rejected & b.rejected
        and not any(_abbreviates(v, older) for v in b.rejected)
        and not any(_abbreviates(v, newer) for v in a.rejected)
    ):
        return True  # each rules out another thing: "..., not prefab fields" / "not UnityEvents"
    if _subjects_differ(older, newer):
        return True  # "unit tests run on every push" / "integration tests run nightly"
    if opposite_ends(older, newer):
        return True  # "leading commas" / "trailing commas"
    # "We moved the chatbot from Cloud Run to GKE", "date-fns from now on": the newer
    # says it changes something the older stated; never a repeat to fold away. Unless
    # what it says it replaces is what the older ruled out too ("Never call fetch; go
    # through apiClient" / "no more raw fetch, apiClient from now on"). A preference
    # ("via apiClient rather than fetch") says nothing changed.
    if (
        says_change_over_time(newer)
        and not says_change_over_time(older)
        and not a.rejected & b.rejected
    ):
        return True
    # The similarity proposes, the words must anchor it: a shared value or quantity, one
    # slot, or two words that carry meaning said by both ("Feature branches are
    # squash-merged into main" / "When a feature branch goes into main, squash it").
    shared = a.endorsed & b.endorsed or na & nb
    return not (shared or slot_overlap(a, b) >= SAME_SLOT or len(_content_stems(older, newer)) >= 2)


# Words that name the two ends of one choice: one side saying one and the other its
# opposite set one slot to two values, whatever the rest of the wording shares.
_OPPOSITES = (
    ("leading", "trailing"), ("uppercase", "lowercase"), ("upper case", "lower case"),
    ("prefix", "suffix"), ("sync", "async"), ("synchronous", "asynchronous"),
    ("public", "private"), ("single quote", "double quote"), ("tab", "space"),
    ("ascending", "descending"), ("eager", "lazy"), ("absolute", "relative"),
    ("singular", "plural"), ("enabled", "disabled"), ("mutable", "immutable"),
    ("optional", "required"), ("allowlist", "denylist"), ("light", "dark"),
)  # fmt: skip
_NAMING_STYLE = re.compile(r"\b(camel|snake|kebab|pascal|screaming)(?:[\s_-]?case[sd]?)\b", re.I)


def _says(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}(?:e?s|ed)?\b", text, re.IGNORECASE) is not None


def opposite_ends(older: str, newer: str) -> bool:
    """One side names one end of a choice and the other the opposite end ("leading
    commas" / "trailing commas", "camelCase" / "snake_case"), neither naming both."""
    for one, other in _OPPOSITES:
        a_one, a_other = _says(older, one), _says(older, other)
        b_one, b_other = _says(newer, one), _says(newer, other)
        if (a_one and b_other and not a_other and not b_one) or (
            a_other and b_one and not a_one and not b_other
        ):
            return True
    styles_a = {m.lower() for m in _NAMING_STYLE.findall(older)}
    styles_b = {m.lower() for m in _NAMING_STYLE.findall(newer)}
    return bool(styles_a - styles_b) and bool(styles_b - styles_a)


def _content_stems(older: str, newer: str) -> frozenset[str]:
    """The stems of meaningful words both statements say."""
    return (_stems(older) & _stems(newer)) - STOP_WORDS


def unrelated_subjects(older: str, newer: str) -> bool:
    """Rules about two different things, neither named by the other ("Outbound HTTP
    calls time out after 3 seconds" / "Database queries time out after 10 seconds"):
    one cannot update or contradict the other."""
    ja, jb = subject(older), subject(newer)
    if not ja or not jb or ja & jb:
        return False
    return not _touches(newer, ja) and not _touches(older, jb)


def _touches(text: str, words: frozenset[str]) -> bool:
    """Is any of these stems said in `text`, a part of a joined word included ("the
    debug UART" is touched by "over UART", "bloom deploys" by "auto-deploys")?"""
    said = _stems(text) | _stems(re.sub(r"[-_/.]", " ", text))
    low = text.lower()

    def said_as_parts(word: str) -> bool:  # "two-space" in "two spaces"
        parts = [stem(p) for p in re.split(r"[-_/.]", word) if p]
        return len(parts) > 1 and all(p in said or p.isdigit() for p in parts)

    return any(
        w in said or said_as_parts(w) or (len(w) > 3 and re.search(rf"\b{re.escape(w)}", low))
        for w in words - _PLAIN_QUALIFIERS - STOP_WORDS
    )


def never_conflict(older: str, newer: str) -> bool:
    """Rules about different kinds of one thing or about unrelated subjects: whatever
    the model says, one cannot update or contradict the other."""
    return parallel(older, newer) or unrelated_subjects(older, newer)


def _subjects_differ(older: str, newer: str) -> bool:
    """Different subjects, and one side's is not even mentioned by the other ("branch
    names ..." / "commit messages ..."); a subject moved into the object is the same
    rule reworded ("The ledger is stored in CockroachDB" / "CockroachDB is the
    database behind the ledger")."""
    ja, jb = subject(older), subject(newer)
    only_a = frozenset(w for w in ja - jb if not _abbreviates(w, newer))
    only_b = frozenset(w for w in jb - ja if not _abbreviates(w, older))
    if not (ja and jb and only_a and only_b):
        return False
    return not _touches(newer, only_a) or not _touches(older, only_b)


def reason(older: str, newer: str) -> str:
    """Why the two conflict, in words a person can check: the values that changed, the
    stance that flipped, or the shared topic."""
    a, b = frame(older), frame(newer)
    topic = " ".join(sorted(topic_words(a) & topic_words(b))[:3])
    only_a, only_b = a.values - b.values, b.values - a.values
    if only_a and only_b:
        shown_a = ", ".join(sorted(a.names.get(k, k) for k in only_a))
        shown_b = ", ".join(sorted(b.names.get(k, k) for k in only_b))
        return f"{topic}: {shown_a} → {shown_b}".strip(": ")
    na, nb = numbers(older), numbers(newer)
    if na and nb and na != nb:
        shown = " → ".join(", ".join(f"{n:g}" for n in sorted(ns)) for ns in (na, nb))
        return f"{topic}: {shown}".strip(": ")
    if a.negative != b.negative or bool(_NEGATION.search(older)) != bool(_NEGATION.search(newer)):
        return f"‘always’ vs ‘never’ on {topic}" if topic else "‘always’ vs ‘never’"
    return f"the same rule changed: {topic}" if topic else "the same rule changed"
