"""The offline extractor: fast, deterministic, rule-based memory extraction.

It runs with no network and no model, so every import works even without an API key,
and it is the baseline the Claude extractor is compared against. It trades recall for
precision: a curator would rather add a missed preference by hand than delete a dozen
"memories" mined from tool output, code listings or the assistant's pleasantries.

Pipeline, per transcript:
1. only statement turns (user/assistant prose) are read; injected documents are skipped;
2. each turn is cleaned into prose sentences (sentences.py);
3. each sentence is matched against the rule table (offline_rules.py), and the best rule's
   base confidence is adjusted for hedges, questions, conditionals, negation, length,
   speaker, rationale and strong markers; a user's sentence the rules leave out may
   still be kept when the sentence model (sentence_model.py) vouches for it;
4. near-duplicates are merged (a repeat across turns raises confidence a little);
5. what reaches CONFIDENCE_THRESHOLD and belongs to a requested category is returned.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from memory_app.domain.categories import DEFAULT_CATEGORIES, Category
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract import offline_rules as rules
from memory_app.extract import sentence_model
from memory_app.extract.base import CONFIDENCE_THRESHOLD, ExtractedItem, KnownMemory
from memory_app.extract.directives import VERBS, directive_score, is_technical
from memory_app.extract.directives import form as directive_form
from memory_app.extract.procedures import extract_procedures
from memory_app.extract.sentences import (
    clean_content,
    is_injected_turn,
    normalized_key,
    paragraph_sentences,
    strip_filler,
    word_count,
)

MAX_CONTENT_CHARS = 300
MAX_SENTENCE_WORDS = 60
# Candidates this far below the threshold are not worth keeping even for a repeat boost.
_KEEP_FLOOR = CONFIDENCE_THRESHOLD - 0.1
# A sentence in the form of an instruction, too weak to stand alone, may still say more of
# the rule just before it ("No print statements in the training code. Use the logging
# module.").
_ELABORATION_FLOOR = CONFIDENCE_THRESHOLD - 0.2
_MAX_CONFIDENCE = 0.97

# Adjustments to a rule's base confidence. Values are small on purpose: a strong rule
# with one hedge drops below the threshold, a weak rule needs two extra signals to pass.
ASSISTANT_PENALTY = 0.07
HEDGE_PENALTY = 0.2
NEGATION_PENALTY = 0.3
CONDITIONAL_PENALTY = 0.2
DEICTIC_PENALTY = 0.15
VAGUE_PENALTY = 0.2  # "let's go with that": not self-contained
OFF_TOPIC_PENALTY = 0.3  # "we always have standup at 10"
TINY_PENALTY = 0.3  # fewer than 3 words
SHORT_PENALTY = 0.08  # exactly 3 words ("Avoid default exports.")
LONG_PENALTY = 0.2  # more than MAX_SENTENCE_WORDS
WORDY_PENALTY = 0.05  # more than 40 words
RATIONALE_BOOST = 0.04
STRONG_MARKER_BOOST = 0.08  # weak wording ("I want") plus "always"/"every"/"must"
REPEAT_BOOST = 0.05

_VAGUE_WINDOW = 6  # words
# A short lead-in label: "Reminder: ", "One rule for this codebase: ".
_LABEL = re.compile(r"^(?:[A-Za-z][\w'-]*\s+){0,5}[A-Za-z][\w'-]*\s*:\s+(?=\S)")
_CLAUSE_SPLIT = re.compile(r";\s+|\s+[—–]\s+|\s+-\s+")
_DEFAULT_TYPES = {c.key: c.default_type for c in DEFAULT_CATEGORIES}
_REROUTABLE_DECISIONS = frozenset({"we-use-for"})
_JUSTIFIABLE = frozenset({rules.PREF, rules.DECISION, rules.CONVENTION})
_SIMILAR = 0.75  # token Jaccard above which two contents are the same memory
# Words too common to say two statements are about the same thing.
# fmt: off
_STOPWORDS = frozenset({
    "a", "an", "the", "we", "i", "you", "it", "is", "are", "was", "were", "be", "to", "of",
    "in", "on", "for", "and", "or", "but", "not", "no", "use", "using", "always", "never",
    "should", "must", "do", "don", "t", "that", "this", "with", "by", "as", "at", "from",
    "prefer",
})
# fmt: on


@dataclass
class _Candidate:
    """A scored sentence, before de-duplication and thresholding."""

    category: str
    type: str | None
    content: str
    confidence: float
    position: int
    rule: str
    rationale: bool
    context_hint: str
    tokens: frozenset[str] = field(default_factory=frozenset)
    positions: set[int] = field(default_factory=set)
    joins_previous: bool = False  # the sentence before is part of this content
    elaborated: bool = False  # the sentence after is part of this content


@dataclass(frozen=True)
class _Scored:
    rule: rules.Rule
    confidence: float
    rationale: bool


def score_sentence(text: str, speaker: str) -> _Scored | None:
    """The best rule for one (filler-stripped) sentence and its calibrated confidence,
    or None when nothing matches or the sentence is a question or chatter."""
    if not text or text.endswith(("?", ":")) or rules.QUESTION_START.match(text):
        return None  # a question, or the lead-in to a list
    if speaker == "assistant" and rules.ASSISTANT_CHATTER.match(text):
        return None
    best: rules.Rule | None = None
    for rule in rules.RULES:
        if speaker not in rule.speakers or (best is not None and rule.base <= best.base):
            continue
        if rule.pattern.search(text):
            best = rule
    if best is not None and best.category in _ABOUT_CODE and not is_technical(text):
        best = None  # "Remember that teamwork matters": the form of a rule, about nothing
    if speaker == "user":
        # A standing instruction in a form the table does not list: "Make sure every
        # constant name ends with '_k'", "always add docstrings".
        directive = directive_score(text)
        if directive is not None and (best is None or directive > best.base):
            best = _directive_rule(text, directive)
    if best is None:
        return None

    confidence = best.base
    # A "because" justifies a preference or decision; for a bug or a lesson it is part of
    # the rule's own wording, so it earns nothing extra there.
    rationale = best.category in _JUSTIFIABLE and bool(rules.RATIONALE.search(text))
    if rationale:
        confidence += RATIONALE_BOOST
    if best.weak and rules.STRONG_MARKER.search(text):
        confidence += STRONG_MARKER_BOOST
    hedges = len(rules.HEDGE.findall(text))
    if hedges:
        confidence -= HEDGE_PENALTY + 0.1 * (hedges - 1)
    if rules.NEGATED.search(text):
        confidence -= NEGATION_PENALTY
    if rules.CONDITIONAL_START.match(text):
        confidence -= CONDITIONAL_PENALTY
    if best.category in (rules.PREF, rules.CONVENTION, rules.DECISION) and rules.DEICTIC.search(
        text
    ):
        confidence -= DEICTIC_PENALTY
    # Only near the start: in "I like X, so keep using them" the pronoun has its referent.
    if rules.VAGUE.search(" ".join(text.split()[:_VAGUE_WINDOW])):
        confidence -= VAGUE_PENALTY
    if rules.OFF_TOPIC.search(text) and not _NAMES_A_TOOL.search(text):
        confidence -= OFF_TOPIC_PENALTY  # "we always have standup at 10", not "use Zoom for"
    words = word_count(text)
    if words < 3:
        confidence -= TINY_PENALTY
    elif words == 3:
        confidence -= SHORT_PENALTY
    elif words > MAX_SENTENCE_WORDS:
        confidence -= LONG_PENALTY
    elif words > 40:
        confidence -= WORDY_PENALTY
    if speaker == "assistant":
        confidence -= ASSISTANT_PENALTY
    return _Scored(best, min(confidence, _MAX_CONFIDENCE), rationale)


# A capitalized name after the first word: a product or tool ("use Zoom for standups").
_NAMES_A_TOOL = re.compile(r"(?<=\s)(?:[A-Z][a-z]+[A-Z]?\w*|[A-Z]{2,}\w*)\b")
# A sentence whose object is the one before: "Keep it that way", "Do that everywhere".
_REFERS_BACK = re.compile(
    r"^(?:\w+\s+){0,3}?(?:keep|do|stick to|stick with|continue|follow|apply|use)"
    r"(?:\s+doing|\s+using)?\s+(?:it|that|this|them|those|these|the same)\b|"
    r"\b(?:keep|do) (?:it|that|this) (?:that|this) way\b|^(?:same|likewise) (?:for|with|in)\b",
    re.IGNORECASE,
)
# A short sentence that only completes the one before: "Tag images with the git sha.
# Never push latest.", "Use integer cents. Never double, never float.", "Never hardcode
# them in widgets." Its opening word or a pronoun leans on what was just said.
_CONTINUES = re.compile(
    r"^(?:never|no|not|nor|only|also|except|even|and|but|or|plus|like|including|same|"
    r"in|on|for|with|without)\b|\b(?:it|them|that|those|these|this|one|ones)\b",
    re.IGNORECASE,
)
_CONTINUATION_WORDS = 8


def _continues(unit: str) -> bool:
    """Short, leaning on the sentence before, and about code ("Remember that teamwork
    matters" leans on nothing)."""
    return (
        word_count(unit) <= _CONTINUATION_WORDS
        and bool(_CONTINUES.search(unit))
        and is_technical(unit)
    )


_ABOUT_CODE = frozenset({rules.PREF, rules.CONVENTION, rules.DECISION, rules.NOTE})
_DECISION_FORM = re.compile(
    r"\b(?:switched|switching|moved|moving|migrated|migrating|decided|chose|agreed|"
    r"going with|went with|settled on|standardi[sz]ed on|we(?:'re| are)? (?:now )?using|"
    r"we use \S+(?: \S+){0,4} (?:for|as) )",
    re.IGNORECASE,
)


_NEVER_MATCHES = re.compile(r"(?!x)x")  # a directive is found by its form, not a pattern


def _directive_rule(text: str, confidence: float) -> rules.Rule:
    """A rule standing for a directive found by its form, filed by what it is about."""
    category = rules.PREF
    if _DECISION_FORM.search(text):
        category = rules.DECISION
    return rules.Rule(
        name="directive",
        category=category,
        base=round(confidence, 2),
        pattern=_NEVER_MATCHES,
        weak=False,
    )


def _vouched(rule: rules.Rule) -> rules.Rule:
    """The rule a sentence model's reading stands for: filed as the table or the
    directive form would file it, named so a person can tell where it came from."""
    return rules.Rule(
        name=f"model:{rule.name}",
        category=rule.category,
        base=CONFIDENCE_THRESHOLD,
        pattern=_NEVER_MATCHES,
        weak=False,
        type=rule.type,
    )


def _best_reading(text: str, speaker: str) -> tuple[str, _Scored | None]:
    """Score a sentence with and without a leading label ("Reminder: ...", "One rule for
    this codebase: ..."). The label is dropped when the rest says the same on its own,
    but kept when it carries the meaning ("Root cause: ...", "Lesson learned: ...")."""
    scored = score_sentence(text, speaker)
    label = _LABEL.match(text)
    if label is None:
        return text, scored
    rest = text[label.end() :]
    rest_scored = score_sentence(rest, speaker)
    if rest_scored is None:
        return text, scored
    if scored is not None and directive_form(text) == "label" and directive_form(rest) is None:
        return text, scored  # "Topic names: always kebab-case": the label is the topic
    if _names_a_topic(label.group()):
        # "cmake: minimum 3.25, targets only": the rule is about cmake.
        if scored is not None and scored.confidence >= rest_scored.confidence:
            return text, scored
        return text, rest_scored
    if (
        scored is None
        or rest_scored.confidence > scored.confidence
        or (
            rest_scored.confidence >= scored.confidence
            and rest_scored.rule.category == scored.rule.category
        )
    ):
        return rest, rest_scored
    return text, scored


def _units(sentence: str) -> list[str]:
    """A sentence, or its clauses when it is too long to be one memory."""
    text = strip_filler(sentence)
    if word_count(text) <= MAX_SENTENCE_WORDS and len(text) <= MAX_CONTENT_CHARS:
        return [text]
    return [strip_filler(part) for part in _CLAUSE_SPLIT.split(text) if part.strip()]


def rules_reading(sentence: str, speaker: str) -> list[tuple[str, float | None]]:
    """Each memory-sized unit of a sentence with the rules' confidence in it (None when
    no rule matches): what the sentence model is fitted on (benchmarks.train_sentences)."""
    out: list[tuple[str, float | None]] = []
    for unit in _units(sentence):
        text, scored = _best_reading(unit, speaker)
        out.append((text, None if scored is None else scored.confidence))
    return out


def _category_and_type(
    rule: rules.Rule, text: str, categories: dict[str, Category]
) -> tuple[str, str]:
    category = rule.category
    # "Never commit to main" is worded as a preference but is about the project's workflow.
    # Likewise "we use 4 spaces for indentation" is a convention, not an architecture choice.
    reroutable = category == rules.PREF or rule.name in _REROUTABLE_DECISIONS
    if reroutable and rules.CONVENTION_TOPIC.search(text):
        category = rules.CONVENTION
    if rule.type is not None:
        memory_type = rule.type
    elif rules.CONSTRAINT.search(text):
        memory_type = "constraint"
    elif category in categories:
        memory_type = categories[category].default_type
    else:
        memory_type = _DEFAULT_TYPES.get(category, "fact")
    return category, memory_type


def extract_tags(text: str) -> tuple[str, ...]:
    """A few lowercase technology/topic keywords, then backticked identifiers."""
    tags: list[str] = [tag for tag, pattern in rules.TAG_PATTERNS if pattern.search(text)]
    for raw in rules.BACKTICKED.findall(text):
        ident = raw.strip(".()[]{}:;,'\"@$").lower()
        if re.fullmatch(r"[a-z_][\w.-]{1,30}", ident) and ident not in tags:
            tags.append(ident)
    return tuple(tags[: rules.MAX_TAGS])


class _ConversationState:
    """What came before a turn: used to say how an assistant statement came about."""

    def __init__(self) -> None:
        self.last_user_sentence: str | None = None
        self.tools_since_user = False

    def observe(self, turn: Turn, prose: list[str]) -> None:
        if turn.kind in ("tool_use", "tool_result"):
            self.tools_since_user = True
        elif turn.speaker == "user" and turn.is_statement and prose:
            # The first sentence with some substance, not "yes." or "ok!"
            meaningful = [p for p in prose if word_count(p) >= 4]
            self.last_user_sentence = meaningful[0] if meaningful else self.last_user_sentence
            self.tools_since_user = False

    def context_hint(self, speaker: str) -> str:
        if speaker == "user":
            return "stated by the user"
        hint = "explained by the assistant"
        if self.tools_since_user:
            hint += " after running tools"
        if self.last_user_sentence:
            request = self.last_user_sentence
            if len(request) > 60:
                request = request[:57].rstrip() + "..."
            hint += f', replying to "{request}"'
        return hint


class OfflineExtractor:
    """Rule-based extractor: explicit statements in prose, scored and de-duplicated."""

    name = "offline"
    # No model, no cost: read the whole conversation, however long (seed 001's caps
    # bound what a model is sent; here they would only lose what comes after them).
    max_input_chars = sys.maxsize
    max_turn_chars = sys.maxsize

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]:
        wanted = {c.key: c for c in categories}
        state = _ConversationState()
        candidates: list[_Candidate] = []
        for turn in transcript.turns:
            prose: list[str] = []
            if turn.is_statement and not (turn.speaker == "user" and is_injected_turn(turn.text)):
                grouped = paragraph_sentences(turn.text)
                prose = [sentence for paragraph in grouped for sentence in paragraph]
                hint = state.context_hint(turn.speaker)
                previous: str | None = None
                before: list[_Candidate] = []  # what the previous sentence gave
                for sentence, opens_paragraph in _with_paragraph_starts(grouped):
                    read = self._candidates(sentence, turn, hint, wanted, previous)
                    found = [c for c in read if c.confidence >= _KEEP_FLOOR]
                    if any(c.joins_previous for c in found):
                        # The rule spans both sentences: the first alone is a fragment.
                        candidates = [c for c in candidates if all(c is not b for b in before)]
                    elif (
                        turn.speaker == "user"
                        and not opens_paragraph  # a list item stands apart from the last
                        # A weaker instruction may only end the rule before it.
                        and _elaborates(before, found or read)
                    ):
                        # A rule and the sentence right after it ("For styling we use CSS
                        # Modules. Please don't add styled-components.") are one memory.
                        # Two sentences at most: what this sentence says after its first
                        # memory (a long one read clause by clause) still stands, and the
                        # next sentence may only join one of those.
                        joined = (found or read)[0]
                        _join(before[-1], joined)
                        found = [c for c in found if c is not joined]
                    topic = _topic_of(previous) if previous and not before else None
                    if topic and found and turn.speaker == "user":
                        _name_topic(found[0], topic)
                    candidates.extend(found)
                    before = found
                    previous = sentence
            state.observe(turn, prose)
        # Workflows and code patterns (procedures.py) take the sentences they are made of.
        structured = extract_procedures(transcript, wanted)
        used = [(f.position, normalized_key(f.used_text)) for f in structured if f.used_text]
        kept = [
            c
            for c in _deduplicate(candidates)
            if not any(p == c.position and normalized_key(c.content) in u for p, u in used)
        ]
        return [
            _to_item(c)
            for c in kept
            if c.confidence >= CONFIDENCE_THRESHOLD and c.category in wanted
        ] + [f.item for f in structured]

    @staticmethod
    def _candidates(
        sentence: str,
        turn: Turn,
        hint: str,
        wanted: dict[str, Category],
        previous: str | None = None,
    ) -> list[_Candidate]:
        found: list[_Candidate] = []
        for unit in _units(sentence):
            if len(unit) > MAX_CONTENT_CHARS + 20:
                continue  # could never become a memory's content; don't pay for matching
            unit, scored = _best_reading(unit, turn.speaker)
            joins = False
            if previous and turn.speaker == "user" and _REFERS_BACK.search(unit):
                # "We run mypy in strict mode. Keep it that way for new modules.": the rule
                # is both sentences; "it" means the one before.
                joined = f"{strip_filler(previous).rstrip('.!')}. {unit}"
                joined_scored = score_sentence(joined, turn.speaker)
                if joined_scored is not None and (
                    scored is None or joined_scored.confidence > scored.confidence
                ):
                    unit, scored, joins = joined, joined_scored, True
            elif previous and turn.speaker == "user" and _continues(unit):
                joined = f"{strip_filler(previous).rstrip('.!')}. {unit}"
                joined_scored = score_sentence(joined, turn.speaker)
                if joined_scored is not None and joined_scored.confidence >= CONFIDENCE_THRESHOLD:
                    unit, scored, joins = joined, joined_scored, True
            if (
                turn.speaker == "user"
                and (scored is None or scored.confidence < CONFIDENCE_THRESHOLD)
                and sentence_model.vouches_for(unit, None if scored is None else scored.confidence)
            ):
                # A rule in a shape the table does not know, by the model's reading.
                base = scored.rule if scored is not None else _directive_rule(unit, 0.0)
                scored = _Scored(_vouched(base), CONFIDENCE_THRESHOLD, False)
            if scored is None or scored.confidence < _ELABORATION_FLOOR:
                continue
            content = clean_content(unit)
            if len(content) > MAX_CONTENT_CHARS or word_count(content) < 2:
                continue
            category, memory_type = _category_and_type(scored.rule, unit, wanted)
            found.append(
                _Candidate(
                    category=category,
                    type=memory_type,
                    content=content,
                    confidence=scored.confidence,
                    position=turn.position,
                    rule=scored.rule.name,
                    rationale=scored.rationale,
                    context_hint=hint,
                    tokens=frozenset(normalized_key(content).split()),
                    positions={turn.position},
                    joins_previous=joins,
                )
            )
        return found


