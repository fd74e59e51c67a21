"""`memory-app desktop install|uninstall`: the menu entry and icons for the current user.

Argument parsing and printing only; the work is in `memory_app.desktop`. These commands
do not open the memory store.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "add or remove the desktop menu entry and icons for the current user"
    p = sub.add_parser("desktop", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="desktop_command", metavar="ACTION", required=True)
    text = "install (or update) the menu entry, icons and AppStream metainfo"
    q = inner.add_parser("install", help=text, description=text, parents=[common])
    q.add_argument(
        "--launcher",
        type=Path,
        help="the memory-app program the entry starts (default: this installation's)",
    )
    _data_home(q)
    text = "remove what `desktop install` added"
    q = inner.add_parser("uninstall", help=text, description=text, parents=[common])
    _data_home(q)


def _data_home(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-home",
        type=Path,
        help="the XDG data folder to use (default: $XDG_DATA_HOME or ~/.local/share)",
    )


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Carry out the command; raises `desktop.DesktopError` with what went wrong."""
    from memory_app import desktop

    if args.desktop_command == "install":
        report = desktop.install(args.launcher, args.data_home)
        text = (
            f"Installed the Memory Curator menu entry in {report.data_home} "
            f"({len(report.files)} files), starting {report.launcher}."
        )
    else:
        report = desktop.uninstall(args.data_home)
        text = f"Removed {len(report.files)} files from {report.data_home}."
    if report.notes:
        text += "\n" + "\n".join(report.notes)
    return report.to_json(), text
