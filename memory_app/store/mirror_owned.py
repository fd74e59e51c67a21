"""Whose memory files an export would remove: a file of the mirror that the store no
longer writes is stale, but it is the store's to remove only when the store has its
memory (deleted, moved to another category, or renamed by a new id). A mirror pulled from
another machine and not imported yet holds memories the store lacks; removing their
files would lose them from the mirror, so the export refuses unless told to prune.

A file's memory is the store's when the import would match it to one of the store's
(store/mirror_merge.py's rule: created at the same moment with the same words, or
saying the same thing); a file that cannot be read as a memory counts as not the store's.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection
from pathlib import Path

from sqlmodel import Session

from memory_app.store import mirror_files as layout
from memory_app.store.mirror_files import MirrorError
from memory_app.store.mirror_merge import StoreMemories
from memory_app.store.mirror_read import item_identity

_SHOWN = 3  # files named in the refusal


def not_the_stores(session: Session, folder: Path, files: Collection[str]) -> list[str]:
    """The memory files in `folder` (relative, sorted) that an export writing `files`
    would remove and whose memories the store does not have."""
    layout.check_target(folder)
    if not (folder / layout.MANIFEST).is_file():
        return []
    stale = [
        relative
        for relative in layout.owned_files(folder)
        if relative not in files
        and relative.startswith(f"{layout.ITEMS}/")
        and relative.endswith(".json")
    ]
    if not stale:
        return []
    known = StoreMemories(session.connection())
    out = []
    for relative in stale:
        found = item_identity(folder, relative)
        if found is None or (
            known.match(found.extracted_at, found.first_content, found.content, found.category)
            is None
        ):
            out.append(relative)
    return out


def refuse_unless_pruned(folder: Path, foreign: list[str]) -> None:
    """The export's refusal when the mirror holds memories the store does not."""
    if not foreign:
        return
    count = len(foreign)
    shown = ", ".join(foreign[:_SHOWN]) + (", …" if count > _SHOWN else "")
    them = "it" if count == 1 else "them"
    memories = "1 memory" if count == 1 else f"{count} memories"
    raise MirrorError(
        folder,
        f"this mirror has {memories} this store does not ({shown}): run "
        f"`memory-app import files {shlex.quote(str(folder))}` first, or pass --prune "
        f"to remove {them}",
    )
