"""Workflows and code patterns, found offline by their form (seed 004 "Memory Types").

What people say and do, not what the rule table reads sentence by sentence:

- a stated procedure: "to release: bump the version, tag it, build, then publish", "our
  deploy process is: ...", "first run the tests, then build, finally push";
- a numbered or bulleted list of instructions after a lead-in that says it is a
  procedure ("After a deploy: 1. run migrations 2. restart the worker ...");
- a code pattern: a fenced snippet the user gives with "use this pattern", "we do it
  like this", "always ..." (or approves when the assistant wrote it), and where it applies;
- a repeated command sequence: the same ordered shell commands run twice in a session
  (`repeated_sequences` also takes several sessions' commands), or the same steps in
  MIN_SESSIONS sessions of a project (`recurring_runs`, read from the store by
  extract/repeated_workflows.py).

Precision first, as in the rest of the offline extractor: every step must read as an
instruction, a list needs a lead-in naming a procedure, and a snippet needs words that
make it a pattern to follow; anything less is left to the person (or to Claude).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memory_app.domain.transcripts import Transcript, Turn
from memory_app.domain.workflows import (
    CODE_PATTERN,
    MAX_STEPS,
    WORKFLOW,
    pattern_content,
    workflow_content,
)
from memory_app.extract.base import ExtractedItem
from memory_app.extract.directives import VERBS
from memory_app.extract.sentences import is_injected_turn

WORKFLOW_CATEGORY = "project_conventions"
PATTERN_CATEGORIES = ("coding_preferences", "project_conventions")
STATED_CONFIDENCE = 0.86
ORDERED_CONFIDENCE = 0.8  # "first X, then Y": no name, but the order is said
LIST_CONFIDENCE = 0.85
PATTERN_CONFIDENCE = 0.85
APPROVED_PATTERN_CONFIDENCE = 0.8
REPEATED_CONFIDENCE = 0.8
MAX_STEP_WORDS = 14
MIN_SEQUENCE = 3  # commands: two in a row repeat by chance (`git add`, `git commit`)
MAX_SEQUENCE = 8
# Sessions a command run must recur in to be a habit rather than one task's steps: in two,
# one piece of work carried over into a second session repeats itself; a third separate
# session is the first sign of a routine.
MIN_SESSIONS = 3
MAX_KEY_WORDS = 3  # `npm run build`, `uv run pytest`
# The tools whose calls run a shell command (Claude Code's Bash, Codex's), as rendered.
COMMAND_TOOLS = frozenset({"Bash", "exec_command", "shell", "local_shell", "container.exec"})
_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9:_.-]*$")  # `mix ecto.migrate`, `npm run build`
_FILE_NAME = re.compile(r"\.(?:py|js|ts|json|toml|md|txt|ya?ml|sh|rb|go|rs|exs?|lock|cfg|ini)$")

# What a command does, read from its step key, for a command workflow's name: the first
# pattern that matches says it (`ruff format` formats before `ruff` checks).
_ACTIONS = tuple(
    (re.compile(pattern), action)
    for pattern, action in (
        (r"\b(?:pytest|test|tests|jest|vitest|tox|nox|rspec|phpunit|ctest)\b", "test"),
        (r"\b(?:fmt|format|black|prettier|isort|gofmt)\b", "format"),
        (
            r"\b(?:lint|check|typecheck|ruff|flake8|pylint|eslint|mypy|pyright|tsc|clippy|"
            r"vet)\b",
            "check",
        ),
        (r"\b(?:publish|upload|twine|release)\b", "publish"),
        (r"\b(?:deploy|rollout)\b|^(?:terraform|kubectl|helm) (?:apply|upgrade)", "deploy"),
        (r"\bmigrate\b|^alembic upgrade", "migrate"),
        (r"^git (?:add|commit)\b", "commit"),
        (r"^git push\b", "push"),
        (r"^git tag\b", "tag"),
        (r"^git (?:pull|fetch|rebase|merge)\b", "update the branch"),
        (r"^\S+ version\b|\bbump\b", "bump the version"),
        (r"\b(?:build|dist|compile|bundle|package)\b|^make$", "build"),
        (r"\b(?:install|sync|ci)\b", "install"),
    )
)
# Words a step may open with besides the directive verbs: procedure verbs and the names
# of command-line tools ("npm publish", "`make dist`").
# fmt: off
_STEP_VERBS = VERBS | frozenset("""
restart reload rerun re-run clear flush purge wait bump tag build publish regenerate
rebuild redeploy roll rollback revert apply promote stage smoke warm drain scale reindex
backfill notify announce open close sync pull fetch checkout switch stash clean wipe
generate compile upload zip unzip copy cp mv sign notarize submit archive kill stop
start boot spin bring log sleep watch tail grep curl ssh scp exec invalidate rotate
git npm pnpm yarn npx bun deno make cargo go pip pip3 uv poetry python python3 pytest
docker kubectl helm terraform ansible mix rake bundle gradle mvn dotnet flutter ruff tox
alembic django-admin celery systemctl sudo brew apt apt-get
""".split())
# fmt: on
_LEADING = re.compile(
    r"^(?:(?:and|then|first|firstly|second|secondly|third|next|finally|lastly|last|after "
    r"that|afterwards|also|just|we|you|i|please|step \d+:?|\d+[.)])\s+|,\s*)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"(?:\s+(?:and|then)|[.;:!,])+$", re.IGNORECASE)
_STEP_SPLIT = re.compile(
    r"\s*(?:,|;|→|->|=>|\band then\b|\bthen\b|\bafter that\b|\bafterwards\b|"
    r"\band finally\b|\bfinally\b|\band lastly\b|\blastly\b)\s*",
    re.IGNORECASE,
)
_ORDER_WORDS = re.compile(r"\b(?:then|after that|afterwards|finally|lastly)\b|→|->", re.I)

# A named procedure: the name, then the steps.
_NAMED = (
    # "To release: bump the version, ...", "to cut a release, bump ..."
    re.compile(
        r"^(?:so |ok,? |okay,? )?to (?P<name>[a-z][\w-]*(?: [\w./-]+){0,3}?)\s*[:,]\s*"
        r"(?P<body>.+)$",
        re.IGNORECASE,
    ),
    # "Our release process is: ...", "the deploy steps are ...", "Release checklist: ..."
    re.compile(
        r"^(?:(?:our|the|my|your) )?(?P<name>[\w-]+(?: [\w-]+){0,2}?) (?:process|"
        r"procedure|workflow|routine|checklist|steps|flow)(?: (?:is|are|goes|looks "
        r"like))?\s*:?\s+(?P<body>.+)$",
        re.IGNORECASE,
    ),
    # "When releasing, first ..., then ...", "Before a deploy: ..."
    re.compile(
        r"^(?P<name>(?:when|whenever|before|after|every time|each time) (?:we |you )?"
        r"[\w-]+(?: [\w./-]+){0,3}?)\s*[:,]\s*(?P<body>.+)$",
        re.IGNORECASE,
    ),
)
_FIRST_THEN = re.compile(r"(?:^|[:,;]\s*|\s)first(?:ly)?,?\s+(?P<body>.+\bthen\b.+)$", re.I)

# A list's lead-in that makes it a procedure and not a one-off task list.
_PROCEDURE_LEAD = re.compile(
    r"\b(?:process|procedure|workflow|routine|checklist|steps|runbook|playbook|"
    r"every time|each time|whenever|always|in (?:this|that) order|how (?:we|to|you)|"
    r"to (?:release|deploy|publish|ship|build|set up|setup|install|upgrade|migrate|"
    r"roll back|rollback|rotate|onboard|debug|test|bootstrap|cut|run|start|restore)\b|"
    r"(?:before|after|when) (?:a |the |each |every |we |you )?\w+(?:ing|s)?\b)",
    re.IGNORECASE,
)
_LIST_NAME = (
    re.compile(r"\bto (?P<name>[a-z][\w-]*(?: [\w./-]+){0,3}?)\s*:?\s*$", re.IGNORECASE),
    re.compile(
        r"(?:^|(?<=\s))(?:(?:our|the|my) )?(?P<name>[\w-]+(?: [\w-]+){0,2}?) (?:process|"
        r"procedure|"
        r"workflow|routine|checklist|steps|runbook)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\bhow (?:we|you|to) (?P<name>[\w-]+(?: [\w./-]+){0,3}?)\s*:?\s*$", re.I),
    re.compile(
        r"(?P<name>\b(?:before|after|when|whenever|every time|each time) [\w ./-]{2,40}?)"
        r"\s*:?\s*$",
        re.IGNORECASE,
    ),
)
_NUMBER = re.compile(r"(?:(?<=\s)|^)(\d{1,2})[.)]\s+")
_BULLET_LINE = re.compile(r"^\s*[-*•]\s+(\S.*)$")
_FENCED = re.compile(r"^[ \t]*```([\w+#.-]*)[ \t]*\n(.*?)\n[ \t]*```[ \t]*$", re.M | re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")

# A snippet offered as the way to do it.
_PATTERN_MARKER = re.compile(
    r"\b(?:this|that|the same|the following|following|same) (?:pattern|shape|structure|"
    r"template|style|form|approach|layout|idiom)\b|\b(?:like|as) (?:this|so|below|follows|"
    r"shown)\b|\bthis is how (?:we|you|i)\b|\bdo it this way\b|\bthis way\b|\buse this\b|"
    r"\bfollow this\b|\b(?:boilerplate|template)\b|\bshould look like\b",
    re.IGNORECASE,
)
_STANDING = re.compile(
    r"\b(?:always|every|each|all|from now on|going forward|everywhere|whenever|any new|"
    r"new \w+s?\b|we (?:do|write|structure|handle|use)|should|must|pattern)\b",
    re.IGNORECASE,
)
_NOT_A_PATTERN = re.compile(
    r"\b(?:error|errors|exception|traceback|fails?|failing|failed|broken|bug|crash\w*|"
    r"wrong|doesn'?t work|isn'?t working|don'?t|do not|never|avoid|instead of|why|not like)\b",
    re.IGNORECASE,
)
_APPROVAL = re.compile(
    r"^\W*(?:yes|yep|yeah|perfect|great|exactly|lgtm|looks good|good|nice|that'?s (?:it|"
    r"right|the one|the pattern|how we do it)|love it|approved|ship it)\b",
    re.IGNORECASE,
)
_PATH = re.compile(
    r"`?((?:[\w.*-]+/)+[\w.*{},-]*|\*\*?/[\w.*/-]+|\*\.\w+|"
    r"[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|cs|cpp|c|h|sql|ya?ml|vue|svelte|ex|exs))`?"
)
_SCOPE = re.compile(
    r"\b(?:in|for|across|inside|within|to) (?P<scope>(?:(?:all|every|each|any|the|our|new|"
    r"future|of the) )*[\w./*-]+(?: [\w./*-]+){0,3}?)(?=\s*(?:[.,;:!?)]|$|\s(?:from now|"
    r"going forward|too|as well|please|and|so|because|like|when|too|that|which|with)\b))",
    re.IGNORECASE,
)
_SCOPE_DROP = re.compile(r"^(?:(?:all|the|our|of the) )+", re.IGNORECASE)
_NOT_A_SCOPE = frozenset(
    "it this that them these those here there now general future example instance case "
    "short sure me you us real".split()
)
# Shell commands that only look around: never a workflow's step.
_LOOKING = frozenset(
    "ls cat head tail less more grep rg find pwd echo which wc tree file stat du df env "
    "sed awk sort diff cd true sleep history clear printenv date whoami".split()
)
_LOOKING_GIT = frozenset("status diff log show branch remote blame grep ls-files".split())


@dataclass(frozen=True)
class Found:
    """A workflow or pattern, with the turn it came from and the text it used up (so the
    sentence rules do not file the same words again as a plain convention)."""

    item: ExtractedItem
    position: int
    used_text: str


def extract_procedures(transcript: Transcript, wanted: Iterable[str]) -> list[Found]:
    """Every workflow and code pattern of one conversation, for the wanted categories."""
    keys = set(wanted)
    found: list[Found] = []
    turns = transcript.turns
    for index, turn in enumerate(turns):
        if not turn.is_statement or is_injected_turn(turn.text):
            continue
        if turn.speaker == "user":
            found += _stated_workflows(turn)
            found += _user_patterns(turn)
        elif turn.speaker == "assistant":
            reply = _next_user_turn(turns, index)
            if reply is not None:
                found += _approved_patterns(turn, reply)
    found += _repeated_in_session(transcript)
    out: list[Found] = []
    seen: set[str] = set()
    for f in found:
        category = _category_for(f.item.type, keys)
        if category is None or f.item.content in seen:
            continue
        seen.add(f.item.content)
        out.append(Found(_with_category(f.item, category), f.position, f.used_text))
    return out


def _category_for(memory_type: str | None, keys: set[str]) -> str | None:
    choices = (WORKFLOW_CATEGORY,) if memory_type == WORKFLOW else PATTERN_CATEGORIES
    return next((c for c in choices if c in keys), None)


def _with_category(item: ExtractedItem, category: str) -> ExtractedItem:
    return ExtractedItem(
        category=category,
        content=item.content,
        confidence=item.confidence,
        type=item.type,
        tags=item.tags,
        context=item.context,
        turn_start=item.turn_start,
        turn_end=item.turn_end,
    )


# -- stated workflows ---------------------------------------------------------------------


def steps_of(body: str) -> list[str] | None:
    """The ordered steps of a procedure's body, or None unless every piece reads as an
    instruction ("bump the version", "tag it", "`npm publish`")."""
    pieces = [_clean_step(p) for p in _STEP_SPLIT.split(body)]
    steps = [p for p in pieces if p]
    if not 2 <= len(steps) <= MAX_STEPS or not all(_is_step(s) for s in steps):
        return None
    return steps


def _clean_step(piece: str) -> str:
    text = piece.strip()
    for _ in range(3):
        text = _TRAILING.sub("", _LEADING.sub("", text)).strip()
    return text.strip("`").strip() if text.count("`") == 2 and text.startswith("`") else text


def _is_step(step: str) -> bool:
    words = step.split()
    if not words or len(words) > MAX_STEP_WORDS:
        return False
    first = words[0].lower().strip("`*\"'")
    return first in _STEP_VERBS or first.endswith(("ify", "ize", "ise"))


def _stated_workflows(turn: Turn) -> list[Found]:
    prose = _FENCED.sub("\n", turn.text)
    found: list[Found] = []
    listed = _listed_workflows(turn, prose)
    found += listed
    used = " ".join(f.used_text for f in listed)
    for sentence in _SENTENCE_END.split(prose):
        sentence = sentence.strip()
        if not sentence or sentence in used or sentence.endswith("?") or _NUMBER.search(sentence):
            continue
        stated = _stated(sentence)
        if stated is not None:
            name, steps, confidence = stated
            found.append(_workflow(turn, name, steps, confidence, sentence, "stated by the user"))
    return found


def _stated(sentence: str) -> tuple[str, list[str], float] | None:
    text = sentence.rstrip(".!")
    for pattern in _NAMED:
        match = pattern.match(text)
        if match is None:
            continue
        body = match.group("body")
        steps = steps_of(body)
        if steps is not None and (_ORDER_WORDS.search(body) or len(steps) >= 3 or ":" in text):
            return _name(match.group("name")), steps, STATED_CONFIDENCE
    first = _FIRST_THEN.search(text)
    if first is not None:
        steps = steps_of(first.group("body"))
        if steps is not None:
            lead = text[: first.start()].strip(" ,:;")
            name = _list_name(lead) if lead else ""
            return name, steps, STATED_CONFIDENCE if name else ORDERED_CONFIDENCE
    return None


def _name(raw: str) -> str:
    return " ".join(raw.split()).strip(" :,").lower()


def _list_name(lead: str) -> str:
    for pattern in _LIST_NAME:
        match = pattern.search(lead.rstrip(" :,"))
        if match is not None:
            return _name(match.group("name"))
    return ""


def _listed_workflows(turn: Turn, prose: str) -> list[Found]:
    """Numbered runs (on their own lines or inline: "1. x 2. y") and bulleted lines,
    each after a lead-in that names a procedure."""
    found: list[Found] = []
    for block in re.split(r"\n\s*\n", prose):
        items, lead, used = _numbered(block)
        if items is None:
            items, lead, used = _bulleted(block)
        if items is None or not _PROCEDURE_LEAD.search(lead):
            continue
        steps = [_clean_step(i) for i in items]
        if not 2 <= len(steps) <= MAX_STEPS or not all(_is_step(s) for s in steps):
            continue
        found.append(
            _workflow(turn, _list_name(lead), steps, LIST_CONFIDENCE, used, "listed by the user")
        )
    return found


def _numbered(block: str) -> tuple[list[str] | None, str, str]:
    marks = list(_NUMBER.finditer(block))
    start = next((n for n, m in enumerate(marks) if m.group(1) == "1"), None)
    if start is None:
        return None, "", ""
    run = [marks[start]]
    for mark in marks[start + 1 :]:
        if int(mark.group(1)) == int(run[-1].group(1)) + 1:
            run.append(mark)
    if len(run) < 2:
        return None, "", ""
    items = []
    for n, mark in enumerate(run):
        end = run[n + 1].start() if n + 1 < len(run) else len(block)
        text = block[mark.end() : end]
        if n + 1 == len(run):
            text = text.split("\n")[0]  # the last item ends with its line
        items.append(" ".join(text.split()))
    lead = block[: run[0].start()].strip().split("\n")[-1] if run[0].start() else ""
    return items, lead, block


def _bulleted(block: str) -> tuple[list[str] | None, str, str]:
    lines = block.split("\n")
    items: list[str] = []
    lead = ""
    for line in lines:
        bullet = _BULLET_LINE.match(line)
        if bullet is not None:
            items.append(bullet.group(1).strip())
        elif items:
            break
        elif line.strip():
            lead = line.strip()
    return (items if len(items) >= 2 else None), lead, block


def _workflow(
    turn: Turn, name: str, steps: Sequence[str], confidence: float, used: str, how: str
) -> Found:
    item = ExtractedItem(
        category=WORKFLOW_CATEGORY,
        content=workflow_content(name, steps),
        confidence=confidence,
        type=WORKFLOW,
        tags=("workflow",),
        context=how,
        turn_start=turn.position,
        turn_end=turn.position,
    )
    return Found(item, turn.position, used)


# -- code patterns ------------------------------------------------------------------------


def _user_patterns(turn: Turn) -> list[Found]:
    fences = list(_FENCED.finditer(turn.text))
    if not fences:
        return []
    prose = _FENCED.sub("\n", turn.text)
    sentence = _pattern_sentence(prose)
    if sentence is None:
        return []
    fence = fences[0]
    return [_pattern(turn, turn, sentence, prose, fence, PATTERN_CONFIDENCE, "stated by the user")]


def _approved_patterns(turn: Turn, reply: Turn) -> list[Found]:
    """The assistant's snippet, when the user's next words approve it as the way to go."""
    fences = list(_FENCED.finditer(turn.text))
    if not fences or not _APPROVAL.match(reply.text):
        return []
    sentence = _pattern_sentence(reply.text)
    if sentence is None:
        return []
    sentence = _APPROVAL.sub("", sentence).strip(" ,.!-—") or sentence
    context = "written by the assistant, approved by the user"
    return [
        _pattern(
            reply, turn, sentence, reply.text, fences[-1], APPROVED_PATTERN_CONFIDENCE, context
        )
    ]


def _pattern_sentence(prose: str) -> str | None:
    """The sentence offering the snippet as a pattern to follow, if any."""
    for sentence in _SENTENCE_END.split(prose):
        sentence = sentence.strip()
        if (
            sentence
            and not sentence.endswith("?")
            and _PATTERN_MARKER.search(sentence)
            and _STANDING.search(sentence)
            and not _NOT_A_PATTERN.search(sentence)
        ):
            return sentence
    return None


def scope_of(text: str) -> str:
    """Where a pattern applies, as said: a path or glob, else "in the API handlers"."""
    path = _PATH.search(text)
    if path is not None:
        return path.group(1)
    for match in _SCOPE.finditer(text):
        scope = _SCOPE_DROP.sub("", match.group("scope")).strip()
        words = scope.lower().split()
        if words and not any(w in _NOT_A_SCOPE for w in words):
            return scope
    return ""


def _pattern(
    said: Turn,
    written: Turn,
    sentence: str,
    prose: str,
    fence: re.Match[str],
    confidence: float,
    how: str,
) -> Found:
    scope = scope_of(sentence) or scope_of(prose)
    description = sentence.rstrip(" :.")
    language = fence.group(1).lower()
    item = ExtractedItem(
        category=PATTERN_CATEGORIES[0],
        content=pattern_content(description, fence.group(2), language, scope),
        confidence=confidence,
        type=CODE_PATTERN,
        tags=tuple(t for t in ("pattern", language) if t),
        context=how,
        turn_start=min(said.position, written.position),
        turn_end=max(said.position, written.position),
    )
    return Found(item, said.position, sentence)


def _next_user_turn(turns: Sequence[Turn], index: int) -> Turn | None:
    for turn in turns[index + 1 :]:
        if turn.speaker == "user" and turn.is_statement:
            return turn
        if turn.speaker == "assistant" and turn.is_statement:
            return None  # the assistant said more before the user answered
    return None


# -- repeated command sequences -----------------------------------------------------------


def normalise_command(command: str) -> str | None:
    """A shell command as a workflow step: first line, no `cd dir &&`, no output piping,
    quoted messages and version numbers masked; None for commands that only look around."""
    line = command.strip().split("\n")[0]
    line = re.sub(r"^(?:cd\s+\S+\s*&&\s*)+", "", line)
    line = re.split(r"\s+(?:\|\s*(?:head|tail|grep|less|tee)|2>&1|>\s*/dev/null)\b", line)[0]
    line = re.sub(r"(['\"]).*?\1", '"…"', line)
    line = re.sub(r"\bv?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?\b", "<version>", line)
    words = line.split()
    if not words:
        return None
    if words[0] in _LOOKING or (words[0] == "git" and len(words) > 1 and words[1] in _LOOKING_GIT):
        return None
    return " ".join(words)


def shell_command(tool_call: str) -> str | None:
    """The command line of a rendered tool call ("[Bash] make dist", Codex's
    "[exec_command] ..."), or None when the call ran no shell command."""
    label, sep, rest = tool_call.partition("] ")
    if not sep or label.removeprefix("[") not in COMMAND_TOOLS:
        return None
    return rest


def session_commands(transcript: Transcript) -> list[tuple[str, int]]:
    """The session's normalised shell commands in order, each with its turn position."""
    out: list[tuple[str, int]] = []
    for turn in transcript.turns:
        line = shell_command(turn.text) if turn.kind == "tool_use" else None
        command = normalise_command(line) if line is not None else None
        if command is not None:
            out.append((command, turn.position))
    return out