def _with_paragraph_starts(grouped: list[list[str]]) -> Iterator[tuple[str, bool]]:
    """Each sentence, and whether it opens its paragraph."""
    for paragraph in grouped:
        for n, sentence in enumerate(paragraph):
            yield sentence, n == 0


_TOPIC_WORDS = 4
# Words that make a short sentence a reply or a remark, not a topic: "Ya thats it.",
# "That is acceptable.", "Not now, next sprint."
_NOT_A_TOPIC = frozenset(
    """i you he she it we they me us them this that these those there here yes ya yeah yep
    no nope not ok okay good great fine nice thanks thank correct right exactly sure now
    next then is are was were be thats that's it's its acceptable done agreed perfect""".split()
)


# Words of a leading label that only announce a rule ("One rule for this codebase:",
# "Last thing:", "Standing rule from that:"): the label says nothing the rule needs.
_ANNOUNCING = frozenset(
    """rule rules note notes reminder reminders thing things point points tip tips one two
    three first second third last final also fyi ps psa important again btw heads up quick
    small big general standing from that this these for the a an our my in of on with about
    before after regarding re codebase repo repository project team everyone all folks guys
    reason why context background update decision lesson learned learnt takeaway root
    cause fix problem issue question answer summary tldr tl dr okay ok so and then next""".split()
)


