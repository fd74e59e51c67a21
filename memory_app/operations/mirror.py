"""The store as a git-friendly folder of files, and back (seed 000's layout): for sharing a
store through git, moving it to another machine, or reading it in a diff.

The mechanics are in store/mirror_*.py; this adds what the service does around them: an
export refused (or pruned) when the folder holds memories the store lacks, and after an
import, the links discovery finds made again (the mirror carries only a person's own),
summaries brought up to date and the added memories checked for contradictions with the
ones the store already had. Episodes are not carried and not built: they are told from a
conversation's text, which a mirror never holds (conversations are recorded by reference).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memory_app.links.discover import rebuild_links
from memory_app.store.mirror_export import MirrorContent, mirror_content
from memory_app.store.mirror_files import WriteReport, write_mirror
from memory_app.store.mirror_merge import MergeReport, merge_mirror
from memory_app.store.mirror_owned import not_the_stores, refuse_unless_pruned
from memory_app.store.mirror_read import read_mirror

if TYPE_CHECKING:
    from memory_app.service import MemoryService


@dataclass(frozen=True)
class MirrorExport:
    folder: Path
    content: MirrorContent
    files: WriteReport
    pruned: Sequence[str]  # files of memories this store does not have, removed


@dataclass(frozen=True)
class MirrorImport:
    folder: Path
    merged: MergeReport
    conflicts_found: Sequence[int]  # opened between added memories and the store's own
    ignored_fields: dict[str, int]  # "memory_item.foo" → files: columns this store lacks
    summaries_refreshed: Sequence[str]
    verdicts_left_out: int  # about an id two memories of the mirror share
    links_left_out: int = 0  # the same, for a person's links
    links_discovered: int = 0  # by discovery, run over the store after the import


def export_files(service: MemoryService, folder: Path, *, prune: bool = False) -> MirrorExport:
    """Write (or bring up to date) the mirror of the store in `folder`; raises
    MirrorError (nothing written) when the folder holds memories the store does not
    have (store/mirror_owned.py), unless `prune` says to remove their files."""
    with service.db.reading() as session:
        content = mirror_content(session, service.db.dialect.schema_version)
        foreign = not_the_stores(session, folder, content.files)
    if not prune:
        refuse_unless_pruned(folder, foreign)
    return MirrorExport(folder, content, write_mirror(folder, content.files), foreign)


def import_files(service: MemoryService, folder: Path) -> MirrorImport:
    """Read a mirror into the store; raises MirrorError (nothing written) when a file
    is not right."""
    mirror = read_mirror(folder)
    with service.db.writing() as session:
        merged = merge_mirror(session, mirror)
        discovered = rebuild_links(session.connection()).total
    to_refresh = merged.summaries_to_refresh
    refreshed = service.regenerate_summaries(to_refresh) if to_refresh else []
    found: list[int] = []
    if merged.store_had_memories and merged.memories_added:
        found = service.detect_conflicts(merged.memories_added)
    return MirrorImport(
        folder,
        merged,
        found,
        dict(mirror.unknown_fields),
        refreshed,
        mirror.verdicts_left_out,
        mirror.links_left_out,
        discovered,
    )
