"""The Claude Code CLI extractor against a fake `claude` on PATH (a real executable, run as
a real subprocess): what it is given (flags, the prompt on stdin, a clean environment
without the API key, a working folder memory stays out of), how each way the CLI can
fail is reported, and fail-open through the real import pipeline: a conversation whose
extraction failed is kept pending and learnt from once the CLI works."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

import memory_app.cli as cli
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractorError
from memory_app.extract.claude_cli import (
    PASSED_VARIABLES,
    ClaudeCliExtractor,
    clean_environment,
    working_folder,
)
from memory_app.extract.claude_cli_settings import ClaudeCliSettings
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.factory import make_extractor
from memory_app.privacy_gate import why_excluded
from tests.helpers import conversation
from tests.unit.extract.fake_claude_cli import RECENT_HELP, FakeClaude, envelope, install

SECRET = "sk-ant-api03-cli-test-secret-0123456789"
CHAT = conversation(
    ("Please use pnpm for every install in this repo, never npm.", "Switched to pnpm."),
)
OTHER = conversation(
    ("We always run ruff before every commit in this repository.", "Noted, ruff first."),
    session="s2",
)
PNPM = {
    "coding_preferences": [
        {
            "content": "Use pnpm, never npm, for installs.",
            "confidence": 0.9,
            "context": "the user asked",
            "source_turns": [0],
        }
    ]
}
RUFF = {
    "project_conventions": [
        {"content": "Run ruff before every commit.", "scope": "this repository", "confidence": 0.9}
    ]
}
LOGIN = "Invalid API key · Please run /login"


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)  # set, and must not reach the CLI
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", SECRET + "-token")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    return install(tmp_path, monkeypatch)


def extractor(**changes: Any) -> ClaudeCliExtractor:
    """Fast settings: no waiting between retries, one chunk at a time."""
    settings = ClaudeSettings(**({"concurrency": 1, "max_retries": 1} | changes))
    return ClaudeCliExtractor(settings, ClaudeCliSettings(timeout=20, backoff=0))


def option(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


# -- what the CLI is given ------------------------------------------------------------------


def test_a_valid_answer_becomes_memories_with_the_prompt_on_stdin(
    fake: FakeClaude, open_service: Any
) -> None:
    fake.plan({"stdout": envelope(PNPM)})
    service = open_service(extractor())

    result = service.memorize(CHAT)

    assert result.status == "success"
    (item_id,) = result.items_added
    item = service.get_item(item_id)
    assert item.content == "Use pnpm, never npm, for installs." and item.extractor == "claude-cli"
    (call,) = fake.calls
    argv = call["argv"]
    assert argv[0] == "-p" and option(argv, "--output-format") == "json"
    assert option(argv, "--model") == "claude-haiku-4-5" and option(argv, "--max-turns") == "1"
    # The prompt (the seed's extraction prompt with the conversation) arrives on stdin only.
    assert "memory extraction specialist" in call["stdin"]
    assert "Please use pnpm for every install" in call["stdin"]
    assert not any("pnpm" in a for a in argv)
    assert "Return ONLY valid JSON" in call["stdin"]
    assert "no_content_to_extract" in option(argv, "--system-prompt")  # seed §2.3 edge cases
    # Tokens are recorded like the API's.
    (run,) = service.extraction_runs()
    assert (run.kind, run.status, run.requests) == ("extract", "success", 1)
    assert (run.input_tokens, run.output_tokens) == (1200, 150)


def test_the_cli_gets_a_clean_environment_without_the_api_key(
    fake: FakeClaude, open_service: Any, tmp_path: Path
) -> None:
    fake.plan({"stdout": envelope(PNPM)})
    open_service(extractor()).memorize(CHAT)

    (call,) = fake.calls
    env = call["env"]
    assert "ANTHROPIC_API_KEY" not in env and "ANTHROPIC_AUTH_TOKEN" not in env
    assert not any(SECRET in value for value in env.values())
    assert not any(SECRET in a for a in call["argv"]) and SECRET not in call["stdin"]
    assert set(env) <= set(PASSED_VARIABLES)  # nothing else of the app's environment
    assert env["PATH"] == os.environ["PATH"] and env["HOME"] == os.environ["HOME"]
    assert env["CLAUDE_CONFIG_DIR"] == str(tmp_path / "claude-config")  # where its login is


def test_it_runs_in_a_folder_memory_stays_out_of(fake: FakeClaude, open_service: Any) -> None:
    """memory-app's own hooks ignore these calls, and their sessions, should Claude Code
    keep them, are never imported as conversations."""
    fake.plan({"stdout": envelope(PNPM)})
    service = open_service(extractor())
    service.memorize(CHAT)

    cwd = Path(fake.calls[0]["cwd"])
    assert cwd == working_folder() and (cwd / ".memoryignore").is_file()
    assert list(cwd.iterdir()) == [cwd / ".memoryignore"]  # no project files read there
    assert why_excluded(None, str(cwd)) is not None
    own_session = Transcript(
        source_kind="claude_code",
        turns=(
            Turn(0, "user", "You are a memory extraction specialist. " + "x" * 80),
            Turn(1, "assistant", json.dumps(PNPM)),
        ),
        session_id="extraction-call",
        project=str(cwd),
    )
    skipped = service.memorize(own_session)
    assert skipped.status == "skipped" and ".memoryignore" in (skipped.reason or "")


def test_flags_a_recent_cli_knows_are_added_and_its_help_is_read_once(
    fake: FakeClaude, open_service: Any
) -> None:
    fake.plan({"stdout": envelope(PNPM)}, help_text=RECENT_HELP)
    service = open_service(extractor())
    service.memorize(CHAT)
    service.memorize(OTHER)

    assert len(fake.calls) >= 2
    for argv in (call["argv"] for call in fake.calls):
        assert "--no-session-persistence" in argv and "--strict-mcp-config" in argv
        assert json.loads(option(argv, "--settings")) == {"disableAllHooks": True}
        assert option(argv, "--tools") == ""
    assert fake.help_calls == 1


def test_an_older_cli_gets_only_the_flags_it_has_always_had(
    fake: FakeClaude, open_service: Any
) -> None:
    fake.plan({"stdout": envelope(PNPM)})  # its --help lists none of the newer flags
    open_service(extractor()).memorize(CHAT)
    argv = fake.calls[0]["argv"]
    for flag in ("--no-session-persistence", "--settings", "--strict-mcp-config", "--tools"):
        assert flag not in argv


def test_the_environment_is_chosen_by_name() -> None:
    env = {
        "PATH": "/bin",
        "HOME": "/home/a",
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_AUTH_TOKEN": "t",
        "ANTHROPIC_BASE_URL": "http://proxy",
        "MEMORY_APP_DATA_DIR": "/data",
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth",
        "HTTPS_PROXY": "http://proxy:3128",
        "PYTHONPATH": "/src",
        "LANG": "",
    }
    assert clean_environment(env) == {
        "PATH": "/bin",
        "HOME": "/home/a",
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth",  # a subscription's own token, for `claude`
        "HTTPS_PROXY": "http://proxy:3128",
    }


# -- answers that are not items --------------------------------------------------------------


def test_a_fenced_answer_is_read(fake: FakeClaude, open_service: Any) -> None:
    fenced = "```json\n" + json.dumps(PNPM, indent=2) + "\n```"
    fake.plan({"stdout": envelope(fenced)})
    result = open_service(extractor()).memorize(CHAT)
    assert result.status == "success" and len(result.items_added) == 1


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("Sure! Use pnpm, never npm.", "Invalid JSON"),
        ({"memories": ["Use pnpm"]}, "memories: Extra inputs are not permitted"),
        ({"coding_preferences": [{"content": "Use pnpm", "confidence": 3}]}, "less than or equal"),
    ],
    ids=["prose", "another shape", "confidence out of range"],
)
def test_an_answer_that_is_not_the_items_shape_is_asked_again_then_kept_pending(
    fake: FakeClaude, open_service: Any, answer: Any, words: str
) -> None:
    fake.plan({"stdout": envelope(answer)})
    service = open_service(extractor())

    result = service.memorize(CHAT)

    assert result.status == "pending"
    assert "claude-cli extractor failed: Claude's answer was not valid after 3 attempts" in (
        result.reason or ""
    )
    assert words in (result.reason or "")
    assert len(fake.calls) == 3  # seed 001 §8: two retries, each saying what was wrong
    assert "Previous Answer Rejected" not in fake.calls[0]["stdin"]
    assert "Previous Answer Rejected" in fake.calls[1]["stdin"]
    assert service.get_stats().items == 0
    (run,) = service.extraction_runs()
    assert run.status == "error" and run.requests == 3 and run.input_tokens == 3 * 1200


def test_an_invalid_answer_then_a_valid_one_is_used(fake: FakeClaude, open_service: Any) -> None:
    fake.plan({"stdout": envelope("not json")}, {"stdout": envelope(PNPM)})
    result = open_service(extractor()).memorize(CHAT)
    assert result.status == "success" and len(fake.calls) == 2


# -- the CLI failing -------------------------------------------------------------------------


def test_output_that_is_not_json_fails_the_conversation(
    fake: FakeClaude, open_service: Any
) -> None:
    fake.plan({"stdout": "Hello! I'm Claude, how can I help?\n"})
    result = open_service(extractor()).memorize(CHAT)
    assert result.status == "pending"
    assert "the Claude CLI printed something that is not JSON: Hello! I'm Claude" in (
        result.reason or ""
    )
    assert len(fake.calls) == 1  # not a transient failure: not tried again


def test_json_without_a_result_names_what_it_has(fake: FakeClaude, open_service: Any) -> None:
    fake.plan({"stdout": json.dumps({"type": "result", "subtype": "success"})})
    result = open_service(extractor()).memorize(CHAT)
    assert result.status == "pending"
    assert "the Claude CLI's JSON has no `result` text (keys: subtype, type)" in (
        result.reason or ""
    )


def test_exit_1_with_stderr_is_reported_in_its_words(fake: FakeClaude, open_service: Any) -> None:
    fake.plan({"stderr": "Error: Input must be provided either through stdin\n", "exit": 1})
    service = open_service(extractor())
    result = service.memorize(CHAT)
    assert result.status == "pending"
    assert (
        "the Claude CLI exited with status 1: Error: Input must be provided either through stdin"
        in (result.reason or "")
    )
    assert len(fake.calls) == 1
    assert service.memorize(OTHER).status == "pending"
    assert len(fake.calls) == 2  # one broken call does not stop the next conversation


def test_not_logged_in_stops_the_rest_of_the_import(
    fake: FakeClaude, open_service: Any, tmp_path: Path
) -> None:
    folder = chats(tmp_path)
    fake.plan({"stdout": envelope(LOGIN, is_error=True, input_tokens=0, output_tokens=0)})
    service = open_service(extractor())

    report = service.import_paths([folder])

    first, *rest = report.results
    assert [r.status for r in report.results] == ["pending"] * 3
    assert f"the Claude CLI reported an error: {LOGIN}; run `claude` once and log in" in (
        first.reason or ""
    )
    for result in rest:
        assert "Claude CLI unreachable, skipped: an earlier call was refused: not logged in" in (
            result.reason or ""
        )
    assert len(fake.calls) == 1  # not retried, and the others were not sent
    # The next import asks again: the person may have logged in meanwhile.
    fake.plan({"stdout": envelope(PNPM)})
    again = service.import_paths([folder])
    assert [r.status for r in again.results] == ["success"] * 3
    assert service.get_stats().resources == 3


def test_an_overloaded_api_is_tried_again_after_a_pause(
    fake: FakeClaude, open_service: Any
) -> None:
    busy = envelope('API Error: 529 {"type":"overloaded_error"}', is_error=True)
    fake.plan({"stdout": busy, "exit": 1}, {"stdout": envelope(PNPM)})
    result = open_service(extractor()).memorize(CHAT)
    assert result.status == "success" and len(fake.calls) == 2


def test_overload_that_lasts_fails_the_conversation_but_not_the_import(
    fake: FakeClaude, open_service: Any
) -> None:
    busy = envelope('API Error: 529 {"type":"overloaded_error"}', is_error=True)
    fake.plan({"stdout": busy, "exit": 1})
    service = open_service(extractor())
    first = service.memorize(CHAT)
    assert first.status == "pending"
    assert "the Claude CLI reported an error: API Error: 529" in (first.reason or "")
    assert "after 1 retry" in (first.reason or "")
    assert len(fake.calls) == 2
    assert service.memorize(OTHER).status == "pending"
    assert len(fake.calls) == 4  # overload is not "unreachable": the next one is asked


def test_a_cli_that_never_answers_is_stopped_and_then_skipped(
    fake: FakeClaude, open_service: Any, tmp_path: Path
) -> None:
    folder = chats(tmp_path)
    fake.plan({"sleep": 60, "stdout": envelope(PNPM)})
    settings = ClaudeSettings(concurrency=1, max_retries=1)
    service = open_service(ClaudeCliExtractor(settings, ClaudeCliSettings(timeout=0.5, backoff=0)))

    report = service.import_paths([folder])

    first, *rest = report.results
    assert [r.status for r in report.results] == ["pending"] * 3
    assert "the Claude CLI did not answer within 0.5 s after 1 retry" in (first.reason or "")
    for result in rest:
        assert "Claude CLI unreachable, skipped: an earlier call did not answer" in (
            result.reason or ""
        )
    assert len(fake.calls) == 2  # the first conversation: one try and one retry
    for call in fake.calls:  # each stopped, not left running
        with pytest.raises(ProcessLookupError):
            os.kill(call["pid"], 0)


def test_no_claude_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ExtractorError, match="the Claude CLI was not found: 'claude' is not on"):
        make_extractor("claude-cli")


def test_a_cli_removed_while_the_app_runs_is_reported_and_skipped(
    fake: FakeClaude, open_service: Any
) -> None:
    service = open_service(extractor())
    fake.path.unlink()
    first = service.memorize(CHAT)
    second = service.memorize(OTHER)
    assert first.status == second.status == "pending"
    assert "the Claude CLI was not found: 'claude' is not on PATH" in (first.reason or "")
    assert "Claude CLI unreachable, skipped: an earlier call found no 'claude' on PATH" in (
        second.reason or ""
    )


def test_a_path_given_in_the_environment_is_used(
    fake: FakeClaude, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_service: Any
) -> None:
    elsewhere = FakeClaude(tmp_path / "elsewhere")
    elsewhere.plan({"stdout": envelope(PNPM)})
    monkeypatch.setenv("MEMORY_APP_CLAUDE_CLI", str(elsewhere.path))
    monkeypatch.setenv("MEMORY_APP_CLAUDE_CLI_TIMEOUT", "30")
    made = make_extractor("claude-cli")
    assert isinstance(made, ClaudeCliExtractor) and made.cli.timeout == 30
    assert open_service(made).memorize(CHAT).status == "success"
    assert len(elsewhere.calls) == 1 and fake.calls == []


def test_a_bad_timeout_is_named() -> None:
    with pytest.raises(ValueError, match="MEMORY_APP_CLAUDE_CLI_TIMEOUT='soon' is not a number"):
        ClaudeCliSettings.from_env({"MEMORY_APP_CLAUDE_CLI_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match="timeout must be positive"):
        ClaudeCliSettings(timeout=0)
    assert ClaudeCliSettings().unreachable_bound(2) == 3 * 180 + 1 + 2


# -- fail-open through the command line ------------------------------------------------------


def chats(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    for name, rule in [("a", "pnpm, never npm"), ("b", "ruff before commits"), ("c", "uv")]:
        (folder / f"{name}.md").write_text(
            f"User: Please always use {rule} in this repository from now on.\n\n"
            "Assistant: Understood, I will do that everywhere.\n"
        )
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_failing_cli_keeps_conversations_pending_and_a_later_retry_learns_them(
    fake: FakeClaude, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = chats(tmp_path)
    data = str(tmp_path / "data")
    fake.plan({"stderr": "Error: something went wrong\n", "exit": 1})

    code, out, _ = run(
        capsys, "import", str(folder), "--extractor", "claude-cli", "--data-dir", data
    )

    assert code == 0  # every file was stored: the extraction is what waits
    assert "Pending (extraction failed, kept, will retry)" in out
    assert "claude-cli extractor failed: the Claude CLI exited with status 1" in out
    code, out, _ = run(capsys, "retry", "--extractor", "claude-cli", "--data-dir", data, "--json")
    assert code == 1 and len(json.loads(out)["pending"]) == 3

    fake.plan({"stdout": envelope(PNPM)})
    code, out, _ = run(capsys, "retry", "--extractor", "claude-cli", "--data-dir", data, "--json")

    assert code == 0 and json.loads(out)["pending"] == []
    code, out, _ = run(capsys, "list", "--data-dir", data, "--json")
    memories = json.loads(out)
    assert [m["content"] for m in memories] == ["Use pnpm, never npm, for installs."]
    code, out, _ = run(capsys, "show", str(memories[0]["id"]), "--data-dir", data, "--json")
    assert json.loads(out)["extractor"] == "claude-cli"


# -- test-connection -------------------------------------------------------------------------


def test_test_connection_names_the_model_that_answered(
    fake: FakeClaude, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.plan({"stdout": envelope("ok")})
    code, out, err = run(capsys, "test-connection", "--extractor", "claude-cli")
    assert code == 0 and err == ""
    assert re.fullmatch(
        r"Connected: claude-haiku-4-5-20251001 answered in \d+ ms through the Claude CLI\.\n",
        out,
    )
    (call,) = fake.calls
    assert call["stdin"] == "Reply with the single word: ok"
    assert "ANTHROPIC_API_KEY" not in call["env"]

    monkeypatch.setenv("MEMORY_APP_EXTRACTOR", "claude-cli")  # the default to test then
    code, out, _ = run(capsys, "test-connection", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["ok"] is True and payload["extractor"] == "claude-cli"
    assert payload["model"] == "claude-haiku-4-5-20251001"


@pytest.mark.parametrize(
    ("step", "words"),
    [
        (
            {"stdout": envelope(LOGIN, is_error=True), "exit": 1},
            f"the Claude CLI reported an error: {LOGIN}; run `claude` once and log in (/login)",
        ),
        ({"stderr": "Segmentation fault\n", "exit": 139}, "exited with status 139: Segmentation"),
        ({"stdout": "<html>captive portal</html>"}, "printed something that is not JSON: <html>"),
    ],
    ids=["not logged in", "crash", "not json"],
)
def test_test_connection_says_what_is_wrong_in_one_line(
    fake: FakeClaude, capsys: pytest.CaptureFixture[str], step: dict[str, Any], words: str
) -> None:
    fake.plan(step)
    code, out, err = run(capsys, "test-connection", "--extractor", "claude-cli")
    assert code == 1 and out == ""
    assert err.startswith("memory-app: error: ") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err
    code, out, _ = run(capsys, "test-connection", "--extractor", "claude-cli", "--json")
    assert code == 1 and json.loads(out)["ok"] is False


def test_test_connection_without_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run(capsys, "test-connection", "--extractor", "claude-cli")
    assert code == 1 and out == ""
    assert err == (
        "memory-app: error: the Claude CLI was not found: 'claude' is not on PATH; install "
        "Claude Code and log in, or set MEMORY_APP_CLAUDE_CLI to its path\n"
    )


# -- the README's commands ------------------------------------------------------------------

README = Path(__file__).resolve().parents[3] / "README.md"
SESSION = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "samples"
    / "claude-code"
    / "simonw_sample_session.jsonl"
)


def readme_cli_block() -> list[str]:
    """The command lines of the README's block about the Claude Code CLI."""
    text = README.read_text(encoding="utf-8")
    start = text.index("**With a Claude subscription and no API key**")
    block = text[text.index("```sh\n", start) + 6 : text.index("```\n", start + 1)]
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_commands_run_as_written(
    fake: FakeClaude,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path(os.environ["HOME"])
    projects = home / ".claude" / "projects" / "-home-me-code-app"
    projects.mkdir(parents=True)
    shutil.copy(SESSION, projects / SESSION.name)
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("MEMORY_APP_EXTRACTOR", raising=False)
    fake.plan({"stdout": envelope(PNPM)})
    lines = readme_cli_block()
    assert [shlex.split(line, comments=True)[:2] for line in lines] == [
        ["memory-app", "test-connection"],
        ["memory-app", "import"],
        ["export", "MEMORY_APP_EXTRACTOR=claude-cli"],
        ["memory-app", "retry"],
    ]
    for line in lines:
        words = [
            str(home) + w[1:] if w.startswith("~/") else w for w in shlex.split(line, comments=True)
        ]
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            monkeypatch.setenv(name, value)
            continue
        code, out, err = run(capsys, *words[1:])
        assert code == 0, f"`{line}` exited {code}: {err or out}"
    calls = fake.calls
    assert len(calls) >= 2 and all(c["argv"][0] == "-p" for c in calls)
    assert calls[0]["stdin"] == "Reply with the single word: ok"
    assert "memory extraction specialist" in calls[1]["stdin"]
