"""The team sync benchmark's command, exactly as the README shows it, at a small size:
memories pushed to a throwaway team store and pulled into a second store, then edits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.postgres import ThrowawayServer

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m benchmarks team_sync"


@pytest.mark.postgresql
def test_the_readme_command_runs_at_a_small_size(postgres_server: ThrowawayServer) -> None:
    """`postgres_server` only proves PostgreSQL is installed (else skip, or fail in CI);
    the benchmark starts its own server, as the README's command does."""
    assert f"`{COMMAND}`" in (ROOT / "README.md").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *COMMAND.split()[1:], "--items", "120"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "team_sync: 120 memories" in done.stdout
    for direction in ("push", "pull", "push_edits", "pull_edits"):
        assert f"  {direction} " in done.stdout
    assert "conflicts: 0" in done.stdout
