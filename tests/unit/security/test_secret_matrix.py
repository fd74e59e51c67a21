"""Planted secrets, every kind in every place a session carries text: after an import,
a CLAUDE.md export and a maintenance run, not one of them is in any file the app wrote
(the data folder with its database, WAL and backups, the log folder, the export)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from memory_app.cli import main
from memory_app.store.dialects.sqlite import SqliteDialect

# Fake secrets assembled from pieces, so secret scanners do not flag this file, each as
# a person would write it (a password after its key, an AWS secret after the word).
# Each value's last 12 characters are what must be found nowhere.
SECRETS = {
    "anthropic": "sk-" + "ant-api03-" + "Xy7Qp" * 8,
    "openai": "sk-" + "proj-" + "Q1w2E3r4T5y6U7i8O9p0aSdFgHjKl",
    "aws-id": "AKIA" + "Z7QW3RT9YU2IOP4A",
    "aws-secret": "secret " + "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYZQ3KEY4XAB",
    "github": "ghp" + "_" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX9",
    "gitlab": "glpat-" + "xY3zA7bC9dE1fG5hJ2kQ",
    "slack": "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWq",
    "google": "AIza" + "SyD4x9Qm2Lw8Kp3Nv7Rt1Ys6Hb5Jc0Gf2Zq",
    "stripe": "sk_" + "live_" + "51H8xYzAbCdEfGhIjKlMnQp",
    "npm": "npm" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R9",
    "pypi": "pypi-" + "AgEIcHlwaS5vcmc" + "CJGQ4ZTg1N2Y0LWE0ZjEtNDk2Zi1hNzYxLWQ3YjI5ZmM5",
    "huggingface": "hf" + "_" + "qwertyuiopasdfghjklzxcvbnmqwertyui",
    "sendgrid": "SG" + ".ngeVfQFYQlKU0ufo8x5d1A" + ".TwL2iGABf9DHoTf09kqeF8tAmbihYzrnopKc1s5cr8z",
    "digitalocean": "dop" + "_v1_" + "3f9a1c2b7e8d4f6a" * 4,
    "twilio": "SK" + "7b3c9d1e5f2a4b6c8d0e1f3a5b7c9d2e",
    "azure": "AccountKey=" + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5" * 3 + "Qw==",
    "jwt": "eyJhbGciOiJIUzI1NiJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
    "password-letters": "password: " + "tangerinepelicanmarble",
    "password-assigned": "db_password=" + "correcthorsebatterystaple",
    "password-said": "the password is " + "hunter22xq",
    "bearer": "Authorization: Bearer " + "abc123def456ghi789jkl0",
}
PEM_BODY = [
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi2Zx8e7l0bXKrvxQ3cB9S5n1Yz",
    "fJ2HkE8aWq4TtR1yU7iO0pL3kJ6hG9fD2sA5zX8cV1bN4mQ7wE0rT3yU6iO9pA2s",
    "D5fG8hJ1kL4zX7cV0bN3mQ6wE9rT2yU5iO8pA1sD4fG7hJ0kL3zX6cV9bN2mQ5w",
]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"


def _tails() -> dict[str, bytes]:
    tails = {name: value[-12:].encode() for name, value in SECRETS.items()}
    tails |= {f"pem-line-{n}": line[-16:].encode() for n, line in enumerate(PEM_BODY)}
    return tails


def _all_secrets_text() -> str:
    return " ; ".join(SECRETS.values())


def _session_lines() -> list[dict[str, object]]:
    session = "9d7c3a1e-secret-matrix"
    meta = {
        "sessionId": session,
        "cwd": f"/home/dev/proj-{SECRETS['github']}",
        "gitBranch": f"fix/{SECRETS['gitlab']}",
        "timestamp": "2026-03-01T10:00:00Z",
    }
    secrets = _all_secrets_text()
    return [
        {"type": "summary", "summary": f"Deploy keys {SECRETS['npm']}", "leafUuid": "x"},
        {
            **meta,
            "type": "user",
            "message": {
                "role": "user",
                "content": f"Always run the linter before committing. My keys: {secrets}",
            },
        },
        {
            **meta,
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "text", "text": f"Noted. I saw {secrets}"},
                    {
                        "type": "tool_use",
                        "id": "tu_1",
                        "name": "Bash",
                        "input": {"command": f"cat > key.pem <<'EOF'\n{PEM}\nEOF\n"},
                    },
                    {
                        "type": "tool_use",
                        "id": "tu_2",
                        "name": "Bash",
                        "input": {"command": f"export {secrets}"},
                    },
                ],
            },
        },
        {
            **meta,
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "tu_1", "content": f"{PEM}\n{secrets}"}
                ],
            },
        },
        *(
            {
                **meta,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": f"From now on, always deploy staging with {value} as the key.",
                },
            }
            for value in SECRETS.values()
        ),
    ]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    folder = tmp_path / "history"
    folder.mkdir()
    lines = _session_lines()
    # Claude Code names a session's folder after its working folder: a token there is in
    # the file's path too.
    project = folder / f"-home-dev-proj-{SECRETS['github']}"
    project.mkdir()
    (project / "session.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8"
    )
    (folder / "notes.md").write_text(
        f"# Notes\n\nUser: We always use ruff. Keys: {_all_secrets_text()}\n\n{PEM}\n",
        encoding="utf-8",
    )
    return folder


def _written_files(*roots: Path) -> list[Path]:
    return [p for root in roots if root.exists() for p in root.rglob("*") if p.is_file()]


def test_no_planted_secret_reaches_any_file_the_app_writes(
    planted: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))  # logs go inside it too
    claude_md = tmp_path / "project" / "CLAUDE.md"
    claude_md.parent.mkdir()
    assert main(["import", str(planted), "--verbose"]) == 0
    assert main(["export", "claude-md", str(claude_md)]) == 0
    assert main(["maintenance", "run", "full", "--quiet"]) == 0
    assert main(["list", "--json"]) == 0
    # A backup as a migration makes it (the copy SQLite's backup API writes).
    engine = create_engine(f"sqlite:///{data / 'memory.db'}")
    try:
        SqliteDialect._backup(engine, data / "memory.db", data / "backups", 3)
    finally:
        engine.dispose()

    files = _written_files(data, claude_md.parent)
    assert any(p.suffix == ".bak" for p in files), "a backup is part of what is checked"
    assert any(p.name == "memory.db" for p in files)
    assert any(p.suffix == ".log" for p in files), "the log file is part of what is checked"
    assert claude_md.exists()
    assert "REDACTED" in claude_md.read_text(encoding="utf-8"), "memories that held secrets"
    found = {
        (name, str(path.relative_to(tmp_path)))
        for path in files
        for name, tail in _tails().items()
        if tail in path.read_bytes()
    }
    assert found == set()


def test_sources_count_what_was_removed(planted: Path, tmp_path: Path) -> None:
    from memory_app.config import resolve_settings
    from memory_app.service import MemoryService

    service = MemoryService.open(resolve_settings(tmp_path / "data", env={}))
    try:
        service.import_paths([planted])
        (resource,) = [r for r in service.resources() if r.source_kind == "claude-code"]
        assert "ghp_" not in (resource.source_path or "")  # the folder's token, redacted
        # Every secret in the user text, the assistant text, the two tool calls (the
        # key and the exported list), the tool output and the metadata is counted.
        assert resource.redaction_count >= 4 * len(SECRETS) + 2
    finally:
        service.close()
