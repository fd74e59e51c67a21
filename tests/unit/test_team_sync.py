"""Sync between local stores and one team store on a real PostgreSQL server (issue 20,
"Sync"): two machines, a concurrent edit ending in one conflict and nothing lost, its
resolution reaching the other machine; offline failure that changes nothing; an
interrupted sync that resumes; withdrawal; secrets that never leave; batched pulls."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, create_engine, event, text

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.extract.base import ExtractedItem
from memory_app.service import MemoryService
from memory_app.store.tables import MemoryItemRow, TeamLinkRow
from memory_app.team.sync import SyncFailed, open_team, sync
from memory_app.team.sync_push import PushReport, push
from tests.helpers import ScriptedExtractor, conversation, system_tool
from tests.postgres import ThrowawayServer

pytestmark = pytest.mark.postgresql

KEY = "a8Xk2PqL9zR4mN7vB3cT6yW1"  # random-looking: the possible-secret check holds it


@dataclass
class Team:
    """A team store made by `team init` (forced row-level security, sync installed) with
    one member per machine name; libpq reads the members' password from PGPASSWORD
    (credentials.py's last resort), so the links keep none."""

    server: ThrowawayServer
    database: str
    admin_url: str
    members: dict[str, str]  # machine name → role
    password: str

    def url(self, name: str) -> str:
        role = self.members[name]
        return f"postgresql://{role}@127.0.0.1:{self.server.port}/{self.database}"


MACHINES = ("a", "b", "c")


@pytest.fixture
def team(postgres_server: ThrowawayServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Team]:
    from memory_app.team import tenancy

    database = f"team_{uuid.uuid4().hex[:8]}"
    admin_url = postgres_server.create_database(database)
    members = {name: f"{name}_{database}" for name in MACHINES}
    tenancy.init_team(admin_url, "alpha", list(members.values()))
    password = uuid.uuid4().hex
    for role in members.values():
        postgres_server.admin(f"ALTER ROLE {role} PASSWORD '{password}'")
    monkeypatch.setenv("PGPASSWORD", password)
    yield Team(postgres_server, database, admin_url, members, password)
    postgres_server.drop_database(database)
    for role in members.values():
        postgres_server.admin(f"DROP ROLE IF EXISTS {role}")


@pytest.fixture
def team_store(team: Team) -> str:
    """The team store as member a sees it (its URL, without the password)."""
    return team.url("a")


@pytest.fixture
def machine(tmp_path: Path, team: Team) -> Iterator[Callable[[str], MemoryService]]:
    """A local store per name ("a", "b", "c"), each linked to the team store as its own
    member of the team."""
    opened: list[MemoryService] = []

    def make(name: str) -> MemoryService:
        service = MemoryService.open(resolve_settings(tmp_path / name, env={}))
        with service.db.writing() as session:
            session.add(TeamLinkRow(url=team.url(name)))
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()


def team_rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql)).all()]
    finally:
        engine.dispose()


def learn(service: MemoryService, content: str, project: str | None = None) -> int:
    cited = ExtractedItem("project_conventions", content, 0.9, turn_start=0, turn_end=0)
    service.extractor = ScriptedExtractor([cited])  # type: ignore[assignment]
    said = (f"Remember for this project: {content}", "Noted.")
    result = service.memorize(conversation(said, session=str(uuid.uuid4()), project=project))
    assert result.items_added, result
    return result.items_added[0]


def by_uid(service: MemoryService, uid: str) -> MemoryItemRow | None:
    with service.db.reading() as session:
        from sqlmodel import select

        return session.exec(select(MemoryItemRow).where(MemoryItemRow.uid == uid)).first()


def row(service: MemoryService, item_id: int) -> MemoryItemRow:
    with service.db.reading() as session:
        found = session.get(MemoryItemRow, item_id)
    assert found is not None
    return found


def all_contents(service: MemoryService) -> list[str]:
    with service.db.reading() as session:
        return [r[0] for r in session.execute(text("SELECT content FROM memory_item")).all()]


# -- the must-show --------------------------------------------------------------------


