"""A fake `claude` program on PATH, for the Claude Code CLI extractor's tests.

A real executable (a Python script whose shebang is this interpreter) written into a
folder the test puts first on PATH, so the extractor finds it, starts it and reads it
exactly as it would Claude Code. It takes its script from `plan.json` beside it (the
environment it gets is the extractor's clean one, so it cannot be steered through
variables): each call answers with the next step (the last repeats), and records its
arguments, stdin, environment and working folder in `calls.jsonl`; `--help` prints the
plan's help text and is counted in `help_calls`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = """#!{python}
import json, os, sys, time
from pathlib import Path

here = Path(__file__).resolve().parent
plan = json.loads((here / "plan.json").read_text())
if sys.argv[1:] == ["--help"]:
    with (here / "help_calls").open("a") as counter:
        counter.write("x")
    sys.stdout.write(plan.get("help", "Usage: claude [options] [prompt]\\n"))
    sys.exit(0)
stdin = sys.stdin.read()
record = {{"argv": sys.argv[1:], "stdin": stdin, "env": dict(os.environ), "cwd": os.getcwd(),
          "pid": os.getpid()}}
with (here / "calls.jsonl").open("a") as calls:
    calls.write(json.dumps(record) + "\\n")
count = len((here / "calls.jsonl").read_text().splitlines())
steps = plan["steps"]
step = steps[min(count, len(steps)) - 1]
time.sleep(step.get("sleep", 0))
sys.stdout.write(step.get("stdout", ""))
sys.stderr.write(step.get("stderr", ""))
sys.exit(step.get("exit", 0))
"""

# What `claude --help` of a recent version says about the flags the extractor looks for.
RECENT_HELP = """Usage: claude [options] [command] [prompt]

Options:
  -p, --print                  Print response and exit (useful for pipes).
  --output-format <format>     Output format (only works with --print): "text", "json"
  --model <model>              Model for the current session.
  --system-prompt <prompt>     System prompt to use for the session
  --settings <file-or-json>    Path to a settings JSON file or a JSON string
  --strict-mcp-config          Only use MCP servers from --mcp-config
  --tools <tools...>           Specify the list of available tools; "" disables all
  --no-session-persistence     Disable session persistence (only works with --print)
"""


def envelope(
    result: Any = None,
    *,
    is_error: bool = False,
    subtype: str = "success",
    model: str = "claude-haiku-4-5-20251001",
    input_tokens: int = 1200,
    output_tokens: int = 150,
) -> str:
    """The JSON object `claude -p --output-format json` prints; `result` is the model's
    text (a dict or list is JSON-encoded first), None leaves the field out."""
    body: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 2100,
        "num_turns": 1,
        "session_id": "0b6b7c3e-5a1f-4c51-9a7e-000000000000",
        "total_cost_usd": 0.0019,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
        },
        "modelUsage": {model: {"inputTokens": input_tokens, "outputTokens": output_tokens}},
    }
    if result is not None:
        body["result"] = result if isinstance(result, str) else json.dumps(result)
    return json.dumps(body) + "\n"


class FakeClaude:
    """The fake `claude` in `folder`; `plan(...)` says how its next calls answer."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "claude"
        self.path.write_text(SCRIPT.format(python=sys.executable))
        self.path.chmod(0o755)
        self.plan({"stdout": envelope("ok")})

    def plan(self, *steps: dict[str, Any], help_text: str | None = None) -> None:
        """Each step: stdout, stderr, exit (status) and sleep (seconds) of one call."""
        plan: dict[str, Any] = {"steps": list(steps)}
        if help_text is not None:
            plan["help"] = help_text
        (self.folder / "plan.json").write_text(json.dumps(plan))

    def forget_calls(self) -> None:
        for name in ("calls.jsonl", "help_calls"):
            (self.folder / name).unlink(missing_ok=True)

    @property
    def calls(self) -> list[dict[str, Any]]:
        log = self.folder / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    @property
    def help_calls(self) -> int:
        counter = self.folder / "help_calls"
        return len(counter.read_text()) if counter.exists() else 0


def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    """A fake `claude` in tmp_path/bin, first on PATH."""
    fake = FakeClaude(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{fake.folder}:/usr/bin:/bin")
    monkeypatch.delenv("MEMORY_APP_CLAUDE_CLI", raising=False)
    monkeypatch.delenv("MEMORY_APP_CLAUDE_CLI_TIMEOUT", raising=False)
    return fake
