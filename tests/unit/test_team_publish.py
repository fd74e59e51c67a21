"""Personal and team memories on the local side (issue 20, "Shared scope"): the schema
(version 10), publishing with its preview, unpublishing, the sync state it leaves for
the next sync, the CLI, and the team tier's weight in context assembly."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.retrieval import RetrievalQuery
from memory_app.domain.sharing import PUSH, WITHDRAW, pending_action, team_project_name
from memory_app.extract.base import ExtractedItem
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.database import Database
from memory_app.store.tables import MemoryItemRow
from tests.helpers import ScriptedExtractor, conversation, make_version_9, system_tool

KEY = "a8Xk2PqL9zR4mN7vB3cT6yW1"  # random-looking: the possible-secret check holds it


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    opened = MemoryService.open(resolve_settings(tmp_path / "data", env={}))
    yield opened
    opened.close()


def learn(service: MemoryService, content: str, *, project: str | None = None, **said: str) -> int:
    """One memory learnt from a one-exchange conversation (turn 0 is its source)."""
    cited = ExtractedItem("project_conventions", content, 0.9, turn_start=0, turn_end=0)
    service.extractor = ScriptedExtractor([cited])
    user = said.get("user", f"Please remember this for the whole project from now on: {content}")
    result = service.memorize(
        conversation((user, "Noted."), session=str(uuid.uuid4()), project=project)
    )
    assert result.items_added, result
    return result.items_added[0]


def git_project(folder: Path, remote: str | None) -> Path:
    git = system_tool("git")
    folder.mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(folder)], check=True)
    if remote:
        subprocess.run([git, "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


# -- schema ---------------------------------------------------------------------------------


def test_a_version_9_store_gains_unique_uids_sharing_and_the_team_link(tmp_path: Path) -> None:
    settings = resolve_settings(tmp_path / "data", env={})
    service = MemoryService.open(settings)
    ids = [learn(service, f"Convention number {n} of this repository") for n in range(3)]
    service.close()
    make_version_9(settings.data_dir / "memory.db")
    with sqlite3.connect(settings.data_dir / "memory.db") as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(memory_item)")}
    assert "uid" not in columns and "sharing" not in columns

    db = Database(settings.db_url, backup_dir=settings.backup_dir)
    try:
        assert db.previous_version == 9
        assert list(settings.backup_dir.glob("memory.v9.*.bak"))
        with db.reading() as session:
            rows = session.execute(
                text("SELECT id, uid, sharing, team_seq, team_dirty FROM memory_item")
            ).all()
            session.execute(text("SELECT url, pull_cursor, last_error FROM team_link")).all()
        assert sorted(r[0] for r in rows) == sorted(ids)
        uids = [r[1] for r in rows]
        assert len(set(uids)) == 3
        assert all(str(uuid.UUID(u)) == u for u in uids)
        assert {(r[2], r[3], r[4]) for r in rows} == {("personal", None, 0)}
        with pytest.raises(Exception, match="UNIQUE"), db.writing() as session:
            session.execute(text("UPDATE memory_item SET uid = :u"), {"u": uids[0]})
    finally:
        db.close()
    again = MemoryService.open(settings)
    try:
        new = learn(again, "A memory learnt after the migration")
        assert again.get_item(new).uid not in uids
        assert again.get_item(new).sharing == "personal"
    finally:
        again.close()


# -- the preview ----------------------------------------------------------------------------


def test_the_preview_rechecks_redaction_and_sends_no_folder_of_this_machine(
    service: MemoryService, tmp_path: Path
) -> None:
    shop = git_project(tmp_path / "code" / "shop", "git@github.com:acme/shop.git")
    loose = git_project(tmp_path / "code" / "scratch", None)
    with_remote = learn(service, "Run the shop's tests with make check", project=str(shop))
    without = learn(service, "Scratch experiments live in notebooks", project=str(loose))
    # A person's edit typed a password in after the import redacted the conversation.
    service.edit_item(
        with_remote, content='Run the tests with make check; db password = "s3cretpw"'
    )

    preview = service.publish_preview([with_remote, without])
    assert preview.dry_run
    first, second = preview.memories
    assert first.content == 'Run the tests with make check; db password = "[REDACTED:password]"'
    assert first.redactions == ("password",)
    assert first.project == "acme/shop"
    assert second.project is None
    assert second.project_note == "project left out: no git remote names it for the team"
    sent = json.dumps(preview.to_json())
    assert str(tmp_path) not in sent and "s3cretpw" not in sent
    # Nothing recorded by a preview.
    assert {service.get_item(i).sharing for i in (with_remote, without)} == {"personal"}


def test_the_conversation_never_leaves_with_a_memory(
    service: MemoryService, capsys: pytest.CaptureFixture[str]
) -> None:
    """Publishing sends a memory without the conversation it came from: the preview holds
    none of its turns, and the CLI offers no way to add them."""
    item = learn(
        service,
        "Deploys go through the staging cluster first",
        user="Deploys go through staging first, please remember this for the project",
    )
    (memory,) = service.publish_preview([item]).memories
    assert "please remember this" not in json.dumps(memory.to_json())
    with pytest.raises(SystemExit):
        main(["team", "publish", str(item), "--with-source"])
    assert "unrecognized arguments: --with-source" in capsys.readouterr().err


def test_a_possible_secret_cannot_be_published(service: MemoryService) -> None:
    held = learn(service, f"The staging deploy key is {KEY}")
    assert service.get_item(held).status == "held"
    preview = service.publish([held])
    (memory,) = preview.memories
    assert memory.blocked == "held for review as a possible secret: keep or remove it first"
    assert preview.published == ()
    assert service.get_item(held).sharing == "personal"
    # Kept for oneself is not shown to a team: the token still blocks it.
    service.keep(held)
    (memory,) = service.publish_preview([held]).memories
    assert memory.blocked is not None and memory.blocked.startswith("possible secret a8…W1")
    assert KEY not in json.dumps(service.publish_preview([held]).to_json())


# -- publishing, offline first, and taking it back ----------------------------------------


def test_publishing_is_recorded_for_the_next_sync_and_undone_like_any_change(
    service: MemoryService,
) -> None:
    item = learn(service, "Every migration is reviewed by two people")
    done = service.publish([item])
    assert done.published == (item,) and not done.dry_run
    record = service.get_item(item)
    assert (record.sharing, record.team_seq, record.team_dirty) == ("team", None, True)
    assert pending_action(record.sharing, record.team_seq, record.team_dirty) == PUSH
    assert [e.action for e in service.item_history(item)][-1] == "publish"
    assert service.publish([item]).published == ()  # already a team memory
    service.undo()
    assert service.get_item(item).sharing == "personal"


def test_an_edit_of_a_team_memory_waits_to_be_pushed_a_pin_does_not(
    service: MemoryService,
) -> None:
    item = learn(service, "Feature flags are removed within a month")
    service.publish([item])
    _as_if_synced(service, item, seq=7)
    service.edit_item(item, pinned=True)  # a pin is this person's own
    assert service.get_item(item).team_dirty is False
    service.edit_item(item, content="Feature flags are removed within two weeks")
    record = service.get_item(item)
    assert (record.team_seq, record.team_dirty) == (7, True)  # an edit made on base 7


def test_unpublishing_leaves_a_withdrawal_only_for_what_the_team_store_has(
    service: MemoryService,
) -> None:
    synced = learn(service, "Releases are cut on Tuesdays")
    fresh = learn(service, "The changelog is written by hand")
    service.publish([synced, fresh])
    _as_if_synced(service, synced, seq=12)
    assert service.unpublish([synced, fresh]) == [synced, fresh]
    gone = service.get_item(synced)
    assert (gone.sharing, gone.team_seq, gone.team_dirty) == ("personal", 12, True)
    assert pending_action(gone.sharing, gone.team_seq, gone.team_dirty) == WITHDRAW
    never = service.get_item(fresh)
    assert pending_action(never.sharing, never.team_seq, never.team_dirty) is None
    with pytest.raises(Exception, match="none of these memories is a team memory"):
        service.unpublish([fresh])


def _as_if_synced(service: MemoryService, item_id: int, seq: int) -> None:
    """What a push leaves behind (the sync itself is another part of issue 20)."""
    with service.db.writing() as session:
        row = session.get(MemoryItemRow, item_id)
        assert row is not None
        row.team_seq, row.team_dirty = seq, False
        session.add(row)


# -- the command line ---------------------------------------------------------------------


def test_team_publish_dry_run_json_and_publish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    service = MemoryService.open(resolve_settings(data, env={}))
    item = learn(service, "Logs are structured JSON, one object a line")
    service.close()
    base = ["--data-dir", str(data)]
    assert main([*base, "team", "publish", str(item), "--dry-run", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["dry_run"] is True and shown["published"] == []
    assert shown["memories"][0]["content"] == "Logs are structured JSON, one object a line"
    assert "source" not in shown["memories"][0]
    assert main([*base, "show", str(item), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sharing"] == "personal"

    assert main([*base, "team", "publish", str(item)]) == 0
    assert "Published 1" in capsys.readouterr().out
    assert main([*base, "show", str(item), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["sharing"], record["team_dirty"]) == ("team", True)
    assert str(uuid.UUID(record["uid"])) == record["uid"]
    assert main([*base, "team", "unpublish", str(item), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"unpublished": [item]}


# -- naming a project for the team ------------------------------------------------------------


@pytest.mark.parametrize(
    ("remote", "name"),
    [
        ("git@github.com:acme/shop.git", "acme/shop"),
        ("https://gitlab.example.com/group/sub/shop.git", "sub/shop"),
        ("https://user:pw@github.com/acme/shop", "acme/shop"),
        ("ssh://git@host:2222/acme/shop.git", "acme/shop"),
        ("/srv/git/shop.git", None),
        ("", None),
        (None, None),
    ],
)
def test_a_project_is_named_by_its_git_remote_never_by_a_path(
    remote: str | None, name: str | None
) -> None:
    assert team_project_name(remote) == name


# -- context assembly ------------------------------------------------------------------------


def test_team_memories_rank_with_their_tier_weight_and_say_team_in_context(
    service: MemoryService,
) -> None:
    mine = learn(service, "Database migrations use alembic in the web service")
    theirs = learn(service, "Database migrations use alembic in the billing worker")
    service.publish([theirs])

    def ranked(weight: float) -> list[int]:
        query = RetrievalQuery(text="database migrations alembic", team_weight=weight)
        return [r.record.id for r in service.retrieve(query)]

    assert ranked(0.9) == [mine, theirs]
    assert ranked(1.5) == [theirs, mine]
    hits = {r.record.id: r.breakdown for r in service.retrieve(RetrievalQuery(text="alembic"))}
    assert hits[theirs].tier == 0.9 and hits[mine].tier == 1.0
    assert "team x0.90" in hits[theirs].describe()

    rendered = service.build_context(ContextRequest(task="database migrations")).render()
    line_of = {
        i: line for line in rendered.splitlines() for i in (mine, theirs) if f"[#{i} " in line
    }
    assert ", team, " in line_of[theirs]
    assert "team" not in line_of[mine]