def step_key(command: str) -> str:
    """A normalised command as the same step in any session: the program and its
    subcommands, without options, paths and values (`pytest tests/x.py -q` and
    `.venv/bin/pytest` → `pytest`; `git commit -m "…"` → `git commit`; `python -m
    pytest -x` → `python -m pytest`)."""
    words = command.split()
    key = [words[0].rsplit("/", 1)[-1]]
    rest = words[1:]
    if key[0].startswith("python") and rest[:1] == ["-m"] and len(rest) > 1:
        key += rest[:2]
        rest = rest[2:]
    most = 2 if key[0] == "git" else MAX_KEY_WORDS  # `git push origin main`: `git push`
    for word in rest:
        if len(key) >= most or not _SUBCOMMAND.match(word) or _FILE_NAME.search(word):
            break
        key.append(word)
    return " ".join(key)


def recurring_runs(
    sessions: Mapping[str, Sequence[str]],
    min_sessions: int = MIN_SESSIONS,
    same_task: Mapping[str, str] | None = None,
) -> list[tuple[tuple[str, ...], list[str]]]:
    """Ordered runs of MIN_SEQUENCE to MAX_SEQUENCE different steps that recur in at
    least `min_sessions` of `sessions` (session → its step keys in order; a step run
    again straight away, a test re-run after a fix, counts once), each with the sessions
    it is in. `same_task`: session → the task it carries on (a run of resumed sessions);
    the sessions of one task count as one, since a task repeats its own steps.

    A loop run again and again (test, commit, test, commit) holds every rotation of its
    steps: they are one run, told from the step the sessions start it with. Longest
    first; a run inside a longer recurring one, or inside its loop, is not listed."""
    found: dict[tuple[str, ...], dict[str, int]] = {}  # run → session → its first start
    for name, steps in sessions.items():
        collapsed = collapse_reruns(steps)
        for length in range(MIN_SEQUENCE, MAX_SEQUENCE + 1):
            for start in range(len(collapsed) - length + 1):
                run = tuple(collapsed[start : start + length])
                if len(set(run)) == len(run):
                    found.setdefault(run, {}).setdefault(name, start)
    task = same_task or {}
    recurring = {
        run: where
        for run, where in found.items()
        if len({task.get(n, n) for n in where}) >= min_sessions
    }
    cycles: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for run in recurring:
        cycles.setdefault(min(rotations(run)), []).append(run)
    order = {name: n for n, name in enumerate(sessions)}
    merged: list[tuple[tuple[str, ...], list[str]]] = []
    for members in cycles.values():
        names = sorted({n for run in members for n in recurring[run]}, key=order.__getitem__)
        merged.append((_started_with(members, recurring, order), names))
    merged.sort(key=lambda rs: (-len(rs[0]), -len(rs[1]), rs[0]))
    return [
        (run, names)
        for n, (run, names) in enumerate(merged)
        if not any(_inside_loop(run, longer) for longer, _ in merged[:n] if len(longer) > len(run))
    ]


