"""Choosing an extractor: offline rules, Claude through the API, Claude through the Claude
Code CLI ("claude-cli", a subscription instead of a key), or "auto" (Claude when a key is
set). "auto" never picks the CLI: a person chooses it (Settings says when it is there).

The Claude modules (and with them the anthropic SDK) are imported only when Claude is
chosen, so the offline path starts as fast as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from memory_app.extract.base import Extractor, ExtractorError
from memory_app.extract.claude_cli_settings import ClaudeCliSettings, find_claude, not_found_message
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import NO_KEY_MESSAGE, find_api_key

EXTRACTOR_CHOICES = ("auto", "claude", "claude-cli", "offline")
EXTRACTOR_ENV = "MEMORY_APP_EXTRACTOR"
# Offline unless asked: many developers have ANTHROPIC_API_KEY set for other tools, and an
# import of a whole history should not start spending their money without being asked.
DEFAULT_EXTRACTOR = "offline"


def default_choice(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    choice = env.get(EXTRACTOR_ENV, "").strip().lower() or DEFAULT_EXTRACTOR
    if choice not in EXTRACTOR_CHOICES:
        raise ValueError(
            f"{EXTRACTOR_ENV}={choice!r}: choose one of {', '.join(EXTRACTOR_CHOICES)}"
        )
    return choice


def make_extractor(
    choice: str = "auto",
    *,
    env: Mapping[str, str] | None = None,
    settings: ClaudeSettings | None = None,
    use_keyring: bool = True,
) -> Extractor:
    """The extractor for `choice`; "claude" without a key, or "claude-cli" without the
    CLI installed, raises ExtractorError."""
    if choice not in EXTRACTOR_CHOICES:
        raise ValueError(
            f"unknown extractor {choice!r}: choose one of {', '.join(EXTRACTOR_CHOICES)}"
        )
    if choice == "claude-cli":
        return make_cli_extractor(env=env, settings=settings)
    if choice != "offline":
        key = find_api_key(env, use_keyring=use_keyring)
        if key is not None:
            from memory_app.extract.claude import ClaudeExtractor

            return ClaudeExtractor(key, settings or ClaudeSettings.from_env(env))
        if choice == "claude":
            raise ExtractorError(NO_KEY_MESSAGE)
    from memory_app.extract.offline import OfflineExtractor

    return OfflineExtractor()


def make_cli_extractor(
    *,
    env: Mapping[str, str] | None = None,
    settings: ClaudeSettings | None = None,
    cli: ClaudeCliSettings | None = None,
) -> Extractor:
    """The Claude Code CLI extractor; ExtractorError when `claude` is not installed."""
    env = os.environ if env is None else env
    cli = cli or ClaudeCliSettings.from_env(env)
    if find_claude(cli.executable, env) is None:
        raise ExtractorError(not_found_message(cli.executable))
    from memory_app.extract.claude_cli import ClaudeCliExtractor

    return ClaudeCliExtractor(settings or ClaudeSettings.from_env(env), cli, env=env)