def _names_a_topic(label: str) -> bool:
    """Does a leading label name what the rule is about ("cmake:", "DI:", "Image file
    names:") rather than announce it ("Reminder:", "One rule for this codebase:")?"""
    words = [w for w in re.findall(r"[\w'-]+", label.lower()) if w not in _ANNOUNCING]
    return (
        0 < len(words) <= _TOPIC_WORDS
        and not any(w in _NOT_A_TOPIC for w in words)
        and bool(re.search(r"[a-z]{2}", " ".join(words)))
    )


def _topic_of(sentence: str) -> str | None:
    """What a short sentence that is only a topic names ("Helm.", "One: rollbacks.",
    "Second: feature flags."), so the rule said right after it keeps it; None when the
    sentence says more than a topic or nothing technical."""
    text = strip_filler(sentence).strip().rstrip(".!:")
    label = _LABEL.match(f"{text} ") if ":" in text else None
    if label is not None and not _names_a_topic(label.group()):
        text = text[label.end() :].strip()
    words = text.lower().split()
    if (
        not words
        or len(words) > _TOPIC_WORDS
        or any(ch in text for ch in ",;?")
        or not re.search(r"[a-z]{2}", text.lower())
        or words[0] in VERBS
        or any(w.strip("'.") in _NOT_A_TOPIC for w in words)
        or directive_form(text) is not None
        or not is_technical(text)
    ):
        return None
    return text


