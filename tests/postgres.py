"""A throwaway PostgreSQL server for the tests and the team benchmarks.

Debian's `postgresql` package (installed by .ci/run) brings initdb and pg_ctl; the server
runs from a temporary folder on a free port, its unix socket in that folder, as an
unprivileged user when the tests run as root (initdb refuses root). Durability is off
(fsync, full-page writes): the data is thrown away, and initdb + start then take about a
second. Databases are copied from a migrated template (CREATE DATABASE … TEMPLATE), which
takes milliseconds, so each test gets its own.

No pytest here: benchmarks/team_search.py starts its server with the same class.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

ADMIN = "memory_admin"  # the server's superuser (initdb -U)
_LOG = "server.log"


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server programs are not installed (Debian: `postgresql`)."""


def server_bin_dir() -> Path:
    """The folder of initdb, pg_ctl and postgres: pg_config's, Debian's versioned folder
    (newest first), or the one of an initdb on PATH."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            )
            candidates.append(Path(out.stdout.strip()))
        except (OSError, subprocess.SubprocessError):
            pass
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += [Path(p) for p in sorted(versions, key=_version_key, reverse=True)]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    raise PostgresUnavailable("PostgreSQL is not installed (Debian: postgresql; see .ci/run)")


def _version_key(path: str) -> tuple[int, ...]:
    part = Path(path).parent.name
    return tuple(int(p) for p in part.split(".") if p.isdigit())


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThrowawayServer:
    """One PostgreSQL server in a temporary folder; `stop()` removes it all.

    The superuser `ADMIN` logs in with a random password over TCP (127.0.0.1) and
    without one over the unix socket in the folder.
    """

    def __init__(self) -> None:
        self.bin = server_bin_dir()
        self.folder = Path(tempfile.mkdtemp(prefix="memory-app-pg-"))
        self.data = self.folder / "data"
        self.password = secrets.token_urlsafe(16)
        self.port = 0
        self._run_as: list[str] = []
        self.started = False

    # -- running ---------------------------------------------------------------------

    def _command(self, *args: str) -> list[str]:
        return [*self._run_as, *args]

    def start(self) -> ThrowawayServer:
        """initdb into the folder and start the server on a free port."""
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as exc:
                raise PostgresUnavailable(
                    "running as root and there is no 'postgres' user to run the server as"
                ) from exc
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._run_as = ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}"]
            self._run_as += ["--init-groups", "--"]
        os.chmod(self.folder, 0o700)
        password_file = self.folder / "pw"
        password_file.write_text(self.password + "\n", encoding="utf-8")
        if self._run_as:
            os.chown(password_file, *self._owner())
        self._check(
            self._command(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                ADMIN,
                f"--pwfile={password_file}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            )
        )
        password_file.unlink()
        for attempt in range(5):
            self.port = _free_port()
            options = " ".join(
                (
                    f"-p {self.port}",
                    "-c listen_addresses=127.0.0.1",
                    f"-c unix_socket_directories='{self.folder}'",
                    "-c fsync=off",
                    "-c full_page_writes=off",
                    "-c synchronous_commit=off",
                    "-c max_connections=60",
                    "-c shared_buffers=32MB",
                )
            )
            result = subprocess.run(
                self._command(
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.folder / _LOG),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "30",
                    "start",
                ),
                capture_output=True,
                text=True,
            )
            if result.returncode == 0:
                self.started = True
                return self
            if attempt == 4 or "could not bind" not in self.log():
                break
        raise RuntimeError(f"pg_ctl start failed: {result.stderr.strip()}\n{self.log()}")

    def _owner(self) -> tuple[int, int]:
        owner = pwd.getpwnam("postgres")
        return owner.pw_uid, owner.pw_gid

    def log(self) -> str:
        try:
            return (self.folder / _LOG).read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    @staticmethod
    def _check(command: list[str]) -> None:
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {result.stderr.strip()}")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder."""
        if self.started:
            subprocess.run(
                self._command(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"),
                capture_output=True,
            )
            self.started = False
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ThrowawayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- databases -------------------------------------------------------------------

    def url(
        self, database: str = "postgres", user: str = ADMIN, password: str | None = None
    ) -> str:
        """A SQLAlchemy URL for a database over TCP; the admin's password by default."""
        secret = self.password if password is None and user == ADMIN else password
        auth = f"{user}:{secret}" if secret else user
        return f"postgresql+psycopg://{auth}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str = "postgres", user: str = ADMIN) -> str:
        """A URL over the unix socket in the folder (no password: trusted locally)."""
        return f"postgresql+psycopg://{user}@/{database}?host={self.folder}&port={self.port}"

    def admin(self, sql: str, database: str = "postgres") -> None:
        """Run SQL as the superuser, outside a transaction (CREATE DATABASE needs that)."""
        import psycopg

        with psycopg.connect(
            host=str(self.folder), port=self.port, user=ADMIN, dbname=database, autocommit=True
        ) as conn:
            conn.execute(sql)  # type: ignore[arg-type]  # test-built SQL, not user input

    def create_database(self, name: str, template: str | None = None) -> str:
        """A new database (a copy of `template` when given); returns its URL."""
        copy = f" TEMPLATE {template}" if template else ""
        self.admin(f"CREATE DATABASE {name}{copy}")
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def start_server() -> ThrowawayServer:
    """A started server; PostgresUnavailable when PostgreSQL is not installed."""
    return ThrowawayServer().start()
