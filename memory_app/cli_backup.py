"""The backup commands of `memory-app`:

    memory-app backup [PATH] [--overwrite]
    memory-app restore PATH        (`restore ID` brings back a forgotten memory)

Both work on the store's file, not through MemoryService: a backup reads the store while
the app runs, and a restore must find it closed. Argument parsing and printing only; the
work is in store/backup.py.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_app.config import Settings

Output = tuple[Any, str]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "copy the store to a file, safely while the app or an import runs; the copy is "
        "checked before it is done"
    )
    p = sub.add_parser("backup", help=text, description=text, parents=[common])
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="the file to write, or a folder for a dated file "
        "(default: a dated file in the data folder's backups/)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace PATH when it exists")


def memory_id_or_path(text: str) -> int | Path:
    """`restore`'s argument: a memory's id (`12`, `#12`) or a backup file (anything else;
    a file named with digits only is given as ./12)."""
    digits = text.removeprefix("#")
    return int(digits) if digits.isdigit() else Path(text)


def handles(args: argparse.Namespace) -> bool:
    """The commands answered here, on the store's file, before any service is opened."""
    return args.command == "backup" or (
        args.command == "restore" and isinstance(getattr(args, "id", None), Path)
    )


def run(args: argparse.Namespace, settings: Settings) -> Output:
    """Raises StoreError (BackupError) with the message to print."""
    from memory_app.store import backup

    db_path = backup.store_file(settings.db_url)
    if args.command == "backup":
        made = backup.back_up(
            db_path, args.path, backup_dir=settings.backup_dir, overwrite=args.overwrite
        )
        s = made.summary
        text = (
            f"Backed up {made.store}\n"
            f"      to {made.path}\n"
            f"({_size(made.size)}; {s.memories:,} memories, {s.conversations:,} conversations; "
            "integrity check: ok)"
        )
        return made.to_json(), text
    done = backup.restore(args.id, settings.db_url, settings.backup_dir)
    s = done.summary
    lines = [
        f"Restored {done.source} into {done.store}",
        f"({s.memories:,} memories, {s.conversations:,} conversations).",
    ]
    if done.kept is not None:
        lines.append(f"The previous store is kept as {done.kept}")
    return done.to_json(), "\n".join(lines)


def _size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{size:,} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size:,} bytes"
