"""The offline extractor's pattern table, hedges and tag vocabulary.

Seed 003 starts from a flat table of (pattern, type, confidence). Here each rule also names
its category and who may trigger it: only the user states preferences, decisions and
conventions; the assistant's explanations of a root cause or a lesson learnt count too, at
a lower confidence (applied in offline.py). Strong wording ("always", "never", "must",
"prefer", "decided") starts high; weak wording ("like", "want", "should") starts below the
0.75 threshold and only passes with an extra signal (a "because", an "always", a repeat).

Every pattern is matched against one cleaned sentence (a few hundred characters at most)
and uses no nested quantifiers, so the cost stays linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USER = frozenset({"user"})
USER_AND_ASSISTANT = frozenset({"user", "assistant"})

_FLAGS = re.IGNORECASE

# Tiny building blocks, spelled once.
_WE = r"(?:we|i|the team|our team)"
_DONT = r"(?:don'?t|do not|never)"
_NAME_CASES = (
    r"(?:snake_case|camelcase|pascalcase|kebab-case|upper_snake_case|screaming_snake_case|"
    r"lower_snake_case)"
)
_PREFER_MODS = r"(?:'d|\s+would|\s+really|\s+strongly|\s+generally|\s+usually|\s+much|\s+always)*"
# "I always forget" or "I never said" are not habits worth remembering.
_NOT_HABITS = (
    r"(?:said|say|thought|think|knew|know|forget|forgot|remember|understood|understand|get|"
    r"got|seem|see|saw|had|heard|hear|been|wanted|want|liked|like|felt|feel|noticed|"
    r"realized|wondered|wonder|mix|confuse|mind|end up|ended up|run into|ran into|hit|struggle|"
    r"lose|miss|spend|waste|fight|happy|glad|again|ever|before|seen|too|more|less|a|an|the|"
    r"so|works?|worked|fails?|failed|seems?|gets?|breaks?|have(?!\s+to\b))"
)
# Verbs of a failure, any tense: "the tests fail because ...", "it crashed when ...".
_FAILS = (
    r"(?:fail(?:s|ed)?|break(?:s)?|broke|crash(?:es|ed)?|hang(?:s)?|hung|deadlock(?:s|ed)?|"
    r"time(?:s|d)? out|leak(?:s|ed)?|flake(?:s|d)?|happen(?:s|ed)?|occur(?:s|red)?)"
)
# Scope words that may open a standing instruction: "From now on, use uv instead of pip."
_START = (
    r"^(?:(?:from now on|going forward|moving forward|in (?:the )?future|in general|generally|"
    r"as a rule|in this (?:repo|project|codebase)),?\s+)?"
)
# "switched to the feature branch" is git, not architecture.
_NOT_TECH = (
    r"(?:main|master|develop|trunk|dev|it|that|this)\b|"
    r"(?:the\s+)?(?:\S+\s+)?(?:branch|tab|window|directory|folder|worktree|terminal|pane)\b"
)
# Objects that only make sense with the conversation around them ("go with that").
_VAGUE_OBJECT = (
    r"(?:that|this|it|them|those|these|yours|your\b|my\b|the (?:first|second|third|"
    r"last|other|former|latter|same|above|previous|existing|old|new|suggested)\b|"
    r"option\s+\w+\b|approach\s+\w\b|#\d+\b)"
)
# "must be the cache" is a guess, not a rule.
_EPISTEMIC = (
    r"(?:the|a|an|in|from|because|related|caused|something|some|due|that|why|what|wrong|"
    r"broken|missing|coming|somewhere|kidding|joking)"
)


@dataclass(frozen=True)
class Rule:
    """One way of saying something worth remembering.

    `type` None means the category's default type. `weak` rules (seed 003's like/want/need)
    get a boost when the sentence also has a strong marker such as "always".
    """

    name: str
    category: str
    base: float
    pattern: re.Pattern[str]
    type: str | None = None
    speakers: frozenset[str] = USER
    weak: bool = False


def _rule(
    name: str,
    category: str,
    base: float,
    pattern: str,
    *,
    type: str | None = None,
    speakers: frozenset[str] = USER,
    weak: bool = False,
) -> Rule:
    return Rule(name, category, base, re.compile(pattern, _FLAGS), type, speakers, weak)


PREF = "coding_preferences"
DECISION = "architectural_decisions"
CONVENTION = "project_conventions"
BUG = "bug_patterns"
NOTE = "implementation_notes"

# Ordered: on a tie in confidence the earlier rule wins, so decisions and conventions come
# before the broad preference wording that often appears in the same sentence.
RULES: tuple[Rule, ...] = (
    # --- architectural decisions (the user's) ---
    _rule(
        "decided",
        DECISION,
        0.9,
        rf"\b{_WE}(?:'ve|\s+have|\s+finally|\s+all)*\s+(?:decided|agreed)\s+(?:to|"
        rf"on|that|against)\b(?!\s+(?:take a break|call it|stop for|"
        rf"go home|head out|sleep on|grab|log off|leave|wait|try again))",
    ),
    _rule(
        "decision-is",
        DECISION,
        0.88,
        r"\b(?:the|our)\s+decision\s+(?:is|was)\s+to\b|^decision:\s",
    ),
    _rule(
        "chose",
        DECISION,
        0.88,
        rf"\b{_WE}\s+(?:chose|picked|selected|went with|opted for|settled on|"
        rf"committed to)\b",
    ),
    _rule(
        "lets-go-with",
        DECISION,
        0.85,
        r"(?:^|\b)(?:let'?s|(?:we're\s+|i'm\s+)?(?:gonna|going to))\s+(?:go|"
        r"stick|stay)\s+with\b|^going\s+with\s+\w",
    ),
    _rule(
        "lets-use-for",
        DECISION,
        0.8,
        r"^let'?s\s+use\s+(?!a\b|an\b|the\b|this\b|that\b|it\b)\S+(?:\s+\S+)?\s+(?:for|"
        r"as)\s+(?:the\s+|our\s+|all\s+)?\w+",
    ),
    _rule(
        "switching",
        DECISION,
        0.85,
        rf"\b(?:we're|we are|we)\s+(?:now\s+)?(?:switching|moving|migrating)\s+(?:over\s+)?(?"
        rf":to|from|away from)\s+(?!{_NOT_TECH})",
    ),
    _rule(
        "switched",
        DECISION,
        0.85,
        rf"\b{_WE}(?:'ve|\s+have|\s+already|\s+just)*\s+(?:switched|"
        rf"moved|migrated)\s+(?:over\s+)?(?:to|from|away from)\s+(?!{_NOT_TECH})",
    ),
    _rule(
        "going-to-use",
        DECISION,
        0.78,
        rf"\b(?:we're|we are|we'll|we will)\s+(?:going to\s+)?(?:use|"
        rf"using|adopt|build on)\s+(?!{_VAGUE_OBJECT})\S+",
    ),
    _rule(
        "we-use-for",
        DECISION,
        0.8,
        r"\bwe\s+(?:use|run|host|deploy)\s+(?!it\b|this\b|that\b|them\b)[\w.@/-]+(?:\s+[\w.@/-]"
        r"+)?\s+(?:for|as|to handle|to store)\s+\w+",
    ),
    _rule(
        "not-using",
        DECISION,
        0.8,
        rf"\bwe(?:'re| are)\s+not\s+(?:using|going to use|adopting|building)\s+(?!{_VAGUE_OBJECT})"
        rf"\S+",
    ),
    _rule(
        "trade-off",
        DECISION,
        0.82,
        r"\b(?:we|i)\s+(?:accept|accepted|took|take)\s+the\s+trade-?off\b|"
        r"^trade-?off:\s",
    ),
    # --- project conventions (the user's) ---
    _rule(
        "lives-in",
        CONVENTION,
        0.88,
        r"\b(?:unit\s+|integration\s+|e2e\s+)?(?:tests?|docs|documentation|migrations|"
        r"fixtures|components|hooks|scripts|configs?|assets|types|schemas|stories|mocks|"
        r"snapshots)\s+(?:files?\s+)?(?:live|go|belong|are kept|are placed|should (?:live|"
        r"go|be)|must (?:live|go|be))\s+(?:in|under|next to|alongside)\b",
    ),
    _rule(
        "naming-case",
        CONVENTION,
        0.88,
        rf"\b(?:use|uses|using|are|is|in|be|with|follow)\s+`?{_NAME_CASES}\b",
    ),
    _rule("case-for", CONVENTION, 0.86, rf"\b{_NAME_CASES}\s+(?:for|is used for|everywhere)\b"),
    _rule(
        "commit-messages",
        CONVENTION,
        0.88,
        r"\bcommit\s+(?:messages?|titles?|subjects?)\s+(?:follow|use|"
        r"must|should|start|are|need|have to)\b|\bconventional commits\b",
    ),
    _rule(
        "branch-names",
        CONVENTION,
        0.86,
        r"\bbranch(?:es|\s+names?)?\s+(?:are named|are called|names? (?:are|"
        r"is|follow)|should be named|must be named|follow|use the|start with|"
        r"look like|are prefixed)\b|\bbranch(?:es)?\s+(?:names?\s+)?(?:are|"
        r"is)\s+`?[\w-]+/",
    ),
    _rule(
        "run-before",
        CONVENTION,
        0.88,
        r"\b(?:run|execute)\s+.{1,60}?\s+before\s+(?:you\s+|we\s+)?(?:commit|"
        r"committing|push|pushing|every commit|each commit|opening|"
        r"merging|a pr|a merge|submitting|releasing|deploying)\b",
    ),
    _rule(
        "procedure",
        CONVENTION,
        0.85,
        r"^to\s+(?:deploy|release|publish|build|run|test|start|set up|"
        r"setup|install|migrate|debug|regenerate|bump)\b[^,]{0,80},\s*(?:just\s+)?(?:run|"
        r"use|do|execute|call|type|go to|push)\b",
        type="procedure",
    ),
    _rule(
        "convention-word",
        CONVENTION,
        0.88,
        r"\b(?:our|the|a|project|naming|team|house|code)\s+convention\s+(?:is|"
        r"here|for|says)\b|\bby convention\b|\bconvention:\s",
    ),
    _rule(
        "in-this-repo",
        CONVENTION,
        0.85,
        r"\bin\s+this\s+(?:repo|repository|project|codebase|monorepo|"
        r"team),?\s+(?:we|all|every|each|files?|tests?)\b",
    ),
    _rule(
        "files-organized",
        CONVENTION,
        0.84,
        r"\b(?:files?|modules?|components?|directories|folders|packages?|"
        r"migrations?|fixtures?|helpers?|utils|hooks|routes|handlers|"
        r"models|views|templates|assets|endpoints|apis?|services|tables|"
        r"columns|env vars|environment variables)\s+(?:are|is|should be|"
        r"must be|get|go|live)\s+(?:all\s+)?(?:named|organi[sz]ed|grouped|"
        r"structured|kept|stored|placed|located|prefixed|suffixed|versioned|"
        r"namespaced|mounted|served|exposed)\b",
    ),
    _rule(
        "we-organize",
        CONVENTION,
        0.84,
        r"\bwe\s+(?:name|prefix|suffix|keep|store|put|organi[sz]e|group|"
        r"colocate|co-locate|tag|version|label)\s+(?!getting|running|"
        r"seeing|hitting|failing|trying|going|coming|it\b|that\b|this\b)(?:all\s+|"
        r"our\s+|every\s+|each\s+)?[\w`.-]+",
    ),
    _rule("we-follow", CONVENTION, 0.86, r"\bwe\s+(?:follow|adhere to|stick to)\s+(?!up\b)\S+"),
    _rule(
        "prs-need",
        CONVENTION,
        0.85,
        r"\b(?:prs?|pull requests?|merge requests?|every pr|each pr|"
        r"releases?|changelog entries)\s+(?:need|needs|must|should|"
        r"require|requires|have to|has to)\b",
    ),
    _rule(
        "all-must",
        CONVENTION,
        0.84,
        r"^(?:all|every|each)\s+(?:\w+\s+){0,3}?(?:must|should|need|"
        r"needs|requires?|have to|has to|go|live|(?:are|is|get)\s+(?:named|"
        r"written|wrapped|kept|stored|placed|prefixed|suffixed|formatted|"
        r"typed|tested|documented|validated|organi[sz]ed|required|expected|"
        r"reviewed|logged))\b",
    ),
    # --- coding preferences (the user's) ---
    _rule(
        "we-always",
        PREF,
        0.9,
        rf"(?:\b(?:we|i)\s+(?:should\s+|must\s+)?|\byou\s+(?:should|"
        rf"must)\s+)(?:always|never)\s+(?!{_NOT_HABITS}\b)\w+",
    ),
    _rule(
        "told-you",
        PREF,
        0.88,
        r"\b(?:i\s+(?:told|asked)\s+you|i\s+said)\s+(?:to\s+)?(?:always|"
        r"never|not to|to always|to never)\s+\w+",
    ),
    _rule(
        "we-use-not",
        PREF,
        0.86,
        r"\bwe\s+(?:only\s+)?use\s+[\w.@/`-]+(?:\s+[\w.@/`-]+)?,?\s+(?:not|never|"
        r"instead of|rather than|over)\s+\w",
    ),
    _rule(
        "imperative-always",
        PREF,
        0.88,
        rf"{_START}(?:please\s+)?(?:always|never)\s+(?!{_NOT_HABITS}\b)\w+",
    ),
    _rule(
        "prefer-over",
        PREF,
        0.9,
        rf"(?:{_START}|\b(?:i|we){_PREFER_MODS}\s+)prefer(?:red)?\s+.{{1,80}}?\s+(?:over|"
        rf"to|rather than|instead of)\s+\S",
    ),
    _rule("prefer", PREF, 0.84, rf"(?:{_START}|\b(?:i|we){_PREFER_MODS}\s+)prefer(?:red)?\s+\S"),
    _rule("would-prefer", PREF, 0.82, r"\b(?:i|we)(?:'d| would)\s+(?:much\s+)?(?:prefer|rather)\b"),
    _rule("my-preference", PREF, 0.84, r"\b(?:my|our)\s+(?:strong\s+)?preference\s+is\b"),
    _rule(
        "instead-of",
        PREF,
        0.84,
        rf"{_START}(?:please\s+|just\s+)?(?:use|write|pick|keep|stick (?:to|"
        rf"with)|go with|return|raise|call|import|put)\s+.{{1,80}}?(?:\s+instead of|"
        rf"\s+rather than|,\s*not|\s+over)\s+\S",
    ),
    _rule(
        "dont-use",
        PREF,
        0.85,
        rf"{_START}(?:please\s+)?{_DONT}\s+(?:ever\s+)?(?:use|add|write|"
        rf"put|import|call|mock|rely on|create|return|catch|swallow|"
        rf"commit|push|hardcode|hard-code|introduce|leave|modify|edit|"
        rf"touch|log|print|merge|deploy|skip|disable|ignore|bypass|\w+-push|"
        rf"squash|rebase|suppress|silence|store|expose)\b",
    ),
    _rule(
        "we-dont",
        PREF,
        0.85,
        r"\bwe\s+(?:don'?t|do not|never|no longer)\s+(?:use|write|allow|"
        r"accept|mock|commit|push|merge|ship|add|rely on|catch|import)\b",
    ),
    _rule(
        "avoid",
        PREF,
        0.85,
        rf"{_START}(?:please\s+|we\s+|i\s+)?(?:always\s+|try to\s+)?avoid\s+\S",
    ),
    _rule(
        "must",
        PREF,
        0.82,
        rf"(?<!\bit )(?<!\bthat )(?<!\bthis )(?<!\bthere )(?<!\bwhich )\bmust(?:n't)?\s+(?:(?"
        rf":always|never|not)\s+(?!be\s+{_EPISTEMIC}\b)\w+|be\s+(?!{_EPISTEMIC}\b)|"
        rf"use|have|go|call|return|run|live|stay|pass|include|follow|"
        rf"start|end)\b",
    ),
    _rule(
        "dislike",
        PREF,
        0.8,
        r"\bi\s+(?:really\s+)?(?:hate|dislike|can'?t stand|am not a fan of|"
        r"'m not a fan of)\b",
    ),
    _rule("fan-of", PREF, 0.8, r"\bi(?:'m| am)\s+a\s+(?:big\s+|huge\s+)?fan\s+of\b"),
    _rule(
        "standing",
        PREF,
        0.8,
        r"^(?:from now on|going forward|moving forward|in (?:the )?future),?\s+(?:please\s+)"
        r"?[a-z]\w+",
    ),
    _rule(
        "like-want",
        PREF,
        0.7,
        r"\b(?:i|we)\s+(?:really\s+)?(?:like|love|want|need|favou?r)\s+(?:to\s+)?\S",
        weak=True,
    ),
    _rule(
        "should",
        PREF,
        0.7,
        r"\b(?:we|you)\s+should\s+(?:use|write|keep|prefer|stick|avoid|"
        r"not)\b",
        weak=True,
    ),
    # --- bug patterns (anyone; the assistant at a discount) ---
    _rule(
        "root-cause",
        BUG,
        0.9,
        r"\broot\s+cause\b\s*(?:was|is|:|turned out|here|identified|"
        r"found)",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "caused-by",
        BUG,
        0.88,
        r"\b(?:bug|issue|problem|error|crash|failure|regression|flakiness|"
        r"flake|leak|deadlock|race|timeout|hang|slowness|exception|"
        r"warning)s?\s+(?:was|is|were|are)\s+(?:actually\s+|all\s+)?(?:caused by|"
        r"due to|because|coming from|triggered by)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "issue-was-that",
        BUG,
        0.85,
        r"\b(?:the|this|that)\s+(?:real\s+|actual\s+)?(?:bug|issue|"
        r"problem|culprit)\s+(?:was|is)\s+(?:that(?!\s+i\b)|in|with|a|an)\b|"
        r"\bthe\s+reason\s+(?:it|"
        r"this|that|the\s+\w+)\s+(?:\w+\s+){0,3}?(?:was|is)\s+(?:that|"
        r"because)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "fixed-by",
        BUG,
        0.85,
        r"\bfixed\s+(?:it|this|that|the\s+[\w\s-]{1,30}?)\s+by\b|\bthe\s+fix\s+(?:was|"
        r"is)\s+to\b|\b(?:fix|workaround):\s+\S",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "came-from",
        BUG,
        0.84,
        r"\b(?:bug|issue|problem|error|crash|failure|regression|leak|"
        r"exception|warning|500|404)s?\s+(?:actually\s+)?(?:came|comes|"
        r"stems|stemmed|originated|originates)\s+from\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "failure-due-to",
        BUG,
        0.84,
        r"\b(?:flaky|flakiness|failing|failures?|broken|slow|slowness|bugs?|errors?|crash(?:es)?|"
        r"issues?|problems?|timeouts?|exceptions?|leaks?|regressions?)\b[^.]{0,60}?\b(?:was|were|"
        r"is|are)\s+(?:all\s+|actually\s+|just\s+)?(?:due to|caused by|because of)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "was-caused-by",
        BUG,
        0.84,
        r"\b(?:was|were|is|are)\s+(?:being\s+)?caused\s+by\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "breaks-because",
        BUG,
        0.84,
        rf"\b{_FAILS}\s+(?:only\s+|randomly\s+|sometimes\s+)?because\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "breaks-when",
        BUG,
        0.74,
        rf"\b{_FAILS}\s+(?:only\s+|randomly\s+|sometimes\s+)?(?:whenever|when|if|on|under)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "happens-when",
        BUG,
        0.72,
        r"\b(?:this|it|the bug|the error|the issue)\s+(?:only\s+)?(?:happens|"
        r"occurs|shows up|reproduces)\s+(?:whenever|when|because|if|"
        r"only)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    # --- implementation notes (anyone; the assistant at a discount) ---
    _rule(
        "lesson",
        NOTE,
        0.88,
        r"\blessons?\s+learn(?:ed|t)\b|\b(?:takeaway|lesson)\s*:\s",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "turns-out",
        NOTE,
        0.85,
        r"\b(?:it\s+)?turn(?:s|ed)\s+out\b(?!\s+(?:that\s+)?i\b)",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "note-for-later",
        NOTE,
        0.85,
        r"\bnote\s+(?:for|to)\s+(?:later|self|future|the future|next time)\b|"
        r"\bfor future reference\b|^next time,?\s",
    ),
    _rule(
        "doesnt-work-use",
        NOTE,
        0.85,
        r"\b(?:(?:doesn'?t|does not|didn'?t|did not|won'?t|will not|"
        r"can'?t|cannot)\s+work|never works?)\b.{0,120}?\b(?:use|switch to|"
        r"instead|so we|so i)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "doesnt-work-because",
        NOTE,
        0.82,
        r"\b(?:(?:doesn'?t|does not|didn'?t|did not|won'?t|will not|"
        r"can'?t|cannot)\s+work|never works?)\s+(?:because|since|with|"
        r"in|on|under|when|if)\b",
        speakers=USER_AND_ASSISTANT,
    ),
    _rule(
        "tried-but",
        NOTE,
        0.8,
        r"\b(?:we|i)\s+(?:tried|attempted|experimented with)\s+.{1,80}?\b(?:but|"
        r"and it|and they|which)\b",
    ),
    _rule(
        "gotcha",
        NOTE,
        0.85,
        r"\b(?:gotcha|caveat|pitfall|heads up|tip|important)\s*:\s*\S|"
        r"(?:^|,\s*)(?:keep in mind|remember|be aware|note|beware)\s+that\s+\S|"
        r"^(?:be careful|watch out)\b",
    ),
    _rule(
        "comparison",
        NOTE,
        0.78,
        r"\b(?:is|are|was|were)\s+(?:much\s+|way\s+|a lot\s+|significantly\s+|"
        r"noticeably\s+)?(?:faster|slower|simpler|safer|more reliable|"
        r"more robust|cleaner|lighter|easier)\s+than\b",
    ),
)

# --- signals applied to any matched sentence ---

HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|possibly|presumably|i think|i guess|i suppose|"
    r"i believe|i feel like|not sure|unsure|kind of|sort of|seems?|seemed|i wonder|"
    r"wondering|would be nice|ideally|could(?!n't| not)|hopefully|in theory|"
    r"i'm not certain|no idea|it depends)\b",
    _FLAGS,
)
NEGATED = re.compile(
    r"\b(?:(?:haven'?t|have not|hasn'?t|didn'?t|did not|never|not|no one|nobody)\s+"
    r"(?:yet\s+|really\s+|actually\s+)?(?:decided|agreed|chosen|chose|picked|settled|"
    r"sure|saying|convinced|certain|confirmed)|(?:don'?t|do not|doesn'?t|not)\s+always|"
    r"not\s+(?:necessarily|a rule|mandatory|required)|isn'?t\s+(?:a rule|mandatory|required)|"
    r"no longer sure)\b",
    _FLAGS,
)
# "It must be something in the cache": a guess, not a rule.
SPECULATION = re.compile(rf"\b(?:must|has to|have to)\s+(?:be|have been)\s+{_EPISTEMIC}\b", _FLAGS)
QUESTION_START = re.compile(
    r"^(?:(?:should|shall|can|could|would|will|do|does|did|is|are|was|were|have|has|had|"
    r"may|must)\s+(?:we|you|i|they|it|this|that|there|the|these|those|he|she)\b|"
    r"(?:what|why|how|which|who|whom|whose|where|any idea|any thoughts|wdyt|thoughts|"
    r"is there|are there|what about|how about|let me know|tell me|show me|explain|"
    r"do you know|i wonder|i was wondering|can you|could you|would you|will you)\b)",
    _FLAGS,
)
CONDITIONAL_START = re.compile(
    r"^(?:if|unless|in case|assuming|suppose|supposing|what if|once|whether)\b", _FLAGS
)
RATIONALE = re.compile(
    r"\b(?:because|since|so that|as it|as they|due to|to avoid|to prevent|to keep|"
    r"otherwise|which means|in order to)\b",
    _FLAGS,
)
STRONG_MARKER = re.compile(r"\b(?:always|never|must|every|all|any time|whenever)\b", _FLAGS)
DEICTIC = re.compile(
    r"\b(?:here|for now|right now|for this (?:one|pr|task|change|ticket)|"
    r"in this (?:case|function|file|method|instance|test)|"
    r"this (?:function|file|line|method|class|one|time|test|component|snippet)|"
    r"yet|today|tonight|tomorrow|later today|this (?:week|morning|afternoon)|next week|"
    r"at the moment|until (?:i|we|you)|in this (?:session|conversation|chat))\b",
    _FLAGS,
)
VAGUE = re.compile(
    rf"\b(?:go with|going with|use|using|chose|choose|pick|picked|prefer|switch(?:ing|ed)? to|"
    rf"stick with|stay with|do|keep)\s+{_VAGUE_OBJECT}",
    _FLAGS,
)
# Everyday life is not a memory about code: "we always have standup at 10".
OFF_TOPIC = re.compile(
    r"\b(?:standup|stand-up|meeting|lunch|coffee|dinner|vacation|holidays?|weekend|sleep|"
    r"tired|break|leave (?:in|at|early)|call me|my (?:wife|husband|kids?|dog|cat))\b",
    _FLAGS,
)
CONSTRAINT = re.compile(
    r"\bmust\s+(?:never|not)\b|\bmustn'?t\b|\bunder no circumstances\b|\bnever\s+ever\b|"
    r"\bis\s+(?:forbidden|not allowed|prohibited)\b|\bare\s+(?:forbidden|not allowed|prohibited)\b",
    _FLAGS,
)
# Preferences that are really about the project's workflow or layout are conventions.
CONVENTION_TOPIC = re.compile(
    r"\b(?:commit(?:s|ted|ting)?|branch(?:es)?|pull requests?|prs?|changelog|main branch|"
    r"master|rebase|squash|folders?|director(?:y|ies)|file names?|filenames?|naming|"
    r"ci|pipeline|pre-commit|lint(?:er|ing)?|code review|readme|docs folder|push(?:ing)? to|"
    r"in this (?:repo|repository|project|codebase)|tabs|spaces|indentation|pushing|merging|"
    rf"{_NAME_CASES})\b|(?:tests|src|lib|docs)/",
    _FLAGS,
)
# Openings of the assistant's chit-chat and narration; such sentences are never memories.
ASSISTANT_CHATTER = re.compile(
    r"^(?:i'd be (?:happy|glad)|i would be (?:happy|glad)|happy to|glad to|let me|let's|"
    r"now let me|now i|i'll|i will|i'm going to|i am going to|here's|here is|here are|"
    r"as you can see|sure|perfect|great|excellent|absolutely|of course|certainly|done|"
    r"good|nice|okay|ok|alright|you're right|you are right|i recommend|i'd recommend|"
    r"i suggest|i'd suggest|i can|would you like|feel free|hope this)\b",
    _FLAGS,
)

# --- tags: a modest vocabulary of languages, frameworks, tools and topics ---

_TAG_TERMS: dict[str, str] = {
    "python": r"python|\.py\b|pep ?8|pythonic",
    "typescript": r"typescript|\.tsx?\b|\btsc\b",
    "javascript": r"javascript|\.jsx?\b|\bnode(?:\.?js)?\b|ecmascript",
    "rust": r"\brust\b|cargo",
    "golang": r"\bgolang\b|\bgo modules?\b",
    "java": r"\bjava\b",
    "kotlin": r"kotlin",
    "ruby": r"\bruby\b|\brails\b",
    "elixir": r"elixir|\bmix\s+\w|phoenix|\bphx\b|credo|dialyzer|dialyxir|\bash\b",
    "php": r"\bphp\b|laravel",
    "sql": r"\bsql\b",
    "react": r"\breact\b|\bjsx\b|\bhooks?\b|usestate|useeffect",
    "vue": r"\bvue\b",
    "angular": r"angular",
    "svelte": r"svelte",
    "nextjs": r"next\.?js",
    "django": r"django",
    "flask": r"\bflask\b",
    "fastapi": r"fastapi",
    "postgres": r"postgres(?:ql)?|\bpsql\b",
    "mysql": r"mysql|mariadb",
    "sqlite": r"sqlite",
    "redis": r"\bredis\b",
    "mongodb": r"mongo(?:db)?",
    "docker": r"docker|dockerfile|container",
    "kubernetes": r"kubernetes|\bk8s\b|helm",
    "terraform": r"terraform",
    "git": r"\bgit\b|\bcommits?\b|\bbranch(?:es)?\b|\brebase\b|\bmerge\b|conventional commits",
    "github": r"github",
    "ci": r"\bci\b|github actions|pipeline",
    "pytest": r"pytest",
    "jest": r"\bjest\b",
    "vitest": r"vitest",
    "testing": r"\btests?\b|testing|\bmocks?\b|fixtures?|tdd",
    "ruff": r"\bruff\b",
    "mypy": r"\bmypy\b|pyright",
    "eslint": r"eslint",
    "prettier": r"prettier",
    "linting": r"\blint(?:er|ing)?\b|\bformatter\b",
    "npm": r"\bnpm\b|\byarn\b|\bpnpm\b",
    "pip": r"\bpip\b|poetry|\buv\b",
    "celery": r"celery",
    "kafka": r"kafka",
    "rabbitmq": r"rabbitmq",
    "graphql": r"graphql",
    "rest": r"\brest(?:ful)?\b api|\brest\b endpoints?",
    "grpc": r"grpc",
    "aws": r"\baws\b|\bs3\b|lambda",
    "nginx": r"nginx",
    "orm": r"\borm\b|sqlalchemy|sqlmodel|prisma|ecto|active ?record",
    "pydantic": r"pydantic",
    "alembic": r"alembic",
    "migrations": r"migrations?",
    "async": r"\basync\b|await|asyncio|promises?|\.then\(|callbacks?|event loops?",
    "database": r"\bdatabases?\b|\bdb\b|connection pool|transactions?|\bschema\b",
    "typing": r"type hints?|type annotations?|\btyping\b|\bany\b type",
    "errors": r"exceptions?|error handling|try/catch|try/except",
    "logging": r"\blog(?:s|ging|ger)?\b",
    "naming": r"snake_case|camelcase|pascalcase|kebab-case|upper_snake_case|naming",
    "security": r"secrets?|credentials?|api keys?|\.env\b|tokens?|auth\w*",
    "performance": r"performance|faster|slower|latency|caching|\bcache\b",
    "css": r"\bcss\b|tailwind|\bscss\b|\bbem\b",
    "api": r"\bapi\b|endpoints?",
    "formatting": r"\bindentation\b|\bformatt(?:er|ing)\b|\bwhitespace\b|\btabs\b",
    "dates": r"\butc\b|timezones?|timestamps?|datetime",
    "pathlib": r"pathlib|os\.path",
    "dataclasses": r"dataclass(?:es)?",
    "imports": r"default exports?|named exports?|\bimports?\b",
}
TAG_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (tag, re.compile(pattern, _FLAGS)) for tag, pattern in _TAG_TERMS.items()
)
BACKTICKED = re.compile(r"`([^`\s]{2,40})`")
MAX_TAGS = 6
