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

# One name for every folder of the app, so a person finds them all: the data
# (~/.local/share/memory-app on Linux), the settings (~/.config/memory-app) and the log
# (~/.local/state/memory-app/logs). memory_app/hooks/locations.py repeats it.
APP_FOLDER = "memory-app"
# Earlier versions kept the settings and the log under this name instead; they are
# moved to APP_FOLDER on the first start (gui/user_settings.py, logs.py).
LEGACY_FOLDER = "memory-curator"
# The application id of the desktop (reverse-DNS, as AppStream and the Desktop Entry spec
# ask): the desktop entry's and metainfo's file names, the icon's name, the Wayland app id
# and the X11 window class. The project has no domain nor a public account of its own, so
# the id takes the form used for projects without a domain, io.github.<account>.<App>,
# with the project's name in both places: it names the app, not a web address. It must
# not change again (desktops key pinned launchers and notification settings by it). The
# first versions used "memory-app": desktop.py removes a menu entry of that name.
APP_ID = "io.github.memorycurator.MemoryCurator"
DB_FILE = "memory.db"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_url: str

    @property
    def backup_dir(self) -> Path:
        return self.data_dir / "backups"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_FOLDER, appauthor=False))


def resolve_settings(
    data_dir: str | os.PathLike[str] | None = None,
    db_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    env = os.environ if env is None else env
    folder = Path(data_dir or env.get("MEMORY_APP_DATA_DIR") or default_data_dir()).expanduser()
    url = db_url or env.get("MEMORY_APP_DB_URL") or f"sqlite:///{folder / DB_FILE}"
    return Settings(data_dir=folder, db_url=url)


# LLM-assisted retrieval (seed 000 §3.3, the package retrieval/assisted/) for the MCP
# server's `retrieve` and `context` tools and the local API's `assisted` flag (GET
# /memories?q=…&assisted=true, POST /context/assemble with "assisted": true): off unless
# set to 1/true/yes/on, and then used only when an Anthropic key is configured. The hooks
# never read it: their fast path stays offline and stdlib-only.
ASSISTED_RETRIEVAL_ENV = "MEMORY_APP_ASSISTED_RETRIEVAL"
_TRUE = ("1", "true", "yes", "on")


def assisted_retrieval_enabled(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(ASSISTED_RETRIEVAL_ENV, "").strip().lower() in _TRUE
