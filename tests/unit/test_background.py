"""Imports in a child process: same result as in process, progress, cancel, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_app.background import can_run_in_process, import_in_process
from memory_app.domain.jobs import JobState
from memory_app.service import MemoryService


def test_a_child_process_imports_into_the_same_store(
    service: MemoryService, samples_dir: Path
) -> None:
    files = sorted((samples_dir / "claude-code").glob("*.jsonl"))
    seen: list[tuple[int, int]] = []
    report = import_in_process(service, files, job=JobState(lambda d, t, _m: seen.append((d, t))))
    assert report.files == 5
    assert report.errors == []
    assert report.resources_added == service.get_stats().resources >= 4
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    again = import_in_process(service, files)
    assert again.resources_added == 0  # the parent's store saw the child's writes


def test_errors_cross_back_as_the_same_kind(service: MemoryService, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl"):
        import_in_process(service, [tmp_path / "missing.jsonl"])


def test_cancel_stops_the_child_and_leaves_a_consistent_store(
    service: MemoryService, samples_dir: Path, tmp_path: Path
) -> None:
    source = (samples_dir / "claude-code" / "simonw_sample_session.jsonl").read_text()
    for n in range(60):
        (tmp_path / f"s{n:02}.jsonl").write_text(
            source.replace("hello world function", f"hello world function number {n}")
        )
    state = JobState()
    state.on_progress = lambda done, _t, _m: state.cancel() if done >= 3 else None
    report = import_in_process(service, [tmp_path], job=state)
    assert report.cancelled
    assert 3 <= service.get_stats().resources < 60
    for resource in service.resources(limit=100):
        assert len(service.resource_turns(resource.id)) == resource.turn_count


def test_an_extractor_that_cannot_travel_imports_in_process(
    service: MemoryService, samples_dir: Path
) -> None:
    service.extractor.unpicklable = lambda: None  # type: ignore[attr-defined]
    assert not can_run_in_process(service)
    report = import_in_process(service, [samples_dir / "claude-code" / "spotter_short.jsonl"])
    assert report.resources_added == 1
