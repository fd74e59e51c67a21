"""Links between memories on a real store (tests/small_store.py): discovery, its
idempotence beside a person's links, the CLI, undo, the v7 migration and the context
pull-in."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.extract.offline import OfflineExtractor
from memory_app.links.discover import requirement, terms_of
from memory_app.retrieval.context import ContextRequest, build
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from tests.helpers import make_version_6
from tests.small_store import build_small_store

# The store's behaviour, on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_engines

# The small store's memories (ids as it numbers them):
TABS, CAUSE, LAYOUT, FIXTURES, CELERY, SMTP = 1, 4, 5, 6, 7, 9
PATHLIB, RUFF, SPACES = 10, 12, 13


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("links") / "data"
    service = MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())
    try:
        build_small_store(service)
        service.rebuild_links()
        with service.db.reading() as session:
            assert repo.get_item(session, CAUSE).content.startswith("The root cause")
            assert repo.get_item(session, SPACES).content.startswith("We always indent with four")
    finally:
        service.close()
    return data


@pytest.fixture
def data(built: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(built, copy)
    return copy


@pytest.fixture
def service(data: Path):  # type: ignore[no-untyped-def]
    opened = MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())
    yield opened
    opened.close()


def stored(service: MemoryService, *, kind: str | None = None) -> set[tuple[int, int, str, str]]:
    with service.db.reading() as session:
        rows = session.connection().execute(
            text("SELECT source_id, target_id, kind, origin FROM memory_link")
        )
        return {tuple(r) for r in rows if kind is None or r[2] == kind}  # type: ignore[misc]


def test_words_worth_sharing() -> None:
    assert terms_of("Edit src/api.ts and keep parse_config; the Tests pass") == {
        "src/api.ts",
        "parse_config",
        "edit",
        "test",
        "pass",
    }
    assert requirement("Deploying requires the schema migrations to have run") == (
        " the schema migrations to have run"
    )
    assert requirement("Before releasing, bump the version") == " bump the version"
    assert requirement("We use ruff for linting") is None


def test_discovery_finds_related_contradicts_and_episodes(service: MemoryService) -> None:
    report = service.rebuild_links()  # the fixture's rebuild found them all
    assert (report.added, report.updated, report.removed) == (0, 0, 0)
    assert report.by_kind == {"contradicts": 1, "part-of": 13, "related": 3}
    assert stored(service, kind="contradicts") == {(TABS, SPACES, "contradicts", "discovered")}
    related = {(a, b) for a, b, _, _ in stored(service, kind="related")}
    assert {(CAUSE, LAYOUT), (CAUSE, FIXTURES)} <= related  # tests, fixtures
    assert (TABS, SPACES) not in related  # their conflict says more
    assert not any(PATHLIB in pair or RUFF in pair for pair in related)  # another project
    part_of = stored(service, kind="part-of")
    assert len(part_of) == 13  # each memory to its conversation's episode
    labels = [link.line() for link in service.memory_links(TABS)]
    assert labels[0].startswith("contradicts: #13 We always indent with four spaces")
    assert any(line.startswith("part-of: episode #") for line in labels)


def test_supersedes_from_superseded_by_and_rebuild_keeps_a_persons_links(
    service: MemoryService,
) -> None:
    with service.db.writing() as session:
        row = repo.get_item(session, CELERY)
        repo.change_item(
            session,
            row,
            {"status": "superseded", "superseded_by": SMTP},
            actor="user",
            action="update",
            group_id="g",
        )
    service.add_link(PATHLIB, RUFF, "depends-on")
    first = service.rebuild_links()
    assert (SMTP, CELERY, "supersedes", "discovered") in stored(service)
    assert [link.label for link in service.memory_links(CELERY)][:1] == ["superseded by"]
    before = stored(service)
    second = service.rebuild_links()
    assert stored(service) == before  # idempotent
    assert (second.added, second.updated, second.removed) == (0, 0, 0)
    assert second.total == first.total
    assert (PATHLIB, RUFF, "depends-on", "person") in before
    # A discovered link a person removed stays removed; undo brings it back.
    service.remove_link(SPACES, TABS, "contradicts")
    service.rebuild_links()
    assert not [link for link in service.memory_links(TABS) if link.kind == "contradicts"]
    service.undo()
    assert [link.other_id for link in service.memory_links(TABS) if link.kind == "contradicts"] == [
        SPACES
    ]


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: object) -> tuple[int, str, str]:
    code = main(["--data-dir", str(data), *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_add_list_remove_undo_and_errors(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, data, "links", "add", RUFF, PATHLIB, "--kind", "depends-on")
    assert code == 0 and out.startswith(f"Linked #{RUFF} → depends-on: #{PATHLIB} I prefer")
    code, out, _ = run(capsys, data, "links", "list", PATHLIB, "--json")
    listed = json.loads(out)
    assert {"label": "needed by", "target": RUFF, "origin": "person"}.items() <= listed[0].items()
    code, out, _ = run(capsys, data, "links", "list", RUFF)
    assert f"depends-on: #{PATHLIB} I prefer pathlib" in out and "(person)" in out

    code, out, _ = run(capsys, data, "links", "remove", RUFF, PATHLIB, "--kind", "depends-on")
    assert code == 0 and "Removed the depends-on link" in out
    assert "depends-on" not in run(capsys, data, "links", "list", RUFF)[1]
    code, out, _ = run(capsys, data, "undo")
    assert (code, out.strip()) == (0, "Undid the last change.")
    assert f"depends-on: #{PATHLIB}" in run(capsys, data, "links", "list", RUFF)[1]

    code, out, err = run(capsys, data, "links", "add", RUFF, 999, "--json")
    assert code == 1 and json.loads(out) == {"error": "no memory with id 999"}
    code, _, err = run(capsys, data, "links", "list", 999)
    assert code == 1 and "no memory with id 999" in err and "Traceback" not in err
    code, _, err = run(capsys, data, "links", "add", RUFF, RUFF)
    assert code == 1 and "cannot be linked to itself" in err
    code, _, err = run(capsys, data, "links", "remove", RUFF, TABS, "--kind", "related")
    assert code == 1 and f"memory {RUFF} has no related link to {TABS}" in err
    code, out, _ = run(capsys, data, "links", "rebuild", "--json")
    assert code == 0 and json.loads(out)["by_kind"]["contradicts"] == 1


def test_a_version_6_store_gains_its_links(data: Path) -> None:
    make_version_6(data / "memory.db")
    with sqlite3.connect(data / "memory.db") as conn:
        found = conn.execute("SELECT name FROM sqlite_master WHERE name='memory_link'")
        assert not found.fetchall()
    conn.close()
    service = MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())
    try:
        assert service.db.previous_version == 6
        assert (TABS, SPACES, "contradicts", "discovered") in stored(service)
    finally:
        service.close()


def test_context_pulls_in_what_a_chosen_memory_depends_on(service: MemoryService) -> None:
    """Celery's memory depends on the SMTP one (said by hand): a task about Celery
    brings the SMTP memory right after it, marked, within the budget."""
    request = ContextRequest(task="celery background jobs retries", project="/home/dev/shop")
    with service.db.reading() as session:
        before = build(session.connection(), request, service.clock())
    assert CELERY in before.item_ids and SMTP not in before.item_ids
    service.add_link(CELERY, SMTP, "depends-on")
    levels = set()
    for budget in range(150, 2001, 10):
        request = ContextRequest(
            task="celery background jobs retries", project="/home/dev/shop", budget=budget
        )
        with service.db.reading() as session:
            plan = build(session.connection(), request, service.clock())
        assert estimate_tokens(plan.render()) <= budget
        entries = [e for t in plan.tiers for e in t.entries if e.item_id is not None]
        ids = [e.item_id for e in entries]
        if SMTP in ids:
            assert ids[ids.index(SMTP) - 1] == CELERY  # right after what it is linked to
            linked = entries[ids.index(SMTP)]
            assert linked.text.endswith(f"(linked to #{CELERY})")
            levels.add(linked.level)
    assert linked.level == "full"  # with room to spare, in full
    assert levels - {"full"}  # and shorter when the budget is tight
    # Another project's request does not see it.
    service.add_link(CELERY, PATHLIB, "depends-on")
    with service.db.reading() as session:
        plan = build(session.connection(), request, service.clock())
    assert PATHLIB not in plan.item_ids


def test_the_readme_commands_run_as_written(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Links between memories\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert [shlex.split(line, comments=True)[:3] for line in lines] == [
        ["memory-app", "links", "add"],
        ["memory-app", "links", "list"],
        ["memory-app", "links", "remove"],
        ["memory-app", "links", "rebuild"],
    ]
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))
    for line in lines:
        code = main(shlex.split(line, comments=True)[1:])
        out, err = capsys.readouterr()
        assert code == 0, f"`{line}`: {err}"
        assert out.strip(), line
        if " list " in line:
            assert "depends-on: #2 We always use async/await" in out
