"""The offline extractor on realistic conversations: what it must find, what it must not."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_app.domain.categories import DEFAULT_CATEGORIES, Category
from memory_app.domain.gates import truncate_for_extraction
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import CONFIDENCE_THRESHOLD, ExtractedItem
from memory_app.extract.offline import OfflineExtractor
from memory_app.extract.sentences import clean_content, sentences

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SAMPLES = FIXTURES / "samples" / "claude-code"
CATEGORY_KEYS = {c.key for c in DEFAULT_CATEGORIES}


def conversation(*turns: tuple[str, str] | tuple[str, str, str]) -> Transcript:
    """Build a transcript from (speaker, text) or (speaker, text, kind) tuples."""
    built = []
    for position, spec in enumerate(turns):
        speaker, text = spec[0], spec[1]
        kind = spec[2] if len(spec) == 3 else "message"
        built.append(Turn(position=position, speaker=speaker, text=text, kind=kind))
    return Transcript(source_kind="claude-code", turns=tuple(built))


def extract(
    transcript: Transcript, categories: tuple[Category, ...] = DEFAULT_CATEGORIES
) -> list[ExtractedItem]:
    return OfflineExtractor().extract(transcript, categories)


def one(speaker: str, text: str) -> list[ExtractedItem]:
    return extract(conversation((speaker, text)))


def assert_well_formed(items: list[ExtractedItem], keys: set[str] = CATEGORY_KEYS) -> None:
    for item in items:
        assert item.confidence >= CONFIDENCE_THRESHOLD, item
        assert item.content.strip(), item
        assert item.category in keys, item
        assert len(item.content) <= 300, item
        assert item.turn_start is not None and item.turn_end is not None, item
        assert item.context, item
        assert all(tag == tag.lower() for tag in item.tags), item


# --- the headline case ------------------------------------------------------------------

CLIENT_TS = "export function getUser(id) {\n  return fetch(`/u/${id}`).then(r => r.json());\n}"

ASYNC_SESSION = conversation(
    ("user", "hey, can you look at the fetch helpers in src/api/client.ts?"),
    ("assistant", "Sure! Let me read the file first."),
    ("assistant", '{"file_path": "src/api/client.ts"}', "tool_use"),
    ("tool", CLIENT_TS, "tool_result"),
    ("assistant", "I see `.then()` chains everywhere. Would you like me to refactor them?"),
    ("user", "yes please. we always use async/await, never .then() chains"),
    ("assistant", "Got it. I'll convert them to async/await."),
    ("assistant", '{"command": "npm test"}', "tool_use"),
    ("tool", "PASS src/api/client.test.ts\nTests: 4 passed", "tool_result"),
    ("assistant", "Done! All four tests pass."),
    ("user", "thanks!"),
)  # fmt: skip


def test_async_await_preference_is_found_once_in_a_realistic_session() -> None:
    items = extract(ASYNC_SESSION)

    assert len(items) == 1, items
    item = items[0]
    assert item.category == "coding_preferences"
    assert item.type == "preference"
    assert "async/await" in item.content
    assert ".then()" in item.content
    assert item.content == "We always use async/await, never .then() chains."
    assert item.confidence >= 0.75
    assert item.turn_start == item.turn_end == 5
    assert item.context == "stated by the user"
    assert "async" in item.tags


# --- what must yield nothing ------------------------------------------------------------

LS_OUTPUT = """total 48
drwxr-xr-x  5 me staff 160 Jan 1 10:00 .
-rw-r--r--  1 me staff 900 Jan 1 10:00 mix.exs
lib/app/repo.ex
lib/app_web/router.ex"""
STACK_TRACE = """** (Mix) Could not start application: we always prefer to fail here
    (elixir 1.17) lib/kernel.ex:12: Kernel.start/2
Traceback (most recent call last):
  File "x.py", line 1, in <module>
    raise ValueError("never do this")
