"""Fixtures shared by every test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app.config import Settings, resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from tests.postgres import PostgresUnavailable, ThrowawayServer

ENGINES = ("sqlite", "postgresql")
_TEMPLATE = "store_template"
_numbers = itertools.count(1)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked `both_engines` that open a store through `settings` run once per
    engine (unless marked `sqlite_file`: about the SQLite file itself); the PostgreSQL
    run is marked `postgresql` (`pytest -m postgresql`)."""
    marked = metafunc.definition.get_closest_marker
    if "settings" in metafunc.fixturenames and marked("both_engines") and not marked("sqlite_file"):
        metafunc.parametrize(
            "store_engine",
            [
                pytest.param("sqlite"),
                pytest.param("postgresql", marks=pytest.mark.postgresql),
            ],
            indirect=True,
        )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[ThrowawayServer]:
    """One throwaway PostgreSQL server per test process (each xdist worker its own),
    with a migrated store database to copy (`_TEMPLATE`). Skips when PostgreSQL is not
    installed, fails instead where .ci/run installs it (MEMORY_APP_REQUIRE_TOOLS=1)."""
    try:
        server = ThrowawayServer().start()
    except PostgresUnavailable as exc:
        if os.environ.get("MEMORY_APP_REQUIRE_TOOLS") == "1":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    try:
        from memory_app.store.database import Database

        Database(server.create_database(_TEMPLATE)).close()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_database(postgres_server: ThrowawayServer) -> Iterator[str]:
    """The URL of a new, empty database (no store in it yet), dropped after the test."""
    name = f"empty_{next(_numbers)}"
    yield postgres_server.create_database(name)
    postgres_server.drop_database(name)


@pytest.fixture
def postgres_store_url(postgres_server: ThrowawayServer) -> Iterator[str]:
    """The URL of a new store database at the current schema version (a copy of the
    migrated template: milliseconds), dropped after the test."""
    name = f"store_{next(_numbers)}"
    yield postgres_server.create_database(name, template=_TEMPLATE)
    postgres_server.drop_database(name)


@pytest.fixture
def store_engine(request: pytest.FixtureRequest) -> str:
    """The engine `settings` opens: "sqlite" unless the test is parametrized over
    ENGINES (pytest_generate_tests)."""
    return str(getattr(request, "param", "sqlite"))


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
def settings(tmp_path: Path, store_engine: str, request: pytest.FixtureRequest) -> Settings:
    """A fresh store per test, resolved by the same code as production: a SQLite file,
    or for a `both_engines` test's PostgreSQL run, a new database on the test server."""
    if store_engine == "postgresql":
        url = request.getfixturevalue("postgres_store_url")
        return resolve_settings(tmp_path / "data", db_url=url, env={})
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
