"""`memory-curator`: the window alone, installed as a gui-script beside `memory-app`.

`memory-app` with no arguments opens the window too, and it is what the desktop entry
and the Debian package start (one program for the command line and the window). On
Windows a gui-script starts without a console window, which is what a shortcut to the
window wants; on Linux and macOS the two start the same. It takes the options of
`memory-app gui`: `--data-dir DIR`, `--db-url URL`, `-v`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from memory_app.cli import main as cli_main

    args = sys.argv[1:] if argv is None else list(argv)
    return cli_main(["gui", *args])
