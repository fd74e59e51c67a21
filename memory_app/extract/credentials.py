"""The Anthropic API key: found in the environment or the OS keyring, never stored in the
database, never printed.

`ApiKey` hides its value from repr/str so a key cannot leak through a log line, an
exception message or a debugger's variable view by accident; code that really needs it
calls `reveal()`. The keyring is optional (`pip install keyring`): without it only the
environment variable works.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

ENV_VAR = "ANTHROPIC_API_KEY"
KEYRING_SERVICE = "memory-app"
KEYRING_USER = "anthropic-api-key"
NO_KEY_MESSAGE = f"no Anthropic API key: set {ENV_VAR}"
_MASK = "[api key]"


class ApiKey:
    """A secret string whose repr never shows it."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str = "explicit") -> None:
        value = value.strip()
        if not value:
            raise ValueError("an API key must not be empty")
        self._value = value
        self.source = source  # environment | keyring | explicit

    def reveal(self) -> str:
        return self._value

    def scrub(self, text: str) -> str:
        """`text` with every occurrence of the key replaced by a placeholder."""
        return text.replace(self._value, _MASK) if self._value in text else text

    def __repr__(self) -> str:
        return f"ApiKey(<hidden>, source={self.source!r})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> Any:
        raise TypeError("API keys are not pickled")


def _keyring() -> Any | None:
    try:
        import keyring
    except Exception:  # not installed, or no usable backend on this machine
        return None
    return keyring


def keyring_available() -> bool:
    return _keyring() is not None


def find_api_key(
    env: Mapping[str, str] | None = None, *, use_keyring: bool = True
) -> ApiKey | None:
    """The key from ANTHROPIC_API_KEY, else from the OS keyring, else None."""
    env = os.environ if env is None else env
    value = env.get(ENV_VAR, "").strip()
    if value:
        return ApiKey(value, "environment")
    if not use_keyring:
        return None
    module = _keyring()
    if module is None:
        return None
    try:
        stored = module.get_password(KEYRING_SERVICE, KEYRING_USER)
    except Exception:  # a locked or broken keyring must not stop the app
        return None
    return ApiKey(stored, "keyring") if stored and stored.strip() else None


def save_api_key(value: str) -> None:
    """Store a key in the OS keyring (for the Settings view); raises RuntimeError when no
    keyring is available, so the caller can tell the person to use the variable instead."""
    key = ApiKey(value)
    module = _keyring()
    if module is None:
        raise RuntimeError(
            f"no OS keyring is available: install 'keyring' or set {ENV_VAR} instead"
        )
    try:
        module.set_password(KEYRING_SERVICE, KEYRING_USER, key.reveal())
    except Exception as exc:
        raise RuntimeError(
            f"could not save the key in the OS keyring: {type(exc).__name__}"
        ) from None


def delete_api_key() -> bool:
    """Remove a stored key; False when there was none or no keyring."""
    module = _keyring()
    if module is None:
        return False
    try:
        module.delete_password(KEYRING_SERVICE, KEYRING_USER)
    except Exception:
        return False
    return True
