"""Where the store lives: flag, environment, platform default."""

from __future__ import annotations

from pathlib import Path

from memory_app.config import default_data_dir, resolve_settings


def test_explicit_data_dir_wins_over_the_environment(tmp_path: Path) -> None:
    settings = resolve_settings(tmp_path / "a", env={"MEMORY_APP_DATA_DIR": str(tmp_path / "b")})
    assert settings.data_dir == tmp_path / "a"
    assert settings.db_url == f"sqlite:///{tmp_path / 'a' / 'memory.db'}"
    assert settings.backup_dir == tmp_path / "a" / "backups"


def test_environment_then_default(tmp_path: Path) -> None:
    assert resolve_settings(env={"MEMORY_APP_DATA_DIR": str(tmp_path)}).data_dir == tmp_path
    assert resolve_settings(env={}).data_dir == default_data_dir()
    assert default_data_dir().name == "memory-app"


def test_a_database_url_overrides_the_file_location(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert resolve_settings(tmp_path, db_url=url, env={}).db_url == url
    assert resolve_settings(env={"MEMORY_APP_DB_URL": url}).db_url == url
