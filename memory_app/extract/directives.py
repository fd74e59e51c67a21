"""Standing instructions recognised by their form, not by a list of known phrasings.

The rule table (offline_rules.py) knows many ways people state preferences, but people
keep finding new ones: "Make sure every constant name ends with '_k'", "always add
docstrings", "Please keep all new tasks in Celery". What such sentences share is a shape:

- a **directive**: an imperative (a verb first, after "please", "always", "just", "from
  now on"...), a request to the listener ("make sure", "ensure", "I need you to", "you
  should", "let's"), or a team's habit ("we use", "we switched to", "we no longer",
  "our tests use");
- about **code or the team's tools**: a technical word, or a value-like token (an
  identifier, a literal, a number, a product name), so "Remember that teamwork
  matters" is not a memory;
- **standing**, not a one-off task: a quantifier or a scope ("every", "all new", "always",
  "never", "from now on", "in this repo", plural objects) rather than one definite thing
  to do now ("First, clean up the payroll module").

`directive_score` gives a confidence from those three, with the usual penalties applied by
the caller (hedges, questions, conditionals). It is a fallback beside the rule table.
"""

from __future__ import annotations

import re

from memory_app.domain.statements import frame
from memory_app.extract.offline_rules import TAG_PATTERNS

_FLAGS = re.IGNORECASE

