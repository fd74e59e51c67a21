"""The frozen bundle's entry point: the `memory-app` command.

`multiprocessing.freeze_support()` must run before anything else. Imports and
maintenance run in child processes started with the "spawn" method
(memory_app/background.py); in a frozen bundle a child is this same executable started
with `--multiprocessing-fork` (and the resource tracker with `-c ...`), which
`freeze_support()` recognises, runs and exits from, so such a start never reaches the
command line parser.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()

    from memory_app.cli import main

    sys.exit(main())
