"""The trainers' check commands, exactly as the README shows them: they read the
development sets only and print held-out figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python -m benchmarks.train_pairs --check", "thresholds chosen on held-out pairs"),
        ("python -m benchmarks.train_sentences --check", "held-out sentences, rules + model"),
    ],
)
def test_the_check_prints_held_out_figures(command: str, expected: str) -> None:
    args = [sys.executable, *command.split()[1:]]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
    assert "test_" not in done.stdout  # never fitted or scored on the frozen test files
    assert command in (ROOT / "README.md").read_text(encoding="utf-8")
