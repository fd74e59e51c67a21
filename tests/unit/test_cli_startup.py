"""`memory-app --version`, `--help`, a subcommand's `--help` and `completion` answer without
loading the database layer, the Claude SDK, the MCP server or Qt: the parser is built from
light modules and the commands import the rest when they run (memory_app/cli.py).

Checked in a fresh interpreter with `-X importtime`, which lists every module imported.
Times are measured by `python -m benchmarks cli`, not asserted here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Top-level packages (and modules of the app) that must stay out of these answers.
HEAVY = (
    "sqlalchemy",
    "sqlmodel",
    "anthropic",
    "httpx",
    "pydantic",
    "PySide6",
    "shiboken6",
    "qasync",
    "pyqtgraph",
    "numpy",
    "tokenizers",
    "mcp",
    "memory_app.service",
    "memory_app.store.database",
    "memory_app.gui",
    "memory_app.retrieval",
)


def imported(*argv: str) -> tuple[set[str], str]:
    """The modules `python -m memory_app ARGV` imports, and what it printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memory_app", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "memory_app.cli" in names  # the listing is there at all
    return names, done.stdout


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("--version",), "memory-app "),
        (("--help",), "Examples:"),
        (("search", "--help"), "usage: memory-app search"),
        (("conflicts", "resolve", "--help"), "--keep"),
        (("completion", "bash"), "_shtab_memory_app"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else None,
)
def test_answers_without_the_heavy_modules(argv: tuple[str, ...], expected: str) -> None:
    names, out = imported(*argv)
    assert expected in out
    leaks = sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))
    assert not leaks, f"memory-app {' '.join(argv)} imported {leaks}"
