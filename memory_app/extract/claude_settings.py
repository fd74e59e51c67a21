"""How the Claude extractor calls the API: model, budgets, retries, chunking, concurrency.

Defaults favour a small, fast model and bounded cost; every field can be overridden by a
MEMORY_APP_CLAUDE_* environment variable (see `ENV_NAMES`). The API key is deliberately
not a field here: settings get printed and logged, keys must not (see credentials.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

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
    timeout: float = 120.0  # seconds per request
    # The SDK's own retries of 408/409/429/5xx/529, timeouts and connection errors, with
    # exponential backoff (0.5 s doubling to 8 s, or the server's retry-after).
    max_retries: int = 3
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
        if self.timeout <= 0:
            problems.append("timeout must be positive")
        if self.temperature is not None and not 0.0 <= self.temperature <= 1.0:
            problems.append("temperature must be between 0 and 1")
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ClaudeSettings:
        """Defaults, then MEMORY_APP_CLAUDE_* variables, then explicit overrides."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
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
        return replace(cls(), **values)  # type: ignore[arg-type]


ENV_NAMES = {
    "model": "MEMORY_APP_CLAUDE_MODEL",
    "max_tokens": "MEMORY_APP_CLAUDE_MAX_TOKENS",
    "temperature": "MEMORY_APP_CLAUDE_TEMPERATURE",
    "timeout": "MEMORY_APP_CLAUDE_TIMEOUT",
    "max_retries": "MEMORY_APP_CLAUDE_MAX_RETRIES",
    "invalid_retries": "MEMORY_APP_CLAUDE_INVALID_RETRIES",
    "concurrency": "MEMORY_APP_CLAUDE_CONCURRENCY",
    "chunk_chars": "MEMORY_APP_CLAUDE_CHUNK_CHARS",
    "max_conversation_chars": "MEMORY_APP_CLAUDE_MAX_CHARS",
    "base_url": "MEMORY_APP_CLAUDE_BASE_URL",
}
