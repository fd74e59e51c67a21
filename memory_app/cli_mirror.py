"""`memory-app export files DIR` and `memory-app import files DIR`: the store as a folder of
files that diff well in git (seed 000's layout), and back.

`export files` sits beside `export claude-md`. `import` takes conversation paths, so
`import files DIR` is told apart by its first word: it reads a mirror when that word is
`files` and DIR holds a mirror's manifest (or no file or folder called `files` is here,
and the error then says DIR is no mirror). An export into a mirror holding memories the
store does not have is refused unless `--prune` (store/mirror_owned.py). Argument
parsing and printing only; the work is in operations/mirror.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app import cli_retrieval

if TYPE_CHECKING:
    from memory_app.service import MemoryService

Output = tuple[Any, str]
Handler = Callable[["MemoryService", argparse.Namespace], Output]
KEYWORD = "files"
MANIFEST = "manifest.json"  # store/mirror_files.py's; not imported: the parser stays light


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """`files` under the existing `export` command (cli_retrieval adds `export`)."""
    targets = _subcommands(sub.choices["export"])
    text = (
        "write the store as files for git: one JSON file per memory with its history, "
        "category summaries, conflicts.json, conversations by reference"
    )
    q = targets.add_parser(KEYWORD, help=text, description=text, parents=[common])
    q.add_argument(
        "folder",
        type=Path,
        metavar="DIR",
        help="the mirror's folder: created if missing, brought up to date if it holds one",
    )
    q.add_argument(
        "--prune",
        action="store_true",
        help="remove the files of memories this store does not have (without it, such "
        "a mirror is refused: import it first)",
    )


def _subcommands(parser: argparse.ArgumentParser) -> Any:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise LookupError(f"{parser.prog} has no subcommands")


def is_mirror_import(args: argparse.Namespace) -> bool:
    """`import files DIR`, as opposed to importing conversations from `./files`."""
    paths = getattr(args, "paths", None) or []
    if len(paths) != 2 or str(paths[0]) != KEYWORD:
        return False
    return (paths[1] / MANIFEST).is_file() or not paths[0].exists()


def with_import_files(handler: Handler) -> Handler:
    """The `import` handler, reading a mirror for `import files DIR`."""

    def run(service: MemoryService, args: argparse.Namespace) -> Output:
        if is_mirror_import(args):
            return import_files(service, args.paths[1])
        return handler(service, args)

    return run


def export(service: MemoryService, args: argparse.Namespace) -> Output:
    if args.export_target == KEYWORD:
        return export_files(service, args.folder, prune=args.prune)
    return cli_retrieval.export(service, args)


def export_files(service: MemoryService, folder: Path, *, prune: bool = False) -> Output:
    from memory_app.operations.mirror import export_files as write

    done = write(service, folder, prune=prune)
    content, files = done.content, done.files
    payload = {
        "folder": str(folder),
        "memories": content.memories,
        "conflicts": content.conflicts,
        "categories": content.categories,
        "resources": content.resources,
        "links": content.links,
        "held_left_out": content.held,
        "conflicts_left_out": content.conflicts_left_out,
        "history_withheld": content.history_withheld,
        "written": files.written,
        "removed": files.removed,
        "pruned": list(done.pruned),
        "unchanged": files.unchanged,
    }
    shown = ", ".join(
        (
            _count(content.memories, "memory", "memories"),
            _count(content.conflicts, "conflict"),
            _count(content.categories, "category", "categories"),
            _count(content.links, "link") + " made by hand",
            _count(content.resources, "conversation") + " by reference",
        )
    )
    lines = [
        f"Mirror in {folder}: {shown}.",
        f"Files: {len(files.written)} written, {len(files.removed)} removed, "
        f"{files.unchanged} unchanged.",
    ]
    if content.held:
        with_them = (
            f", and {_count(content.conflicts_left_out, 'conflict')} with them"
            if content.conflicts_left_out
            else ""
        )
        lines.append(
            f"Left out: {_count(content.held, 'memory', 'memories')} held for review as a "
            f"possible secret (or forgotten after being held){with_them}; keep a held one "
            "with memory-app keep ID, then export again."
        )
    if content.history_withheld:
        lines.append(
            f"Left out of histories: {_count(content.history_withheld, 'earlier value')} "
            "that look like secrets."
        )
    if done.pruned:
        lines.append(
            f"Pruned: the files of {_count(len(done.pruned), 'memory', 'memories')} this "
            "store does not have."
        )
    return payload, "\n".join(lines)


def import_files(service: MemoryService, folder: Path) -> Output:
    from memory_app.operations.mirror import import_files as read

    done = read(service, folder)
    m = done.merged
    payload = {
        "folder": str(folder),
        "memories_added": m.memories_added,
        "memories_updated": m.memories_updated,
        "memories_unchanged": m.memories_unchanged,
        "ids_kept": m.ids_kept,
        "conflicts_added": m.conflicts_added,
        "conflicts_updated": m.conflicts_updated,
        "conflicts_found": list(done.conflicts_found),
        "resources_added": m.resources_added,
        "categories_added": m.categories_added,
        "summaries_taken": m.summaries_taken,
        "summaries_refreshed": list(done.summaries_refreshed),
        "events_added": m.events_added,
        "ignored_fields": done.ignored_fields,
        "verdicts_left_out": done.verdicts_left_out,
        "links_added": m.links_added,
        "links_left_out": done.links_left_out,
        "links_discovered": done.links_discovered,
        "errors": [],
    }
    lines = [
        f"Imported the mirror in {folder}.",
        f"Memories: {len(m.memories_added)} added, {len(m.memories_updated)} updated "
        f"(changed later in the mirror), {m.memories_unchanged} already here.",
        f"Conflicts: {len(m.conflicts_added)} added, {len(m.conflicts_updated)} resolved "
        "as in the mirror.",
        f"Conversations recorded by reference: {m.resources_added}.",
        f"Links: {m.links_added} made by hand added; {done.links_discovered} found by discovery.",
    ]
    if m.categories_added:
        lines.append(f"Categories added: {', '.join(m.categories_added)}.")
    if m.memories_added and not m.ids_kept:
        lines.append(
            "Some ids were taken (in this store, or by another memory of the mirror): "
            "those memories got new ids."
        )
    if done.conflicts_found:
        lines.append(
            f"Contradictions with this store's memories: {len(done.conflicts_found)} "
            "(memory-app conflicts list)."
        )
    if done.verdicts_left_out:
        lines.append(
            f"Verdicts left out: {done.verdicts_left_out} (about an id two memories of the "
            "mirror share; those pairs are judged again when it matters)."
        )
    if done.links_left_out:
        lines.append(
            f"Links left out: {done.links_left_out} (with an id two memories of the mirror "
            "share: link them again by hand)."
        )
    if done.ignored_fields:
        fields = ", ".join(f"{k} ({n})" for k, n in sorted(done.ignored_fields.items()))
        lines.append(f"Fields this version does not know, ignored: {fields}.")
    return payload, "\n".join(lines)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


HANDLERS: dict[str, Handler] = {"export": export}
