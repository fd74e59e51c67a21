"""Format detection, dispatch and discovery of files to import."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_app.ingest import (
    UnsupportedFormat,
    claude_projects_dir,
    detect_format,
    discover,
    parse_source,
)


def write(path: Path, content: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def test_every_claude_code_sample_is_detected(samples_dir: Path) -> None:
    files = sorted((samples_dir / "claude-code").glob("*.jsonl"))
    assert len(files) == 5
    assert {detect_format(path) for path in files} == {"claude-code"}


@pytest.mark.parametrize(
    "name", ["simonw_sample_codex_session.jsonl", "daaain_synthetic_rollout.jsonl"]
)
def test_codex_sessions_are_codex_not_claude_code(samples_dir: Path, name: str) -> None:
    path = samples_dir / "codex" / name
    assert detect_format(path) == "codex"
    assert parse_source(path).transcripts[0].source_kind == "codex"


def test_a_chatgpt_export_is_detected(samples_dir: Path) -> None:
    assert detect_format(samples_dir / "chatgpt" / "mitkury_example-conversation.json") == (
        "chatgpt"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a.md", "markdown"), ("b.MARKDOWN", "markdown"), ("c.txt", "text"), ("d.TXT", "text")],
)
def test_text_formats_by_extension(tmp_path: Path, name: str, expected: str) -> None:
    assert detect_format(write(tmp_path / name)) == expected


@pytest.mark.parametrize("name", ["report.pdf", "Makefile", "data.csv"])
def test_other_files_are_unsupported(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name)
    with pytest.raises(UnsupportedFormat, match="unsupported file type") as caught:
        detect_format(path)
    assert str(path) in str(caught.value)


def test_jsonl_that_is_not_claude_code_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "events.jsonl", '{"event": "click", "x": 1}\n')
    with pytest.raises(UnsupportedFormat, match="not a Claude Code or Codex CLI session"):
        detect_format(path)


def test_jsonl_detection_skips_a_damaged_first_line(tmp_path: Path) -> None:
    record = {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}
    path = write(tmp_path / "s.jsonl", '{"type": "us\n\n' + json.dumps(record) + "\n")
    assert detect_format(path) == "claude-code"
    parsed = parse_source(path)
    assert [p.line for p in parsed.problems] == [1]
    assert [t.text for t in parsed.transcripts[0].turns] == ["hi"]


def test_a_snapshot_first_line_is_claude_code(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", '{"type":"file-history-snapshot","messageId":"m"}\n')
    assert detect_format(path) == "claude-code"


def test_an_empty_jsonl_is_an_empty_claude_code_session(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", "\n")
    assert detect_format(path) == "claude-code"
    assert parse_source(path).transcripts[0].turns == ()


def test_parse_source_dispatches_by_format(tmp_path: Path, samples_dir: Path) -> None:
    session = parse_source(samples_dir / "claude-code" / "simonw_sample_session.jsonl")
    assert session.transcripts[0].source_kind == "claude-code"
    note = write(tmp_path / "n.txt", "User: hi\nAssistant: hello")
    assert parse_source(note).transcripts[0].source_kind == "text"
    assert parse_source(note, "markdown").transcripts[0].source_kind == "markdown"
    with pytest.raises(UnsupportedFormat, match="unknown format 'gemini'"):
        parse_source(note, "gemini")


def test_parse_source_of_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    with pytest.raises(FileNotFoundError, match=r"gone\.jsonl"):
        parse_source(missing)


def test_discover_walks_a_claude_projects_tree(tmp_path: Path, samples_dir: Path) -> None:
    projects = tmp_path / ".claude" / "projects"  # inside a hidden folder, like the real one
    project = projects / "-home-me-app"
    project.mkdir(parents=True)
    main = project / "55604662.jsonl"
    shutil.copy(samples_dir / "claude-code" / "spotter_short.jsonl", main)
    agent = write(project / "55604662" / "subagents" / "agent-x.jsonl", "")
    other = write(projects / "-home-me-lib" / "abc.jsonl", "")
    notes = write(projects / "-home-me-lib" / "NOTES.md")
    write(project / "55604662" / "tool-results" / "out.bin")
    write(project / ".git" / "x.md")
    write(project / "node_modules" / "pkg" / "README.md")
    write(project / ".hidden.md")
    write(project / "data.json")

    assert discover([projects]) == [main, agent, notes, other]
    assert discover([project]) == [main, agent]
    parsed = [parse_source(path) for path in discover([project])]
    assert parsed[0].transcripts[0].session_id == "55604662-cf2a-4331-851a-ec234028f8ca"


def test_discover_keeps_files_as_given_and_in_order_without_duplicates(tmp_path: Path) -> None:
    pdf = write(tmp_path / "b" / "report.pdf")
    session = write(tmp_path / "a" / "s.jsonl")
    note = write(tmp_path / "a" / "z.txt")
    assert discover([pdf, tmp_path / "a", session]) == [pdf, session, note]


def test_discover_of_a_missing_path_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        discover([tmp_path, missing])


def test_claude_projects_dir_is_under_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert claude_projects_dir() == tmp_path / ".claude" / "projects"


def test_claude_projects_dir_follows_claude_config_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Claude Code keeps everything, its sessions too, in $CLAUDE_CONFIG_DIR when set."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert claude_projects_dir() == tmp_path / "elsewhere" / "projects"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "~/claude-work")
    assert claude_projects_dir() == tmp_path / "claude-work" / "projects"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "")  # empty is unset, as for Claude Code
    assert claude_projects_dir() == tmp_path / ".claude" / "projects"
