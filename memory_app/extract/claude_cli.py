"""The Claude extractor through the Claude Code CLI (`claude -p`), for people with a Claude
subscription and no API key (seed 001: Puffin asks the CLI in print mode, one turn).

Everything but the transport is the API extractor's (`ModelExtractor` in claude.py): the
same prompts, chunks, validation against the same schemas, retries of invalid answers,
evolution, compression, usage records and circuit breaker, and the same fail-open: a
conversation whose extraction fails is kept pending and extracted again later.

One call runs `claude -p --output-format json --model M --max-turns 1 --system-prompt S`
without a shell, the prompt on stdin (a transcript is far too long for argv, and must not
show in `ps`). The CLI prints one JSON object whose `result` holds the model's text, or
`is_error` with what went wrong. Failures are sorted into:
- transient (a timeout, a network error, overload, rate limits): tried again after a
  backoff, `max_retries` times; after a timeout or a network error the rest of the import
  skips the CLI ("Claude CLI unreachable, skipped"), as the API extractor does;
- lasting for this import (no `claude` on PATH, not logged in, the usage limit reached):
  not tried again, and the rest of the import skips the CLI;
- anything else (a crash, output that is not the JSON envelope): this conversation fails.

The CLI runs with a minimal environment (no ANTHROPIC_API_KEY, so a subscription is
never silently billed through a key, and nothing the app does not need to hand over), in
a working folder of its own that holds a `.memoryignore`: memory-app's own hooks ignore
these calls, and should the CLI keep their sessions in ~/.claude/projects, importing
them is refused. Flags newer CLIs know (no session file, no hooks, no MCP servers, no
tools) are added when `claude --help` lists them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import platformdirs
import pydantic

from memory_app.config import APP_FOLDER
from memory_app.domain.usage import TokenMeter
from memory_app.extract.base import ExtractorError
from memory_app.extract.claude import ConnectionCheck, ModelExtractor
from memory_app.extract.claude_cli_settings import (
    ClaudeCliSettings,
    find_claude,
    not_found_message,
)
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.privacy_gate import PROJECT_IGNORE

log = logging.getLogger(__name__)

# What the CLI is given of the app's environment: where the person's login and settings
# are, the language, the proxies and certificates of the network, what Windows needs to
# start a program. Never ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN: a key would bill the
# API instead of the subscription this extractor is for.
PASSED_VARIABLES = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "CLAUDE_CONFIG_DIR",  # where `claude` keeps its login
    "CLAUDE_CODE_OAUTH_TOKEN",  # a subscription's token from `claude setup-token`
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
    "PROGRAMDATA",
    "PROGRAMFILES",
)

# Added after the system prompt: the CLI has no structured-output format, so the answer's
# shape is asked for in words (the prompts already ask for JSON only).
JSON_ONLY = (
    "Answer with the JSON the request describes and nothing else: no prose, no markdown "
    "fences. Do not use any tools."
)
# Flags a newer CLI knows, with their values, added when `claude --help` lists them.
OPTIONAL_FLAGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("--no-session-persistence", ()),  # no session file per call in ~/.claude/projects
    ("--settings", ('{"disableAllHooks": true}',)),  # no hooks of any tool
    ("--strict-mcp-config", ()),  # no MCP servers started (memory-app's own included)
    ("--tools", ("",)),  # no tools: an answer, never an action
)
CONNECTION_PROMPT = "Reply with the single word: ok"
CONNECTION_TIMEOUT = 60.0
PROBE_TIMEOUT = 30.0
_DETAIL_CHARS = 200

_LOGIN = re.compile(
    r"/login|not logged in|log ?in again|invalid api key|oauth token|authenticat"
    r"|unauthori[sz]ed|\b401\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(
    r"usage limit|(5-hour|weekly|session|opus) limit|credit balance|out of extra usage",
    re.IGNORECASE,
)
_NETWORK = re.compile(
    r"timed? ?out|timeout|connection (error|refused|reset)|econn|etimedout|enotfound"
    r"|eai_again|network|socket hang up|fetch failed",
    re.IGNORECASE,
)
_BUSY = re.compile(r"overloaded|\b(429|5\d\d)\b|rate.?limit", re.IGNORECASE)


def clean_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of `env` the CLI gets (PASSED_VARIABLES that are set)."""
    return {name: env[name] for name in PASSED_VARIABLES if env.get(name)}


