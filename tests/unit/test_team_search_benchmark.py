"""The team search benchmark's command, exactly as the README shows it, at a small size:
both engines load, search and retrieve, and the agreement figures come out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.team_search import kendall_tau, overlap_at_10
from tests.postgres import ThrowawayServer

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m benchmarks team_search"


def test_agreement_measures() -> None:
    assert overlap_at_10([["a", "b"], []], [["b", "c"], []]) == 0.5
    assert kendall_tau([["a", "b", "c"]], [["a", "b", "c"]]) == 1.0
    assert kendall_tau([["a", "b", "c"]], [["c", "x", "b", "a"]]) == -1.0


@pytest.mark.postgresql
def test_the_readme_command_runs_at_a_small_size(postgres_server: ThrowawayServer) -> None:
    """`postgres_server` only proves PostgreSQL is installed (else skip, or fail in CI);
    the benchmark starts its own server, as the README's command does."""
    assert f"`{COMMAND}`" in (ROOT / "README.md").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *COMMAND.split()[1:], "--items", "300", "--queries", "10"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "team_search: 300 memories, 10 queries" in done.stdout
    assert "bm25" in done.stdout and "(chosen)" in done.stdout
