"""Reading tool traffic: what a tool call did and what its result says.

Importers render a tool call as `[Name] detail` (ingest/claude_code.py render_tool_use,
ingest/codex.py) and keep a tool's result as its text; this module turns those back into
facts an episode is told from (a file written, a test run that passed, an error met).
Pattern matching only, so it is fast and gives the same answer every time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

_CALL = re.compile(r"^\[(?P<name>[^\]\n]+)\]\s?(?P<detail>.*)$", re.DOTALL)

# What a tool call is, by the tool's name (Claude Code's, then Codex's).
READ_TOOLS = frozenset({"Read", "NotebookRead"})
SEARCH_TOOLS = {
    "WebSearch": "web search",
    "WebFetch": "web page",
    "Glob": "file search",
    "Grep": "file search",
    "LS": "file search",
    "ToolSearch": "file search",
}
WRITE_TOOLS = {
    "Write": "written",
    "Edit": "edited",
    "MultiEdit": "edited",
    "NotebookEdit": "edited",
}
PATCH_TOOLS = frozenset({"apply_patch"})
COMMAND_TOOLS = frozenset({"Bash", "exec_command", "shell", "local_shell", "container.exec"})
AGENT_TOOLS = frozenset({"Task", "Agent"})
ASK_TOOLS = frozenset({"AskUserQuestion"})
PLAN_TOOLS = frozenset({"ExitPlanMode"})

# Commands that only look: part of exploring, never a step of the work.
_LOOKING = frozenset(
    {"ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "wc", "tree", "which", "file"}
)
_GIT_LOOKING = frozenset({"status", "log", "diff", "show", "branch", "blame"})
_TEST_COMMAND = re.compile(
    r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b"
    r"|\b(npm|pnpm|yarn|bun)\s+(run\s+)?test\b"
    r"|\b(mix|cargo|go|dotnet|gradle|mvn|make|deno)\s+test\b"
    r"|\bmanage\.py\s+test\b"
)
_PATCH_FILE = re.compile(r"\*\*\* (?P<verb>Add|Update|Delete) File: (?P<path>\S+)")

# -- results ---------------------------------------------------------------------------
_EXIT_CODE = re.compile(r"^Exit code (?P<code>-?\d+)")
_TOOL_ERROR = re.compile(r"<tool_use_error>(?P<body>.*?)</tool_use_error>", re.DOTALL)
_ERRNO = re.compile(r"^E[A-Z]{2,}: ")  # node's EISDIR, ENOENT… as Claude Code reports them
_TRACEBACK = "Traceback (most recent call last)"
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b.*")
_ERROR_LINE = re.compile(
    r"(^|\s)(error|fatal|FAILED|ERROR)\b[:\s]|command not found|No such file or directory"
    r"|Permission denied|npm ERR!|\*\* \(\w+Error\)",
)
_TESTS_FAILED = re.compile(
    r"\b[1-9]\d* (failed|failures?|errors?)\b|\btest result: FAILED\b|^FAILED\b|^FAIL\b",
    re.MULTILINE,
)
_TESTS_PASSED = re.compile(
    r"\b\d+ passed\b|\b0 failures\b|\btest result: ok\b|^OK\b|^ok\s|All tests passed"
    r"|Tests:\s+\d+ passed",
    re.MULTILINE,
)
_SUMMARY_LINE = re.compile(r"\b\d+ (passed|failed|failures?|errors?|tests?)\b")
_MADE = re.compile(
    r"^(created|added|installed|published|deployed|released|merged|pushed|uploaded"
    r"|generated|migrated|successfully)\b",
    re.IGNORECASE,
)
_COMMIT_HEAD = re.compile(
    r"^\[(?P<branch>[^\]\s]+)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,})\] (?P<msg>.+)$"
)
_SIBLING = "Sibling tool call errored"
LINE_LIMIT = 160


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the transcript shows it."""

    name: str
    detail: str

    @property
    def is_command(self) -> bool:
        return self.name in COMMAND_TOOLS

    @property
    def is_test_run(self) -> bool:
        return self.is_command and _TEST_COMMAND.search(self.detail) is not None

    @property
    def exploring(self) -> str | None:
        """What kind of looking this call is ("web search", "file read"…), None when it
        changes something or is not looking at all."""
        if self.name in READ_TOOLS:
            return "file read"
        if self.name in SEARCH_TOOLS:
            return SEARCH_TOOLS[self.name]
        if self.is_command and only_looks(self.detail):
            return "command"
        return None

    def files(self) -> list[tuple[str, str]]:
        """(path, action) pairs this call touched: read, edited or written."""
        detail = self.detail.strip()
        if self.name in READ_TOOLS and detail:
            return [(detail, "read")]
        if self.name in WRITE_TOOLS and detail:
            return [(detail, WRITE_TOOLS[self.name])]
        if self.name in PATCH_TOOLS:
            verbs = {"Add": "written", "Update": "edited", "Delete": "edited"}
            return [(m["path"], verbs[m["verb"]]) for m in _PATCH_FILE.finditer(detail)]
        return []


