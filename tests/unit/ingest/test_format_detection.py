"""Formats are recognised by content, not by file name: a Codex rollout saved as .txt, a
ChatGPT export without an extension are read for what they are; a folder import takes a
.json file only when it is a ChatGPT export or a Puffin history; what nothing reads is
refused naming the file and the formats there are."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_app import cli
from memory_app.ingest import (
    FORMATS,
    UnsupportedFormat,
    codex_sessions_dir,
    detect_format,
    discover,
    parse_source,
    session_folders,
)

CODEX = "daaain_synthetic_rollout.jsonl"
CHATGPT = "mitkury_example-conversation.json"
CLAUDE = "simonw_sample_session.jsonl"


@pytest.mark.parametrize(
    ("folder", "name", "expected"),
    [
        ("codex", CODEX, "codex"),
        ("codex", "simonw_sample_codex_session.jsonl", "codex"),
        ("chatgpt", CHATGPT, "chatgpt"),
        ("puffin", "history.json", "puffin-history"),
        ("puffin", "feature_auth.md", "puffin-memory"),
        ("puffin", "claude_md_injected_block.md", "markdown"),
        ("claude-code", CLAUDE, "claude-code"),
    ],
)
def test_each_sample_is_recognised(
    samples_dir: Path, folder: str, name: str, expected: str
) -> None:
    assert detect_format(samples_dir / folder / name) == expected


@pytest.mark.parametrize(
    "name", ["getBranchPrompts_output.json", "extraction_response.json", "evolution_response.json"]
)
def test_other_json_is_refused_naming_the_file_and_the_formats(
    samples_dir: Path, name: str
) -> None:
    path = samples_dir / "puffin" / name
    with pytest.raises(UnsupportedFormat) as caught:
        detect_format(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a ChatGPT export or a Puffin history.json")
    assert "supported: Claude Code and Codex CLI sessions (.jsonl), ChatGPT exports" in message


@pytest.mark.parametrize(
    ("folder", "name", "saved_as", "expected", "turns"),
    [
        ("codex", CODEX, "rollout.txt", "codex", 9),
        ("chatgpt", CHATGPT, "conversations", "chatgpt", 4),
        ("puffin", "history.json", "puffin-history.txt", "puffin-history", 2),
        ("claude-code", CLAUDE, "session.json", "claude-code", None),
        ("puffin", "feature_auth.md", "feature_auth", "puffin-memory", 3),
    ],
)
def test_a_mislabelled_file_is_read_by_its_content(
    samples_dir: Path,
    tmp_path: Path,
    folder: str,
    name: str,
    saved_as: str,
    expected: str,
    turns: int | None,
) -> None:
    path = tmp_path / saved_as
    shutil.copy(samples_dir / folder / name, path)
    assert detect_format(path) == expected
    (transcript,) = parse_source(path).transcripts
    assert transcript.source_kind == expected
    original = parse_source(samples_dir / folder / name).transcripts[0]
    assert transcript.turns == original.turns
    if turns is not None:
        assert len(transcript.turns) == turns


def test_a_minified_export_of_one_long_line_is_recognised(
    tmp_path: Path, samples_dir: Path
) -> None:
    """A whole export on one line, longer than the lines detection reads."""
    export = json.loads((samples_dir / "chatgpt" / CHATGPT).read_text(encoding="utf-8"))
    export[0]["mapping"]["msg-6"]["message"]["content"]["parts"] = ["word " * 1_000_000]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    assert path.stat().st_size > 5_000_000 and "\n" not in path.read_text(encoding="utf-8")
    assert detect_format(path) == "chatgpt"


def test_text_that_only_quotes_a_format_stays_text(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Session files\n\nEach line is a record:\n\n"
        '{"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}\n',
        encoding="utf-8",
    )
    assert detect_format(readme) == "markdown"
    note = tmp_path / "note.txt"
    note.write_text(
        '{ this is not JSON } but a note about "mapping": {"a": {}}\n', encoding="utf-8"
    )
    assert detect_format(note) == "text"


@pytest.mark.parametrize("name", ["Makefile", "report.pdf", "data.csv"])
def test_unknown_content_with_an_unknown_name_is_unsupported(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"%PDF-1.4\n\x00\x01" if name.endswith("pdf") else b"all: build\n")
    with pytest.raises(UnsupportedFormat, match="unsupported file type") as caught:
        detect_format(path)
    assert str(path) in str(caught.value) and "Puffin" in str(caught.value)


def test_a_folder_import_takes_only_json_files_that_are_a_format(
    tmp_path: Path, samples_dir: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "shop", "version": "1.0.0"}\n')
    (project / "tsconfig.json").write_text('{\n  "compilerOptions": {"strict": true}\n}\n')
    (project / "broken.json").write_text("{not json")
    shutil.copy(samples_dir / "chatgpt" / CHATGPT, project / "conversations.json")
    shutil.copy(samples_dir / "puffin" / "history.json", project / "history.json")
    shutil.copy(samples_dir / "codex" / CODEX, project / "rollout.jsonl")
    assert discover([project]) == [
        project / "conversations.json",
        project / "history.json",
        project / "rollout.jsonl",
    ]
    assert discover([project / "package.json"]) == [project / "package.json"]  # as given


def test_codex_sessions_dir_is_under_home_unless_codex_home_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert codex_sessions_dir() == tmp_path / ".codex" / "sessions"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere"))
    assert codex_sessions_dir() == tmp_path / "elsewhere" / "sessions"
    monkeypatch.setenv("CODEX_HOME", "~/codex-work")
    assert codex_sessions_dir() == tmp_path / "codex-work" / "sessions"
    monkeypatch.setenv("CODEX_HOME", "")  # empty is unset
    assert session_folders() == (
        tmp_path / ".claude" / "projects",
        tmp_path / ".codex" / "sessions",
    )


def test_codex_home_is_documented() -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
    assert "| `CODEX_HOME` | `~/.codex` |" in docs.read_text(encoding="utf-8")


def test_the_cli_offers_every_format() -> None:
    assert cli.FORMATS == FORMATS
