"""What a rule is about and what it says: slots, values and stances.

Two memories can only contradict, update or restate each other when they are about the
same thing, so each statement is read as a small frame:

- **values**: what the rule picks. Quoted or backticked literals (`'_k'`, `` `src/` ``),
  numbers (`100`, `3.12`), identifiers and names (`UPPER_SNAKE_CASE`, `Slack`, `RQ`), and
  the object of a verb of choosing ("use **black**", "switched to **spaces**", "prefer
  **pytest**");
- **stance** per value: endorsed or rejected, decided clause by clause, so "use pytest,
  never unittest" endorses pytest and rejects unittest (it agrees with "we use pytest
  and not unittest" instead of contradicting it);
- **slot**: the rule's other content words, stemmed, with a handful of spellings unified
  ("indentation"/"indent", "repo"/"repository"): what the values are chosen for;
- **change cue**: the newer statement says it is a change ("from now on", "switched",
  "instead", "no longer", "now").

`relate(older, newer)` compares two frames: opposite stances on a value, or the same slot
with different values, conflict (an *update* with a change cue, else a *contradiction*);
the same values on the same slot with no opposition is a *restatement*; anything else is
*compatible*. Pure Python with linear regexes, no model: it runs on every write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# --- words ----------------------------------------------------------------------------

TOKEN = re.compile(
    r"`[^`]{1,60}`|'[^'\s][^']{0,40}'|\"[^\"]{1,40}\"|[A-Za-z0-9_][\w.+#/@-]*[\w+#]|[A-Za-z0-9]"
)
# fmt: off
_STOP = frozenset("""
a an the and or of to in on at for with by as from into onto per via than then that this
these those it its is are was were be been being am we i you he she they our my your their
us me them do does did done doing have has had having will would shall should can could
may might must need needs needed want wants like please just also really actually always
ever every each all any some only so very too more most much many here there when where
which who whom what why how if else while about across after before over under again
keep keeps kept make makes made sure ensure ensures let lets let's go going get gets got
new old now from now on going forward time times thing things way ways stuff one ones
repo repository project codebase code team everyone anyone someone people guys folks
still yet already okay ok yes no not never don't dont doesn't isn't aren't won't can't
cannot shouldn't wouldn't didn't without instead rather stop stopped no longer anymore
use uses used using prefer prefers preferred choose chose chosen pick picked adopt
adopted go went stick stay switch switched switching move moved moving migrate migrated
migrating replace replaced replacing change changed changing start started starting
default standard rule rules convention conventions decision decided agree agreed
thanks thank remember note important because since otherwise reason
last next week weeks month months year years day days today yesterday tomorrow recently
above below under beyond other each
ago sprint quarter earlier later soon
""".split())
# fmt: on
STOP_WORDS = _STOP  # words that carry no topic or value, for other readers of statements
# Spellings of one idea, unified before stemming.
_SAME = {
    "repo": "repository",
    "db": "database",
    "config": "configuration",
    "cfg": "configuration",
    "env": "environment",
    "deps": "dependency",
    "dep": "dependency",
    "docs": "documentation",
    "doc": "documentation",
    "msg": "message",
    "msgs": "message",
    "func": "function",
    "fn": "function",
    "var": "variable",
    "vars": "variable",
    "const": "constant",
    "consts": "constant",
    "indentation": "indent",
    "indenting": "indent",
    "indented": "indent",
    "formatter": "format",
    "formatting": "format",
    "linter": "lint",
    "linting": "lint",
    "tests": "test",
    "testing": "test",
    "e2e": "end-to-end",
    "length": "length",
    "len": "length",
    "max": "maximum",
    "min": "minimum",
    "pr": "pull-request",
    "prs": "pull-request",
    "ci": "ci",
}


def stem(word: str) -> str:
    """A light stem: enough for "names"/"name", "indents"/"indent", "standups"/"standup"."""
    word = word.lower().strip("'\"`.,;:!?()[]")
    word = _SAME.get(word, word)
    if not word.isalpha() or len(word) <= 3:
        return word
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ers", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix == "ies":
                base += "y"
            elif suffix in ("ing", "ed") and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # "logging" → "log", "mapped" → "map"
            elif suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                base += "e"
            return _SAME.get(base, base)
    return word


def _literal(token: str) -> bool:
    return token[0] in "`'\"" and len(token) > 1


# Abbreviations of Latin phrases ("e.g.", "i.e.", "etc."): they point at an example, they
# name nothing.
_ABBREVIATIONS = frozenset("e.g eg i.e ie etc vs cf a.k.a".split())


def value_like(token: str, first: bool) -> bool:
    """A token that names something rather than describing it: a literal, a number, an
    identifier, an acronym or a capitalized name that is not the sentence's first word."""
    if token.lower().rstrip(".") in _ABBREVIATIONS:
        return False
    if _literal(token) or any(ch.isdigit() for ch in token):
        return True
    if any(ch in token for ch in "_./@#+") and any(ch.isalpha() for ch in token):
        return True
    letters = [ch for ch in token if ch.isalpha()]
    if len(letters) >= 2 and all(ch.isupper() for ch in letters):
        return True  # RQ, AWS, UPPER
    if token[0].isupper() and not first:
        return True
    return any(ch.isupper() for ch in token[1:]) and token[0].isalpha()  # camelCase, PascalCase


