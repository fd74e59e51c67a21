"""The README's team commands run as written against the test server: SERVER:5432 and
the database become the fixture's, and the passwords sit in a .pgpass file, as the
README says."""

from __future__ import annotations

import secrets
import shlex
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.team import tenancy
from tests.postgres import ADMIN, ThrowawayServer

pytestmark = pytest.mark.postgresql
README = Path(__file__).resolve().parents[3] / "README.md"


def _lines() -> list[str]:
    section = README.read_text(encoding="utf-8").split("### Team memory\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_team_commands_run_as_written(
    postgres_server: ThrowawayServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines()
    assert [shlex.split(line)[:3] for line in lines] == [
        ["memory-app", "team", "init"],
        ["memory-app", "team", "connect"],
        ["memory-app", "team", "status"],
    ]
    database = f"readme_{secrets.token_hex(3)}"
    postgres_server.create_database(database)
    person = "ana"
    password = secrets.token_urlsafe(12)
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(
        f"127.0.0.1:{postgres_server.port}:{database}:{ADMIN}:{postgres_server.password}\n"
        f"127.0.0.1:{postgres_server.port}:{database}:{person}:{password}\n",
        encoding="utf-8",
    )
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "data"))
    try:
        for line in lines:
            line = line.replace(
                "SERVER:5432/team_memory", f"127.0.0.1:{postgres_server.port}/{database}"
            )
            assert main(shlex.split(line)[1:]) == 0, line
            if " init " in line:  # the administrator gives the new login its password
                postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    finally:
        postgres_server.drop_database(database)
        postgres_server.admin(f"DROP ROLE IF EXISTS {person}")
        postgres_server.admin(
            f"DROP ROLE IF EXISTS {tenancy.team_names(database, 'platform').role}"
        )