def test_two_machines_edit_one_memory_offline_and_get_one_conflict_with_nothing_lost(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a, b = machine("a"), machine("b")
    first = learn(a, "Releases are tagged from the main branch every Tuesday")
    a.publish([first])
    pushed = sync(a.db)
    assert pushed.push.published == 1
    uid = row(a, first).uid

    sync(b.db)
    copy = by_uid(b, uid)
    assert copy is not None and copy.sharing == "team" and not copy.team_dirty
    assert copy.content == "Releases are tagged from the main branch every Tuesday"

    # Both edit it without syncing.
    a.edit_item(first, content="Releases are tagged from the release branch every Tuesday")
    b.edit_item(copy.id or 0, content="Releases are tagged from the main branch every Friday")

    won = sync(a.db)  # A reaches the server first
    assert won.push.updated == 1 and not won.pull.conflicts

    late = sync(b.db)
    assert len(late.pull.conflicts) == 1
    conflicts = b.conflicts(("unresolved",))
    assert len(conflicts) == 1
    detail = b.conflict_detail(conflicts[0].id)
    texts = sorted(i.content for i in detail.items)
    assert texts == [
        "Releases are tagged from the main branch every Friday",
        "Releases are tagged from the release branch every Tuesday",
    ]
    # Nothing lost: both texts are on the team store too, as two team memories.
    on_team = sorted(r[0] for r in team_rows(team_store, "SELECT content FROM memory_item"))
    assert on_team == texts
    assert team_rows(team_store, "SELECT status FROM team_conflict") == [("unresolved",)]

    # A pulls the conflict: the same two memories, unresolved.
    sync(a.db)
    a_open = a.conflicts(("unresolved",))
    assert len(a_open) == 1
    assert sorted(i.content for i in a.conflict_detail(a_open[0].id).items) == texts

    # B keeps its own Friday text; A gets the decision and the statuses.
    friday = next(i for i in detail.items if "Friday" in i.content)
    tuesday = next(i for i in detail.items if "Tuesday" in i.content)
    decision = "keep_newer" if friday.id > tuesday.id else "keep_older"
    b.resolve_conflict(conflicts[0].id, decision)
    sync(b.db)
    assert team_rows(team_store, "SELECT status, decision FROM team_conflict") == [
        ("accepted_newer" if decision == "keep_newer" else "accepted_older", decision)
    ]
    sync(a.db)
    resolved = a.get_conflict(a_open[0].id)
    assert resolved.status == b.get_conflict(conflicts[0].id).status
    assert resolved.decision == decision
    a_items = {i.content: i for i in a.conflict_detail(a_open[0].id).items}
    assert a_items["Releases are tagged from the main branch every Friday"].status == "active"
    loser = a_items["Releases are tagged from the release branch every Tuesday"]
    assert loser.status == "superseded"
    assert not a.conflicts(("unresolved",)) and not b.conflicts(("unresolved",))
    # A sync with nothing new changes nothing.
    quiet = sync(a.db)
    assert quiet.pull.added == quiet.pull.updated == quiet.push.updated == 0


# -- offline first ----------------------------------------------------------------------------


def test_an_unreachable_team_store_fails_the_sync_and_changes_nothing_here(
    tmp_path: Path,
) -> None:
    service = MemoryService.open(resolve_settings(tmp_path / "x", env={}))
    try:
        item = learn(service, "The staging database is reset every night at two")
        with service.db.writing() as session:
            session.add(TeamLinkRow(url="postgresql://nobody@127.0.0.1:9/team"))
        service.publish([item])
        before = row(service, item)
        with pytest.raises(SyncFailed, match="Cannot reach the team database"):
            sync(service.db, env={"PGPASSWORD": "libpq reads it"})
        after = row(service, item)
        assert (after.team_dirty, after.team_seq, after.sharing) == (
            before.team_dirty,
            before.team_seq,
            "team",
        )
        with service.db.reading() as session:
            link = session.get(TeamLinkRow, 1)
        assert link is not None and "Cannot reach the team database" in (link.last_error or "")
        assert link.last_sync_at is None
        # The app keeps working.
        assert service.search("staging database")
    finally:
        service.close()


def test_the_next_sync_catches_up_and_clears_the_error(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a = machine("a")
    item = learn(a, "Feature flags are removed two sprints after launch")
    a.publish([item])
    with a.db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.url = "postgresql://nobody@127.0.0.1:9/team"
    with pytest.raises(SyncFailed):
        sync(a.db)
    with a.db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.url = team_store
    report = sync(a.db)
    assert report.push.published == 1
    with a.db.reading() as session:
        link = session.get(TeamLinkRow, 1)
    assert link is not None and link.last_error is None and link.last_sync_at is not None


def test_an_interrupted_pull_resumes_from_its_cursor(
    machine: Callable[[str], MemoryService],
) -> None:
    a, b = machine("a"), machine("b")
    ids = [learn(a, f"Service number {n} logs in JSON to standard output") for n in range(7)]
    a.publish(ids)
    sync(a.db)
    partial = sync(b.db, batch=3, max_pull_batches=1)  # cut after one batch
    assert partial.pull.added == 3
    with b.db.reading() as session:
        link = session.get(TeamLinkRow, 1)
    assert link is not None and link.pull_cursor > 0
    rest = sync(b.db, batch=3)
    assert rest.pull.added == 4 and rest.pull.updated == 0
    assert sorted(all_contents(b)) == sorted(all_contents(a))


def test_a_push_whose_answer_was_lost_matches_instead_of_duplicating(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a = machine("a")
    item = learn(a, "Migrations are reviewed by two people before they run")
    a.publish([item])
    sync(a.db)
    # As if the local commit after the team's had never happened:
    with a.db.writing() as session:
        found = session.get(MemoryItemRow, item)
        assert found is not None
        found.team_seq, found.team_dirty = None, True
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.pull_cursor = 0
    again = sync(a.db)
    assert again.push.published == 0 and not again.pull.conflicts
    assert team_rows(team_store, "SELECT count(*) FROM memory_item") == [(1,)]
    assert not row(a, item).team_dirty and row(a, item).team_seq is not None


def test_an_edit_pushed_on_a_stale_base_overwrites_nothing_and_opens_the_conflict(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a, b = machine("a"), machine("b")
    item = learn(a, "Code review needs one approval from the owning team")
    a.publish([item])
    sync(a.db)
    sync(b.db)
    copy = by_uid(b, row(a, item).uid)
    assert copy is not None
    a.edit_item(item, content="Code review needs two approvals from the owning team")
    sync(a.db)
    b.edit_item(copy.id or 0, content="Code review needs one approval from any team")
    # B pushes without pulling first (as when A's change lands between B's pull and push).
    report = PushReport()
    engine = open_team(team_store)
    try:
        push(b.db, engine.begin, batch=50, report=report)
    finally:
        engine.dispose()
    assert report.stale == [copy.id]
    assert team_rows(team_store, "SELECT content FROM memory_item") == [
        ("Code review needs two approvals from the owning team",)
    ]
    assert row(b, copy.id or 0).team_dirty
    later = sync(b.db)
    assert len(later.pull.conflicts) == 1
    assert sorted(r[0] for r in team_rows(team_store, "SELECT content FROM memory_item")) == [
        "Code review needs one approval from any team",
        "Code review needs two approvals from the owning team",
    ]


def test_no_password_anywhere_fails_the_sync_with_the_ways_to_give_one(
    machine: Callable[[str], MemoryService], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = machine("a")
    monkeypatch.delenv("PGPASSWORD")
    with pytest.raises(SyncFailed, match="no password for"):
        sync(a.db, env={})


# -- withdrawal and secrets -------------------------------------------------------------------


def test_a_withdrawal_removes_it_from_the_team_and_from_the_other_machine(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a, b = machine("a"), machine("b")
    item = learn(a, "The billing service owns the invoices table")
    a.publish([item])
    sync(a.db)
    sync(b.db)
    uid = row(a, item).uid
    assert by_uid(b, uid) is not None

    a.unpublish([item])
    report = sync(a.db)
    assert report.push.withdrawn == 1
    assert team_rows(team_store, "SELECT count(*) FROM memory_item") == [(0,)]
    assert team_rows(team_store, "SELECT uid FROM team_tombstone") == [(uid,)]
    mine = row(a, item)
    assert (mine.sharing, mine.team_seq, mine.team_dirty, mine.status) == (
        "personal",
        None,
        False,
        "active",
    )

    sync(b.db)
    theirs = by_uid(b, uid)
    assert theirs is not None and theirs.status == "deleted" and theirs.sharing == "personal"
    sync(a.db)  # the tombstone does not touch A's own personal memory
    assert row(a, item).status == "active"


def test_a_secret_typed_into_a_team_memory_never_leaves(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a = machine("a")
    item = learn(a, "The deploy bot posts to the releases channel")
    a.publish([item])
    sync(a.db)
    a.edit_item(item, content=f"The deploy bot posts to the releases channel with token {KEY}")
    report = sync(a.db)
    assert item in report.push.not_sent and "possible secret" in report.push.not_sent[item]
    assert row(a, item).team_dirty  # still waiting, with the reason
    contents = [r[0] for r in team_rows(team_store, "SELECT content FROM memory_item")]
    assert contents == ["The deploy bot posts to the releases channel"]
    assert all(KEY not in str(r) for r in team_rows(team_store, "SELECT * FROM memory_item"))

    key = "sk-ant-api03-" + "x" * 40
    a.edit_item(item, content=f"The deploy bot uses {key} for the releases channel")
    sync(a.db)
    (sent,) = [r[0] for r in team_rows(team_store, "SELECT content FROM memory_item")]
    assert key not in sent and "deploy bot" in sent


def test_a_memory_held_after_publishing_is_not_sent(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a = machine("a")
    item = learn(a, "Production runs on the east region cluster")
    a.publish([item])
    with a.db.writing() as session:
        found = session.get(MemoryItemRow, item)
        assert found is not None
        found.status = "held"
    report = sync(a.db)
    assert "held for review" in report.push.not_sent[item]
    assert team_rows(team_store, "SELECT count(*) FROM memory_item") == [(0,)]


# -- batches ---------------------------------------------------------------------------------


def test_a_thousand_team_changes_are_pulled_in_batches(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a, b = machine("a"), machine("b")
    from memory_app.demo import generated_rows
    from memory_app.store import repository as repo

    with a.db.writing() as session:
        repo.bulk_add_items(
            session, a.db.dialect, generated_rows(1000, seed=3, now=None), actor="system",
            group_id="many",
        )  # fmt: skip
        session.execute(text("UPDATE memory_item SET sharing = 'team', team_dirty = 1"))
    pushed = sync(a.db, batch=200)
    assert pushed.push.published + len(pushed.push.not_sent) == 1000
    sent = pushed.push.published
    assert sent >= 990, pushed.push.not_sent  # generated texts hold no secrets
    pulled = sync(b.db, batch=200)
    assert pulled.pull.added == sent
    assert len(pulled.pull.batch_seconds) == -(-sent // 200)
    assert team_rows(team_store, "SELECT count(*) FROM memory_item") == [(sent,)]


# -- the command -----------------------------------------------------------------------------


def test_team_sync_command_reports_json_and_fails_offline_with_exit_1(
    machine: Callable[[str], MemoryService],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a = machine("a")
    item = learn(a, "Every service exposes a health endpoint at /healthz")
    a.publish([item])
    a.close()
    assert main(["team", "sync", "--data-dir", str(tmp_path / "a"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["push"]["published"] == 1 and payload["push"]["not_sent"] == {}

    assert main(["team", "sync", "--data-dir", str(tmp_path / "a")]) == 0
    assert "Pushed: 0 published" in capsys.readouterr().out

    service = MemoryService.open(resolve_settings(tmp_path / "a", env={}))
    with service.db.writing() as session:
        link = session.get(TeamLinkRow, 1)
        assert link is not None
        link.url = "postgresql://nobody@127.0.0.1:9/team"
    service.close()
    assert main(["team", "sync", "--data-dir", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert "Team sync failed: Cannot reach the team database" in err


# -- under the tenancy of `team init` ----------------------------------------------------------


def test_sync_between_members_of_one_team_under_row_level_security(
    postgres_server: ThrowawayServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_app.team import tenancy

    database = f"sync_rls_{uuid.uuid4().hex[:6]}"
    admin_url = postgres_server.create_database(database)
    ana, cy, bob = (f"{p}_{database}" for p in ("ana", "cy", "bob"))
    tenancy.init_team(admin_url, "alpha", [ana, cy])
    tenancy.init_team(admin_url, "beta", [bob])
    password = uuid.uuid4().hex
    for person in (ana, cy, bob):
        postgres_server.admin(f"ALTER ROLE {person} PASSWORD '{password}'")
    monkeypatch.setenv("PGPASSWORD", password)  # libpq reads it; the links keep none
    stores: dict[str, MemoryService] = {}
    try:
        for person in (ana, cy, bob):
            service = MemoryService.open(resolve_settings(tmp_path / person, env={}))
            with service.db.writing() as session:
                url = f"postgresql://{person}@127.0.0.1:{postgres_server.port}/{database}"
                session.add(TeamLinkRow(url=url))
            stores[person] = service
        item = learn(stores[ana], "Alpha's services answer health checks on port 8081")
        stores[ana].publish([item])
        assert sync(stores[ana].db).push.published == 1
        stores[ana].unpublish([item])  # withdrawn (a tombstone, as a member), then back
        assert sync(stores[ana].db).push.withdrawn == 1
        stores[ana].publish([item])
        assert sync(stores[ana].db).push.published == 1
        pulled = sync(stores[cy].db)
        assert pulled.pull.added == 1
        assert by_uid(stores[cy], row(stores[ana], item).uid) is not None
        other_team = sync(stores[bob].db)
        assert (
            other_team.pull.changes == 0 and by_uid(stores[bob], row(stores[ana], item).uid) is None
        )
    finally:
        for service in stores.values():
            service.close()
        postgres_server.drop_database(database)
        for person in (ana, cy, bob):
            postgres_server.admin(f"DROP ROLE IF EXISTS {person}")


# -- review findings (issue 20) ---------------------------------------------------------------


def test_a_commit_landing_between_the_reads_of_a_pull_is_never_half_seen(
    machine: Callable[[str], MemoryService], team: Team
) -> None:
    """Another member commits "edit m1, withdraw m2" while B's pull is between its reads
    of memories and tombstones: the pull sees all of that commit or none of it, so the
    cursor never moves past the edit."""
    a, b = machine("a"), machine("b")
    kept = learn(a, "The search service rebuilds its index every Sunday")
    gone = learn(a, "Old dashboards live on the legacy monitoring host")
    a.publish([kept, gone])
    sync(a.db)
    sync(b.db)
    kept_uid, gone_uid = row(a, kept).uid, row(a, gone).uid
    other = psycopg.connect(team.url("c"), autocommit=True)
    fired: list[str] = []

    def between(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FROM team_tombstone WHERE change_seq" in statement and not fired:
            fired.append(statement)
            with other.transaction():
                other.execute(
                    "UPDATE memory_item SET content = 'The search service rebuilds its "
                    "index every night' WHERE uid = %s",
                    (kept_uid,),
                )
                other.execute("DELETE FROM memory_item WHERE uid = %s", (gone_uid,))

    event.listen(Engine, "before_cursor_execute", between)
    try:
        sync(b.db)
    finally:
        event.remove(Engine, "before_cursor_execute", between)
        other.close()
    assert fired
    sync(b.db)
    edited, withdrawn = by_uid(b, kept_uid), by_uid(b, gone_uid)
    assert edited is not None and edited.content == (
        "The search service rebuilds its index every night"
    )
    assert withdrawn is not None and withdrawn.status == "deleted"


def _one_conflict_on_both(
    machine: Callable[[str], MemoryService],
) -> tuple[MemoryService, MemoryService, int, int]:
    """A and B edit one team memory offline; the conflict reaches both. Returns the
    machines and each one's conflict id."""
    a, b = machine("a"), machine("b")
    first = learn(a, "Releases are tagged from the main branch every Tuesday")
    a.publish([first])
    sync(a.db)
    sync(b.db)
    copy = by_uid(b, row(a, first).uid)
    assert copy is not None
    a.edit_item(first, content="Releases are tagged from the release branch every Tuesday")
    b.edit_item(copy.id or 0, content="Releases are tagged from the main branch every Friday")
    sync(a.db)
    sync(b.db)
    sync(a.db)
    (on_a,), (on_b,) = a.conflicts(("unresolved",)), b.conflicts(("unresolved",))
    return a, b, on_a.id, on_b.id


def _keep(service: MemoryService, conflict_id: int, word: str) -> None:
    items = service.conflict_detail(conflict_id).items
    keep = next(i for i in items if word in i.content)
    other = next(i for i in items if word not in i.content)
    service.resolve_conflict(conflict_id, "keep_newer" if keep.id > other.id else "keep_older")


def _active(service: MemoryService) -> list[str]:
    with service.db.reading() as session:
        found = session.execute(
            text("SELECT content FROM memory_item WHERE status = 'active'")
        ).all()
    return [r[0] for r in found]


def _waiting(service: MemoryService) -> list[int]:
    with service.db.reading() as session:
        return [r[0] for r in session.execute(text("SELECT id FROM memory_item WHERE team_dirty"))]


TUESDAY = "Releases are tagged from the release branch every Tuesday"


def test_two_people_resolving_one_conflict_differently_keep_exactly_one_memory_active(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a, b, on_a, on_b = _one_conflict_on_both(machine)
    _keep(a, on_a, "Tuesday")  # offline, both of them
    _keep(b, on_b, "Friday")
    sync(a.db)  # A's decision reaches the team first
    late = sync(b.db)
    assert any("resolved on another machine first" in n for n in late.pull.notes), late
    sync(a.db)
    sync(b.db)
    on_team = team_rows(team_store, "SELECT content FROM memory_item WHERE status = 'active'")
    assert on_team == [(TUESDAY,)]
    assert _active(a) == _active(b) == [TUESDAY]
    assert _waiting(a) == _waiting(b) == []
    assert a.get_conflict(on_a).status == b.get_conflict(on_b).status
    assert not a.conflicts(("unresolved",)) and not b.conflicts(("unresolved",))
    (decision,) = team_rows(team_store, "SELECT status FROM team_conflict")
    assert decision == (a.get_conflict(on_a).status,)


def test_a_resolution_the_team_made_meanwhile_sends_nothing_and_is_taken_here(
    machine: Callable[[str], MemoryService], team: Team, team_store: str
) -> None:
    """The team resolves the conflict between B's pull and B's push: B's conditional
    UPDATE finds it resolved, so none of B's statuses leave and B takes the team's."""
    from memory_app.team import sync_conflicts
    from memory_app.team.sync_pull import taker

    a, b, on_a, on_b = _one_conflict_on_both(machine)
    _keep(a, on_a, "Tuesday")
    _keep(b, on_b, "Friday")
    sync(a.db)
    before = team_rows(team_store, "SELECT uid, change_seq, status FROM memory_item ORDER BY 1")
    engine = open_team(team.url("b"))
    notes: list[str] = []
    try:
        sent, held = sync_conflicts.push_resolutions(
            b.db, engine.begin, None, taker(b.db), PushReport(), notes
        )
    finally:
        engine.dispose()
    assert (sent, held) == (0, set())
    assert len(notes) == 1 and "resolved on another machine first" in notes[0]
    assert team_rows(team_store, "SELECT uid, change_seq, status FROM memory_item ORDER BY 1") == (
        before
    )
    assert _active(b) == [TUESDAY] and _waiting(b) == []
    after = sync(b.db)
    assert not after.pull.conflicts and after.push.updated == 0
    assert _active(b) == [TUESDAY]


def _git_project(folder: Path, remote: str) -> Path:
    git = system_tool("git")
    folder.mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(folder)], check=True)
    subprocess.run([git, "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


def test_a_pulled_memory_edited_without_the_clone_keeps_the_teams_project_name(
    machine: Callable[[str], MemoryService], team_store: str, tmp_path: Path
) -> None:
    a, b = machine("a"), machine("b")
    shop = _git_project(tmp_path / "code" / "shop", "git@github.com:acme/shop.git")
    item = learn(a, "Run the shop migrations before the release", project=str(shop))
    a.publish([item])
    sync(a.db)
    sync(b.db)  # B has no clone of acme/shop
    copy = by_uid(b, row(a, item).uid)
    assert copy is not None and copy.project == "acme/shop"
    b.edit_item(copy.id or 0, content="Run the shop migrations before every release")
    assert sync(b.db).push.updated == 1
    assert team_rows(team_store, "SELECT project, content FROM memory_item") == [
        ("acme/shop", "Run the shop migrations before every release")
    ]
    pulled = sync(a.db)
    assert not pulled.pull.conflicts and pulled.pull.updated == 1
    mine = row(a, item)
    assert (mine.project, mine.content) == (
        str(shop),
        "Run the shop migrations before every release",
    )
    # The same edit again on both machines: the versions say the same, no conflict.
    a.edit_item(item, content="Run the shop migrations before each release")
    b.edit_item(copy.id or 0, content="Run the shop migrations before each release")
    sync(a.db)
    assert not sync(b.db).pull.conflicts and not b.conflicts(("unresolved",))


def test_a_local_edit_of_a_project_is_pushed(
    machine: Callable[[str], MemoryService], team_store: str
) -> None:
    a = machine("a")
    item = learn(a, "Invoices are numbered per calendar year")
    a.publish([item])
    sync(a.db)
    a.edit_item(item, project="acme/billing")
    assert row(a, item).team_dirty
    assert sync(a.db).push.updated == 1
    assert team_rows(team_store, "SELECT project FROM memory_item") == [("acme/billing",)]


def test_after_disconnect_another_teams_store_gets_none_of_the_first_teams_memories(
    machine: Callable[[str], MemoryService], team: Team, team_store: str
) -> None:
    from memory_app.team import link, tenancy

    a, b = machine("a"), machine("b")
    sent = learn(a, "Deploy keys live in the platform vault")
    a.publish([sent])
    sync(a.db)
    theirs = learn(b, "The platform team owns the load balancers")
    b.publish([theirs])
    sync(b.db)
    sync(a.db)  # a memory of B's, pulled
    waiting = learn(a, "Every deploy is announced in the releases channel")
    a.publish([waiting])  # for the first team, not sent yet

    done = link.disconnect(a.db)
    assert done["made_personal"] == 3 and "3 team memories stay" in done["note"]
    with a.db.reading() as session:
        states = session.execute(
            text("SELECT sharing, team_seq, team_dirty, status FROM memory_item")
        ).all()
    assert sorted(tuple(s) for s in states) == [("personal", None, 0, "active")] * 3

    other = f"d_{team.database}"
    tenancy.init_team(team.admin_url, "beta", [other])
    team.server.admin(f"ALTER ROLE {other} PASSWORD '{team.password}'")
    beta = f"postgresql://{other}@127.0.0.1:{team.server.port}/{team.database}"
    try:
        connected = link.connect(a.db, beta, "beta", save_password=False)
        assert connected.team == "beta" and connected.made_personal == 0
        report = sync(a.db)
        assert report.push.published == 0 and report.push.updated == 0
        assert team_rows(beta, "SELECT count(*) FROM memory_item") == [(0,)]
        assert team_rows(team_store, "SELECT count(*) FROM memory_item") == [(2,)]
    finally:
        team.server.admin(f"DROP OWNED BY {other}", database=team.database)
        team.server.admin(f"DROP ROLE IF EXISTS {other}")


def test_connecting_makes_memories_of_an_earlier_team_store_personal(
    machine: Callable[[str], MemoryService], team: Team
) -> None:
    """A store whose link went without `team disconnect` (an older version, a restored
    backup) still holds an earlier store's change numbers: connecting sends none."""
    from memory_app.team import link

    a = machine("a")
    item = learn(a, "Backups are restored once a quarter as a drill")
    a.publish([item])
    sync(a.db)
    with a.db.writing() as session:
        found = session.get(TeamLinkRow, 1)
        assert found is not None
        session.delete(found)
    connected = link.connect(a.db, team.url("a"), save_password=False)
    assert connected.made_personal == 1
    assert (row(a, item).sharing, row(a, item).team_seq) == ("personal", None)
