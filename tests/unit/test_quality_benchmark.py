"""The quality benchmark's own judgement of an update: what counts as handled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks import quality
from memory_app.extract.offline import OfflineExtractor
from memory_app.store.tables import MemoryItemRow

ROOT = Path(__file__).resolve().parents[2]


def _row(item_id: int, content: str, status: str = "active") -> MemoryItemRow:
    return MemoryItemRow(id=item_id, category="project_conventions", content=content, status=status)


def test_a_memory_naming_both_values_is_the_newer_statement() -> None:
    older = _row(1, "We deploy on Cloud Run.", status="superseded")
    change = _row(2, "We moved the deploy from Cloud Run to GKE.")
    with quality._store(OfflineExtractor()) as service:
        # The change names the old value too, yet it is the newer rule, and active.
        assert quality._handled(service, [older, change], [change])
        # Without the older rule remembered on its own nothing was told apart.
        assert not quality._handled(service, [change], [change])


def test_an_older_rule_left_active_beside_the_newer_is_not_handled() -> None:
    older = _row(1, "We deploy on Cloud Run.")
    newer = _row(2, "We deploy on GKE.")
    with quality._store(OfflineExtractor()) as service:
        assert not quality._handled(service, [older], [newer])
        assert not quality._handled(service, [older], [_row(2, "We deploy on GKE.", "deleted")])


def test_the_quality_command_reports_both_sets_exactly_as_the_readme_shows() -> None:
    command = "python -m benchmarks quality"
    assert command in (ROOT / "README.md").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *command.split()[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    # Exit 1 says a target is missed; anything else (a crash) is a failure here.
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    for line in ("extraction_recall", "paraphrase_recall", "false_conflict_rate"):
        assert line in done.stdout
    assert "test set meets every target:" in done.stdout
    verdict = done.stdout.rsplit("test set meets every target:", 1)[1].split()[0]
    assert (verdict == "True") == (done.returncode == 0)
