"""`memory-app export files DIR` and `memory-app import files DIR`, run through the real
CLI on real stores: the round trip into an empty data folder gives the same `list
--json` (every status), `conflicts list --json` and per-memory history (`show --json`);
exporting is byte-for-byte deterministic and incremental; importing never duplicates
and keeps newer local edits; bad mirrors are refused with the file and line."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.domain.records import ITEM_STATUSES
from memory_app.extract.base import ExtractedItem
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store.mirror_export import ITEM_LEFT_OUT
from memory_app.store.tables import MemoryItemRow, table_of
from tests.helpers import ScriptedExtractor, conversation
from tests.small_store import build_small_store
from tests.unit.test_conflicts_service import said

DOUBLE = "We always use double quotes for strings in Python code."
SINGLE = "We always use single quotes for strings in Python code, never double quotes."
ANSIBLE = "We deploy with Ansible playbooks."
TERRAFORM = "We deploy with Terraform now, not Ansible."
SECRET = "The staging token is ghp_8fJ2kQ9zXw3LmN7pR4tV6yB1cD5eH0sA"
TABLES = (
    "memory_item",
    "audit_event",
    "conflict",
    "conflict_member",
    "conflict_judgement",
    "resource",
    "category",
    "category_summary",
    "context_exclusion",
)


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Any:
    """`memory-app ARGS --json` that must succeed: its parsed output."""
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, f"memory-app {' '.join(map(str, args))} exited {code}: {err or out}"
    return json.loads(out)


def open_store(data: Path, extractor: Any = None) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), extractor or OfflineExtractor())


def id_of(service: MemoryService, start: str) -> int:
    """The id of the one memory whose content starts so."""
    listed = service.list_items(status=None, limit=1000)
    found = [r.id for r in listed if r.content.startswith(start)]
    assert len(found) == 1, (start, found)
    return found[0]


def scripted(service: MemoryService, session: str, *items: ExtractedItem) -> list[int]:
    """Memorize a two-exchange conversation whose extractor answers `items`."""
    extractor = ScriptedExtractor(items=list(items))
    talk = conversation(
        (f"Here are my notes of session {session}; please remember them for later.", "Noted."),
        session=session,
    )
    result = MemoryService(service.db, extractor).memorize(talk)
    assert result.status == "success", result
    return list(result.items_added)


def cli(*args: str | int | Path) -> None:
    """`memory-app ARGS` that must succeed (its output goes to pytest's capture)."""
    assert main([str(a) for a in args]) == 0, args


def build_store(data: Path) -> dict[str, int]:
    """The pipeline's small store (open conflict #1: tabs against four spaces) and then
    what a person does: a second conflict resolved (its older memory superseded), a
    stated update (superseded by the extractor), an edit with history, a pin, an
    archive, a forget, a category added and another merged into it, a context
    exclusion, and a memory held for review as a possible secret."""
    service = open_store(data)
    try:
        build_small_store(service)
        service.memorize(said(DOUBLE, 30, "q1"))
        service.memorize(said(SINGLE, 1, "q2"))
        [ansible] = scripted(service, "d1", ExtractedItem("project_conventions", ANSIBLE, 0.9))
        update = ExtractedItem("project_conventions", TERRAFORM, 0.9, updates=ansible)
        [terraform] = scripted(service, "d2", update)
        [held] = scripted(service, "s1", ExtractedItem("implementation_notes", SECRET, 0.9))
        service.add_category("Deployment", "How the shop is shipped")
        service.add_category("Ops notes")
        service.archive(id_of(service, "We use ruff for linting and formatting"))
        pathlib = id_of(service, "I prefer pathlib over os.path")
        service.set_context_exclusion(pathlib, "/home/dev/shop", True)
        ids = {
            "ansible": ansible,
            "terraform": terraform,
            "held": held,
            "pathlib": pathlib,
            "celery": id_of(service, "Let's go with Celery for background jobs"),
            "zod": id_of(service, "We decided to use zod for validating API responses"),
            "commits": id_of(service, "Commit messages follow Conventional Commits"),
        }
    finally:
        service.close()
    zod = "Validate API responses with zod schemas."
    cli("edit", ids["zod"], "--content", zod, "--tags", "api,validation", "--data-dir", data)
    cli("edit", ids["zod"], "--confidence", "0.8", "--data-dir", data)
    cli("edit", ids["pathlib"], "--pin", "--data-dir", data)
    cli("forget", ids["commits"], "--data-dir", data)
    cli("edit", ids["celery"], "--category", "ops_notes", "--data-dir", data)
    cli("edit", ids["terraform"], "--category", "deployment", "--data-dir", data)
    cli("conflicts", "resolve", 2, "--keep", "newer", "--note", "black", "--data-dir", data)
    service = open_store(data)
    try:
        service.merge_category("ops_notes", "deployment")
    finally:
        service.close()
    return ids


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The store every test starts from (copied by those that change it)."""
    data = tmp_path_factory.mktemp("source") / "data"
    return data, build_store(data)


@pytest.fixture
def store(source: tuple[Path, dict[str, int]], tmp_path: Path) -> Path:
    data = tmp_path / "store"
    shutil.copytree(source[0], data)
    return data


def views(capsys: pytest.CaptureFixture[str], data: Path) -> dict[str, Any]:
    """What a person sees through the CLI: every status's list, all conflicts, and each
    memory with its history."""
    lists = {
        status: ok(capsys, "list", "--status", status, "--limit", "1000", "--data-dir", data)
        for status in ITEM_STATUSES
    }
    ids = sorted(m["id"] for listed in lists.values() for m in listed)
    return {
        "lists": lists,
        "conflicts": ok(capsys, "conflicts", "list", "--status", "all", "--data-dir", data),
        "shown": {i: ok(capsys, "show", i, "--data-dir", data) for i in ids},
        "categories": ok(capsys, "categories", "--data-dir", data),
        # Found by full-text search (ids: the scores move with the held memory's words).
        "search": [
            m["id"]
            for m in ok(capsys, "search", "quotes", "--status", "superseded", "--data-dir", data)
        ],
    }


def snapshot_files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def dump(data: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(data / "memory.db")
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    finally:
        conn.close()


# -- the round trip ---------------------------------------------------------------------------


def test_round_trip_into_an_empty_data_folder(
    capsys: pytest.CaptureFixture[str],
    source: tuple[Path, dict[str, int]],
    tmp_path: Path,
) -> None:
    data, ids = source
    before = views(capsys, data)
    # The store has what the round trip must carry.
    lists = before["lists"]
    assert {s for s, listed in lists.items() if listed} == {
        "active",
        "held",
        "archived",
        "superseded",
        "deleted",
    }
    assert [m["id"] for m in lists["held"]] == [ids["held"]]
    assert any(m["pinned"] for m in lists["active"])
    statuses = {c["id"]: c["status"] for c in before["conflicts"]}
    assert statuses[1] == "unresolved" and statuses[2] == "accepted_newer"
    assert "auto_resolved" in statuses.values()  # the stated update
    zod = before["shown"][ids["zod"]]
    assert [e["action"] for e in zod["history"]] == ["create", "update", "update"]
    assert before["shown"][ids["ansible"]]["superseded_by"] == ids["terraform"]
    assert "deployment" in {c["key"] for c in before["categories"]}

    mirror = tmp_path / "mirror"
    exported = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert exported["held_left_out"] == 1 and SECRET not in _all_text(mirror)
    copy = tmp_path / "empty" / "data"
    imported = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert imported["ids_kept"] and imported["errors"] == []
    assert imported["conflicts_found"] == []

    after = views(capsys, copy)
    before["shown"].pop(ids["held"])  # held for review: never exported (a possible secret)
    assert [m["id"] for m in before["lists"].pop("held")] == [ids["held"]]
    assert after["lists"].pop("held") == []
    for shown in (*before["shown"].values(), *after["shown"].values()):
        shown.pop("decay_factor")  # nightly maintenance's, recomputed (not exported)
    assert after == before

    # Everything else the mirror holds came back too: exported again, the same bytes
    # (summaries, digests, exclusions, verdicts, category history, conversations).
    again = tmp_path / "again"
    ok(capsys, "export", "files", again, "--data-dir", copy)
    assert _contents(again) == _contents(mirror)
    service = open_store(copy)
    try:
        assert service.context_exclusions("/home/dev/shop") == {ids["pathlib"]}
        assert service.undo() != []  # the last person's change, undone here
    finally:
        service.close()


def _contents(folder: Path) -> dict[str, bytes]:
    return {k: v for k, (v, _) in snapshot_files(folder).items()}


def _all_text(folder: Path) -> str:
    return "".join(v.decode() for v in _contents(folder).values())


def test_every_column_of_a_memory_is_in_its_file(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    """Rows are written column by column: a column a migration adds (branch, schema 5)
    is in the mirror, and read back, without a change to the mirror's code."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    columns = {c.name for c in table_of(MemoryItemRow).columns} - set(ITEM_LEFT_OUT)
    files = sorted((mirror / "items").rglob("*.json"))
    assert files
    for path in files:
        assert set(json.loads(path.read_text())["memory"]) == columns, path


# -- export -------------------------------------------------------------------------------------


def test_export_is_deterministic_and_incremental(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path, source: Any
) -> None:
    ids = source[1]
    mirror = tmp_path / "mirror"
    (mirror / ".git").mkdir(parents=True)  # a git checkout: its own files are left alone
    (mirror / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    first = ok(capsys, "export", "files", mirror, "--data-dir", store)
    assert first["removed"] == [] and first["unchanged"] == 0
    files = snapshot_files(mirror)
    assert ".git/HEAD" in files and "manifest.json" in files and "conflicts.json" in files
    assert {"resources/index.json", "categories/index.json", "categories/history.json"} <= set(
        files
    )

    second = ok(capsys, "export", "files", mirror, "--data-dir", store)
    assert second["written"] == [] and second["removed"] == []
    assert snapshot_files(mirror) == files  # the same bytes, not even rewritten

    zod_file = _item_file(mirror, ids["zod"])
    ok(capsys, "forget", ids["zod"], "--data-dir", store)
    ok(capsys, "edit", ids["pathlib"], "--category", "deployment", "--data-dir", store)
    gone = ids["celery"]  # removed from the store altogether (as an older backup would be)
    gone_file = _item_file(mirror, gone)
    conn = sqlite3.connect(store / "memory.db")
    with conn:
        conn.execute("DELETE FROM memory_item WHERE id = ?", (gone,))
    conn.close()
    pathlib_file = _item_file(mirror, ids["pathlib"])

    # A memory the store does not have (it cannot tell it from one another machine
    # added): refused, nothing written, until told to prune.
    before = snapshot_files(mirror)
    code, _, err = run(capsys, "export", "files", mirror, "--data-dir", store)
    assert code == 1 and err.strip() == (
        f"memory-app: error: {mirror}: this mirror has 1 memory this store does not "
        f"({gone_file}): run `memory-app import files {mirror}` first, or pass --prune "
        "to remove it"
    )
    assert snapshot_files(mirror) == before
    third = ok(capsys, "export", "files", mirror, "--prune", "--data-dir", store)
    assert third["pruned"] == [gone_file]
    now = snapshot_files(mirror)
    assert zod_file in third["written"] and '"status": "deleted"' in now[zod_file][0].decode()
    assert set(third["removed"]) == {gone_file, pathlib_file}
    moved = _item_file(mirror, ids["pathlib"])
    assert moved.startswith("items/deployment/") and moved in third["written"]
    assert moved.split("/")[-1] == pathlib_file.split("/")[-1]  # the same name
    untouched = set(files) - set(third["written"]) - set(third["removed"])
    assert len(untouched) > 10
    assert all(now[name] == files[name] for name in untouched)


def _item_file(mirror: Path, item_id: int) -> str:
    found = [
        p.relative_to(mirror).as_posix() for p in (mirror / "items").rglob(f"{item_id}-*.json")
    ]
    assert len(found) == 1, found
    return found[0]


def test_export_refuses_a_folder_that_holds_something_else(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "photos"
    (folder / "items").mkdir(parents=True)
    (folder / "items" / "cat.md").write_text("my cat\n")
    code, _, err = run(capsys, "export", "files", folder, "--data-dir", store)
    assert code == 1
    assert f"{folder}: is not empty and holds no manifest.json (items)" in err
    assert (folder / "items" / "cat.md").read_text() == "my cat\n"


# -- import -------------------------------------------------------------------------------------


def test_importing_twice_changes_nothing(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    copy = tmp_path / "copy"
    first = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert len(first["memories_added"]) > 15
    before = dump(copy)
    second = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert second["memories_added"] == [] and second["memories_updated"] == []
    assert second["memories_unchanged"] == len(first["memories_added"])
    assert second["conflicts_added"] == [] and second["events_added"] == 0
    assert dump(copy) == before
    # And into the store it came from: nothing either.
    before = dump(store)
    again = ok(capsys, "import", "files", mirror, "--data-dir", store)
    assert again["memories_added"] == [] and dump(store) == before


def test_a_store_with_some_of_them_gains_the_rest_and_keeps_its_newer_edits(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path, source: Any
) -> None:
    """Two machines sharing a mirror: B imported A's; then A and B both edit."""
    ids = source[1]
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    other = tmp_path / "other"
    ok(capsys, "import", "files", mirror, "--data-dir", other)

    pathlib = ids["pathlib"]
    ok(capsys, "edit", pathlib, "--tags", "from-a", "--data-dir", store)  # A, earlier
    ok(capsys, "edit", pathlib, "--tags", "from-b", "--data-dir", other)  # B, later
    ok(
        capsys,
        "edit",
        ids["zod"],
        "--content",
        "Zod validates every API answer.",
        "--data-dir",
        store,
    )  # only A
    ok(
        capsys,
        "conflicts",
        "resolve",
        "1",
        "--keep",
        "both",
        "--note",
        "Makefiles use tabs",
        "--data-dir",
        store,
    )
    service = open_store(store)
    try:
        added = service.memorize(said("We always pin dependencies with uv lock files.", 1, "u"))
        assert len(added.items_added) == 1
    finally:
        service.close()
    ok(capsys, "export", "files", mirror, "--data-dir", store)

    report = ok(capsys, "import", "files", mirror, "--data-dir", other)
    assert report["memories_added"] == list(added.items_added)  # its id was free in B
    assert ids["zod"] in report["memories_updated"]
    assert pathlib not in report["memories_updated"]
    assert report["conflicts_updated"] == [1]
    b = views(capsys, other)
    assert b["shown"][pathlib]["tags"] == ["from-b"]  # B's edit was the later one
    assert b["shown"][ids["zod"]]["content"] == "Zod validates every API answer."
    assert b["shown"][ids["zod"]]["history"][-1]["action"] == "import"
    assert next(c for c in b["conflicts"] if c["id"] == 1)["status"] == "kept_both_with_context"
    everything = [m for listed in b["lists"].values() for m in listed]
    assert len({(m["category"], m["content"]) for m in everything}) == len(everything)
    a = views(capsys, store)
    assert len(everything) == sum(len(v) for k, v in a["lists"].items() if k != "held")
    # Again: nothing more.
    before = dump(other)
    again = ok(capsys, "import", "files", mirror, "--data-dir", other)
    assert again["memories_added"] == [] and again["memories_updated"] == []
    assert dump(other) == before


def test_memories_learnt_separately_match_by_content(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    """A store that learnt the same conversations itself (other times, other ids) gains
    only what it lacks: a memory edited or moved in the mirror is still recognized by
    the words it was learnt with, and the store's own version stays."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    own = tmp_path / "own"
    service = open_store(own)
    try:
        service.memorize(said("Deploys happen on Fridays after lunch, never before.", 5, "f"))
        build_small_store(service)
        mine = {r.id: r.content for r in service.list_items(status=None, limit=1000)}
    finally:
        service.close()
    report = ok(capsys, "import", "files", mirror, "--data-dir", own)
    assert report["ids_kept"] is False  # its ids were taken by this store's memories
    seen = views(capsys, own)
    everything = {m["id"]: m["content"] for listed in seen["lists"].values() for m in listed}
    assert {everything[i] for i in report["memories_added"]} == {
        DOUBLE,
        SINGLE,
        ANSIBLE,
        TERRAFORM,
    }
    assert len(set(everything.values())) == len(everything) == len(mine) + 4
    assert {i: everything[i] for i in mine} == mine  # its own, as they were
    assert report["memories_updated"] == []  # learnt here later than edited there
    # The mirror's conflicts came with their memories (the tabs one matched this store's).
    statuses = sorted(c["status"] for c in seen["conflicts"])
    assert statuses == ["accepted_newer", "auto_resolved", "unresolved"]


def test_added_memories_are_checked_against_the_stores_own(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    own = tmp_path / "own"
    service = open_store(own)
    try:
        learnt = service.memorize(said("We always indent with two spaces in this repo.", 3, "t"))
    finally:
        service.close()
    report = ok(capsys, "import", "files", mirror, "--data-dir", own)
    assert report["conflicts_found"]
    found = [
        c
        for c in ok(capsys, "conflicts", "list", "--data-dir", own)
        if c["id"] in report["conflicts_found"]
    ]
    assert found and all(learnt.items_added[0] in c["item_ids"] for c in found)


def test_an_older_mirror_without_a_column_and_a_newer_one_with_more_still_read(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path, source: Any
) -> None:
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    path = mirror / _item_file(mirror, source[1]["pathlib"])
    data = json.loads(path.read_text())
    data["memory"].pop("branch")  # written before schema 5 added it
    data["memory"]["mood"] = "cheerful"  # written by a store with a column this one lacks
    path.write_text(json.dumps(data, indent=2))
    copy = tmp_path / "copy"
    report = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert report["ignored_fields"] == {"memory_item.mood": 1}
    assert ok(capsys, "show", source[1]["pathlib"], "--data-dir", copy)["branch"] is None


def test_a_memory_written_by_hand_without_history_stays_itself(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path, source: Any
) -> None:
    """Its creation is recorded on import, so an edit here does not make the next
    import take it for another memory."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    pathlib = source[1]["pathlib"]
    path = mirror / _item_file(mirror, pathlib)
    data = json.loads(path.read_text())
    data["history"] = []
    path.write_text(json.dumps(data, indent=2))
    copy = tmp_path / "copy"
    ok(capsys, "import", "files", mirror, "--data-dir", copy)
    history = ok(capsys, "show", pathlib, "--data-dir", copy)["history"]
    assert [(e["actor"], e["action"]) for e in history] == [("system", "create")]
    ok(capsys, "edit", pathlib, "--content", "Use pathlib everywhere.", "--data-dir", copy)
    again = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert again["memories_added"] == [] and again["memories_updated"] == []


def test_a_conversation_known_by_reference_is_not_retried_here(
    capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path
) -> None:
    """Pending on the machine that has its text: here there is nothing to extract."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    index = mirror / "resources" / "index.json"
    data = json.loads(index.read_text())
    data["resources"][0]["status"] = "pending"
    index.write_text(json.dumps(data, indent=2))
    copy = tmp_path / "copy"
    assert ok(capsys, "import", "files", mirror, "--data-dir", copy)["resources_added"] > 1
    assert ok(capsys, "retry", "--data-dir", copy)["retried"] == 0


# -- bad mirrors ----------------------------------------------------------------------------------


@pytest.fixture
def mirror(capsys: pytest.CaptureFixture[str], store: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "mirror"
    ok(capsys, "export", "files", folder, "--data-dir", store)
    return folder


def refused(capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path) -> str:
    """Import into an empty store that must fail and stay empty; the error text."""
    data = tmp_path / "target"
    code, out, err = run(capsys, "import", "files", mirror, "--data-dir", data)
    assert code == 1 and out == ""
    code, out, _ = run(capsys, "import", "files", mirror, "--data-dir", data, "--json")
    assert code == 1 and set(json.loads(out)) == {"error"}
    assert ok(capsys, "stats", "--data-dir", data)["resources"] == 0  # nothing written
    return err


def test_a_folder_that_is_not_a_mirror(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./files here: `import files DIR` means a mirror
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.md").write_text("- buy milk\n")
    err = refused(capsys, folder, tmp_path)
    assert err.strip() == (
        f"memory-app: error: {folder}: is not a memory mirror: it has no manifest.json "
        "(`memory-app export files DIR` writes one)"
    )
    assert "no such folder" in refused(capsys, tmp_path / "nowhere", tmp_path)


def test_a_malformed_file_is_named_with_its_line(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = next((mirror / "items").rglob("*.json"))
    lines = path.read_text().splitlines()
    at = next(n for n, line in enumerate(lines) if '"content":' in line)
    lines[at] = lines[at].rstrip(",")  # a comma lost in a hand edit
    path.write_text("\n".join(lines) + "\n")
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: line {at + 2}: not valid JSON: Expecting ',' delimiter" in err


def test_a_wrong_value_is_named_with_its_field_and_line(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = next((mirror / "items").rglob("*.json"))
    text = path.read_text()
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith('    "confidence":'))
    lines[at] = '    "confidence": 1.7,'
    path.write_text("\n".join(lines) + "\n")
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: line {at + 1}: confidence: confidence must be a number between 0 and 1" in err

    lines[at] = '    "confidence": "high",'
    path.write_text("\n".join(lines) + "\n")
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: line {at + 1}: the memory: confidence must be a number, got 'high'" in err


def test_a_git_merge_conflict_left_in_a_file(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = mirror / "conflicts.json"
    lines = path.read_text().splitlines()
    lines[3:3] = ["<<<<<<< HEAD", '      "notes": "mine",', "=======", ">>>>>>> theirs"]
    path.write_text("\n".join(lines) + "\n")
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: line 4: an unresolved git merge conflict" in err


def test_a_mirror_from_a_newer_version(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    manifest = mirror / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"version": 1', '"version": 2'))
    err = refused(capsys, mirror, tmp_path)
    assert (
        f"{manifest}: line 3: was written by a newer Memory Curator (mirror format 2; this "
        "one reads up to 1): update memory-app to import it"
    ) in err


def test_a_reference_the_mirror_cannot_keep(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    index = mirror / "resources" / "index.json"
    data = json.loads(index.read_text())
    data["resources"] = data["resources"][1:]  # the first conversation's entry, deleted
    index.write_text(json.dumps(data, indent=2))
    err = refused(capsys, mirror, tmp_path)
    assert (
        "source_resource_id names conversation #1, which resources/index.json does not list" in err
    )


# -- as written ------------------------------------------------------------------------------------


def test_the_readme_commands_run_as_written(
    capsys: pytest.CaptureFixture[str], store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Git mirror\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert [shlex.split(line, comments=True)[:3] for line in lines] == [
        ["memory-app", "export", "files"],
        ["memory-app", "import", "files"],
    ]
    home = Path(os.environ["HOME"])  # a temporary one (tests/conftest.py)
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(store))
    for line in lines:
        words = [
            str(home) + word[1:] if word.startswith("~/") else word
            for word in shlex.split(line, comments=True)
        ]
        code, out, err = run(capsys, *words[1:])
        assert code == 0, f"`{line}`: {err}"
    assert (home / "memory-mirror" / "manifest.json").is_file()
    assert "Memories: 0 added, 0 updated" in out  # its own mirror: nothing new


def test_a_conversations_folder_called_files_still_imports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`import files X` reads a mirror only when X is one (or there is no ./files)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "notes.md").write_text(
        "## User\n\nWe use pytest for every test in this repo, never unittest.\n\n"
        "## Assistant\n\nUnderstood: pytest only.\n",
        encoding="utf-8",
    )
    (tmp_path / "more.md").write_text(
        "## User\n\nWe always write commit messages in the imperative mood.\n\n"
        "## Assistant\n\nWill do.\n",
        encoding="utf-8",
    )
    report = ok(capsys, "import", "files", "more.md", "--data-dir", tmp_path / "data")
    assert report["files"] == 2 and report["items_added"] == 2


def test_a_mirror_imports_without_an_api_key_whatever_extractor_is_chosen(
    capsys: pytest.CaptureFixture[str],
    store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A mirror holds memories already: `import files` extracts nothing, so the Claude
    extractor chosen without a key does not stop it (a conversation import would)."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", store)
    monkeypatch.setenv("MEMORY_APP_EXTRACTOR", "claude")
    added = ok(capsys, "import", "files", mirror, "--data-dir", tmp_path / "copy")
    assert len(added["memories_added"]) > 15
    (tmp_path / "notes.md").write_text("We always use tabs.\n", encoding="utf-8")
    code, _out, err = run(capsys, "import", tmp_path / "notes.md", "--data-dir", tmp_path / "c2")
    assert code == 1 and "API key" in err