ValueError: never do this"""

CHATTER_AND_TOOLS = conversation(
    ("user", "Hi!"),
    ("assistant", "Hello! I'd be happy to help. What are we working on today?"),
    ("user", "great, can you help me? the server doesn't start"),
    ("assistant", "Let me check the project structure and try running the server."),
    ("assistant", '{"command": "ls -la"}', "tool_use"),
    ("tool", LS_OUTPUT, "tool_result"),
    ("assistant", '{"command": "mix phx.server"}', "tool_use"),
    ("tool", STACK_TRACE, "tool_result"),
    ("user", "should we use Postgres or SQLite?"),
    ("user", "can you show me how to configure the repo"),
    ("user", "now add a goodbye function"),
    ("user", "create the beads"),
    ("assistant", "Perfect! As you can see, the server always starts on port 4000 now."),
    ("user", "[Request interrupted by user]"),
    ("agent", "We decided to always use Postgres. Never use SQLite."),
    ("system", "We always use tabs."),
    ("user", "ok thanks, that's always helpful!"),
)  # fmt: skip


def test_greetings_questions_requests_and_tool_output_yield_nothing() -> None:
    assert extract(CHATTER_AND_TOOLS) == []


@pytest.mark.parametrize(
    ("speaker", "text"),
    [
        pytest.param("user", "Should we always use async/await here?", id="question"),
        pytest.param("user", "do we prefer pathlib over os.path", id="question-no-mark"),
        pytest.param("user", "Maybe we should always use dataclasses.", id="hedged-maybe"),
        pytest.param("user", "I think we should probably prefer Redis.", id="hedged-i-think"),
        pytest.param("user", "We haven't decided whether to use Kafka yet.", id="negated"),
        pytest.param("user", "If we decided to use GraphQL we'd need a gateway.", id="conditional"),
        pytest.param("user", "Let's go with the second option.", id="not-self-contained"),
        pytest.param("user", "It must be something in the cache.", id="epistemic-must"),
        pytest.param("user", "I always forget the decorator syntax.", id="not-a-habit"),
        pytest.param(
            "assistant",
            "I recommend using pathlib instead of os.path for readability.",
            id="assistant-recommends",
        ),
        pytest.param(
            "assistant", "We decided to use a GenServer for the cache.", id="assistant-decides"
        ),
        pytest.param(
            "assistant", "You should always validate API responses first.", id="assistant-advice"
        ),
        pytest.param(
            "user",
            "here's the snippet:\n```js\n// we always prefer this\n"
            "fetchUser().then(u => render(u)); // never await\n```",
            id="fenced-code",
        ),
        pytest.param(
            "user",
            "    # we always prefer tabs\n    def f():\n        return always_prefer()",
            id="indented-code",
        ),
        pytest.param(
            "user",
            "<system-reminder>\nThe user prefers concise answers. Always use TodoWrite.\n"
            "We decided to use pnpm.\n</system-reminder>",
            id="system-reminder",
        ),
        pytest.param(
            "user",
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
            "<command-args>we always use pytest fixtures</command-args>",
            id="slash-command",
        ),
        pytest.param(
            "user",
            "> We always use async/await, never .then() chains.\nwhere did you get that from",
            id="quoted-text",
        ),
        pytest.param("user", f"I get this:\n{STACK_TRACE}\n{LS_OUTPUT}", id="pasted-output"),
    ],
)
def test_negatives_yield_nothing(speaker: str, text: str) -> None:
    assert one(speaker, text) == []


SKILL_DOCUMENT = (
    "Create beads (epic + tasks + dependencies) with a structured preview.\n\n"
    "> **SCOPE**: This skill ONLY creates beads. It does NOT write code.\n\n"
    "## Instructions\n\nFollow these phases in strict order. DO NOT create any beads until "
    "the user explicitly approves the plan.\n\n### Phase 1: Understand Input\n\n"
    + "Never reference rigs by name, always point to concrete file paths. "
    "Avoid vague instructions in bead descriptions. Each task description MUST include "
    "all sections. We always use `bd create` with inline flags. Prefer small tasks over "
    "big ones.\n\n" * 6 + "### Phase 2: Explore\n\nDon't use `bd edit`, it blocks agents.\n"
)


def test_a_long_injected_skill_document_yields_nothing() -> None:
    assert len(SKILL_DOCUMENT) > 1500
    transcript = conversation(
        ("user", "<command-name>/create-beads</command-name>"),
        ("user", SKILL_DOCUMENT),
        ("assistant", "I'll research the setup options and then draft beads for you."),
    )
    assert extract(transcript) == []
    # Also after the per-turn truncation the service applies before extracting.
    truncated, _ = truncate_for_extraction(transcript, max_turn_chars=1600)
    assert extract(truncated) == []


def test_compaction_prompt_and_summary_yield_nothing() -> None:
    prompt = (
        "Your task is to create a detailed summary of the conversation so far, paying close "
        "attention to the user's explicit requests.\n" + "Always include code. " * 100
    )
    summary = (
        "<analysis>\nThe bug was caused by a guard clause. We decided to use Postgres.\n"
        "</analysis>\n<summary>\n1. Primary Request: the user prefers async/await.\n</summary>"
    )
    assert extract(conversation(("user", prompt), ("assistant", summary))) == []


# --- one positive per category ----------------------------------------------------------


@pytest.mark.parametrize(
    ("speaker", "text", "category", "memory_type", "needle"),
    [
        pytest.param(
            "user", "please use pathlib instead of os.path", "coding_preferences",
            "preference", "pathlib instead of os.path", id="preference",
        ),
        pytest.param(
            "user", "Don't use default exports, they make refactoring painful.",
            "coding_preferences", "preference", "default exports", id="dont",
        ),
        pytest.param(
            "user", "We decided to use PostgreSQL because we need JSONB and real transactions.",
            "architectural_decisions", "decision", "PostgreSQL", id="decision",
        ),
        pytest.param(
            "user", "ok so let's go with Celery for background jobs", "architectural_decisions",
            "decision", "Celery for background jobs", id="lets-go-with",
        ),
        pytest.param(
            "user", "Tests live in tests/ and mirror the package layout.", "project_conventions",
            "convention", "mirror the package layout", id="convention",
        ),
        pytest.param(
            "user", "Commit messages follow Conventional Commits.", "project_conventions",
            "convention", "Conventional Commits", id="commits",
        ),
        pytest.param(
            "user", "To deploy, run `make deploy` from a clean checkout.", "project_conventions",
            "procedure", "`make deploy`", id="procedure",
        ),
        pytest.param(
            "user", "The bug was caused by a missing await in the session middleware.",
            "bug_patterns", "fix", "missing await", id="bug-user",
        ),
        pytest.param(
            "assistant",
            "The issue was that the datetimes were naive; fix: store aware UTC datetimes.",
            "bug_patterns", "fix", "aware UTC datetimes", id="bug-assistant",
        ),
        pytest.param(
            "user", "Turns out SQLite can't drop a column inside a transaction on old versions.",
            "implementation_notes", "fact", "SQLite", id="note",
        ),
        pytest.param(
            "user", "npm link doesn't work with pnpm workspaces, use `pnpm link --global` instead.",
            "implementation_notes", "fact", "pnpm link --global", id="doesnt-work",
        ),
    ],
)  # fmt: skip
def test_one_positive_per_category(
    speaker: str, text: str, category: str, memory_type: str, needle: str
) -> None:
    items = one(speaker, text)

    assert [i.category for i in items] == [category], items
    assert items[0].type == memory_type
    assert needle in items[0].content
    assert_well_formed(items)


def test_must_never_rules_are_constraints() -> None:
    items = one("user", "Handlers must never block the event loop.")
    assert [(i.category, i.type) for i in items] == [("coding_preferences", "constraint")]


def test_workflow_preferences_are_filed_as_conventions() -> None:
    items = one("user", "Never commit directly to main.")
    assert [i.category for i in items] == ["project_conventions"]


# --- speakers and confidence ------------------------------------------------------------


def test_the_assistant_weighs_less_and_says_how_it_came_about() -> None:
    text = "The bug was caused by a missing await in the session middleware."
    session = conversation(
        ("user", "The login test keeps failing, can you fix it?"),
        ("assistant", '{"command": "pytest tests/test_login.py"}', "tool_use"),
        ("tool", "FAILED tests/test_login.py::test_login - AssertionError", "tool_result"),
        ("assistant", text),
    )
    by_assistant = extract(session)
    by_user = one("user", text)

    assert len(by_assistant) == 1 and len(by_user) == 1
    assert by_assistant[0].confidence < by_user[0].confidence
    assert by_assistant[0].context is not None
    assert by_assistant[0].context.startswith("explained by the assistant after running tools")
    assert "The login test keeps failing" in by_assistant[0].context
    assert by_assistant[0].turn_start == 3


def test_strong_wording_beats_weak_wording() -> None:
    strong = one("user", "We always write docstrings for public functions.")
    weak = one("user", "I like docstrings on public functions.")
    hedged = one("user", "We should probably always write docstrings for public functions.")

    assert strong and strong[0].confidence >= 0.85
    assert weak == []
    assert hedged == []


def test_a_rationale_raises_confidence() -> None:
    plain = one("user", "We chose FastAPI over Flask.")
    reasoned = one("user", "We chose FastAPI over Flask because we need async endpoints.")
    assert plain and reasoned
    assert reasoned[0].confidence > plain[0].confidence
    assert reasoned[0].context == "stated by the user, with a rationale"


def test_repeats_are_merged_and_boosted() -> None:
    session = conversation(
        ("user", "We always use async/await, never .then() chains."),
        ("assistant", "Understood."),
        ("user", "again: we always use async/await and never .then() chains!"),
    )
    items = extract(session)
    single = one("user", "We always use async/await, never .then() chains.")

    assert len(items) == 1, items
    assert items[0].confidence > single[0].confidence
    assert items[0].context is not None and "repeated in 2 turns" in items[0].context


def test_a_rule_and_the_sentence_that_elaborates_it_are_one_memory() -> None:
    items = one(
        "user",
        "For styling we use CSS Modules. Please don't add styled-components, we ripped "
        "it out last year because of the runtime cost.",
    )
    assert [i.content for i in items] == [
        "For styling we use CSS Modules. Please don't add styled-components, we ripped "
        "it out last year because of the runtime cost."
    ]


def test_elaboration_takes_one_sentence_and_never_crosses_a_list_item() -> None:
    three = one(
        "user",
        "We use constructor injection everywhere. Never put @Autowired on fields. "
        "Every controller method returns a DTO, never an entity.",
    )
    assert [i.content for i in three] == [
        "We use constructor injection everywhere. Never put @Autowired on fields.",
        "Every controller method returns a DTO, never an entity.",
    ]
    listed = one(
        "user", "- We use constructor injection everywhere.\n- Always use pnpm, never npm."
    )
    assert [i.content for i in listed] == [
        "We use constructor injection everywhere.",
        "Always use pnpm, never npm.",
    ]


def test_a_long_sentence_read_by_clauses_keeps_the_clauses_after_the_joined_one() -> None:
    items = one(
        "user",
        "We use constructor injection everywhere. Never put @Autowired on fields in any "
        "class of the gateway, not even in the tests or in the small helper configurations "
        "that nobody reads; every controller method returns a DTO built by the mapper layer "
        "and never an entity from the persistence package, whatever the endpoint; all "
        "configuration lives in application.yml with one profile per environment and no "
        "properties files anywhere else in the repository.",
    )
    contents = [i.content for i in items]
    assert len(contents) == 3, contents
    assert contents[0].startswith("We use constructor injection everywhere. Never put")
    assert contents[1].startswith("Every controller method returns a DTO")
    assert contents[2].startswith("All configuration lives in application.yml")


# --- content, tags, categories ----------------------------------------------------------


def test_content_is_cleaned_but_keeps_the_speakers_words() -> None:
    items = one("user", "ok so   btw, also, i prefer `pathlib.Path` over os.path   thanks")
    assert [i.content for i in items] == ["I prefer `pathlib.Path` over os.path."]


def test_sentences_survive_dots_in_code_and_abbreviations() -> None:
    text = (
        "we never use .then() chains, e.g. in `api.ts`. Use os.path? No! "
        "Prefer `pathlib.Path` over os.path.\n```py\nx = 1\n```\n- tests go in tests/"
    )
    assert sentences(text) == [
        "we never use .then() chains, e.g. in `api.ts`.",
        "Use os.path?",
        "No!",
        "Prefer `pathlib.Path` over os.path.",
        "tests go in tests/",
    ]
    assert clean_content("and btw, `uv` instead of pip thanks!") == "`uv` instead of pip."
    assert clean_content("npm ci in CI") == "npm ci in CI."


def test_tags_come_from_the_vocabulary_and_backticks() -> None:
    items = one(
        "user", "We decided to run Postgres in Docker and manage the schema with `alembic`."
    )
    assert items
    assert {"postgres", "docker", "alembic"} <= set(items[0].tags)


def test_only_the_requested_categories_are_returned() -> None:
    session = conversation(
        ("user", "We always use async/await, never .then() chains."),
        ("user", "We decided to use PostgreSQL because we need JSONB."),
        ("user", "The bug was caused by a missing await in the middleware."),
    )
    decisions_only = tuple(c for c in DEFAULT_CATEGORIES if c.key == "architectural_decisions")
    custom = (Category("security_notes", "Security notes", "Secrets and auth."),)

    items = extract(session, decisions_only)
    assert [i.category for i in items] == ["architectural_decisions"]
    assert extract(session, custom) == []
    assert {i.category for i in extract(session)} == {
        "coding_preferences",
        "architectural_decisions",
        "bug_patterns",
    }


HANDLER_REPLY = """Here is the handler:
```python
async def get(db):
    # always prefer this
    return await db.fetch()
```
Should I add tests?"""

MIXED_SESSION = conversation(
    ("user", "Hello! We're on FastAPI. We decided to use PostgreSQL because we need JSONB."),
    ("assistant", "Great, I'd be happy to help! Let me look at the layout."),
    ("assistant", '{"command": "tree -L 2"}', "tool_use"),
    ("tool", "src/\n  app/\n    main.py\ntests/\n  test_main.py", "tool_result"),
    ("user", "Tests live in tests/ and mirror the package. Use snake_case for module names."),
    ("user", "Also I prefer pathlib over os.path, and please never use print for logging."),
    ("assistant", HANDLER_REPLY),
    ("user", "yes. run `make lint` before committing, it catches the import order"),
    ("assistant", "The test failed because the fixture reused a closed connection."),
    ("user", "lesson learned: never share a connection pool across event loops"),
    ("user", "great, thanks! can you also add a health endpoint?"),
)  # fmt: skip


def test_every_item_is_well_formed_in_a_mixed_session() -> None:
    items = extract(MIXED_SESSION)

    assert_well_formed(items)
    assert {i.category for i in items} == CATEGORY_KEYS
    positions = [i.turn_start for i in items]
    assert positions == sorted(positions)
    for item in items:
        assert MIXED_SESSION.turns[item.turn_start or 0].is_statement
    assert not any("happy to help" in i.content or "Let me" in i.content for i in items)


def test_an_80k_transcript_is_fast() -> None:
    block = (
        "We always use async/await because it reads better. Can you add a test?\n"
        "```python\ndef f(x):\n    return x  # always prefer this\n```\n"
        'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: boom\n'
        "The bug was caused by a missing await in handler number {n}.\n"
    )
    turns = []
    total = 0
    while total < 80_000:
        text = block.format(n=len(turns))
        turns.append(("user" if len(turns) % 2 == 0 else "assistant", text))
        total += len(text)
    transcript = conversation(*turns)
    hostile = conversation(("user", "we " * 26_000), ("user", "`x <a-b " * 10_000))

    start = time.perf_counter()
    items = extract(transcript)
    extract(hostile)
    elapsed = time.perf_counter() - start

    # A hang guard, not a speed target (that one is benchmarks/, measured in one run):
    # catastrophic backtracking on the hostile text takes minutes; the work, a fraction
    # of a second, may wait for a core on a loaded machine.
    assert elapsed < 20.0
    assert_well_formed(items)


# --- real Claude Code sessions ----------------------------------------------------------


def load_claude_code(path: Path) -> Transcript:
    """A minimal stand-in for the real importer: one Turn per content block."""
    turns: list[Turn] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            kind = block.get("type")
            if kind == "text":
                turns.append(Turn(len(turns), message.get("role", "user"), block["text"]))
            elif kind == "tool_use":
                text = json.dumps(block.get("input"))
                turns.append(Turn(len(turns), "assistant", text, kind="tool_use"))
            elif kind == "tool_result":
                body = block.get("content")
                text = body if isinstance(body, str) else json.dumps(body)
                turns.append(Turn(len(turns), "tool", text, kind="tool_result"))
    return Transcript(source_kind="claude-code", turns=tuple(turns), source_path=str(path))


SAMPLE_FILES = sorted(SAMPLES.glob("*.jsonl"))


def test_the_real_samples_are_in_the_fixtures() -> None:
    assert len(SAMPLE_FILES) >= 5


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_real_sessions_yield_no_memories_from_chatter_or_tools(path: Path) -> None:
    transcript = load_claude_code(path)
    assert transcript.message_count > 0
    for candidate in (transcript, truncate_for_extraction(transcript)[0]):
        items = extract(candidate)
        assert_well_formed(items)
        for item in items:
            for chatter in ("Hello", "happy to help", "Let me", "Perfect", "I'll"):
                assert chatter not in item.content, item


def test_the_decorator_tutorial_holds_no_coding_preference() -> None:
    items = extract(load_claude_code(SAMPLES / "daaain_representative_messages.jsonl"))
    assert [i for i in items if i.category == "coding_preferences"] == []


# --- the labelled set -------------------------------------------------------------------


def test_precision_and_recall_on_the_labelled_set() -> None:
    cases = json.loads((FIXTURES / "extraction_cases.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 40
    true_pos = false_pos = false_neg = 0
    report: list[str] = []
    for case in cases:
        items = one(case["speaker"], case["text"])
        assert_well_formed(items)
        got = max(items, key=lambda i: i.confidence).category if items else None
        expected = case["expect"]
        if got is not None and got == expected:
            true_pos += 1
        elif got is not None:
            false_pos += 1
        if expected is not None and got != expected:
            false_neg += 1
        mark = "ok " if got == expected else "BAD"
        report.append(f"{mark} expect={expected} got={got} [{case['speaker']}] {case['text']!r}")

    precision = true_pos / max(true_pos + false_pos, 1)
    recall = true_pos / max(true_pos + false_neg, 1)
    summary = f"precision={precision:.2f} recall={recall:.2f}\n" + "\n".join(report)
    assert precision >= 0.9, summary
    assert recall >= 0.8, summary


def test_an_instruction_too_weak_to_stand_alone_still_ends_the_rule_before_it() -> None:
    items = one(
        "user",
        "No print statements in the training code, ever. "
        "Use the logging module with the logger from utils/log.py.",
    )
    assert [i.content for i in items] == [
        "No print statements in the training code, ever. "
        "Use the logging module with the logger from utils/log.py."
    ]
    # On its own, after small talk, the weak sentence is still no memory of its own.
    alone = one("user", "Nice weekend? Go ahead and port them this sprint.")
    assert alone == []


def test_a_label_that_names_the_topic_stays_with_the_rule() -> None:
    items = one("user", "cmake: minimum 3.25 and targets only, no global include_directories")
    assert len(items) == 1 and items[0].content.lower().startswith("cmake: minimum 3.25")
    announced = one("user", "Reminder: always run the migrations before the tests.")
    assert [i.content for i in announced] == ["Always run the migrations before the tests."]


def test_a_topic_said_just_before_a_rule_opens_it() -> None:
    items = one(
        "user",
        "Helm. The platform team owns the base chart; we only write values.yaml for our service.",
    )
    assert [i.content for i in items] == [
        "Helm: the platform team owns the base chart; we only write values.yaml for our service."
    ]
    reply = one("user", "Ya thats it. Always use calendar triggers for reminders, never timers.")
    assert [i.content for i in reply] == [
        "Always use calendar triggers for reminders, never timers."
    ]