# Verbs people use to instruct about code and work. A closed class, so a list is a
# form test here, unlike a list of phrasings.
# fmt: off
VERBS = frozenset("""
use add keep make put write name prefix suffix end start run call return raise avoid prefer
follow store log wrap pin document test mock split move rename format indent lint check
validate handle catch include exclude import export type annotate declare define set
configure deploy push commit merge rebase squash tag bump update upgrade limit cap stick go
stay ensure create delete remove drop leave skip disable enable sort group order place
reference link prefer choose pick target build bundle compile ship release publish cache
memoize retry throttle paginate sanitize escape encode decode hash encrypt sign verify
review approve assign label close open file report track measure benchmark profile trace
comment describe explain list mark flag default fall batch stream queue schedule lock
pass send post reply notify ping mention cc attach upload download backup restore prefix
separate combine extract inline refactor simplify reuse share expose hide keep treat
convert cast parse serialize persist save load fetch read query index migrate seed
version pin vendor install require declare register wire inject initialise initialize
close await return yield stop
""".split())
# fmt: on
_LEAD = re.compile(
    r"^(?:(?:from now on|going forward|moving forward|from today|in the future|in future|"
    r"in general|as a rule|by default|in this (?:repo|repository|project|codebase|service|"
    r"team)|for this (?:repo|repository|project|codebase|service|team)|here|also|and|so|"
    r"just|please(?: to)?|pls|kindly|always|never|only|then|now|"
    r"(?:before|after|when|whenever|once|for|in|on|during|with)\s+[^,.;]{1,40},)\b,?\s+)+",
    _FLAGS,
)
_REQUEST = re.compile(
    r"^(?:(?:i|we)\s+(?:need|want|would like|'d like|expect)\s+(?:you|everyone|all of you|"
    r"the team|us)\s+to|(?:you|everyone|we|people|the team)\s+(?:should|must|need to|have "
    r"to|has to|ought to)(?:\s+always|\s+never)?|make sure(?: (?:that|to))?|ensure(?: that)?|"
    r"be sure to|remember to|don'?t forget to|let'?s(?: always| never)?|"
    r"(?:could|can|would) you (?:please )?(?:always|make sure|remember to)|"
    r"i'?d (?:rather|prefer) (?:you|we)|it'?s (?:important|mandatory|required) to)\b",
    _FLAGS,
)
_TEAM = re.compile(
    r"\b(?:we|the team|our team)(?:'re|\s+are)?\s+(?:now\s+|always\s+|only\s+|usually\s+|"
    r"still\s+|never\s+|also\s+)?(?:use|using|run|running|deploy|host|keep|write|name|store|"
    r"build|test|follow|prefer|avoid|put|do not|don't|never|no longer|only|switched|switch|"
    r"moved|move|migrated|went|decided|chose|agreed|standardi[sz]ed|rely|pin|tag|prefix|"
    r"suffix|go with|going with|moving|stick|ship|review|squash|rebase|merge|require|track|"
    r"manage|handle|validate|format|lint|log|document|release|publish|version|"
    r"'ve (?:switched|moved|decided|standardi[sz]ed|dropped|agreed))\b",
    _FLAGS,
)
_OUR_RULE = re.compile(
    r"^(?:our|all|every|each|any|new|no)\s+(?:\w+\s+){0,3}?(?:is|are|go|goes|live|lives|must|"
    r"should|need|needs|use|uses|end|ends|start|starts|get|gets|have|has|stay|stays)\b",
    _FLAGS,
)
# A convention stated as a fact: "Tests are table-driven", "Remote state is in S3",
# "Outbound calls get a 5-second timeout". Subject of at most four words, then a verb.
_STATEMENT = re.compile(
    r"^(?P<subject>(?:(?:our|all|every|each|new|the|any|no)\s+)?(?:[\w/.-]+\s+){0,3}?[\w/.-]+)"
    r"\s+(?P<verb>is|are|get|gets|go|goes|live|lives|use|uses|run|runs|stay|stays|happen|"
    r"happens|must|should|need|needs|have to|has to|never|always|only|belong|belongs|"
    r"come|comes|follow|follows|start|starts|end|ends|take|takes|default|defaults)\b"
    r"(?P<rest>.*)$",
    _FLAGS,
)
_STATE = re.compile(
    r"^\s*(?:not\s+)?(?:\w+ing\b|broken|down|up|slow|fast|done|ready|green|red|fixed|merged|"
    r"deployed|flaky|ok|okay|fine|good|great|bad|weird|strange|late|early|here|there|back|"
    r"gone|missing|failing|still|already|a mess|a pain|annoying|nice|cool|awesome|huge|"
    r"so|too|very|really|pretty|kind of|sort of)\b",
    _FLAGS,
)
# "Outbound calls: 3 second context timeout.", "Interfaces: no 'I' prefix.": a topic,
# a colon, and a verbless specification of it.
_LABELLED = re.compile(r"^(?P<label>[A-Za-z][\w./'-]*(?:\s+[\w./'-]+){0,3})\s*:\s+(?P<spec>\S.*)$")
_SPECIFIES = re.compile(
    r"\d|\b(?:only|no|never|always|every|all|each|per|at most|at least|max|maximum|min|"
    r"minimum|not|instead|before|after)\b",
    _FLAGS,
)
_MAX_SPEC_WORDS = 15
# A verbless note typed fast: a thing, how it is done, what with ("json with moshi",
# "migrations via alembic", "sql keywords in uppercase").
_TERSE = re.compile(
    r"^(?P<thing>[a-z][\w./-]*(?:\s+[a-z][\w./-]*){0,2})\s+"
    r"(?:with|via|through|using|in|on)\s+(?P<what>[\w./'`-]+(?:[ ,]+[\w./'`-]+){0,3})[.!]?$",
)
_STANDING = re.compile(
    r"\b(?:always|never|every|each|all|any|whenever|from now on|going forward|moving forward|"
    r"by default|in general|as a rule|no more|only|new|future|anymore|any more|"
    r"in this (?:repo|repository|project|codebase|service|team)|across|everywhere|"
    r"(?:the|our) (?:whole|entire) (?:codebase|repo|project)|make sure|ensure|don'?t|"
    r"do not|instead of|rather than|no longer|we (?:use|keep|run|prefer|switched))\b|"
    r"^(?:\w+\s+)?(?:use|prefer|run|keep|put|name|write)\s+\S+(?:\s+\S+){0,3}\s+(?:for|"
    r"to|when|as|in|with)\s+(?:all\s+|our\s+|new\s+)?\w+s\b",
    _FLAGS,
)
_ONE_OFF = re.compile(
    r"^(?:first|second|then|next|after that|finally|quickly|real quick)\b|"
    r"\b(?:today|tonight|tomorrow|this (?:afternoon|morning|week|sprint)|right now|"
    r"for now|asap|when you get a chance|before lunch|by friday|this one|this bug|"
    r"this ticket|this pr|that file|for me)\b|"
    r"^(?:can|could|would|will) you\b|"
    # "..., ignore that": what to pass over here, now, not a rule for later.
    r"\b(?:ignore|disregard|skip) (?:that|this|it|them)\b(?! (?:kind|sort|type)\b)",
    _FLAGS,
)
_PAST = re.compile(r"^(?:i|we|you|he|she|they)\s+(?:had|was|were|did|went|saw|told|said)\b", _FLAGS)
# A technical vocabulary: what code, its tools and a team's workflow are made of.
# fmt: off
_TECH = frozenset("""
code coding codebase function functions method methods class classes module modules file
files folder folders directory directories variable variables constant constants name names
naming identifier identifiers type types typing test tests testing unit integration e2e
fixture fixtures mock mocks commit commits branch branches merge rebase squash pr prs pull
request requests review reviews reviewer api apis endpoint endpoints route routes database
databases db query queries schema schemas migration migrations table tables column columns
index indexes deploy deploys deployment deployments release releases build builds ci pipeline
pipelines lint linter linting format formatter formatting indent indentation tab tabs space
spaces line lines length docstring docstrings comment comments docs documentation readme
changelog log logs logging logger error errors exception exceptions warning warnings config
configuration env environment variable secret secrets key keys token tokens dependency
dependencies package packages library libraries framework frameworks service services
microservice server servers client clients cache caching queue queues job jobs worker
workers task tasks cron script scripts container containers image images cluster docker
kubernetes helm terraform cloud bucket storage upload http https json yaml toml csv xml sql
orm model models view views component components hook hooks state props store reducer
async await promise promises callback callbacks thread threads lock timeout retry retries
backoff rate limit limits pagination auth authentication authorization login password
session sessions cookie cookies header headers payload response responses status version
versions semver tag tags ticket tickets issue issues bug bugs fix fixes hotfix feature
features flag flags toggle rollout staging production prod dev repo repository monorepo
suffix prefix camelcase snake_case pascalcase kebab-case uppercase lowercase case string
strings integer integers number numbers float date dates timestamp timestamps utc timezone
timezones currency money decimal null none boolean enum enums interface interfaces struct
generics annotation annotations decorator decorators import imports export exports main
master trunk standup standups retro retros sprint sprints board wiki channel channels
meeting meetings call calls chat slack email doc spec specs design diagram diagrams ticketing
tracker backlog estimate estimates story stories points estimate deadline oncall on-call
pager alert alerts monitoring metrics dashboard dashboards observability tracing sentry
benchmark benchmarks performance latency memory cpu profile profiling security lib
stylesheet css html template templates markup frontend backend api-first graphql rest grpc
protobuf websocket websockets event events message messages broker topic topics stream
""".split())
# fmt: on
_WORD = re.compile(r"[A-Za-z][\w'-]*")


