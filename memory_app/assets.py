"""Finding the app's own files (icons, stylesheets, Designer forms) wherever it runs.

A built wheel carries `ui/` and `resources/` inside the package (`memory_app/_data/`);
an editable install or a checkout does not (hatchling's force-include only applies to
built wheels), so the repository root is the second place to look.
"""

from __future__ import annotations

from pathlib import Path

from memory_app.config import APP_ID

_PACKAGE = Path(__file__).resolve().parent
_PLACES = (_PACKAGE / "_data", _PACKAGE.parent)


class AssetMissingError(FileNotFoundError):
    pass


def asset_path(relative: str) -> Path:
    """The file `relative` (e.g. "resources/icons/app.svg") from package data or checkout."""
    for base in _PLACES:
        candidate = base / relative
        if candidate.exists():
            return candidate
    looked = ", ".join(str(base / relative) for base in _PLACES)
    raise AssetMissingError(f"{relative} is missing from this installation (looked in {looked})")


APP_ICON_NAME = APP_ID  # the icon theme name: the desktop entry's Icon= key
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)  # PNGs in resources/icons/hicolor


def icon_path(name: str) -> Path:
    """An icon of the app by name, e.g. icon_path("memories") → resources/icons/memories.svg;
    the application's own icon is `icon_path(APP_ICON_NAME)`."""
    if name == APP_ICON_NAME:
        return asset_path(f"resources/icons/hicolor/scalable/apps/{name}.svg")
    return asset_path(f"resources/icons/{name}.svg")