def _name_topic(cand: _Candidate, topic: str) -> None:
    """Open the rule with the topic said just before it, unless it names it already."""
    words = set(normalized_key(topic).split())
    if not words or words <= cand.tokens:
        return
    if len(topic) + 2 + len(cand.content) > MAX_CONTENT_CHARS:
        return
    first = cand.content.split(" ", 1)[0]
    rest = cand.content
    if first[1:].islower():
        rest = rest[0].lower() + rest[1:]  # "The platform team ..." reads on after the topic
    cand.content = f"{topic[0].upper()}{topic[1:]}: {rest}"
    cand.tokens = cand.tokens | words


def _kept(cand: _Candidate) -> bool:
    return cand.confidence >= CONFIDENCE_THRESHOLD


def _elaborates(before: list[_Candidate], found: list[_Candidate]) -> bool:
    """Does this sentence's first memory follow the previous sentence's last one, the
    first kept and the second at least an instruction in form (too weak alone, it may
    still end the rule), with room for the two in one memory? People state a rule and
    then say more of it (what not to do instead, where it applies, why) in the next
    sentence; read alone, the second is half a rule. Only the sentence right before
    counts, and one sentence that already took its neighbour in takes no other."""
    if not before or not found:
        return False
    first, second = before[-1], found[0]
    return (
        _kept(first)
        and second.confidence >= _ELABORATION_FLOOR
        and not first.elaborated
        and not first.joins_previous
        and not second.joins_previous
        and len(first.content) + 1 + len(second.content) <= MAX_CONTENT_CHARS
    )


