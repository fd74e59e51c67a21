"""Which extractor the app uses, as chosen in Settings (kept in QSettings, never the key)."""

from __future__ import annotations

from typing import Any

from memory_app.extract.base import Extractor, ExtractorError
from memory_app.extract.claude_cli_settings import EXECUTABLE_ENV, ClaudeCliSettings, find_claude
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import ENV_VAR, ApiKey, find_api_key
from memory_app.extract.factory import make_cli_extractor, make_extractor
from memory_app.gui.translations import translate

# (value, label) in English; the window shows `choices()`, the labels translated.
CHOICES = (
    ("offline", "Offline rules (no network)"),
    ("claude", "Claude (Anthropic API)"),
    ("claude-cli", "Claude Code CLI (your Claude login)"),
    ("auto", "Claude when a key is set, else offline"),
)
# The extractors that are Claude, whichever way it is reached.
CLAUDE_NAMES = ("claude", "claude-cli")


def choices() -> tuple[tuple[str, str], ...]:
    """(value, label) of each extractor Settings offers, in the person's language."""
    return (
        ("offline", translate("ExtractorChoice", "Offline rules (no network)")),
        ("claude", translate("ExtractorChoice", "Claude (Anthropic API)")),
        ("claude-cli", translate("ExtractorChoice", "Claude Code CLI (your Claude login)")),
        ("auto", translate("ExtractorChoice", "Claude when a key is set, else offline")),
    )


def claude_settings(model: str) -> ClaudeSettings:
    model = model.strip()
    return ClaudeSettings.from_env(model=model) if model else ClaudeSettings.from_env()


def current_key(typed: str) -> ApiKey | None:
    """The key typed in Settings for this session, else the environment's or keyring's."""
    typed = typed.strip()
    return ApiKey(typed, "typed") if typed else find_api_key()


def claude_cli_path() -> str | None:
    """Where the Claude Code CLI is installed (MEMORY_APP_CLAUDE_CLI, else `claude` on
    PATH), or None."""
    try:
        return find_claude(ClaudeCliSettings.from_env().executable)
    except ValueError:  # a bad MEMORY_APP_CLAUDE_CLI_TIMEOUT: the CLI cannot be used
        return None


def build_extractor(choice: str, typed_key: str, model: str) -> Extractor:
    """The extractor for a Settings choice; ExtractorError when Claude has no key, or the
    Claude Code CLI is not installed."""
    if choice == "offline":
        return make_extractor("offline")
    if choice == "claude-cli":
        if claude_cli_path() is None:
            raise ExtractorError(
                translate(
                    "ExtractorChoice",
                    "the Claude Code CLI was not found: install Claude Code and log in, "
                    "or set {variable} to its path",
                ).format(variable=EXECUTABLE_ENV)
            )
        return make_cli_extractor(settings=claude_settings(model))
    key = current_key(typed_key)
    if key is None:
        if choice == "claude":
            # Shown in Settings (and wherever "Extract with Claude" was asked for).
            raise ExtractorError(
                translate(
                    "ExtractorChoice",
                    "no Anthropic API key: set {variable} or type one in Settings",
                ).format(variable=ENV_VAR)
            )
        return make_extractor("offline")
    from memory_app.extract.claude import ClaudeExtractor

    return ClaudeExtractor(key, claude_settings(model))


def claude_extractor(context: Any) -> Extractor:
    """Claude for a one-off "Extract with Claude": the extractor in use when it is Claude
    (through the API or the CLI), else one built from the key in the environment or
    keyring and the model in Settings."""
    current = context.service.extractor
    if current.name in CLAUDE_NAMES:
        return current
    model = str(context.settings.value("extractor/model", "") or "")
    return build_extractor("claude", "", model)
