"""The assistant the settings give: the Anthropic key (environment or keyring) and the
MEMORY_APP_CLAUDE_* settings, or one that always falls back and says why; and, for a
long-running server, none unless MEMORY_APP_ASSISTED_RETRIEVAL is on."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import anthropic

from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import find_api_key
from memory_app.retrieval.assisted.questions import AssistLimits, RetrievalAssistant

log = logging.getLogger(__name__)


def assistant_from_env(
    env: Mapping[str, str] | None = None,
    limits: AssistLimits | None = None,
    *,
    use_keyring: bool = True,
) -> RetrievalAssistant:
    """An assistant with the configured key and MEMORY_APP_CLAUDE_* settings; without a
    key (or with invalid settings), one that always falls back and says why."""
    try:
        settings = ClaudeSettings.from_env(env)
    except ValueError as exc:
        return RetrievalAssistant(None, limits=limits, missing=str(exc))
    key = find_api_key(env, use_keyring=use_keyring)
    if key is None:
        return RetrievalAssistant(None, settings, limits)
    client = anthropic.Anthropic(
        api_key=key.reveal(),
        base_url=settings.base_url,
        timeout=anthropic.Timeout(settings.timeout, connect=settings.connect_timeout),
        max_retries=0,
    )
    return RetrievalAssistant(client, settings, limits, key=key)


def configured_assistant(env: Mapping[str, str] | None = None) -> RetrievalAssistant | None:
    """The assistant for a long-running server (MCP, local API) when the setting
    MEMORY_APP_ASSISTED_RETRIEVAL is on (config.py), else None. On without a key, it
    falls back on every call and its answers say why."""
    from memory_app.config import ASSISTED_RETRIEVAL_ENV, assisted_retrieval_enabled

    if not assisted_retrieval_enabled(env):
        return None
    helper = assistant_from_env(env)
    if not helper.configured:
        log.warning(
            "%s is on but Claude is not configured: retrieval stays offline", ASSISTED_RETRIEVAL_ENV
        )
    return helper