def collapse_reruns(steps: Sequence[str]) -> list[str]:
    """The steps with a step run again straight away counted once."""
    return [s for n, s in enumerate(steps) if n == 0 or steps[n - 1] != s]


def rotations(run: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The run told from each of its steps: the same loop when it is repeated."""
    return [run[n:] + run[:n] for n in range(len(run))]


def _started_with(
    members: Sequence[tuple[str, ...]],
    where: Mapping[tuple[str, ...], Mapping[str, int]],
    order: Mapping[str, int],
) -> tuple[str, ...]:
    """Of one loop's rotations, the one most sessions start the loop with (the
    earliest of each session's), ties going to the earliest session's."""
    votes: dict[tuple[str, ...], list[int]] = {}
    names = {n for run in members for n in where[run]}
    for name in names:
        first = min((r for r in members if name in where[r]), key=lambda r: where[r][name])
        votes.setdefault(first, []).append(order[name])
    return min(votes, key=lambda r: (-len(votes[r]), min(votes[r]), r))


def _inside_loop(run: tuple[str, ...], longer: tuple[str, ...]) -> bool:
    """`run`, told from any of its steps, is a piece of `longer` or of `longer` repeated."""
    loop = longer + longer[:-1]
    return any(_inside(r, loop) for r in rotations(run))


def repeated_sequences(sessions: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    """Ordered runs of MIN_SEQUENCE or more different commands seen twice or more: in two
    of `sessions`, or twice (not overlapping) in one. The rotations of a loop are one run,
    told from where it is first run. Longest first; a run inside a longer repeated one,
    or inside its loop, is not listed."""
    counts: dict[tuple[str, ...], int] = {}
    first: dict[tuple[str, ...], tuple[int, int]] = {}  # run → (session, start) first seen
    for index, commands in enumerate(sessions):
        for length in range(MIN_SEQUENCE, MAX_SEQUENCE + 1):
            last_end: dict[tuple[str, ...], int] = {}
            for start in range(len(commands) - length + 1):
                run = tuple(commands[start : start + length])
                if len(set(run)) < length or last_end.get(run, -1) > start:
                    continue
                last_end[run] = start + length
                counts[run] = counts.get(run, 0) + 1
                first.setdefault(run, (index, start))
    cycles: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for run, count in counts.items():
        if count >= 2:
            cycles.setdefault(min(rotations(run)), []).append(run)
    repeated = sorted(
        (min(members, key=first.__getitem__) for members in cycles.values()),
        key=lambda r: (-len(r), r),
    )
    return [
        run
        for n, run in enumerate(repeated)
        if not any(_inside_loop(run, longer) for longer in repeated[:n] if len(longer) > len(run))
    ]


def _inside(run: tuple[str, ...], longer: tuple[str, ...]) -> bool:
    return any(longer[i : i + len(run)] == run for i in range(len(longer) - len(run) + 1))


def command_workflow(run: Sequence[str], context: str, turn: int | None) -> ExtractedItem:
    """A workflow memory for a repeated command run, named by what its steps do
    (`ruff check`, `pytest`, `git commit` → "check, test and commit")."""
    return ExtractedItem(
        category=WORKFLOW_CATEGORY,
        content=workflow_content(run_name(run), [f"`{c}`" for c in run]),
        confidence=REPEATED_CONFIDENCE,
        type=WORKFLOW,
        tags=("workflow", "commands"),
        context=context,
        turn_start=turn,
        turn_end=turn,
    )


def run_name(run: Sequence[str]) -> str:
    """What a command run does, in the order it does it; a run of commands none of which
    says what it does is named by its last one (`docker compose up`)."""
    actions: list[str] = []
    for step in run:
        action = next((a for pattern, a in _ACTIONS if pattern.search(step)), None)
        if action is not None and action not in actions:
            actions.append(action)
    if not actions:
        return run[-1]
    if len(actions) == 1:
        return actions[0]
    return f"{', '.join(actions[:-1])} and {actions[-1]}"


def _repeated_in_session(transcript: Transcript) -> list[Found]:
    commands = session_commands(transcript)
    if len(commands) < 2 * MIN_SEQUENCE:
        return []
    names = [c for c, _ in commands]
    found: list[Found] = []
    for run in repeated_sequences([names]):
        first = next(p for n, (c, p) in enumerate(commands) if names[n : n + len(run)] == list(run))
        item = command_workflow(run, "the same commands run twice in one session", first)
        found.append(Found(item, first, ""))
    return found
