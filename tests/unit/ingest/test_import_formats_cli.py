"""`memory-app import` with the new formats: the README's lines run as written, and a folder
mixing every format with broken files imports the rest, says which failed, and exits 1
(with `--json` too)."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from memory_app.cli import main

ROOT = Path(__file__).resolve().parents[3]
README_LINES = (
    "memory-app import ~/.codex/sessions conversations.json",
    "memory-app import .puffin/history.json .puffin/memory/branches",
)


def _run(line: str, home: Path, *extra: str) -> int:
    words = [
        str(home) + word[1:] if word.startswith("~/") else word
        for word in shlex.split(line, comments=True)
    ]
    assert words[0] == "memory-app"
    return main([*words[1:], *extra])


def test_the_readme_lines_run_as_written(
    tmp_path: Path,
    samples_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    home = Path.home()  # a temporary one (tests/conftest.py)
    day = home / ".codex" / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    shutil.copy(samples_dir / "codex" / "daaain_synthetic_rollout.jsonl", day / "rollout-1.jsonl")
    project = tmp_path / "shop"
    branches = project / ".puffin" / "memory" / "branches"
    branches.mkdir(parents=True)
    shutil.copy(samples_dir / "puffin" / "history.json", project / ".puffin" / "history.json")
    shutil.copy(samples_dir / "puffin" / "feature_auth.md", branches / "feature_auth.md")
    shutil.copy(
        samples_dir / "chatgpt" / "mitkury_example-conversation.json",
        project / "conversations.json",
    )
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "data"))
    added = []
    for line in README_LINES:
        assert line in readme
        assert _run(line, home, "--json") == 0, capsys.readouterr()
        report = json.loads(capsys.readouterr().out)
        assert report["errors"] == [] and report["problems"] == []
        added.append((report["files"], report["resources_added"], report["items_added"]))
    # Codex + ChatGPT: two conversations; Puffin: the backend branch and the memory file,
    # whose three items are memories (plus what the offline rules find in the branch).
    assert added[0][:2] == (2, 2)
    assert added[1][:2] == (2, 2) and added[1][2] >= 3


def test_a_mixed_folder_names_each_file_that_failed_and_exits_1(
    tmp_path: Path, samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(samples_dir / "codex" / "simonw_sample_codex_session.jsonl", folder / "a.txt")
    chatgpt = (samples_dir / "chatgpt" / "mitkury_example-conversation.json").read_text()
    (folder / "conversations").write_text(chatgpt, encoding="utf-8")  # no extension
    (folder / "cut.json").write_text(chatgpt[:1500], encoding="utf-8")  # cut off
    shutil.copy(samples_dir / "puffin" / "feature_auth.md", folder / "feature_auth.md")
    (folder / "events.jsonl").write_text('{"event": "click"}\n', encoding="utf-8")
    (folder / "package.json").write_text('{"name": "x"}\n', encoding="utf-8")  # not taken
    data = ["--data-dir", str(tmp_path / "data")]

    # Given as files: the extension-less export too.
    paths = [str(folder / name) for name in ("a.txt", "conversations", "cut.json")]
    paths += [str(folder / "feature_auth.md"), str(folder / "events.jsonl")]
    assert main(["import", *paths, *data]) == 1
    out = capsys.readouterr().out
    assert "Files read: 5" in out and "Conversations added: 3" in out
    assert "Errors: 2" in out
    assert f"{folder / 'cut.json'}: {folder / 'cut.json'}: not valid JSON, so not a ChatGPT" in out
    assert (
        f"{folder / 'events.jsonl'}: {folder / 'events.jsonl'}: not a Claude Code or Codex" in out
    )

    # The folder, as JSON: the same two errors (package.json is not taken), nothing new.
    assert main(["import", str(folder), "--json", *data]) == 1
    report = json.loads(capsys.readouterr().out)
    # a.txt, cut.json, feature_auth.md, events.jsonl; a walk takes no extension-less file.
    assert report["files"] == 4
    errors = {Path(e["source"]).name: e["reason"] for e in report["errors"]}
    assert set(errors) == {"cut.json", "events.jsonl"}
    assert "not valid JSON" in errors["cut.json"] and " column " in errors["cut.json"]
    assert report["resources_added"] == 0  # the rest was imported the first time


def test_a_missing_path_with_json_is_a_json_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "conversations.json"
    assert main(["import", str(missing), "--json", "--data-dir", str(tmp_path / "d")]) == 1
    assert json.loads(capsys.readouterr().out) == {"error": f"No such file or folder: {missing}"}


def test_format_names_the_importer(
    tmp_path: Path, samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "export.dat"
    shutil.copy(samples_dir / "chatgpt" / "mitkury_example-conversation.json", path)
    data = ["--data-dir", str(tmp_path / "d"), "--json"]
    assert main(["import", str(path), "--format", "chatgpt", *data]) == 0
    assert json.loads(capsys.readouterr().out)["resources_added"] == 1
    assert main(["import", str(path), "--format", "puffin-history", *data]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert "not a Puffin history" in error["reason"]