def value_key(token: str) -> str:
    """How a value is compared: case, quotes and plural endings ignored."""
    text = token.strip("`'\"").lower().rstrip(".")
    return stem(text) if text.isalpha() else text


# --- frames -----------------------------------------------------------------------------

# Verbs whose object is the value chosen.
_CHOOSE = re.compile(
    r"\b(?:use|uses|using|used|prefer|prefers|preferring|preferred|choose|chose|pick|picked|"
    r"adopt|adopted|go with|going with|went with|stick with|stick to|standardi[sz]e on|"
    r"rely on|relying on|(?:switch|chang)(?:e|ed|ing)? (?:over )?to|mov(?:e|ed|ing) (?:over )?to|"
    r"migrat(?:e|ed|ing) to|"
    r"written in|write in|run on|runs on|host(?:ed)? on|deploy(?:ed)? (?:to|on)|"
    # Where a thing lives is its value: "dashboards live in looker", "kept in vault".
    r"(?:live|lives|living|stored|kept|tracked|hosted|sit|sits|belong|belongs) (?:in|on)|"
    # "indent with", "indented with", "formatted with", "replaced it with": the means.
    r"[a-z]{3,}(?: it| them)? with|"
    r"is|are|be|should be|must be|to be|set to)\s+",
    re.IGNORECASE,
)
# Words that end an object: what follows is the purpose or a reason, not the value.
_OBJECT_END = frozenset(
    "for to when in on as at because since so but and or with instead rather than over "
    "not never unless except if while until per by from".split()
)
_NEGATIONS = re.compile(
    r"\b(?:never|don'?t|do not|does not|doesn'?t|no longer|not|no|avoid|avoiding|stop|"
    r"stopped|quit|drop|dropped|dropping|ditch|ditched|ditching|phas(?:e|ed|ing) out|"
    r"(?:get|got|getting) rid of|retir(?:e|ed|ing)|abandon(?:ed|ing)?|deprecat(?:e|ed|ing)|"
    r"ban|banned|without|nor|forbid|forbidden|"
    r"isn'?t|aren'?t|won'?t|shouldn'?t|mustn'?t|can'?t|cannot|neither)\b",
    re.IGNORECASE,
)
# A ban said after its object: "Time.now is banned", "inline styles are not allowed",
# "the Provider package we are not using": what comes before it in the clause is rejected.
_BANNED_AFTER = re.compile(
    r"\s(?:is|are)\s+(?:now\s+|also\s+|strictly\s+)?(?:banned|forbidden|prohibited|"
    r"disallowed|deprecated|discouraged|off-limits|a no-go|(?:not|never)\s+(?:allowed|"
    r"permitted|used|ok|okay|acceptable|wanted))\b|"
    r"\s(?:we|i)\s+(?:are\s+not|aren'?t|do\s+not|don'?t|never)\s+(?:using|use)[\s.!]*$",
    re.IGNORECASE,
)


