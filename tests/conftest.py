"""Fixtures shared by every test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real sample files (`shared/samples/`, next to the repository).

    Fails rather than skips: tests that silently stop checking real files are worse
    than a loud failure on a machine where the samples are missing.
    """
    root = Path(__file__).resolve().parents[1]
    path = root.parent / "shared" / "samples"
    if not path.is_dir():
        pytest.fail(f"sample files not found: expected them in {path} (next to the repository)")
    return path
