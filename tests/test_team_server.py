"""The team server's packaging files say what docs/team-server.md says they say: the
compose file's service, port, volume, healthcheck and secret (and no password in it),
and the systemd units load in systemd's own checker. `docker compose` itself is not
installed here; PyYAML (a dependency of tokenizers' huggingface_hub) reads the file."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed

from memory_app.cli import build_parser
from tests.helpers import system_tool

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "packaging" / "team-server"
COMPOSE = FOLDER / "docker-compose.yml"
GUIDE = ROOT / "docs" / "team-server.md"
UNITS = ("memory-curator-team.service", "memory-curator-team.timer")
# The names the guide gives a person to type: they must be the compose file's.
SERVICE = "team-db"
SUPERUSER = "memory_admin"
DATABASE = "team_memory"
VOLUME = "team-db-data"
# The team store's messages the guide quotes, each a piece the code writes in one string
# literal: the guide must follow when a message changes.
MESSAGES = (
    "Cannot reach the team database (",
    "The team database refused the login: wrong password or user",
    "The team database does not exist on the server",
    "The user of the team database does not exist on the server (",
    "The team database refused this user a permission (",
    "The team database refused the connection (",
    "holds a memory_item table but no ",
    "it was not made by Memory Curator",
    "is incomplete (",
    "the team store's administrator to run `memory-app team init` again.",
    "uses schema version ",
    "but this version of Memory Curator ",
)


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_the_compose_file_runs_one_postgresql_15_or_newer_with_a_named_volume() -> None:
    compose = _compose()
    assert set(compose["services"]) == {SERVICE}
    db = compose["services"][SERVICE]
    image, _, tag = db["image"].partition(":")
    assert image == "postgres" and int(tag.split(".")[0].split("-")[0]) >= 15, db["image"]
    assert db["restart"] == "unless-stopped"
    env = db["environment"]
    assert env["POSTGRES_USER"] == SUPERUSER and env["POSTGRES_DB"] == DATABASE
    assert f"{VOLUME}:/var/lib/postgresql/data" in db["volumes"]
    assert VOLUME in compose["volumes"]
    # Published on the port the guide's URLs use (5432 unless TEAM_DB_PORT says otherwise).
    (port,) = db["ports"]
    assert re.fullmatch(r"\$\{TEAM_DB_PORT:-5432\}:5432", port), port


def test_the_compose_healthcheck_asks_pg_isready_for_the_team_database() -> None:
    check = _compose()["services"][SERVICE]["healthcheck"]
    kind, command = check["test"]
    assert kind == "CMD-SHELL"
    assert command.split() == ["pg_isready", "-U", SUPERUSER, "-d", DATABASE]
    assert {"interval", "timeout", "retries"} <= set(check)


def test_the_superuser_password_is_a_secret_never_written_in_the_file() -> None:
    compose = _compose()
    db = compose["services"][SERVICE]
    assert "POSTGRES_PASSWORD" not in db["environment"]
    assert db["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert db["secrets"] == ["postgres_password"]
    secret = compose["secrets"]["postgres_password"]["file"]
    assert secret == "./postgres_password.txt"
    # The secret's file (and a TLS key, and an .env) stay out of git.
    ignored = (FOLDER / ".gitignore").read_text(encoding="utf-8").split()
    assert {"postgres_password.txt", "tls/", ".env"} <= set(ignored)
    # No key naming a password holds a value, other than the secret's file path.
    for line in COMPOSE.read_text(encoding="utf-8").splitlines():
        key, colon, value = line.split("#")[0].strip().partition(":")
        if colon and "password" in key.lower() and not key.endswith("_FILE"):
            assert not value.strip(), line
    assert "scram-sha-256" in db["environment"]["POSTGRES_INITDB_ARGS"]


def test_the_guide_uses_the_compose_files_names() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    for name in (SERVICE, SUPERUSER, DATABASE, VOLUME, "postgres_password.txt", *UNITS):
        assert name in guide, f"docs/team-server.md does not mention {name}"
    assert "packaging/team-server/docker-compose.yml" in guide


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """Both folders' user units: the team sync and the maintenance timer. systemd checks
    that ExecStart's program exists, so a stand-in sits where `%h` points."""
    analyze = system_tool("systemd-analyze")
    home = tmp_path / "home"
    program = home / ".local" / "bin" / "memory-app"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    units = [FOLDER / name for name in UNITS]
    units += sorted((ROOT / "packaging" / "systemd").glob("memory-app-maintenance.*"))
    result = subprocess.run(
        [analyze, "verify", "--user", *map(str, units)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime), "PATH": "/usr/bin:/bin"},
    )
    # A misspelt key is only a warning on stderr, with exit status 0: none is allowed.
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_sync_unit_runs_team_sync_and_its_timer_starts_it() -> None:
    service = (FOLDER / UNITS[0]).read_text(encoding="utf-8")
    timer = (FOLDER / UNITS[1]).read_text(encoding="utf-8")
    assert "\nExecStart=%h/.local/bin/memory-app team sync\n" in service
    assert "\nType=oneshot\n" in service
    assert "\nOnUnitActiveSec=15min\n" in timer and "\nWantedBy=timers.target\n" in timer


def _sources() -> str:
    package = ROOT / "memory_app"
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(package.rglob("*.py")))


def _flat(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines())


@pytest.mark.parametrize("message", MESSAGES)
def test_the_guide_quotes_the_team_store_messages_as_the_code_prints_them(message: str) -> None:
    assert message in _sources(), f"the code no longer says {message!r}"
    assert message in _flat(GUIDE.read_text(encoding="utf-8")), f"the guide lacks {message!r}"


def test_the_guide_is_linked_and_its_links_resolve() -> None:
    for page in ("configuration.md", "troubleshooting.md"):
        assert "](team-server.md" in (GUIDE.parent / page).read_text(encoding="utf-8"), page
    guide = GUIDE.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", guide)
    assert "../packaging/team-server/docker-compose.yml" in targets
    for target in targets:
        assert (GUIDE.parent / target).exists(), f"docs/team-server.md links a missing {target}"


def _guide_commands() -> list[str]:
    """Every `memory-app …` line of the guide's shell blocks, its comment cut off."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    lines = (line.split("  #")[0].strip() for block in blocks for line in block.splitlines())
    return [line for line in lines if line.startswith("memory-app ")]


@pytest.mark.parametrize("command", _guide_commands(), ids=lambda c: " ".join(c.split()[:3]))
def test_the_guides_commands_are_ones_the_cli_accepts(command: str) -> None:
    """Parsed, not run: they need a team's server (the README's team examples run
    against the test server)."""
    words = shlex.split(command)[1:]
    try:
        build_parser().parse_args(words)
    except SystemExit as exit_:
        pytest.fail(f"`{command}` is refused by the parser (exit {exit_.code})")
