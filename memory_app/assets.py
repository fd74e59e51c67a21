"""Finding the app's own files (icons, stylesheets, Designer forms) wherever it runs.

A built wheel carries `ui/` and `resources/` inside the package (`memory_app/_data/`);
an editable install or a checkout does not (hatchling's force-include only applies to
built wheels), so the repository root is the second place to look.
"""

from __future__ import annotations

from pathlib import Path

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


def icon_path(name: str) -> Path:
    """An icon of the app by name, e.g. icon_path("memories") → resources/icons/memories.svg."""
    return asset_path(f"resources/icons/{name}.svg")