# The word after these names a tool: "we run mypy", "use black", "install uv".
_TOOL_SLOT = re.compile(
    r"\b(?:use|uses|using|run|runs|running|install|import|with|via|through|on|in)\s+"
    r"(?!the\b|a\b|an\b|it\b|this\b|that\b|them\b|our\b|my\b|your\b|mind\b|order\b|"
    r"time\b|case\b|general\b|fact\b|person\b|common\b)([a-z][a-z0-9]{2,})\b",
    _FLAGS,
)
_TECHY_ENDING = re.compile(r"[a-z]{2,}(?:py|js|ts|db|sql|ql|ctl|lint|cli|api|sdk|ops)\b", _FLAGS)


def is_technical(text: str) -> bool:
    """Does the sentence speak about code, its tools or the team's way of working?"""
    words = [w.lower().strip("'") for w in _WORD.findall(text)]
    if any(w in _TECH or w.rstrip("s") in _TECH for w in words):
        return True
    if any(pattern.search(text) for _, pattern in TAG_PATTERNS):
        return True
    if _TECHY_ENDING.search(text) or _TOOL_SLOT.search(text):
        return True
    return bool(frame(text).values)


def _body(text: str) -> str:
    """The sentence without its leading scope and courtesy words."""
    return _LEAD.sub("", text.strip()).strip()


def form(text: str) -> str | None:
    """ "imperative", "request", "team", "rule", "statement" or "label" ("Interfaces: no
    'I' prefix") when the sentence has the form of a standing instruction; None
    otherwise."""
    body = _body(text)
    if not body:
        return None
    if _REQUEST.match(body) or _REQUEST.match(text.strip()):
        return "request"
    first = body.split(None, 1)[0].lower().strip(",.:;!'\"")
    if first in VERBS and not re.match(r"^\w+(?:s|ed|ing)\s+(?:is|are|was)\b", body, _FLAGS):
        return "imperative"
    if first == "no" and _COURTESY.match(body):
        return None  # "No rush, end of sprint is fine.", "No blame, it's how we learn."
    if first in ("don't", "dont", "do", "never", "no", "avoid", "stop", "quit"):
        return "imperative"
    if _TEAM.search(text) and not _PAST.match(text.strip()):
        return "team"
    if _OUR_RULE.match(body):
        return "rule"
    statement = _STATEMENT.match(body)
    if statement is not None and not _STATE.match(statement["rest"]):
        subject = statement["subject"].lower().split()
        generic = subject[-1].endswith("s") and subject[0] not in ("this", "that", "it")
        quantified = subject[0] in ("our", "all", "every", "each", "new", "any", "no")
        if (
            generic or quantified or frame(statement["rest"]).values or _names_one(statement)
        ) and subject[0] not in (
            "i",
            "you",
            "he",
            "she",
            "it",
            "this",
            "that",
            "there",
            "what",
            "which",
            "who",
        ):
            return "statement"
    if _TERSE.match(body) and _says_a_tech_thing(body):
        return "label"  # "json with moshi", "migrations via alembic": a typed note
    labelled = _LABELLED.match(text.strip())
    if labelled is not None:
        spec = labelled["spec"]
        words = len(spec.split())
        if words <= _MAX_SPEC_WORDS and (_SPECIFIES.search(spec) or frame(spec).values):
            return "label"
    return None