def banned_before(clause: str) -> str:
    """The words a ban said after them applies to: from the clause's last comma before
    the ban up to it ("..., the Provider package we are not using"), else ""."""
    found = _BANNED_AFTER.search(clause)
    if found is None:
        return ""
    head = clause[: found.start()]
    return head[head.rfind(",") + 1 :]


# "X instead of Y", "X rather than Y", "X over Y", "X, not Y": Y is rejected.
_REJECTED_AFTER = re.compile(
    r"\b(?:instead of|rather than|in place of|(?:and|but|or) (?:not|never|no))\s+|"
    r"\b(?:prefer\w*|favou?r\w*|rather|better)\b[^,;]{0,60}?\s(?:over|than|to)\s+",
    re.IGNORECASE,
)
# A short verbless clause of rejection: "..., never unittest", "not npm".
_SHORT_REJECTION = re.compile(r"^(?:but\s+)?(?:not|never|no)\s+(?P<rest>\S+(?:\s+\S+){0,2})$", re.I)
_SWITCH_TO = re.compile(r"\s(?:over\s+)?to\s+")
_REJECTED_BEFORE = re.compile(r"\b(?:replac(?:e|es|ed|ing))\s+", re.IGNORECASE)
# "Vite replaces Webpack for ...": the new thing said first.
_NEW_REPLACES = re.compile(
    r"^(?P<new>[\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s+(?:now\s+)?(?:replaces|replaced|supersedes|"
    r"superseded|takes over from|took over from)\s",
    re.IGNORECASE,
)
# "moved the dashboards to metabase", "switch the base images to distroless": a change
# of what a thing is, its new value after "to" however the thing is named.
_CHANGE_THING_TO = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|chang(?:e|ed|ing)|"
    r"convert(?:ed|ing)?|port(?:ed|ing)?|transition(?:ed|ing)?|upgrad(?:e|ed|ing)|"
    r"bump(?:ed|ing)?)\s+(?:(?!to\b|from\b)[\w.'-]+\s+){1,4}?(?:over\s+|back\s+)?to\s+",
    re.IGNORECASE,
)
_SWITCH_FROM = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|went|chang(?:e|ed|ing)|"
    r"transition(?:ed|ing)?)(?:\s+(?!to\b)[\w-]+){0,3}?\s+(?:over\s+|back\s+)?(?:away\s+)?from\s+",
    re.IGNORECASE,
)
_CHANGE_CUE = re.compile(
    r"\b(?:from now on|going forward|moving forward|from today|from here on|as of (?:now|"
    r"today)|starting (?:now|today)|henceforth|these days|nowadays|switch(?:ed|ing)?|"
    r"mov(?:ed|ing)(?: (?!to\b)[\w-]+){0,3}? (?:over )?(?:to|away|from)|migrat(?:ed|ing)|"
    r"replac(?:e|ed|ing)|instead|"
    r"no longer|any ?more|not .{1,40} anymore|now|chang(?:e|ed|ing) (?:to|it|over)|"
    r"new (?:rule|convention|standard|policy|approach)|updated?|rather than|"
    r"stop(?:ped)? using|dropp(?:ed|ing)|ditch(?:ed|ing)?|from here|going to|"
    r"(?:we|i)(?:'ve| have) decided|(?:we|i) decided|let'?s (?:move|switch|go))\b",
    re.IGNORECASE,
)
# Wording that contrasts two options without saying anything changed: "via apiClient
# rather than raw fetch", "using %w instead of returning it bare", "-Wextra switched on".
_CONTRAST_ONLY = re.compile(
    r"\b(?:instead(?: of)?|rather than|switch(?:ed|es)? (?:on|off))\b", re.IGNORECASE
)


