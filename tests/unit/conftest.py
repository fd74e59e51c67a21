"""Fixtures for service-level tests: a fresh store per test, built like production."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_app.config import Settings, resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return resolve_settings(tmp_path / "data", env={})


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = MemoryService.open(settings, OfflineExtractor())
    yield svc
    svc.close()
