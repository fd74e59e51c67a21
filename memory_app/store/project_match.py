"""SQL for "this folder belongs to that project": the project's own folder or one inside
it, so a session started in `~/code/app/api` gets the memories of `~/code/app`.

Plain text, no SQLAlchemy: the recall hook (standard library only) and the store's
retrieval both build their queries with it, so they agree.
"""

from __future__ import annotations


def folder_in_project(column: str, folder: str = ":project") -> str:
    """SQL true when the folder (a bound parameter) is the project in `column` or inside
    it; never for an empty or missing project, nor for a sibling that merely starts
    with the same letters (`~/code/app-old`)."""
    return (
        f"({column} = {folder} OR ({column} <> '' AND "
        f"substr({folder}, 1, length({column}) + 1) = {column} || '/'))"
    )