def tool_call(text: str) -> ToolCall:
    """`[Bash] pytest -q` → ToolCall("Bash", "pytest -q"); text of another shape is a call
    of a tool named "tool"."""
    match = _CALL.match(text.strip())
    if match is None:
        return ToolCall("tool", text.strip())
    return ToolCall(match["name"].strip(), match["detail"].strip())


def _words(command: str) -> list[str]:
    """The command's words after a leading `cd DIR &&` and `VAR=value` assignments."""
    part = command.strip()
    while part.startswith("cd ") and "&&" in part:
        part = part.split("&&", 1)[1].strip()
    words = part.split()
    while words and "=" in words[0] and not words[0].startswith(("-", "/", ".")):
        words = words[1:]
    return words


def only_looks(command: str) -> bool:
    words = _words(command)
    if not words:
        return False
    program = PurePosixPath(words[0]).name
    if program == "git":
        return len(words) > 1 and words[1] in _GIT_LOOKING
    return program in _LOOKING


def command_key(command: str) -> str:
    """What makes two runs "the same command" for telling whether a failure was fixed:
    the program and its subcommand (`git commit`, `npm install`); every test run is one."""
    if _TEST_COMMAND.search(command):
        return "tests"
    words = _words(command)
    if not words:
        return ""
    key = PurePosixPath(words[0]).name
    if len(words) > 1 and re.fullmatch(r"[a-z][\w:.-]*", words[1]):
        key += f" {words[1]}"
    return key


def cut(text: str, limit: int = LINE_LIMIT) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def tool_error(call: ToolCall, result: str) -> str | None:
    """The telling line of a failed tool call, None when it did not fail.

    A file's or a web page's content is never read for errors (code quotes errors all
    the time): only the markers a tool itself writes when it fails."""
    text = result.strip()
    if not text:
        return None
    found = _TOOL_ERROR.search(text)
    if found is not None:
        body = found["body"].strip()
        return None if body == _SIBLING else cut(body)
    if _ERRNO.match(text):
        return cut(_lines(text)[0])
    if not call.is_command:
        return None
    exit_code = _EXIT_CODE.match(text)
    if exit_code is not None and exit_code["code"] != "0":
        return _telling_line(text) or cut(f"exit code {exit_code['code']}")
    if call.is_test_run and test_verdict(text) == "failed":
        return _telling_line(text)
    if _TRACEBACK in text:
        return _telling_line(text)
    return None


def _telling_line(text: str) -> str | None:
    """The line a person would quote: a FAILED test, the exception, else an error line."""
    lines = _lines(text)
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    if failed:
        return cut(failed[0])
    exceptions = [line for line in lines if _EXCEPTION_LINE.match(line)]
    if exceptions:
        return cut(exceptions[-1])
    errors = [line for line in lines if _ERROR_LINE.search(line)]
    if errors:
        return cut(errors[-1])
    summary = [line for line in lines if _SUMMARY_LINE.search(line)]
    if summary:
        return cut(summary[-1].strip("= "))
    rest = [line for line in lines if not _EXIT_CODE.match(line)]
    return cut(rest[0]) if rest else None


def test_verdict(result: str) -> str | None:
    """ "passed" | "failed" | None (not a test report) for a test run's output."""
    head = result.strip()
    exit_code = _EXIT_CODE.match(head)
    if (exit_code is not None and exit_code["code"] != "0") or _TESTS_FAILED.search(head):
        return "failed"
    if _TESTS_PASSED.search(head):
        return "passed"
    return None


def test_summary(result: str) -> str:
    """The summary line of a test run (`12 passed in 0.4s`), or a plain word."""
    summary = [line for line in _lines(result) if _SUMMARY_LINE.search(line)]
    return cut(summary[-1].strip("= ")) if summary else "tests passed"


def commit_message(result: str) -> str | None:
    """The message of the commit `git commit` reports making (`[main abc1234] msg`)."""
    for line in _lines(result)[:3]:
        match = _COMMIT_HEAD.match(line)
        if match is not None:
            return cut(match["msg"])
    return None


def made_something(result: str) -> str | None:
    """The line of a command's output saying it created or added something
    (`✓ Created issue: spotter-0p7`), without the decoration."""
    for line in _lines(result)[:3]:
        plain = line.lstrip("✓✔*-•>+ ").strip()
        if _MADE.match(plain):
            return cut(plain)
    return None


def display_path(path: str, project: str | None) -> str:
    """A path inside the project relative to it, others as they are."""
    if project:
        root = project.rstrip("/") + "/"
        if path.startswith(root):
            return path[len(root) :]
    return path
