"""How the Claude Code CLI extractor runs `claude`: which program, how long one call may
take, how long to wait before trying again.

Light on purpose (no anthropic SDK): the Settings view asks `find_claude()` whether the
CLI is installed before anyone chooses it. The model, the chunking, the retries of
invalid answers, the transient retries and the circuit breaker's pause are the Claude
extractor's own settings (claude_settings.py), shared so one "Model" setting serves both.

Bounded waiting: a CLI that never answers costs at most (1 + max_retries) × timeout plus
the backoffs per import (with the defaults 3 × 180 s + 1 s + 2 s = 543 s); after that the
rest of the import skips it ("Claude CLI unreachable, skipped").
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

EXECUTABLE_ENV = "MEMORY_APP_CLAUDE_CLI"
TIMEOUT_ENV = "MEMORY_APP_CLAUDE_CLI_TIMEOUT"
MAX_BACKOFF = 8.0


@dataclass(frozen=True)
class ClaudeCliSettings:
    # A name looked up on PATH, or a path to the program.
    executable: str = "claude"
    # Seconds one call may take, from starting `claude` to its whole answer: the CLI
    # starts (a few seconds), then the model reads a chunk and answers (tens of seconds).
    timeout: float = 180.0
    # Seconds before the first retry of a transient failure, doubled each time (at most 8).
    backoff: float = 1.0

    def __post_init__(self) -> None:
        problems = []
        if not self.executable.strip():
            problems.append("the Claude CLI's executable must not be empty")
        if self.timeout <= 0:
            problems.append("the Claude CLI's timeout must be positive")
        if self.backoff < 0:
            problems.append("the Claude CLI's backoff must not be negative")
        if problems:
            raise ValueError("; ".join(problems))

    def wait_before_retry(self, retry: int) -> float:
        """Seconds to wait before retry number `retry` (0 for the first)."""
        return min(self.backoff * 2**retry, MAX_BACKOFF)

    def unreachable_bound(self, max_retries: int) -> float:
        """Seconds one import can wait on a CLI that never answers."""
        waits = sum(self.wait_before_retry(n) for n in range(max_retries))
        return (1 + max_retries) * self.timeout + waits

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, **overrides: object
    ) -> ClaudeCliSettings:
        """Defaults, then MEMORY_APP_CLAUDE_CLI and MEMORY_APP_CLAUDE_CLI_TIMEOUT, then
        explicit overrides."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        executable = env.get(EXECUTABLE_ENV, "").strip()
        if executable:
            values["executable"] = executable
        raw = env.get(TIMEOUT_ENV, "").strip()
        if raw:
            try:
                values["timeout"] = float(raw)
            except ValueError:
                raise ValueError(f"{TIMEOUT_ENV}={raw!r} is not a number") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)


def find_claude(executable: str = "claude", env: Mapping[str, str] | None = None) -> str | None:
    """The full path of the Claude CLI (`executable` on PATH, or that path when it is one),
    or None when it is not installed."""
    env = os.environ if env is None else env
    return shutil.which(os.path.expanduser(executable), path=env.get("PATH", os.defpath))


def not_found_message(executable: str) -> str:
    """What to do when there is no Claude CLI to run."""
    return (
        f"the Claude CLI was not found: {executable!r} is not on PATH; install Claude Code "
        f"and log in, or set {EXECUTABLE_ENV} to its path"
    )