def says_change_over_time(text: str) -> bool:
    """Does the statement say a rule changed ("from now on", "we switched to", "no
    longer"), not merely prefer one option to another ("X rather than Y")?"""
    return _CHANGE_CUE.search(_CONTRAST_ONLY.sub(" ", text)) is not None


# Where a clause ends: a semicolon or colon, a comma before "but"/"and"/"so", a
# contrasting conjunction, or the end of a sentence (a memory may hold two).
_CLAUSE = re.compile(
    r"\s*(?:[;:]|,\s+(?:but|and|so)?|\s(?:but|while|whereas)\s|(?<![A-Z]\.[a-z])(?<!\be\.g)"
    r"(?<!\bi\.e)[.!?]\s+(?=[A-Z0-9`'\"]))\s*"
)


@dataclass(frozen=True)
class Frame:
    """One statement read as slot, values and stances."""

    text: str
    slot: frozenset[str]
    endorsed: frozenset[str]
    rejected: frozenset[str]
    names: dict[str, str] = field(default_factory=dict, compare=False)  # key → as written
    change_cue: bool = False
    negative: bool = False  # the main clause says not to ("never mock the database")

    @property
    def values(self) -> frozenset[str]:
        return self.endorsed | self.rejected

    @property
    def words(self) -> frozenset[str]:
        return self.slot | self.values


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _object_after(text: str, start: int, limit: int = 3) -> list[str]:
    """The value words right after a verb of choosing, up to a boundary word."""
    out: list[str] = []
    for token in _tokens(text[start : start + 80]):
        low = token.lower()
        if low in _OBJECT_END:
            break
        if not out and low.endswith(("ed", "en", "ing", "ly")) and not value_like(token, False):
            break  # "are tracked in", "is written": a passive, not a value
        if out and _kind(out[-1]) == "number":
            break  # "100 characters": the number is the value, the rest its unit
        if low in ("a", "an", "the", "our", "my", "only", "just", "always", "all", "them"):
            continue
        if low in _STOP and not _literal(token):
            if out:
                break
            continue
        out.append(token)
        if len(out) == limit:
            break
    return out


# "never X outside tests", "no X except in migrations": a negation of everything but an
# exception is a permission limited to it ("X only in tests"), not a ban on X.
_EXCEPTION = re.compile(
    r"\b(?:outside(?: of)?|except(?: for| in| on)?|other than|apart from|besides|unless|"
    r"anywhere but|anywhere else than)\b",
    re.IGNORECASE,
)


def _limits_to_exception(clause: str, negation: re.Match[str]) -> bool:
    """Does the negation found in `clause` only fence off an exception ("never call
    unwrap() outside of tests")?"""
    return _EXCEPTION.search(clause, negation.end()) is not None


def _clause_polarity(clause: str) -> bool:
    """False when the clause says not to (never X, don't use X, no X); a negation that
    only fences off an exception ("never X outside tests") is a limited yes."""
    negation = _NEGATIONS.search(clause)
    return negation is None or _limits_to_exception(clause, negation)


# Where a negation's reach ends: "never squash | on merge", "never run | when it starts".
_SCOPE_END = frozenset(
    "when in on at for during because since so unless except if while until after before by "
    "from into".split()
)


