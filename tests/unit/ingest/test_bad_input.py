"""One bad file never stops or hangs an import: it is named with what is wrong, and
every other file is imported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.ingest import detect_format, discover, parse_source
from memory_app.service import MemoryService

GOOD_LINE = {
    "type": "user",
    "sessionId": "good-session",
    "cwd": "/home/dev/app",
    "timestamp": "2026-03-01T10:00:00Z",
    "message": {
        "role": "user",
        "content": "Always use tabs for indentation in this repo, and keep lines under 100.",
    },
}


def _good(folder: Path, name: str = "zz_good.jsonl", session: str = "good-session") -> Path:
    path = folder / name
    path.write_text(json.dumps({**GOOD_LINE, "sessionId": session}) + "\n", encoding="utf-8")
    return path


def _imported_sessions(service: MemoryService) -> set[str | None]:
    return {r.session_id for r in service.resources()}


def _error_for(report: object, fragment: str) -> str:
    reasons = [f"{e.source}: {e.reason}" for e in report.errors]  # type: ignore[attr-defined]
    matching = [r for r in reasons if fragment in r]
    assert matching, reasons
    return matching[0]


def test_a_type_that_is_a_list_or_an_object_is_skipped_not_a_crash(
    service: MemoryService, tmp_path: Path
) -> None:
    lines = [{"type": []}, {"type": {}}, GOOD_LINE, {"type": ["user"], "message": {}}]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert detect_format(path) == "claude-code"  # judged by the first line naming a type
    report = service.import_paths([path])
    assert report.errors == []
    assert _imported_sessions(service) == {"good-session"}


@pytest.mark.parametrize(
    "first_line",
    ["[" * 200_000, "9" * 100_000, '{"type": ' + "[" * 50_000 + "]" * 50_000 + "}"],
    ids=["deep-nesting", "huge-number", "deep-type"],
)
def test_unreadable_first_lines_do_not_stop_format_detection(
    service: MemoryService, tmp_path: Path, first_line: str
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(first_line + "\n" + json.dumps(GOOD_LINE) + "\n", encoding="utf-8")
    assert detect_format(path) == "claude-code"
    report = service.import_paths([path])
    assert report.errors == []
    (problem,) = report.problems  # the first line, skipped and said
    assert "1" in problem and "skipped" in problem
    assert _imported_sessions(service) == {"good-session"}


def test_half_a_surrogate_pair_is_replaced_and_the_rest_imports(
    service: MemoryService, tmp_path: Path
) -> None:
    # "\ud83d" without its partner: a truncated emoji in tool output, written escaped.
    text = "Always run the linter before committing \\ud83d (the rest of the emoji was cut)."
    raw = json.dumps({**GOOD_LINE, "sessionId": "cut-emoji"}).replace(
        "Always use tabs for indentation in this repo, and keep lines under 100.", text
    )
    path = tmp_path / "a_cut.jsonl"
    path.write_text(raw + "\n", encoding="utf-8")
    _good(tmp_path)
    report = service.import_paths([tmp_path])
    assert report.errors == []
    assert any("surrogate" in p for p in report.problems)
    assert _imported_sessions(service) == {"cut-emoji", "good-session"}
    (cut,) = [r for r in service.resources() if r.session_id == "cut-emoji"]
    _, text = service.get_resource(cut.id)
    assert "\ufffd" in text


def test_a_file_name_that_is_not_utf8_is_imported_and_named(
    service: MemoryService, tmp_path: Path
) -> None:
    odd = os.fsdecode(b"caf\xe9-session.jsonl")  # Latin-1 bytes in a UTF-8 world
    message = {"role": "user", "content": "Never commit generated files; they are built in CI."}
    (tmp_path / odd).write_text(
        json.dumps({**GOOD_LINE, "sessionId": "latin1-name", "message": message}) + "\n",
        encoding="utf-8",
    )
    _good(tmp_path)
    report = service.import_paths([tmp_path])
    assert report.errors == []
    assert _imported_sessions(service) == {"latin1-name", "good-session"}
    sources = {r.source_path for r in service.resources()}
    assert any(s and s.endswith("caf\ufffd-session.jsonl") for s in sources)


def test_a_fifo_is_reported_without_blocking_and_the_rest_imports(
    service: MemoryService, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "a_pipe.jsonl")  # opening it to read would block forever
    _good(tmp_path)
    assert len(discover([tmp_path])) == 2  # found, so it can be named, never opened
    report = service.import_paths([tmp_path])
    assert "named pipe" in _error_for(report, "a_pipe.jsonl")
    assert _imported_sessions(service) == {"good-session"}


def test_a_link_to_an_endless_device_is_reported_and_the_rest_imports(
    service: MemoryService, tmp_path: Path
) -> None:
    (tmp_path / "a_zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "b_zero.md").symlink_to("/dev/zero")
    _good(tmp_path)
    report = service.import_paths([tmp_path])
    assert "a device" in _error_for(report, "a_zero.jsonl")
    assert "a device" in _error_for(report, "b_zero.md")
    assert _imported_sessions(service) == {"good-session"}
    with pytest.raises(OSError, match="not a regular file"):
        parse_source(tmp_path / "a_zero.jsonl")


def test_import_exits_non_zero_when_a_file_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "history"
    history.mkdir()
    (history / "export.jsonl").write_text('{"event": "click", "x": 1}\n')
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["import", str(history), *data]) == 1
    assert "not a Claude Code or Codex CLI session" in capsys.readouterr().out
    _good(history)
    assert main(["import", str(history), *data]) == 1  # one of two failed: still an error
    (history / "export.jsonl").unlink()
    assert main(["import", str(history), *data]) == 0  # the good one again: skipped, fine
