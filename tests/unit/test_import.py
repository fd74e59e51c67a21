"""Importing real files end to end: samples, idempotence, damaged files, secrets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_app.config import Settings
from memory_app.service import MemoryService

SECRETS = {
    "anthropic": "sk-ant-api03-" + "Q" * 40 + "_abcDEF-123",
    "aws_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github": "ghp_" + "a1B2c3D4e5" * 3 + "ZZZZZZ",
}


def sample_files(samples_dir: Path) -> list[Path]:
    files = sorted((samples_dir / "claude-code").glob("*.jsonl"))
    assert len(files) == 5
    return files


def test_every_claude_code_sample_imports(service: MemoryService, samples_dir: Path) -> None:
    report = service.import_paths(sample_files(samples_dir))
    assert report.files == 5
    assert report.errors == []
    assert report.problems == ()
    assert report.resources_added >= 4
    sessions = {r.session_id for r in service.resources()}
    assert "55604662-cf2a-4331-851a-ec234028f8ca" in sessions
    assert "test-session-id" in sessions
    # Tool output, thinking and hook chatter are never learnt from.
    for item in service.list_items(status=None, limit=1000):
        assert "Let me" not in item.content
        assert "happy to help" not in item.content


def test_importing_twice_adds_nothing(service: MemoryService, samples_dir: Path) -> None:
    files = sample_files(samples_dir)
    service.import_paths(files)
    before = service.get_stats()
    again = service.import_paths(files)
    assert again.resources_added == 0
    assert again.items_added == 0
    assert again.items_reinforced == 0
    assert all(
        r.reason and (r.reason.startswith("already imported") or "conversation" in r.reason)
        for r in again.skipped
    )
    after = service.get_stats()
    assert (after.resources, after.items) == (before.resources, before.items)


def test_a_damaged_file_reports_lines_and_imports_the_rest(
    service: MemoryService, samples_dir: Path, tmp_path: Path
) -> None:
    lines = (samples_dir / "claude-code" / "simonw_sample_session.jsonl").read_text().splitlines()
    lines.insert(3, lines[3][: len(lines[3]) // 2])  # a line cut off mid-record
    lines.insert(6, "\x00garbage{{{")
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n")
    report = service.import_paths([damaged])
    assert report.resources_added == 1
    assert any(p.startswith(f"{damaged}:4:") for p in report.problems), report.problems
    assert any(p.startswith(f"{damaged}:7:") for p in report.problems), report.problems
    (resource,) = service.resources()
    _, text = service.get_resource(resource.id)
    assert "Create a hello world function" in text
    assert "Now add a goodbye function" in text


def test_a_folder_like_claude_projects_imports_recursively(
    service: MemoryService, samples_dir: Path, tmp_path: Path
) -> None:
    projects = tmp_path / ".claude" / "projects"
    project = projects / "-home-dev-spotter"
    (project / "4d5611e5" / "subagents").mkdir(parents=True)
    shutil.copy(samples_dir / "claude-code" / "spotter_short.jsonl", project / "55604662.jsonl")
    shutil.copy(
        samples_dir / "claude-code" / "spotter_subagents_agent-acompact-e1f845.jsonl",
        project / "4d5611e5" / "subagents" / "agent-acompact-e1f845.jsonl",
    )
    report = service.import_paths([projects])
    assert report.files == 2
    assert report.errors == []
    assert {r.project for r in service.resources()} >= {"/home/marco/projects/spotter"}


def test_an_unsupported_file_is_reported_and_others_still_import(
    service: MemoryService, samples_dir: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"  # JSON lines, but no conversation's
    events.write_text('{"event": "click", "x": 1}\n', encoding="utf-8")
    simonw = samples_dir / "claude-code" / "simonw_sample_session.jsonl"
    report = service.import_paths([events, simonw])
    assert len(report.errors) == 1
    assert report.errors[0].source == str(events)
    assert "not a Claude Code or Codex CLI session" in (report.errors[0].reason or "")
    assert report.resources_added == 1


def test_missing_paths_fail_clearly(service: MemoryService, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nowhere\.jsonl"):
        service.import_paths([tmp_path / "nowhere.jsonl"])


def test_secrets_never_reach_the_database(
    settings: Settings, service: MemoryService, tmp_path: Path
) -> None:
    record = {
        "type": "user",
        "sessionId": "secret-session",
        "cwd": "/home/dev/app",
        "timestamp": "2026-05-01T10:00:00Z",
        "uuid": "u1",
        "message": {
            "role": "user",
            "content": (
                f"We always use the ANTHROPIC_API_KEY={SECRETS['anthropic']} from the vault, "
                f"never hard-coded. AWS: aws_access_key_id = {SECRETS['aws_id']} and "
                f"aws_secret_access_key = {SECRETS['aws_secret']}. "
                f"Push with GITHUB_TOKEN={SECRETS['github']} please."
            ),
        },
    }
    reply = {
        "type": "assistant",
        "sessionId": "secret-session",
        "timestamp": "2026-05-01T10:00:05Z",
        "uuid": "a1",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "text", "text": f"I will not echo {SECRETS['github']} back."}],
        },
    }
    path = tmp_path / "secret.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(reply) + "\n")
    report = service.import_paths([path])
    assert report.resources_added == 1
    (resource,) = service.resources()
    assert resource.redaction_count >= 4
    _, text = service.get_resource(resource.id)
    assert "[REDACTED:" in text
    service.close()  # checkpoints the write-ahead log into the file
    blobs = b"".join(p.read_bytes() for p in settings.data_dir.rglob("*") if p.is_file())
    for name, secret in SECRETS.items():
        assert secret.encode() not in blobs, f"{name} secret found in the database files"
        assert secret[-12:].encode() not in blobs, f"part of the {name} secret is stored"