def said_for_and_against(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content stems a statement says to do, and those under a negation up to the
    next preposition ("never squash [on merge]", "must never be logged"): "Commit the
    generated code" / "Generated code must never be committed" put one word on
    opposite sides, whatever the values."""
    said_for: set[str] = set()
    said_against: set[str] = set()
    for clause in _CLAUSE.split(text.strip().rstrip(".!")):
        for part in re.split(r"\s(?:and|or)\s", clause):
            banned = banned_before(part)
            if banned:  # "Time.now is banned": the words before the ban are against
                for word in re.findall(r"[A-Za-z][\w'-]*", banned):
                    if len(word) > 2 and word.lower() not in _STOP:
                        said_against.add(stem(word))
                continue
            negation = _NEGATIONS.search(part)
            if negation is not None and _limits_to_exception(part, negation):
                negation = None  # "never X outside tests" says X, where it may be done
            before = part[: negation.start()] if negation else part
            for word in re.findall(r"[A-Za-z][\w'-]*", before):
                if len(word) > 2 and word.lower() not in _STOP:
                    said_for.add(stem(word))
            if negation is None:
                continue
            # Past the negation's reach the words are context, said neither way.
            for word in re.findall(r"[A-Za-z][\w'-]*", part[negation.end() :]):
                if word.lower() in _SCOPE_END:
                    break
                if len(word) > 2 and word.lower() not in _STOP:
                    said_against.add(stem(word))
    return frozenset(said_for - said_against), frozenset(said_against)


def _negated_before(clause: str, position: int) -> bool:
    """Is the word at `position` under a negation: one among the few words before it,
    with no "and"/"but"/"or" in between ("use pytest and never unittest": only unittest)."""
    window = clause[max(0, position - 40) : position]
    window = re.split(r"\b(?:and|but|or|then)\b|[,;]", window)[-1]
    return _NEGATIONS.search(window) is not None


@lru_cache(maxsize=4096)
def frame(text: str) -> Frame:
    """Read one statement (cached: a pair is judged with and without a similarity, and
    one memory meets many candidates)."""
    names: dict[str, str] = {}
    endorsed: set[str] = set()
    rejected: set[str] = set()

    def add(token: str, positive: bool) -> None:
        key = value_key(token)
        if not key or key in _STOP or (len(key) == 1 and token.islower()):
            return  # a lone lowercase letter is a fragment ("service's"), not a name
        names.setdefault(key, token.strip("`'\""))
        (endorsed if positive else rejected).add(key)

    marked: set[str] = set()  # the values one clause has spoken of

    def take(
        source: str, start: int, positive: bool, limit: int = 2, fresh: bool | None = None
    ) -> None:
        """The object after `start` gets this stance. An explicit rejection always
        counts; otherwise (`fresh`) what the clause already said of a value stands."""
        for token in _object_after(source, start, limit):
            key = value_key(token)
            if (positive if fresh is None else fresh) and key in marked:
                continue
            add(token, positive)
            marked.add(key)

    clauses = [c for c in _CLAUSE.split(text) if c and c.strip()]
    for clause in clauses:
        marked.clear()
        # Explicit rejections inside a clause: "RQ instead of Celery", "X over Y".
        for match in _REJECTED_AFTER.finditer(clause):
            take(clause, match.end(), False)
        short = _SHORT_REJECTION.match(clause.strip(" .!"))
        if short is not None:
            take(short["rest"], 0, False)
        for match in _SWITCH_FROM.finditer(clause):
            take(clause, match.end(), False)
            target = _SWITCH_TO.search(clause, match.end())
            if target is not None and target.start() - match.end() < 40:
                take(clause, target.end(), True)
        for match in _REJECTED_BEFORE.finditer(clause):
            take(clause, match.end(), False)
        replacing = _NEW_REPLACES.match(clause.strip())
        if replacing is not None:
            take(replacing["new"], 0, True)  # "Vite replaces Webpack": Vite is chosen
        for match in _CHANGE_THING_TO.finditer(clause):
            take(clause, match.end(), True)
        head = clause
        cut = _REJECTED_AFTER.search(clause)
        if cut is not None:
            # "prefer tabs over spaces": the head keeps "prefer tabs", the object stops at
            # "over"; "RQ instead of Celery": the head is "RQ".
            head = (
                clause[: cut.end()] if cut.group(0)[:1].lower() in "pfrb" else clause[: cut.start()]
            )
        for match in _CHOOSE.finditer(head):
            positive = not _negated_before(head, match.start() + 1)
            take(head, match.end(), positive, limit=3, fresh=True)
        for n, match in enumerate(TOKEN.finditer(clause)):
            token = match.group(0)
            if value_key(token) in marked:
                continue
            if value_like(token, first=n == 0 and clause is clauses[0]):
                add(token, not _negated_before(clause, match.start()))
        banned = banned_before(clause)
        for n, match in enumerate(TOKEN.finditer(banned)):
            if value_like(match.group(0), first=n == 0):
                add(match.group(0), False)  # a ban outweighs what the clause chose
    values = endorsed | rejected
    slot = frozenset(
        s
        for s in (
            stem(t)
            for t in _tokens(text)
            if t.lower() not in _STOP and not value_like(t, first=False)
        )
        if s and s not in _STOP and s not in values and not s.isdigit() and len(s) > 1
    )
    return Frame(
        text=text,
        slot=slot,
        endorsed=frozenset(endorsed - rejected),
        rejected=frozenset(rejected),
        names=names,
        change_cue=_CHANGE_CUE.search(text) is not None,
        negative=not endorsed and bool(clauses) and not _clause_polarity(clauses[0]),
    )


# --- comparing two frames -------------------------------------------------------------


# Verbs and prepositions say how a rule is worded, not what it is about: "background jobs
# run on Celery" and "we switched background jobs to Dramatiq" are one slot.
# fmt: off
_HOW = frozenset("""
run ran track written write wrote host store stored kept keep live sit tell say talk goe
go went come came sent send built build call name named set get got give put place
serve served manag handl handle held hold make made done deploy deployed releas release
above below under beyond within after before between through across around along
""".split())
# fmt: on


def topic_words(frame_: Frame) -> frozenset[str]:
    return frozenset(w for w in frame_.slot if w not in _HOW)


def slot_overlap(a: Frame, b: Frame) -> float:
    """How much two statements are about the same thing, by their topic words: 1 when
    one side's topic is the other's (give or take one word), 0 when each side has a
    qualifier the other lacks ("unit tests" / "load tests", "billing" / "notifications"),
    else their Jaccard similarity."""
    ta, tb = topic_words(a), topic_words(b)
    if not ta or not tb:
        return 0.0
    small, large = sorted((ta, tb), key=len)
    if small <= large and len(large) - len(small) <= 1:
        return 1.0
    if ta - tb and tb - ta:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def _swapped_word(a: Frame, b: Frame) -> tuple[str, str] | None:
    """One topic word each that the other lacks, everything else shared: an unnamed value
    changing ("mock HTTP with nock" / "with msw")."""
    ta, tb = topic_words(a), topic_words(b)
    ua, ub = ta - tb, tb - ta
    if len(ua) == 1 and len(ub) == 1 and len(ta & tb) >= 2 and a.values == b.values:
        return next(iter(ua)), next(iter(ub))
    return None


@dataclass(frozen=True)
class Relation:
    """How a newer statement relates to an older one, with a reason a person can check."""

    kind: str  # "update" | "contradiction" | "restatement" | "compatible"
    reason: str


SAME_SLOT = 0.5
# Embedding similarities (conflicts/semantic.py) that let a partly shared slot count as
# the same, and that vouch for a restatement: set at the share of development pairs the
# static word vectors' 0.7, 0.85 and 0.6 marked before the sentence encoder replaced them.
SAME_TOPIC = 0.78
CLOSE_WORDING = 0.89
ANCHORED_WORDING = 0.7


def _shown(frame_: Frame, keys: set[str] | frozenset[str]) -> str:
    return ", ".join(sorted(frame_.names.get(k, k) for k in keys))


def word_overlap(a: Frame, b: Frame) -> float:
    """Jaccard similarity of all the content words (slot and values) of two frames."""
    if not a.words or not b.words:
        return 0.0
    return len(a.words & b.words) / len(a.words | b.words)


RESTATEMENT = 0.6


def relate(older: str, newer: str, *, same_topic: float | None = None) -> Relation:
    """Compare two statements (older first). `same_topic` is an optional similarity in
    [0, 1] from elsewhere (an embedding) that can vouch for a paraphrase whose words
    differ; it never makes a conflict on its own."""
    a, b = frame(older), frame(newer)
    conflict_kind = "update" if b.change_cue else "contradiction"
    # Opposite stances on a value: one endorses what the other rejects.
    against = (a.endorsed & b.rejected) | (a.rejected & b.endorsed)
    if against:
        word = _shown(a, against)
        if a.endorsed & b.rejected:
            new = b.endorsed - a.endorsed
            if new:
                reason = f"{word} → {_shown(b, new)}"
            else:
                reason = f"no longer {word}" if b.change_cue else f"‘always’ vs ‘never’ on {word}"
        else:
            reason = f"‘never’ vs ‘use’ on {word}"
        return Relation(conflict_kind, reason)
    overlap = slot_overlap(a, b)
    shared_topic = topic_words(a) & topic_words(b)
    same_slot = overlap >= SAME_SLOT or (
        bool(shared_topic) and same_topic is not None and same_topic >= SAME_TOPIC
    )
    # The same rule picks another value: '_k' → '_c', Zoom → Slack, 88 → 100. A value of
    # one that the other mentions at all (as a value or a word) is no substitution.
    only_a = a.endorsed - b.words
    only_b = b.endorsed - a.words
    if same_slot and only_a and only_b and _comparable(a, b, only_a, only_b):
        topic = _topic(a, b)
        reason = f"{topic}: {_shown(a, only_a)} → {_shown(b, only_b)}"
        return Relation(conflict_kind, reason.strip(": "))
    if only_a and only_b:
        return Relation("compatible", "different values for different things")
    swapped = _swapped_word(a, b)
    if swapped is not None:
        return Relation(
            conflict_kind, f"{' '.join(sorted(shared_topic)[:3])}: {swapped[0]} → {swapped[1]}"
        )
    # No values to tell apart: the same action, said and then forbidden.
    if overlap >= 0.7 and a.negative != b.negative and not (a.values ^ b.values):
        word = " ".join(sorted(a.slot & b.slot)[:3])
        return Relation(conflict_kind, f"‘always’ vs ‘never’ on {word}")
    similar = word_overlap(a, b)
    anchored = bool(a.endorsed & b.endorsed) and not (only_a or only_b)
    substituted = bool(topic_words(a) - b.words) and bool(topic_words(b) - a.words)
    if (a.negative == b.negative or (a.values and b.values)) and (
        (similar >= RESTATEMENT and not substituted)
        or (same_topic is not None and same_topic >= CLOSE_WORDING and similar > 0.3)
        or (anchored and (same_slot or (same_topic is not None and same_topic >= ANCHORED_WORDING)))
    ):
        if b.change_cue and not a.change_cue:
            # The same rule, newly said as a change ("now", "no longer"): not a repeat.
            return Relation("update", f"changed: {' '.join(sorted(shared_topic)[:3])}".strip())
        return Relation("restatement", "the same rule")
    return Relation("compatible", "no contradiction found")


def _comparable(a: Frame, b: Frame, only_a: frozenset[str], only_b: frozenset[str]) -> bool:
    """Values of one kind: a number is replaced by a number, a name by a name (so "line
    length 100" vs "use black" is no value change)."""
    kinds_a = {_kind(a.names.get(k, k)) for k in only_a}
    kinds_b = {_kind(b.names.get(k, k)) for k in only_b}
    return bool(kinds_a & kinds_b)


def _kind(value: str) -> str:
    if re.fullmatch(r"[\d.,]+%?", value):
        return "number"
    return "name"


def _topic(a: Frame, b: Frame) -> str:
    common = sorted(a.slot & b.slot)
    return " ".join(common[:3])


def restates(older: str, newer: str, *, same_topic: float | None = None) -> bool:
    """True when the newer statement says the same rule again (a paraphrase)."""
    return relate(older, newer, same_topic=same_topic).kind == "restatement"
