"""Workflows and code patterns, offline (seed 004 "Memory Types" 3 and 4): a stated
procedure, a numbered list, a snippet given as the way to do it, a repeated command run;
stored through the real memorize pipeline and shown by context assembly as steps and
snippet. Things that only look like procedures give nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.domain.workflows import parse_pattern, parse_workflow
from memory_app.extract.base import ExtractedItem
from memory_app.extract.offline import OfflineExtractor
from memory_app.extract.procedures import normalise_command, repeated_sequences, run_name
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from tests.helpers import conversation

SNIPPET = """```python
@router.post("/orders")
def create_order(body: OrderIn) -> Envelope[OrderOut]:
    result = orders.create(body)
    if result.is_err():
        return Envelope.error(result.error)
    return Envelope.ok(result.value)
```"""


def structured(*exchanges: tuple[str, str]) -> list[ExtractedItem]:
    items = OfflineExtractor().extract(conversation(*exchanges), DEFAULT_CATEGORIES)
    return [i for i in items if i.type in ("workflow", "code_pattern")]


def test_a_stated_release_procedure_is_one_workflow_with_its_steps_in_order() -> None:
    items = structured(
        ("To release: bump the version, tag it, build, then publish.", "Noted."),
        ("Thanks, that was quick.", "Happy to help."),
    )
    (flow,) = items
    assert flow.type == "workflow" and flow.category == "project_conventions"
    assert parse_workflow(flow.content) is not None
    parsed = parse_workflow(flow.content)
    assert parsed is not None and parsed.name == "release"
    assert parsed.steps == ("bump the version", "tag it", "build", "publish")
    # The same sentence is not filed a second time as a plain convention.
    everything = OfflineExtractor().extract(
        conversation(("To release: bump the version, tag it, build, then publish.", "Noted.")),
        DEFAULT_CATEGORIES,
    )
    assert len(everything) == 1


def test_a_numbered_list_after_a_lead_in_gives_the_steps_in_order() -> None:
    (flow,) = structured(
        ("After every deploy: 1. run migrations 2. restart the worker 3. clear the cache", "OK.")
    )
    parsed = parse_workflow(flow.content)
    assert parsed is not None
    assert parsed.steps == ("run migrations", "restart the worker", "clear the cache")
    (lines,) = structured(
        ("Our onboarding checklist:\n1. Install uv\n2. Run make setup\n3. Copy .env.example", "")
    )
    parsed = parse_workflow(lines.content)
    assert parsed is not None and parsed.name == "onboarding"
    assert parsed.steps == ("Install uv", "Run make setup", "Copy .env.example")


def test_a_snippet_given_as_the_pattern_gives_the_snippet_and_where_it_applies() -> None:
    (item,) = structured((f"Use this pattern in the API handlers:\n{SNIPPET}", "Will do."))
    assert item.type == "code_pattern" and item.category == "coding_preferences"
    pattern = parse_pattern(item.content)
    assert pattern is not None
    assert pattern.applies_to == "API handlers" and pattern.language == "python"
    assert pattern.snippet.splitlines()[0] == '@router.post("/orders")'
    assert pattern.snippet.splitlines()[-1] == "    return Envelope.ok(result.value)"


def test_the_assistants_snippet_approved_by_the_user_is_a_pattern() -> None:
    (item,) = structured(
        ("How should new endpoints return errors?", f"Like this:\n{SNIPPET}"),
        ("Yes, use that pattern for every new endpoint.", "Done."),
    )
    pattern = parse_pattern(item.content)
    assert pattern is not None and pattern.applies_to == "every new endpoint"
    assert item.context == "written by the assistant, approved by the user"


def test_things_that_only_look_like_procedures_give_nothing() -> None:
    assert not structured(
        ("First, thanks for the help.", "You're welcome."),
        ("Please fix these: 1. the login page is slow 2. the footer overlaps", "On it."),
        (f"Why does it fail like this?\n{SNIPPET}", "The import is missing."),
        ("Then again, maybe not.", "Sure."),
        ("To be honest, I think the old way was nicer, then again it was slower.", "Fair."),
        (f"Don't do it like this in the API handlers:\n{SNIPPET}", "Understood."),
    )


def _session(commands: list[str], session: str) -> Transcript:
    start = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    turns = [Turn(0, "user", "Ship the patch release please.")]
    turns += [
        Turn(n + 1, "assistant", f"[Bash] {c}", kind="tool_use") for n, c in enumerate(commands)
    ]
    return Transcript(
        source_kind="claude-code",
        turns=tuple(turns),
        session_id=session,
        started_at=start,
        ended_at=start,
    )


RELEASE = ["npm version patch", "git tag v1.4.2", "npm run build 2>&1 | tail -5", "npm publish"]


def test_the_same_command_run_twice_in_a_session_is_a_workflow() -> None:
    transcript = _session(
        [*RELEASE, "git status", *RELEASE[:2], "npm run build", "npm publish"], "a"
    )
    items = [
        i
        for i in OfflineExtractor().extract(transcript, DEFAULT_CATEGORIES)
        if i.type == "workflow"
    ]
    (flow,) = items
    parsed = parse_workflow(flow.content)
    assert parsed is not None and parsed.name == "bump the version, tag, build and publish"
    assert parsed.steps == (
        "`npm version patch`",
        "`git tag <version>`",
        "`npm run build`",
        "`npm publish`",
    )
    # Once is not a habit.
    once = OfflineExtractor().extract(_session(RELEASE, "b"), DEFAULT_CATEGORIES)
    assert not [i for i in once if i.type == "workflow"]


def test_a_loop_run_in_a_session_is_one_workflow_named_by_what_its_steps_do() -> None:
    """Test, commit, test, commit...: every rotation of the loop repeats, but the routine
    is one, told from where the session starts it."""
    loop = ["ruff check .", "pytest -q", "git add -A", "git commit -m 'Next'"]
    transcript = _session(["ls", *loop * 3, "git push"], "a")
    (flow,) = [
        i
        for i in OfflineExtractor().extract(transcript, DEFAULT_CATEGORIES)
        if i.type == "workflow"
    ]
    assert flow.content == (
        "check, test and commit:\n1. `ruff check .`\n2. `pytest -q`\n3. `git add -A`\n"
        '4. `git commit -m "…"`'
    )
    assert repeated_sequences([["b", "c", "a", "b", "c", "a", "b"]]) == [("b", "c", "a")]
    # A run that wraps round a longer loop is a piece of it.
    assert repeated_sequences([["a", "b", "c", "d"] * 2, ["d", "a", "b", "x"]]) == [
        ("a", "b", "c", "d")
    ]


def test_a_command_run_is_named_by_what_its_steps_do() -> None:
    assert run_name(["make docs", "make dist", "twine upload"]) == "build and publish"
    assert run_name(["ruff format", "mypy", "uv run pytest", "git push"]) == (
        "format, check, test and push"
    )
    assert run_name(["git pull", "mix ecto.migrate", "mix test"]) == (
        "update the branch, migrate and test"
    )
    assert run_name(["pip install foo==<version>", "pytest"]) == "install and test"
    assert run_name(["docker compose up", "curl localhost:8000"]) == "curl localhost:8000"


def test_a_command_sequence_seen_in_two_sessions_is_found() -> None:
    first = [normalise_command(c) for c in ["ls", *RELEASE]]
    second = [normalise_command(c) for c in ["pytest -q", *RELEASE, "git log"]]
    runs = repeated_sequences([[c for c in s if c] for s in (first, second)])
    assert runs == [("npm version patch", "git tag <version>", "npm run build", "npm publish")]
    assert repeated_sequences([[c for c in first if c]]) == []


def test_stored_workflows_and_patterns_keep_their_form_and_come_into_context(
    service: MemoryService,
) -> None:
    result = service.memorize(
        conversation(
            ("To release: bump the version, tag it, build, then publish.", "Noted."),
            (f"Use this pattern in the API handlers:\n{SNIPPET}", "Will do."),
        )
    )
    assert result.status == "success", result.reason
    stored = {i.type: i for i in service.list_items()}
    assert stored["workflow"].content == (
        "release:\n1. bump the version\n2. tag it\n3. build\n4. publish"
    )
    assert "    if result.is_err():" in stored["code_pattern"].content  # indentation kept
    plan = service.build_context(ContextRequest(task="release build publish API handlers"))
    text = plan.render()
    assert "- release: [#" in text
    assert "\n  1. bump the version\n  2. tag it\n  3. build\n  4. publish\n" in text
    assert '\n  ```python\n  @router.post("/orders")\n' in text
    assert "\n  Applies to: API handlers\n" in text
