"""Projects memory stays out of (seed 002 privacy gate): paused with `/memory off`, or
listed in a deny list. Neither capture nor recall touches them.

Three sources, all plain files so the hook process reads them with the standard
library alone, before it opens the store:
- `memory-off.json` in the data folder: the projects paused with `memory-app off`
  (`/memory off`), until `memory-app on`;
- `memoryignore` in the data folder: glob patterns of project folders, one per line
  (`~/work/client-*`, `*/secret-project`), `#` starts a comment;
- `.memoryignore` in a project's own folder: that project is never remembered.
A subfolder belongs to its project: pausing `~/work/app` covers `~/work/app/api`.
"""

from __future__ import annotations

import json
import os
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

OFF_FILE = "memory-off.json"
IGNORE_FILE = "memoryignore"
PROJECT_IGNORE = ".memoryignore"


def _inside(project: str, folder: str) -> bool:
    p, f = PurePosixPath(project), PurePosixPath(folder)
    return p == f or f in p.parents


def paused_projects(data_dir: Path) -> list[str]:
    """The projects `memory-app off` paused (a damaged file pauses nothing: fail open)."""
    try:
        data = json.loads((data_dir / OFF_FILE).read_text(encoding="utf-8"))
        projects = data.get("projects", []) if isinstance(data, dict) else []
    except (OSError, ValueError):
        return []
    return [p for p in projects if isinstance(p, str) and p]


def set_paused(data_dir: Path, project: str, paused: bool) -> list[str]:
    """Pause or resume a project; returns the projects paused after the change. The file
    is replaced whole (a temporary file, then a rename) and private."""
    project = str(Path(project).expanduser().resolve())
    projects = [p for p in paused_projects(data_dir) if p != project]
    if paused:
        projects.append(project)
    data_dir.mkdir(parents=True, exist_ok=True)
    target = data_dir / OFF_FILE
    temporary = target.with_name(f".{OFF_FILE}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        json.dump({"projects": sorted(projects)}, stream, indent=2)
    os.replace(temporary, target)
    return sorted(projects)


def _patterns(data_dir: Path) -> list[str]:
    try:
        lines = (data_dir / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    stripped = (line.split("#", 1)[0].strip() for line in lines)
    return [os.path.expanduser(line).rstrip("/") for line in stripped if line]


def why_excluded(data_dir: Path | None, project: str | None) -> str | None:
    """Why memory must stay out of this project, or None. No project (a pasted text, a
    session without a folder) is never excluded by folder rules."""
    if not project:
        return None
    if data_dir is not None:
        for paused in paused_projects(data_dir):
            if _inside(project, paused):
                return f"memory is off for {paused} (memory-app on turns it back on)"
        for pattern in _patterns(data_dir):
            if fnmatch(project, pattern) or any(
                fnmatch(str(parent), pattern) for parent in PurePosixPath(project).parents
            ):
                return f"{project} matches '{pattern}' in {IGNORE_FILE}"
    folder = Path(project)
    for candidate in (folder, *folder.parents):
        try:
            if (candidate / PROJECT_IGNORE).is_file():
                return f"{candidate / PROJECT_IGNORE} keeps this project out of memory"
        except OSError:
            continue
    return None
