"""Where the data lives and which database to open.

Precedence: an explicit database URL, then an explicit data directory, then the
MEMORY_APP_DB_URL / MEMORY_APP_DATA_DIR environment variables, then the platform's user
data directory (for example ~/.local/share/memory-app on Linux).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_ID = "memory-app"
DB_FILE = "memory.db"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_url: str

    @property
    def backup_dir(self) -> Path:
        return self.data_dir / "backups"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_ID, appauthor=False))


def resolve_settings(
    data_dir: str | os.PathLike[str] | None = None,
    db_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    env = os.environ if env is None else env
    folder = Path(data_dir or env.get("MEMORY_APP_DATA_DIR") or default_data_dir()).expanduser()
    url = db_url or env.get("MEMORY_APP_DB_URL") or f"sqlite:///{folder / DB_FILE}"
    return Settings(data_dir=folder, db_url=url)
