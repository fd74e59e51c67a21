"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app.config import Settings, resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService


@pytest.fixture(autouse=True)
def isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the real home: user folders point into a temporary one."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    monkeypatch.delenv("MEMORY_APP_DATA_DIR", raising=False)
    monkeypatch.delenv("MEMORY_APP_DB_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)  # Claude Code's folder: ~/.claude
    monkeypatch.delenv("CODEX_HOME", raising=False)  # the Codex CLI's folder: ~/.codex
    # keyring is installed with the test extra: no test may read or write the real one.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A fresh store per test, resolved by the same code as production."""
    return resolve_settings(tmp_path / "data", env={})


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = MemoryService.open(settings, OfflineExtractor())
    yield svc
    svc.close()


@pytest.fixture
def open_service(settings: Settings) -> Iterator[Callable[[Any], MemoryService]]:
    """Opens the test's store with a given extractor; every one opened is closed after
    the test, its extractor too (a Claude client holds connections)."""
    opened: list[MemoryService] = []

    def make(extractor: Any) -> MemoryService:
        service = MemoryService.open(settings, extractor)
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()
        close = getattr(service.extractor, "close", None)
        if close is not None:
            close()


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real sample files, copied into tests/fixtures/samples/ with their provenance
    and licences (SOURCES.md there), so a plain clone tests against them.

    Fails rather than skips: tests that silently stop checking real files are worse
    than a loud failure when the samples are missing.
    """
    path = Path(__file__).resolve().parent / "fixtures" / "samples"
    if not path.is_dir():
        pytest.fail(f"sample files not found: expected them in {path}")
    return path
