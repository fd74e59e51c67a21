"""The offline contradiction judge: a few explainable rules, pure Python.

It must be cheap (it runs on every write) and above all precise: a false conflict costs
a person's attention, a missed one only waits for the Claude judge or a person. So each
rule fires only on explicit wording and says why in a short reason a person can check:

- a switch: "switched from tabs to spaces", "replaced X with Y", "Y instead of X",
  "no longer use X", "prefer Y over X" reject X; the other statement endorsing or simply
  stating X contradicts it ("switched from tabs to spaces");
- polarity: "always/use/prefer X" against "never/don't/avoid X" on the same thing
  ("'always' vs 'never' on tabs");
- a setting with two values: "line length is 88" against "line length is 100";
- two tools for the same purpose: "use npm to install packages" against "use pnpm to
  install packages".

Statements that say the same thing (near duplicates, paraphrases that agree) never
contradict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory_app.domain.similarity import content_key
from memory_app.domain.statements import frame, relate

_TERM = r"[\w.+#/-]*\w"
_NOISE = frozenset(
    "a an the and or of to in on at for with we i you our my is are be it its this that "
    "these those should always use uses using used now from then last week weeks month "
    "repo repository project code here all any every new old our us just also please "
    "remember anymore any more will would can could do does did go going get".split()
)
# Words after which a term list ends: "prefer pytest over unittest" endorses pytest only.
_BOUNDARY = frozenset(
    "over instead rather than not but when because unless except so since and or".split()
)
_VERBS = frozenset("use uses using used run runs write writes have has put keep".split())

_SWITCH = re.compile(
    rf"\b(?:switch(?:ed|ing)?|mov(?:ed|ing|e)|migrat(?:ed|ing|e)|chang(?:ed|ing|e)|went|"
    rf"transition(?:ed|ing)?)\s+(?:over\s+|back\s+)?from\s+(?P<old>{_TERM})"
    rf"(?:\s+\w+)?\s+(?:to|over to)\s+(?P<new>{_TERM})"
)
_REPLACE = re.compile(rf"\breplac(?:ed|ing|e)\s+(?P<old>{_TERM})\s+with\s+(?P<new>{_TERM})")
_INSTEAD = re.compile(
    rf"(?P<new>{_TERM})\s+(?:instead of|rather than|in place of)\s+(?P<old>{_TERM})"
)
_INSTEAD_FIRST = re.compile(
    rf"\binstead of\s+(?P<old>{_TERM})\s*,\s*(?:\w+\s+){{0,2}}?(?:use\s+)?(?P<new>{_TERM})"
)
_OVER = re.compile(
    rf"\bprefer(?:s|red|ring)?\s+(?P<new>{_TERM})\s+(?:over|to|rather than)\s+(?P<old>{_TERM})"
)
_NO_LONGER = re.compile(
    rf"\b(?:no longer|stopped|stop|quit|dropped|abandoned|deprecated)\s+"
    rf"(?:using\s+|use\s+|with\s+)?(?P<old>{_TERM})"
)
_NEGATIVE = re.compile(
    r"\b(?:never|don't|dont|do not|doesn't|does not|avoid|must not|mustn't|shouldn't|"
    r"should not|no)\s+"
)
_POSITIVE = re.compile(r"\b(?:always|prefer(?:s|red)?|use|uses|must|stick with|only)\s+")
_SETTING = re.compile(
    r"\b(?P<name>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+(?:is|of|=|:|to|should be|must be|"
    r"set to|at)\s+(?P<value>\d+(?:\.\d+)?)\b"
)
_TOOL = re.compile(rf"\buse\s+(?P<tool>{_TERM})\s+(?:for|to|when|as)\s+(?P<purpose>[^.;,]+)")


def stem(word: str) -> str:
    """A crude stem, enough to match "indent"/"indentation", "tab"/"tabs"."""
    word = word.lower().strip(".")
    head = word.split(".", 1)[0]
    if len(head) >= 2 and not head.isdigit():  # "promise.then" is about promises
        word = head
    for suffix in ("ations", "ation", "ings", "ing", "ers", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> list[str]:
    return re.findall(_TERM, text.lower())


def _content(words: list[str]) -> list[str]:
    return [w for w in words if w not in _NOISE]


# How two memories relate (seed 000 §2.4 evolution, seed 004 contradiction scanner):
# - update: the same rule with a new value, and the newer says it is a change ("from now
#   on", "switched", "instead"): the newer supersedes the older without asking;
# - contradiction: both cannot be followed (a new value with no change cue, or opposite
#   stances): a person decides in the conflict inbox;
# - restatement: the same rule said again (agreeing, perhaps worded differently);
# - compatible: related or unrelated, both can be followed.
RELATIONS = ("update", "contradiction", "restatement", "compatible")
CONFLICTING = frozenset({"update", "contradiction"})


@dataclass(frozen=True)
class Verdict:
    """Whether two statements contradict, and why in words a person can check.

    `relation` refines `contradicts` (see RELATIONS); when not given it is
    "contradiction" or "compatible" by `contradicts`.
    """

    contradicts: bool
    reason: str
    judge: str = "rules"
    relation: str = ""

    def __post_init__(self) -> None:
        if not self.relation:
            object.__setattr__(
                self, "relation", "contradiction" if self.contradicts else "compatible"
            )
        elif self.relation not in RELATIONS:
            raise ValueError(f"unknown relation {self.relation!r}")
        elif (self.relation in CONFLICTING) != self.contradicts:
            raise ValueError(f"relation {self.relation!r} disagrees with contradicts")

    @property
    def is_update(self) -> bool:
        return self.relation == "update"


@dataclass
class _Stance:
    """What one statement endorses and rejects, by stem, with the words it used."""

    endorses: dict[str, str] = field(default_factory=dict)  # stem → word
    rejects: dict[str, tuple[str, str]] = field(default_factory=dict)  # stem → (word, why)
    switched: set[str] = field(default_factory=set)  # rejected by an explicit switch
    negative: bool = False
    mentions: dict[str, str] = field(default_factory=dict)


def _terms_after(text: str, start: int, limit: int = 2) -> list[str]:
    """The first content words after position `start`, up to a boundary word."""
    out: list[str] = []
    for word in _words(text[start:]):
        if word in _BOUNDARY:
            break
        if word in _NOISE or word in _VERBS:
            continue
        out.append(word)
        if len(out) == limit:
            break
    return out


def _stance(text: str) -> _Stance:
    low = text.lower()
    stance = _Stance()
    stance.mentions = {stem(w): w for w in _content(_words(low))}
    for pattern, why in (
        (_SWITCH, "switched from {old} to {new}"),
        (_REPLACE, "replaced {old} with {new}"),
        (_INSTEAD, "{new} instead of {old}"),
        (_INSTEAD_FIRST, "{new} instead of {old}"),
        (_OVER, "prefers {new} over {old}"),
    ):
        for match in pattern.finditer(low):
            old, new = match["old"], match["new"]
            if old in _NOISE or new in _NOISE:
                continue
            reason = why.format(old=old, new=new)
            stance.rejects[stem(old)] = (old, reason)
            stance.switched.add(stem(old))
            stance.endorses[stem(new)] = new
    for match in _NO_LONGER.finditer(low):
        old = match["old"]
        if old not in _NOISE:
            stance.rejects[stem(old)] = (old, f"no longer {old}")
            stance.switched.add(stem(old))
    negated_spans: list[tuple[int, int]] = []
    for match in _NEGATIVE.finditer(low):
        stance.negative = True
        for word in _terms_after(low, match.end()):
            stance.rejects.setdefault(stem(word), (word, f"never {word}"))
        negated_spans.append((match.start(), match.end() + 12))
    for match in _POSITIVE.finditer(low):
        if any(a <= match.start() <= b for a, b in negated_spans):
            continue
        for word in _terms_after(low, match.end()):
            if stem(word) not in stance.rejects:
                stance.endorses.setdefault(stem(word), word)
    return stance


def _settings(text: str) -> dict[str, tuple[str, str]]:
    """Numeric settings a statement fixes: name key → (name, value)."""
    found: dict[str, tuple[str, str]] = {}
    for match in _SETTING.finditer(text.lower()):
        name_words = [w for w in match["name"].split() if w not in _NOISE]
        if not name_words:
            continue
        key = " ".join(stem(w) for w in name_words[-2:])
        found[key] = (" ".join(name_words[-2:]), match["value"])
    return found


def _tools(text: str) -> list[tuple[str, frozenset[str], str]]:
    out = []
    for match in _TOOL.finditer(text.lower()):
        purpose = match["purpose"].strip()
        stems = frozenset(stem(w) for w in _content(_words(purpose)))
        if stems:
            out.append((match["tool"], stems, purpose))
    return out


def _switch_conflict(a: _Stance, b: _Stance) -> str | None:
    """b rejects something a endorses, or (for an explicit switch) simply states."""
    for key, (_word, why) in b.rejects.items():
        if key in a.endorses:
            return why
        if (
            key in b.switched
            and key in a.mentions
            and key not in a.rejects
            and not a.negative
            and not (set(a.mentions) & set(b.endorses))
        ):
            return why
    return None


def _polarity_conflict(a: _Stance, b: _Stance) -> str | None:
    for key, (word, _why) in b.rejects.items():
        if key in a.endorses and key not in b.switched:
            return f"‘always’ vs ‘never’ on {word}"
    return None


def judge(older: str, newer: str, *, same_topic: float | None = None) -> Verdict:
    """How two statements (older first) relate: an update, a contradiction, a
    restatement or compatible (see RELATIONS), with the reason.

    The slot/value reading (domain/statements.py) decides first; the older wording rules
    below only add contradictions it did not see, never over a restatement.
    `same_topic`: an optional semantic similarity that can vouch for a paraphrase.
    """
    if content_key(older) == content_key(newer):
        return Verdict(False, "the same statement", relation="restatement")
    found = relate(older, newer, same_topic=same_topic)
    if found.kind in CONFLICTING:
        return Verdict(True, found.reason, relation=found.kind)
    if found.kind == "restatement":
        return Verdict(False, found.reason, relation="restatement")
    a, b = frame(older), frame(newer)
    if (a.endorsed & b.endorsed) or (a.rejected & b.rejected):
        return Verdict(False, found.reason, relation="compatible")  # they agree on a value
    legacy = _wording_rules(older, newer)
    if legacy.contradicts:
        kind = "update" if b.change_cue else "contradiction"
        return Verdict(True, legacy.reason, relation=kind)
    return Verdict(False, found.reason, relation="compatible")


def _wording_rules(older: str, newer: str) -> Verdict:
    a, b = _stance(older), _stance(newer)
    for first, second in ((a, b), (b, a)):
        why = _polarity_conflict(first, second)
        if why:
            return Verdict(True, why)
    for first, second in ((a, b), (b, a)):
        why = _switch_conflict(first, second)
        if why:
            return Verdict(True, why)
    old_settings, new_settings = _settings(older), _settings(newer)
    for key, (name, value) in new_settings.items():
        if key in old_settings and old_settings[key][1] != value:
            return Verdict(True, f"{name}: {old_settings[key][1]} vs {value}")
    for tool_a, purpose_a, words in _tools(older):
        for tool_b, purpose_b, _ in _tools(newer):
            overlap = len(purpose_a & purpose_b) / len(purpose_a | purpose_b)
            if stem(tool_a) != stem(tool_b) and overlap >= 0.5:
                return Verdict(True, f"{tool_a} vs {tool_b} to {words}")
    return Verdict(False, "no contradiction found")