def _join(first: _Candidate, second: _Candidate) -> None:
    """Fold the following sentence into the rule it elaborates, filed as the more
    confident reading files it."""
    stop = "" if first.content.endswith((".", "!", "?")) else "."
    first.content = f"{first.content}{stop} {second.content}"
    first.tokens = first.tokens | second.tokens
    first.rationale = first.rationale or second.rationale
    first.elaborated = True
    if second.confidence > first.confidence:
        first.category, first.type, first.rule = second.category, second.type, second.rule
        first.confidence = second.confidence


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    if a == b:
        return True
    overlap = len(a & b)
    if overlap / len(a | b) >= _SIMILAR:
        return True
    smaller = min(len(a), len(b))
    return smaller >= 5 and overlap == smaller  # one says the same plus a little more


def _deduplicate(candidates: list[_Candidate]) -> list[_Candidate]:
    """Merge near-identical candidates, keeping the most confident wording; a statement
    made in more than one turn gets a small boost (repetition is a signal of intent).

    Clusters are found through an index of content words, so only candidates sharing a
    non-trivial word are compared: linear in practice even for thousands of candidates.
    """
    clusters: list[list[_Candidate]] = []
    index: dict[str, list[int]] = {}
    for cand in candidates:
        seen: set[int] = set()
        match: int | None = None
        for token in cand.tokens - _STOPWORDS:
            for cid in index.get(token, ()):
                if cid not in seen:
                    seen.add(cid)
                    if _similar(clusters[cid][0].tokens, cand.tokens):
                        match = cid
                        break
            if match is not None:
                break
        if match is None and not cand.tokens - _STOPWORDS:
            match = next((i for i, c in enumerate(clusters) if c[0].tokens == cand.tokens), None)
        if match is None:
            clusters.append([cand])
            for token in cand.tokens - _STOPWORDS:
                index.setdefault(token, []).append(len(clusters) - 1)
        else:
            clusters[match].append(cand)
    kept: list[_Candidate] = []
    for cluster in clusters:
        best = max(cluster, key=lambda c: (c.confidence, -c.position))
        positions = {c.position for c in cluster}
        if len(positions) > 1:
            best.confidence = min(best.confidence + REPEAT_BOOST, _MAX_CONFIDENCE)
        best.positions = positions
        kept.append(best)
    kept.sort(key=lambda c: c.position)
    return kept


def _to_item(cand: _Candidate) -> ExtractedItem:
    context = cand.context_hint
    if cand.rationale:
        context += ", with a rationale"
    if len(cand.positions) > 1:
        context += f", repeated in {len(cand.positions)} turns"
    return ExtractedItem(
        category=cand.category,
        content=cand.content,
        confidence=round(cand.confidence, 2),
        type=cand.type,
        tags=extract_tags(cand.content),
        context=context,
        turn_start=cand.position,
        turn_end=cand.position,
    )