# "No ..." that reassures rather than forbids: a pace, a feeling, a courtesy.
_COURTESY = re.compile(
    r"^no\s+(?:rush|hurry|pressure|stress|worries|worry|problem|problems|blame|biggie|"
    r"sweat|offense|offence|need|doubt|idea|way|kidding|thanks|excuses|shame|judgement|"
    r"judgment|big deal|hard feelings)\b",
    _FLAGS,
)


def _says_a_tech_thing(body: str) -> bool:
    """The thing a terse note is about is one of code or tools, and no verb says
    something happened ("tests in kotest" yes; "lunch on fridays" no)."""
    found = _TERSE.match(body)
    if found is None:
        return False
    thing = found["thing"].lower().split()
    return any(w in _TECH or w.rstrip("s") in _TECH for w in thing) and not any(
        w.endswith("ed") or w in VERBS for w in thing
    )


def _names_one(statement: re.Match[str]) -> bool:
    """A technical thing said to be one named thing, lowercase as people type it ("the
    cache is redis", "base image for our containers is alpine")."""
    rest = statement["rest"].strip(" .!").split()
    return (
        statement["verb"].lower() in ("is", "are", "use", "uses")
        and 1 <= len(rest) <= 2
        and all(w.lower() not in _NOT_NAMES for w in rest)
        and any(w.lower().strip(",.") in _TECH for w in statement["subject"].split())
    )


_NOT_NAMES = frozenset("a an the it this that them fine good ok okay done here there".split())


# Verbs that name a way of working whatever their object: "use the logging module" is a
# habit where "fix the login bug" is a task.
_HABIT_VERBS = frozenset({"use", "prefer", "follow", "avoid"})


def _generic_object(body: str) -> bool:
    """An imperative about a kind of thing ("validate request bodies", "wrap errors")
    rather than one thing ("clean up the payroll module", "create a hello function")."""
    words = body.split()
    rest = [w.lower() for w in words[1:4] if w.lower() not in ("up", "out", "down", "over")]
    if not rest:
        return True  # "always add docstrings" reduced to "add docstrings": a habit
    if words[0].lower() in _HABIT_VERBS and rest[0] in ("the", "a", "an"):
        return True  # "use the logging module", "follow the style guide": a way of working
    # "add a goodbye function", "fix the login bug": one thing to do now.
    return rest[0] not in (
        "the",
        "this",
        "that",
        "these",
        "those",
        "my",
        "it",
        "his",
        "her",
        "a",
        "an",
        "one",
        "me",
    )


def is_one_off(text: str) -> bool:
    """A task for now, not a standing rule: "Create a hello world function", "First,
    clean up the payroll module", "fix this bug today", unless it also says it stands
    ("always", "every", "from now on")."""
    if _STANDING.search(text):
        return False
    if _ONE_OFF.search(text) or _PAST.match(text.strip()):
        return True
    return form(text) == "imperative" and not _generic_object(_body(text))


# Base confidences: a request or a team's habit is as explicit as an imperative; a bare
# rule-shaped statement ("all handlers return JSON") needs its standing marker.
_BASE = {
    "request": 0.66,
    "imperative": 0.62,
    "team": 0.62,
    "rule": 0.6,
    "statement": 0.62,
    "label": 0.62,
}
STANDING_BOOST = 0.16
ONE_OFF_PENALTY = 0.22


def directive_score(text: str) -> float | None:
    """The confidence that `text` is a standing instruction about code or the team's
    tools, before the caller's hedge/question/length adjustments; None when it does not
    have the form of one or is not about anything technical."""
    kind = form(text)
    if kind is None or not is_technical(text):
        return None
    score = _BASE[kind]
    standing = bool(_STANDING.search(text))
    if kind in ("statement", "team", "label"):
        standing = True  # present-tense habits and facts of the project stand by nature
    elif kind == "imperative":
        standing = standing or _generic_object(_body(text))
    if standing:
        score += STANDING_BOOST
    if _ONE_OFF.search(text):
        score -= ONE_OFF_PENALTY
    if _PAST.match(text.strip()):
        score -= ONE_OFF_PENALTY
    return score
