"""`team connect`, `status`, `disconnect` and where the password comes from (issue 20):
the URL (then kept in the keyring), the keyring, a .pgpass file libpq reads itself;
clear errors for a wrong password, an unknown role and a login of no team. Real server."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from memory_app.cli import main
from memory_app.store.database import Database
from memory_app.store.errors import TeamDatabaseError
from memory_app.team import credentials, link, tenancy
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql


class MemoryKeyring(KeyringBackend):
    """A keyring in memory: the real keyring API, no desktop session needed."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.kept.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.kept[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.kept.pop((service, username))


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


@pytest.fixture(scope="module")
def team(postgres_server: ThrowawayServer) -> Iterator[tuple[ThrowawayServer, str, str, str]]:
    database = f"connect_{secrets.token_hex(3)}"
    admin_url = postgres_server.create_database(database)
    person, stranger = f"dee_{database}", f"eve_{database}"
    tenancy.init_team(admin_url, "delta", [person])
    password = secrets.token_urlsafe(12)
    postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    postgres_server.admin(f"CREATE ROLE {stranger} LOGIN PASSWORD '{password}'")
    yield postgres_server, database, person, password
    postgres_server.drop_database(database)
    postgres_server.admin(f"DROP ROLE IF EXISTS {person}")
    postgres_server.admin(f"DROP ROLE IF EXISTS {stranger}")


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'memory.db'}")
    yield db
    db.close()


def _url(server: ThrowawayServer, database: str, user: str, password: str | None = None) -> str:
    return server.url(database, user=user, password=password).replace("+psycopg", "")


def test_a_password_typed_in_the_url_is_kept_in_the_keyring_not_the_store(
    team: tuple[ThrowawayServer, str, str, str], local: Database, ring: MemoryKeyring
) -> None:
    server, database, person, password = team
    report = link.connect(local, _url(server, database, person, password))
    assert report.team == "delta" and report.user == person and report.password == "url"
    assert report.saved == "kept in the system keyring"
    assert password not in report.url
    stored = link.link_of(local)
    assert stored is not None and password not in stored.url
    assert list(ring.kept.values()) == [password]
    # From now on the keyring gives it: status reaches the server with the plain URL.
    found = link.status(local)
    assert found["reachable"] is True and found["team"] == "delta"
    assert credentials.find_password(stored.url).source == "keyring"
    done = link.disconnect(local, forget_password=True)
    assert done["password_forgotten"] and ring.kept == {}
    assert link.status(local) == {"connected": False}


def test_a_password_in_the_query_is_kept_in_the_keyring_and_left_out_of_the_link(
    team: tuple[ThrowawayServer, str, str, str], local: Database, ring: MemoryKeyring
) -> None:
    """libpq takes `?password=` as well as `USER:PASSWORD@`: both are typed passwords."""
    server, database, person, password = team
    url = f"{_url(server, database, person)}?password={password}&sslpassword=key-secret"
    report = link.connect(local, url)
    assert report.password == "url" and report.saved == "kept in the system keyring"
    stored = link.link_of(local)
    assert stored is not None and stored.url == report.url == _url(server, database, person)
    assert list(ring.kept.values()) == [password]
    assert link.status(local)["reachable"] is True  # with the keyring's password
    typed = "postgresql://ana@db.example:5432/team_memory?password=s3cret&sslmode=require"
    assert credentials.typed_password(typed) == "s3cret"
    kept = credentials.without_password(typed + "&sslpassword=k3y")
    assert kept == "postgresql://ana@db.example:5432/team_memory?sslmode=require"
    link.disconnect(local, forget_password=True)


def test_a_pgpass_line_is_read_by_libpq(
    team: tuple[ThrowawayServer, str, str, str],
    local: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, database, person, password = team
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"# team\n127.0.0.1:*:{database}:{person}:{password}\n", encoding="utf-8")
    pgpass.chmod(0o644)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    url = _url(server, database, person)
    with pytest.raises(TeamDatabaseError, match="chmod 600"):
        link.connect(local, url)
    pgpass.chmod(0o600)
    report = link.connect(local, url)
    assert report.password == "pgpass" and report.saved is None


def test_pgpass_escapes_and_wildcards() -> None:
    login = credentials.Login("db.example", 5432, "team:memory", "ana")
    assert credentials.pgpass_matches("db.example:5432:team\\:memory:ana:pw", login)
    assert credentials.pgpass_matches("*:*:*:ana:pw", login)
    assert not credentials.pgpass_matches("\\*:*:*:ana:pw", login)  # an escaped * is a star
    assert not credentials.pgpass_matches("db.example:5433:*:ana:pw", login)
    assert not credentials.pgpass_matches("#*:*:*:*:pw", login)
    socket = credentials.login_of("postgresql://ana@/team?host=/run/postgresql")
    assert (socket.host, socket.port, socket.database) == ("localhost", 5432, "team")


def test_no_password_anywhere_names_the_three_ways(
    team: tuple[ThrowawayServer, str, str, str],
    local: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, database, person, _ = team
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with pytest.raises(credentials.TeamCredentialsError) as caught:
        link.connect(local, _url(server, database, person))
    message = str(caught.value)
    assert "in the URL" in message and "keyring" in message and "none" in message
    assert link.link_of(local) is None


def test_wrong_password_unknown_role_and_no_team_are_clear(
    team: tuple[ThrowawayServer, str, str, str], local: Database, ring: MemoryKeyring
) -> None:
    server, database, person, password = team
    with pytest.raises(TeamDatabaseError, match="refused the login: wrong password"):
        link.connect(local, _url(server, database, person, "not-it"))
    with pytest.raises(TeamDatabaseError, match="refused the login"):
        link.connect(local, _url(server, database, "nobody_here", "x"))
    with pytest.raises(TeamDatabaseError, match="not a member of any team"):
        link.connect(local, _url(server, database, f"eve_{database}", password))
    with pytest.raises(TeamDatabaseError, match="is a member of team 'delta', not 'other'"):
        link.connect(local, _url(server, database, person, password), team="other")
    assert link.link_of(local) is None and ring.kept == {}


def test_status_offline_says_so(local: Database) -> None:
    with local.writing() as session:
        from memory_app.store.tables import TeamLinkRow

        session.add(TeamLinkRow(id=1, url="postgresql://ana@127.0.0.1:1/team", team_name="t"))
    found = link.status(local, env={"PGPASSWORD": "x"})
    assert found["reachable"] is False and "Cannot reach the team database" in found["problem"]


def test_the_cli_connects_and_shows_status(
    team: tuple[ThrowawayServer, str, str, str],
    tmp_path: Path,
    ring: MemoryKeyring,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, database, person, password = team
    data = str(tmp_path / "data")
    url = _url(server, database, person, password)
    assert main(["team", "connect", url, "--team", "delta", "--json", "--data-dir", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["team"] == "delta" and password not in json.dumps(shown)
    assert main(["team", "status", "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "Team delta as" in out and "server: reachable" in out
    assert main(["team", "disconnect", "--data-dir", data]) == 0