def working_folder() -> Path:
    """The folder the CLI runs in: empty but for a `.memoryignore`, so no project's
    CLAUDE.md or settings are read, memory-app's hooks leave these calls alone, and their
    sessions are never imported as conversations."""
    folder = platformdirs.user_cache_path(APP_FOLDER, appauthor=False) / "claude-cli"
    marker = folder / PROJECT_IGNORE
    if not marker.is_file():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        marker.write_text(
            "# Memory Curator runs `claude -p` here to extract memories: these calls are\n"
            "# not conversations to remember.\n",
            encoding="utf-8",
        )
    return folder


@dataclass(frozen=True)
class _Answer:
    text: str
    stop_reason: str | None
    model: str | None


class _CallFailed(Exception):
    """One call gave no answer. `transient`: worth trying again after a pause; `trip`:
    why the rest of the import should skip the CLI (None: only this call failed)."""

    def __init__(self, text: str, *, transient: bool = False, trip: str | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.transient = transient
        self.trip = trip


class ClaudeCliExtractor(ModelExtractor):
    """Extracts memories, evolves category summaries and compresses older memories with
    Claude, through the Claude Code CLI and the person's own login."""

    name = "claude-cli"

    def __init__(
        self,
        settings: ClaudeSettings | None = None,
        cli: ClaudeCliSettings | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """`env`: the environment the CLI's variables are taken from (default: the
        app's); only PASSED_VARIABLES reach it."""
        super().__init__(settings)
        self.cli = cli or ClaudeCliSettings()
        self._env = clean_environment(os.environ if env is None else env)
        self._flags: dict[str, tuple[str, ...]] = {}  # per executable, from its --help
        self._flags_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ClaudeCliExtractor(model={self.model!r}, executable={self.cli.executable!r})"

    @property
    def executable(self) -> str | None:
        """The CLI's full path, or None when it is not installed."""
        return find_claude(self.cli.executable, self._env)

    def close(self) -> None:
        """Nothing is held between calls (each is a process of its own)."""

    # -- the transport -----------------------------------------------------------------------

    def _reply(
        self,
        system: str | None,
        prompt: str,
        response_type: type[pydantic.BaseModel],
        meter: TokenMeter,
    ) -> tuple[str, str | None]:
        self._refuse_when_broken()
        attempts = 1 + self.settings.max_retries
        for attempt in range(attempts):
            if attempt:
                time.sleep(self.cli.wait_before_retry(attempt - 1))
                self._refuse_when_broken()  # another chunk may have found it unreachable
            try:
                argv = self._argv(system)
                meter.request()
                answer = self._call(argv, prompt, self.cli.timeout, meter)
            except _CallFailed as exc:
                if exc.transient and attempt + 1 < attempts:
                    log.info("Claude CLI call failed (%s), trying again", exc.text)
                    continue
                after = _after(attempt) if exc.transient else ""
                if exc.trip is not None:
                    self._trip(exc.trip + after)
                raise ExtractorError(exc.text + after) from None
            return answer.text, answer.stop_reason
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _argv(self, system: str | None) -> list[str]:
        path = self.executable
        if path is None:
            raise _CallFailed(
                not_found_message(self.cli.executable),
                trip=f"found no {self.cli.executable!r} on PATH",
            )
        instructions = f"{system.strip()}\n\n{JSON_ONLY}" if system else JSON_ONLY
        return [
            path,
            "-p",
            "--output-format",
            "json",
            "--model",
            self.model,
            "--max-turns",
            "1",
            "--system-prompt",
            instructions,
            *self._optional_flags(path),
        ]

    def _optional_flags(self, path: str) -> tuple[str, ...]:
        """The OPTIONAL_FLAGS this CLI's `--help` lists (asked once per executable)."""
        with self._flags_lock:
            known = self._flags.get(path)
            if known is None:
                known = self._flags[path] = _supported_flags(path, self._env)
            return known

    def _call(self, argv: list[str], prompt: str, timeout: float, meter: TokenMeter) -> _Answer:
        """Run the CLI once and read its answer; raises _CallFailed."""
        code, out, err = _run(argv, prompt, timeout, self._env)
        envelope = _envelope(out)
        if envelope is None:
            if code != 0:
                raise _exit_failure(code, err or out)
            raise _CallFailed(
                f"the Claude CLI printed something that is not JSON{_glimpse(out)}; "
                "is it Claude Code, and recent enough for --output-format json?"
            )
        usage = envelope.get("usage")
        if isinstance(usage, dict):
            meter.add(_usage(usage))
        subtype = envelope.get("subtype")
        if envelope.get("is_error") is True or (
            isinstance(subtype, str) and subtype.startswith("error")
        ):
            raise _reported_failure(envelope)
        if code != 0:
            raise _exit_failure(code, err)
        result = envelope.get("result")
        if not isinstance(result, str):
            keys = ", ".join(sorted(envelope)[:8]) or "none"
            raise _CallFailed(f"the Claude CLI's JSON has no `result` text (keys: {keys})")
        stop = envelope.get("stop_reason")
        # A refusal is asked again like any invalid answer; a cut-off answer is invalid JSON.
        return _Answer(
            _unfenced(result), "refusal" if stop == "refusal" else None, _model(envelope)
        )

    def _skipped(self, why: str) -> str:
        return (
            f"Claude CLI unreachable, skipped: an earlier call {why}; the next import or "
            f"retry (or a call after {self.settings.unreachable_pause:g} s without any) "
            "asks again"
        )

    # -- connection check ------------------------------------------------------------------

    def test_connection(self) -> ConnectionCheck:
        """One tiny call, no retries: is the CLI installed and logged in, which model
        answers, how fast. Never raises: the message says what went wrong."""
        started = time.monotonic()
        try:
            argv = self._argv(None)
            timeout = min(self.cli.timeout, CONNECTION_TIMEOUT)
            answer = self._call(argv, CONNECTION_PROMPT, timeout, TokenMeter())
        except _CallFailed as exc:
            return ConnectionCheck(False, self.model, None, exc.text)
        latency = int((time.monotonic() - started) * 1000)
        model = answer.model or self.model
        return ConnectionCheck(
            True, model, latency, f"{model} answered in {latency} ms through the Claude CLI"
        )


# -- running the CLI ------------------------------------------------------------------------


def _run(argv: list[str], stdin: str, timeout: float, env: dict[str, str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of one run; the whole process group is killed when it
    takes longer than `timeout` (the CLI may have started helpers of its own)."""
    try:
        folder = working_folder()
    except OSError as exc:
        raise _CallFailed(
            f"the Claude CLI's working folder could not be made: {exc.strerror or exc}"
        ) from None
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=folder,
            env=env,
            start_new_session=os.name == "posix",
        )
    except FileNotFoundError:
        raise _CallFailed(not_found_message(argv[0]), trip=f"found no {argv[0]!r} to run") from None
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise _CallFailed(
            f"the Claude CLI could not be started ({argv[0]}): {why}",
            trip=f"could not start {argv[0]!r}",
        ) from None
    try:
        out, err = process.communicate(stdin.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        raise _CallFailed(
            f"the Claude CLI did not answer within {timeout:g} s",
            transient=True,
            trip=f"did not answer within {timeout:g} s",
        ) from None
    except BaseException:  # interrupted (Ctrl+C, the app closing): leave no CLI behind
        _kill(process)
        raise
    return process.returncode, _text(out), _text(err)


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=5)  # reap it; a helper holding the pipes is left


def _supported_flags(path: str, env: dict[str, str]) -> tuple[str, ...]:
    """The OPTIONAL_FLAGS (with their values) that `path --help` mentions; none when the
    help cannot be read (the call itself will then say what is wrong)."""
    try:
        done = subprocess.run(
            [path, "--help"],
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            env=env,
            cwd=working_folder(),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    help_text = _text(done.stdout) + _text(done.stderr)
    flags: list[str] = []
    for flag, values in OPTIONAL_FLAGS:
        if re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text):
            flags += [flag, *values]
    return tuple(flags)


# -- reading its answer ---------------------------------------------------------------------


def _envelope(out: str) -> dict[str, Any] | None:
    """The JSON object the CLI printed (the last line that is one, should anything have
    been printed before it), or None."""
    text = out.strip()
    if not text:
        return None
    candidates = [text, *reversed(text.splitlines())]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _reported_failure(envelope: dict[str, Any]) -> _CallFailed:
    """What an `is_error` answer means for the import."""
    subtype = str(envelope.get("subtype") or "error")
    result = envelope.get("result")
    detail = _short(result if isinstance(result, str) and result.strip() else subtype)
    if subtype == "error_max_turns":
        return _CallFailed(
            "the model used a tool instead of answering (the Claude CLI stopped it: "
            "error_max_turns)"
        )
    return _classified(f"the Claude CLI reported an error: {detail}", detail)


def _exit_failure(code: int, err: str) -> _CallFailed:
    detail = _short(err) or "no message"
    return _classified(f"the Claude CLI exited with status {code}: {detail}", detail)


def _classified(text: str, detail: str) -> _CallFailed:
    if _LOGIN.search(detail):
        return _CallFailed(
            f"{text}; run `claude` once and log in (/login)", trip="was refused: not logged in"
        )
    if _LIMIT.search(detail):
        return _CallFailed(text, trip="hit the usage limit")
    if _NETWORK.search(detail):
        return _CallFailed(text, transient=True, trip="failed with a network error")
    if _BUSY.search(detail):
        return _CallFailed(text, transient=True)
    return _CallFailed(text)


def _usage(usage: dict[str, Any]) -> SimpleNamespace:
    def tokens(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return SimpleNamespace(
        input_tokens=tokens("input_tokens"),
        output_tokens=tokens("output_tokens"),
        cache_creation_input_tokens=tokens("cache_creation_input_tokens"),
        cache_read_input_tokens=tokens("cache_read_input_tokens"),
    )


def _model(envelope: dict[str, Any]) -> str | None:
    """The model that answered, as the CLI's `modelUsage` names it."""
    used = envelope.get("modelUsage")
    if isinstance(used, dict):
        names = [name for name in used if isinstance(name, str) and name]
        if names:
            return names[0]
    return None


_FENCE = re.compile(r"^```[\w-]*\s*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)


def _unfenced(text: str) -> str:
    """The answer without a markdown code fence around it (models add one now and then)."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group("body").strip() if match else stripped


def _after(attempt: int) -> str:
    return f" after {attempt} {'retry' if attempt == 1 else 'retries'}" if attempt else ""


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _short(text: str) -> str:
    """The first lines of a message, on one line, at most _DETAIL_CHARS long."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _DETAIL_CHARS else flat[: _DETAIL_CHARS - 1] + "…"


def _glimpse(out: str) -> str:
    flat = " ".join(out.split())
    if not flat:
        return " (nothing)"
    return f": {flat[:60]}…" if len(flat) > 60 else f": {flat}"


def check_cli_connection(
    settings: ClaudeSettings | None = None, cli: ClaudeCliSettings | None = None
) -> ConnectionCheck:
    """Test the Claude CLI and model (Settings' "Test connection", `memory-app
    test-connection --extractor claude-cli`)."""
    return ClaudeCliExtractor(settings, cli).test_connection()
