"""How the Claude extractor calls the API: model, budgets, retries, chunking, concurrency.

Defaults favour a small, fast model and bounded cost; every field can be overridden by a
MEMORY_APP_CLAUDE_* environment variable (see `ENV_NAMES`). The API key is deliberately
not a field here: settings get printed and logged, keys must not (see credentials.py).

Bounded waiting: a server that cannot be reached, or accepts and never answers, costs at
most `unreachable_bound()` = (1 + max_retries) × (connect_timeout + timeout) + backoffs
seconds per import; with the defaults 3 × (10 s + 60 s) + 0.5 s + 1 s = 211.5 s. Each
attempt waits at most `connect_timeout` to connect plus `timeout` for a silent socket,
the SDK retries after backoffs of 0.5 s, 1 s, …, the chunks of a conversation wait side
by side, and after that failure the extractor skips the API ("Anthropic API unreachable,
skipped") for the rest of the import, and until nothing has asked it for
`unreachable_pause` seconds. The timeouts limit each silence, not a whole answer, so an
answer that keeps arriving is never cut off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

DEFAULT_MODEL = "claude-haiku-4-5"


@dataclass(frozen=True)
class ClaudeSettings:
    model: str = DEFAULT_MODEL
    # Output budget per request: an extraction answer for one chunk is a few thousand
    # tokens at most; an answer cut off at this limit is split and asked again.
    max_tokens: int = 8_192
    # Not sent unless set: the Messages API of SDK 2.x has no temperature parameter any
    # more; when set it goes in the request body as `temperature`.
    temperature: float | None = None
    # Seconds a socket may stay silent (read, write) before the request times out. A
    # non-streamed answer arrives whole, so this must cover generating a chunk's answer;
    # raise it for a slower model or a larger max_tokens.
    timeout: float = 60.0
    connect_timeout: float = 10.0  # seconds to open the connection
    # The SDK's own retries of 408/409/429/5xx/529, timeouts and connection errors, with
    # exponential backoff (0.5 s doubling to 8 s, or the server's retry-after). Two keep
    # an overloaded API (529) usable without multiplying the wait on a dead one.
    max_retries: int = 2
    # After a timeout or connection failure (retries spent), requests are skipped until a
    # new import starts or nothing has asked for one for this many seconds; 0: never.
    unreachable_pause: float = 60.0
    # Retries of an answer that is not valid JSON for the schema (seed 001 §8: two).
    invalid_retries: int = 2
    concurrency: int = 4  # chunks of one conversation sent at the same time
    # Conversation text per request. Haiku 4.5 reads 200k tokens; smaller chunks keep the
    # model's attention on each part and an answer well within max_tokens.
    chunk_chars: int = 48_000
    # The whole conversation is cut to this (instead of the offline 80,000) before
    # chunking: about 50k input tokens, a few cents with Haiku, at most.
    max_conversation_chars: int = 200_000
    base_url: str | None = None  # None: ANTHROPIC_BASE_URL, else the SDK's default

    def __post_init__(self) -> None:
        problems = []
        if not self.model.strip():
            problems.append("model must not be empty")
        for name in ("max_tokens", "concurrency", "chunk_chars", "max_conversation_chars"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1")
        for name in ("max_retries", "invalid_retries"):
            if getattr(self, name) < 0:
                problems.append(f"{name} must not be negative")
        for name in ("timeout", "connect_timeout"):
            if getattr(self, name) <= 0:
                problems.append(f"{name} must be positive")
        if self.unreachable_pause < 0:
            problems.append("unreachable_pause must not be negative")
        if self.temperature is not None and not 0.0 <= self.temperature <= 1.0:
            problems.append("temperature must be between 0 and 1")
        if problems:
            raise ValueError("; ".join(problems))

    def unreachable_bound(self) -> float:
        """Seconds an import can wait on a server that is down or never answers: every
        attempt of one request (the chunks wait side by side), plus the SDK's backoffs."""
        backoff = sum(min(0.5 * 2**n, 8.0) for n in range(self.max_retries))
        return (1 + self.max_retries) * (self.connect_timeout + self.timeout) + backoff

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ClaudeSettings:
        """Defaults, then MEMORY_APP_CLAUDE_* variables, then explicit overrides."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}  # each parsed to its field's type; __post_init__ checks
        types = {f.name: f.type for f in fields(cls)}
        for name, variable in ENV_NAMES.items():
            raw = env.get(variable, "").strip()
            if not raw:
                continue
            kind = str(types[name])
            try:
                if "int" in kind:
                    values[name] = int(raw)
                elif "float" in kind:
                    values[name] = float(raw)
                else:
                    values[name] = raw
            except ValueError:
                raise ValueError(f"{variable}={raw!r} is not a number") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)


ENV_NAMES = {
    "model": "MEMORY_APP_CLAUDE_MODEL",
    "max_tokens": "MEMORY_APP_CLAUDE_MAX_TOKENS",
    "temperature": "MEMORY_APP_CLAUDE_TEMPERATURE",
    "timeout": "MEMORY_APP_CLAUDE_TIMEOUT",
    "connect_timeout": "MEMORY_APP_CLAUDE_CONNECT_TIMEOUT",
    "unreachable_pause": "MEMORY_APP_CLAUDE_UNREACHABLE_PAUSE",
    "max_retries": "MEMORY_APP_CLAUDE_MAX_RETRIES",
    "invalid_retries": "MEMORY_APP_CLAUDE_INVALID_RETRIES",
    "concurrency": "MEMORY_APP_CLAUDE_CONCURRENCY",
    "chunk_chars": "MEMORY_APP_CLAUDE_CHUNK_CHARS",
    "max_conversation_chars": "MEMORY_APP_CLAUDE_MAX_CHARS",
    "base_url": "MEMORY_APP_CLAUDE_BASE_URL",
}
