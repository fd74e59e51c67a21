"""Claude settings from the environment, the API key's sources, choosing an extractor."""

from __future__ import annotations

import pickle
import sys
import types

import pytest

from memory_app.domain.usage import estimate_cost, price_for
from memory_app.extract.base import ExtractorError
from memory_app.extract.claude import ClaudeExtractor
from memory_app.extract.claude_settings import DEFAULT_MODEL, ClaudeSettings
from memory_app.extract.credentials import (
    KEYRING_SERVICE,
    KEYRING_USER,
    ApiKey,
    delete_api_key,
    find_api_key,
    save_api_key,
)
from memory_app.extract.factory import default_choice, make_extractor
from memory_app.extract.offline import OfflineExtractor

SECRET = "sk-ant-api03-SECRET-settings"


def test_defaults_are_a_small_fast_model_with_bounded_retries() -> None:
    settings = ClaudeSettings()
    assert settings.model == DEFAULT_MODEL == "claude-haiku-4-5"
    assert settings.invalid_retries == 2 and settings.max_retries >= 1
    assert settings.temperature is None


def test_environment_overrides_every_field() -> None:
    env = {
        "MEMORY_APP_CLAUDE_MODEL": "claude-sonnet-4-6",
        "MEMORY_APP_CLAUDE_MAX_TOKENS": "4096",
        "MEMORY_APP_CLAUDE_TEMPERATURE": "0.2",
        "MEMORY_APP_CLAUDE_TIMEOUT": "30",
        "MEMORY_APP_CLAUDE_CONNECT_TIMEOUT": "4",
        "MEMORY_APP_CLAUDE_MAX_RETRIES": "5",
        "MEMORY_APP_CLAUDE_UNREACHABLE_PAUSE": "0",
        "MEMORY_APP_CLAUDE_CONCURRENCY": "2",
        "MEMORY_APP_CLAUDE_CHUNK_CHARS": "10000",
        "MEMORY_APP_CLAUDE_MAX_CHARS": "50000",
        "MEMORY_APP_CLAUDE_BASE_URL": "http://127.0.0.1:9",
    }
    settings = ClaudeSettings.from_env(env)
    assert settings == ClaudeSettings(
        model="claude-sonnet-4-6",
        max_tokens=4096,
        temperature=0.2,
        timeout=30.0,
        connect_timeout=4.0,
        max_retries=5,
        unreachable_pause=0.0,
        concurrency=2,
        chunk_chars=10_000,
        max_conversation_chars=50_000,
        base_url="http://127.0.0.1:9",
    )
    assert ClaudeSettings.from_env(env, model="claude-opus-4-7").model == "claude-opus-4-7"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"MEMORY_APP_CLAUDE_MAX_TOKENS": "lots"}, "MEMORY_APP_CLAUDE_MAX_TOKENS='lots'"),
        ({"MEMORY_APP_CLAUDE_CONCURRENCY": "0"}, "concurrency must be at least 1"),
        ({"MEMORY_APP_CLAUDE_TEMPERATURE": "3"}, "temperature must be between 0 and 1"),
        ({"MEMORY_APP_CLAUDE_CONNECT_TIMEOUT": "0"}, "connect_timeout must be positive"),
        ({"MEMORY_APP_CLAUDE_UNREACHABLE_PAUSE": "-1"}, "unreachable_pause must not be neg"),
    ],
)
def test_bad_environment_values_are_refused_by_name(env: dict[str, str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        ClaudeSettings.from_env(env)


def test_the_key_hides_from_repr_str_and_pickle() -> None:
    key = ApiKey(f"  {SECRET}\n", "environment")
    assert key.reveal() == SECRET
    for text in (repr(key), str(key), f"{key}", repr([key])):
        assert SECRET not in text
    assert key.scrub(f"the key {SECRET} was refused") == "the key [api key] was refused"
    with pytest.raises(TypeError):
        pickle.dumps(key)
    with pytest.raises(ValueError):
        ApiKey("   ")


def test_the_key_comes_from_the_environment_first() -> None:
    key = find_api_key({"ANTHROPIC_API_KEY": SECRET}, use_keyring=False)
    assert key is not None and key.reveal() == SECRET and key.source == "environment"
    assert find_api_key({}, use_keyring=False) is None
    assert find_api_key({"ANTHROPIC_API_KEY": "  "}, use_keyring=False) is None


class FakeKeyring(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("keyring")
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.store.get((service, user))

    def set_password(self, service: str, user: str, value: str) -> None:
        self.store[(service, user)] = value

    def delete_password(self, service: str, user: str) -> None:
        del self.store[(service, user)]


def test_the_key_can_live_in_the_os_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKeyring()
    monkeypatch.setitem(sys.modules, "keyring", fake)
    assert find_api_key({}) is None
    save_api_key(SECRET)
    assert fake.store == {(KEYRING_SERVICE, KEYRING_USER): SECRET}
    key = find_api_key({})
    assert key is not None and key.reveal() == SECRET and key.source == "keyring"
    # The environment still wins over a stored key.
    other = find_api_key({"ANTHROPIC_API_KEY": "sk-env"})
    assert other is not None and other.reveal() == "sk-env"
    assert delete_api_key() and find_api_key({}) is None


def test_without_a_keyring_saving_explains_the_alternative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring → ImportError
    assert find_api_key({}) is None
    with pytest.raises(RuntimeError, match="set ANTHROPIC_API_KEY instead"):
        save_api_key(SECRET)
    assert not delete_api_key()


def test_choosing_an_extractor() -> None:
    with_key = {"ANTHROPIC_API_KEY": SECRET}
    assert isinstance(make_extractor("offline", env=with_key), OfflineExtractor)
    assert isinstance(make_extractor("auto", env={}, use_keyring=False), OfflineExtractor)
    chosen = make_extractor("auto", env=with_key)
    assert isinstance(chosen, ClaudeExtractor) and chosen.name == "claude"
    assert SECRET not in repr(chosen)
    chosen.close()
    claude = make_extractor("claude", env={**with_key, "MEMORY_APP_CLAUDE_MODEL": "claude-x"})
    assert isinstance(claude, ClaudeExtractor) and claude.model == "claude-x"
    claude.close()
    with pytest.raises(ExtractorError, match="no Anthropic API key: set ANTHROPIC_API_KEY"):
        make_extractor("claude", env={}, use_keyring=False)
    with pytest.raises(ValueError, match="unknown extractor"):
        make_extractor("gpt")


def test_the_default_choice_stays_offline_unless_asked() -> None:
    assert default_choice({"ANTHROPIC_API_KEY": SECRET}) == "offline"
    assert default_choice({"MEMORY_APP_EXTRACTOR": "auto"}) == "auto"
    with pytest.raises(ValueError, match="MEMORY_APP_EXTRACTOR"):
        default_choice({"MEMORY_APP_EXTRACTOR": "magic"})


def test_prices_by_model_family() -> None:
    assert price_for("claude-haiku-4-5-20251001") == (1.0, 5.0)
    assert price_for("claude-sonnet-4-6") == (3.0, 15.0)
    assert price_for("claude-opus-4-1") == (15.0, 75.0)
    assert price_for("claude-opus-4-7") == (5.0, 25.0)
    assert price_for("some-other-model") is None
    assert estimate_cost("claude-haiku-4-5", 1_000_000, 100_000) == pytest.approx(1.5)
    assert estimate_cost("some-other-model", 10, 10) is None
