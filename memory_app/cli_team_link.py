"""The team store's set-up actions of `memory-app team` (issue 20): init and members
for the administrator, connect, status and disconnect for each person.

    memory-app team init ADMIN_URL --team NAME [--member ROLE]...
    memory-app team members ADMIN_URL --team NAME [--add ROLE]... [--remove ROLE]...
    memory-app team connect URL [--team NAME] [--no-save-password]
    memory-app team status [--no-check]
    memory-app team disconnect [--forget-password]

cli_team.py adds these to its PARSERS and ACTIONS. Argument parsing and printing only:
the work is in memory_app/team/ (tenancy.py, link.py, credentials.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def _init_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "create a team's store and roles on a PostgreSQL database (as its superuser): "
        "schema, row-level security, a role per team and a login per member; running "
        "it again changes nothing, or upgrades the schema"
    )
    q = inner.add_parser("init", help=text, description=text, parents=[common])
    q.add_argument("admin_url", metavar="ADMIN_URL", help="postgresql://SUPERUSER@HOST:PORT/DB")
    q.add_argument("--team", required=True, help="the team's name (lowercase, digits, _)")
    q.add_argument(
        "--member", action="append", default=[], metavar="ROLE",
        help="a person's login role, created when missing (repeat for more)",
    )  # fmt: skip


def _members_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = "list, add or remove the people of a team (as the database's superuser)"
    q = inner.add_parser("members", help=text, description=text, parents=[common])
    q.add_argument("admin_url", metavar="ADMIN_URL", help="postgresql://SUPERUSER@HOST:PORT/DB")
    q.add_argument("--team", required=True, help="the team's name")
    q.add_argument("--add", action="append", default=[], metavar="ROLE", help="add a person")
    q.add_argument(
        "--remove", action="append", default=[], metavar="ROLE",
        help="remove a person (the login role stays; its rows stay the team's)",
    )  # fmt: skip


def _connect_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "connect this store to your team's store: logs in as you (password from the URL, "
        "the system keyring or ~/.pgpass), checks the membership and the schema version, "
        "and keeps the URL without the password"
    )
    q = inner.add_parser("connect", help=text, description=text, parents=[common])
    q.add_argument("url", metavar="URL", help="postgresql://YOU@HOST:PORT/DB")
    q.add_argument("--team", help="the team you expect to be in (checked)")
    q.add_argument(
        "--no-save-password", action="store_true",
        help="do not keep a password typed in the URL in the system keyring",
    )  # fmt: skip


def _status_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = "the team store this store is connected to, its last sync and error"
    q = inner.add_parser("status", help=text, description=text, parents=[common])
    q.add_argument("--no-check", action="store_true", help="do not try to reach the server")


def _disconnect_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = "forget the team store (its memories stay here, as personal memories)"
    q = inner.add_parser("disconnect", help=text, description=text, parents=[common])
    q.add_argument(
        "--forget-password", action="store_true",
        help="also remove the password kept in the system keyring",
    )  # fmt: skip


PARSERS: list[Callable[[Any, argparse.ArgumentParser], None]] = [
    _init_parser,
    _members_parser,
    _connect_parser,
    _status_parser,
    _disconnect_parser,
]


def init(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.tenancy import init_team

    report = init_team(args.admin_url, args.team, args.member)
    if not report.changes:
        head = f"Team {report.team} is set up; nothing changed."
    else:
        head = f"Team {report.team} set up ({len(report.changes)} change(s))."
    upgrade = (
        f" (upgraded from {report.previous_version})"
        if 0 < report.previous_version < report.schema_version
        else ""
    )
    lines = [
        head,
        f"  database {report.database}, schema {report.schema}, role {report.role}",
        f"  store schema version {report.schema_version}{upgrade}"
        + ("" if report.sync_installed else " (sync schema not installed: not in this build)"),
        "  members: " + (", ".join(report.members) or "none yet (--member ROLE)"),
    ]
    created = [c for c in report.changes if c.startswith("created login role")]
    lines += [f"  {c}" for c in created]
    return report.to_json(), "\n".join(lines)


def members(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.tenancy import change_members

    listed, changes = change_members(args.admin_url, args.team, args.add, args.remove)
    lines = [f"Team {args.team}: " + (", ".join(listed) or "no members")]
    lines += [f"  {c}" for c in changes]
    return {"team": args.team, "members": listed, "changes": changes}, "\n".join(lines)


def connect(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.link import connect as connect_store

    report = connect_store(service.db, args.url, args.team, save_password=not args.no_save_password)
    lines = [
        f"Connected to team {report.team} as {report.user} at {report.url}.",
        f"  team store schema version {report.schema_version}; password from {report.password}",
    ]
    if report.saved:
        lines.append(f"  the password typed in the URL: {report.saved}")
    if report.made_personal:
        lines.append(
            f"  {report.made_personal} memories of an earlier team store are personal again "
            "(publish them to share them with this team)"
        )
    return report.to_json(), "\n".join(lines)


def status(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.link import status as link_status

    found = link_status(service.db, check=not args.no_check)
    if not found["connected"]:
        return found, "Not connected to a team store (memory-app team connect URL)."
    lines = [
        f"Team {found['team']} as {found['user']} at {found['url']}",
        f"  last sync: {found['last_sync_at'] or 'never'}",
    ]
    if found["last_error"]:
        lines.append(f"  last error: {found['last_error']}")
    if "reachable" in found:
        lines.append(
            "  server: reachable"
            if found["reachable"]
            else f"  server: offline or refused ({found['problem']}); the local store works"
        )
    return found, "\n".join(lines)


def disconnect(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.link import disconnect as unlink

    done = unlink(service.db, forget_password=args.forget_password)
    text = f"Disconnected from {done['disconnected']}. {done['note']}"
    if done["password_forgotten"]:
        text += " The kept password was removed from the keyring."
    return done, text


ACTIONS: dict[str, Callable[[MemoryService, argparse.Namespace], Output]] = {
    "init": init,
    "members": members,
    "connect": connect,
    "status": status,
    "disconnect": disconnect,
}
