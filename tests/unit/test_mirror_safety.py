"""The file mirror's safety rules, through the real CLI on real stores and folders: a
possible secret never leaves the store through it (held, forgotten after being held, or
in an earlier value of a history); no symbolic link is followed, written, removed or
read through; an export never drops memories the store lacks unless told to prune; a
bad number or a duplicate member is refused with its file and line, nothing written;
two machines' new memories that took the same id both come in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_app.extract.base import ExtractedItem
from memory_app.store.mirror_files import MirrorError
from memory_app.store.mirror_merge import merge_mirror
from memory_app.store.mirror_read import read_mirror
from tests.small_store import build_small_store
from tests.unit.test_mirror_cli import (
    ANSIBLE,
    _all_text,
    dump,
    ok,
    open_store,
    refused,
    run,
    scripted,
    snapshot_files,
)

TOKEN = "Zq8xK2mP9vL4nR7tW1yB5cD3fG6hJ0aS"
PUFFIN = f"# Branch Memory: main\n\n## Facts\n\n- The staging deploy token is {TOKEN}\n"
VAULT = "The staging deploy token lives in the vault."


def held_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """A store whose one memory was learnt from Puffin's branch memory and held for
    review: its text holds a random-looking token."""
    notes = tmp_path / "main.md"
    notes.write_text(PUFFIN, encoding="utf-8")
    data = tmp_path / "data"
    assert ok(capsys, "import", notes, "--data-dir", data)["items_added"] == 1
    [memory] = ok(capsys, "list", "--status", "held", "--data-dir", data)
    assert memory["id"] == 1
    return data


# -- 1. possible secrets ------------------------------------------------------------------


def test_a_memory_forgotten_while_held_is_not_exported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = held_store(capsys, tmp_path)
    ok(capsys, "forget", 1, "--data-dir", data)
    mirror = tmp_path / "mirror"
    exported = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert exported["memories"] == 0 and exported["held_left_out"] == 1
    assert TOKEN not in _all_text(mirror) and TOKEN.lower() not in _all_text(mirror)
    assert not (mirror / "items").exists()


def test_kept_then_forgotten_is_left_out_and_its_file_removed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Kept, it is exported as it says; forgotten after being held, its file goes
    (the store's own memory: no --prune needed)."""
    data = held_store(capsys, tmp_path)
    ok(capsys, "keep", 1, "--data-dir", data)
    mirror = tmp_path / "mirror"
    first = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert first["memories"] == 1 and first["history_withheld"] == 0
    assert TOKEN in _all_text(mirror)  # a person kept it: it is what the memory says
    ok(capsys, "forget", 1, "--data-dir", data)
    second = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert second["held_left_out"] == 1 and len(second["removed"]) == 1
    assert second["pruned"] == [] and TOKEN not in _all_text(mirror)


def test_an_earlier_value_that_looks_like_a_secret_is_replaced_in_the_history(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Edited while held (the token taken out), then kept: the memory is exported, its
    history with a placeholder for the token; its file name and identity stay the same
    through later edits, so other stores update it rather than add it again."""
    data = held_store(capsys, tmp_path)
    ok(capsys, "edit", 1, "--content", VAULT, "--data-dir", data)
    ok(capsys, "keep", 1, "--data-dir", data)
    mirror = tmp_path / "mirror"
    exported = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert exported["memories"] == 1 and exported["history_withheld"] == 2
    assert TOKEN not in _all_text(mirror) and TOKEN.lower() not in _all_text(mirror)
    [path] = (mirror / "items").rglob("*.json")
    assert path.name == "1-the-staging-deploy-token-is-redacted-possible.json"
    history = json.loads(path.read_text())["history"]
    assert [e["action"] for e in history] == ["create", "update", "keep"]
    assert history[0]["after"]["content"] == (
        "The staging deploy token is [REDACTED:possible-secret]"
    )
    copy = tmp_path / "copy"
    ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert ok(capsys, "show", 1, "--data-dir", copy)["content"] == VAULT
    again = ok(capsys, "import", "files", mirror, "--data-dir", data)
    assert again["memories_added"] == [] and again["memories_updated"] == []

    ok(capsys, "edit", 1, "--content", "Deploy tokens live in the vault.", "--data-dir", data)
    later = ok(capsys, "export", "files", mirror, "--data-dir", data)
    assert later["removed"] == [] and [p.name for p in (mirror / "items").rglob("*.json")] == [
        path.name
    ]
    updated = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert updated["memories_added"] == [] and updated["memories_updated"] == [1]


# -- 2. symbolic links ----------------------------------------------------------------------


@pytest.fixture
def small(tmp_path: Path) -> Path:
    data = tmp_path / "small"
    service = open_store(data)
    try:
        build_small_store(service)
    finally:
        service.close()
    return data


def test_export_refuses_a_linked_folder_and_touches_nothing_outside(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", small)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "99-precious.json").write_text('{"mine": true}\n')
    category = next(p for p in sorted((mirror / "items").iterdir()))
    shutil.rmtree(category)
    category.symlink_to(outside, target_is_directory=True)
    before = snapshot_files(mirror)
    code, _, err = run(capsys, "export", "files", mirror, "--data-dir", small)
    assert code == 1
    assert f"{category}: is a symbolic link: the mirror's files must be in its folder" in err
    assert (outside / "99-precious.json").read_text() == '{"mine": true}\n'
    assert sorted(p.name for p in outside.iterdir()) == ["99-precious.json"]
    assert snapshot_files(mirror) == before  # nothing written


def test_export_never_writes_through_a_linked_file(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    """A link left where the export writes its temporary file, or in place of a file."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", small)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    path = next((mirror / "items").rglob("*.json"))
    (path.parent / f".{path.name}.tmp").symlink_to(victim)
    path.write_text(path.read_text().replace('"pinned": false', '"pinned": true'))
    code, _, err = run(capsys, "export", "files", mirror, "--data-dir", small)
    assert code == 1 and "is a symbolic link" in err
    assert victim.read_text() == "keep me\n"
    (path.parent / f".{path.name}.tmp").unlink()
    conflicts = mirror / "conflicts.json"
    conflicts.unlink()
    conflicts.symlink_to(victim)
    code, _, err = run(capsys, "export", "files", mirror, "--data-dir", small)
    assert code == 1 and f"{conflicts}: is a symbolic link" in err
    assert victim.read_text() == "keep me\n"


def test_import_reads_nothing_through_a_link(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", small)
    outside = tmp_path / "outside.json"
    path = next((mirror / "items").rglob("*.json"))
    path.rename(outside)
    path.symlink_to(outside)
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: is a symbolic link" in err
    path.unlink()
    outside.rename(path)
    summary = next((mirror / "categories").glob("*.md"))
    summary.rename(tmp_path / "summary.md")
    summary.symlink_to(tmp_path / "summary.md")
    assert f"{summary}: is a symbolic link" in refused(capsys, mirror, tmp_path)


def test_a_mirror_folder_that_is_itself_a_link_is_fine(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    mirror = tmp_path / "mirror"
    mirror.symlink_to(real, target_is_directory=True)
    ok(capsys, "export", "files", mirror, "--data-dir", small)
    assert (real / "manifest.json").is_file()
    assert ok(capsys, "import", "files", mirror, "--data-dir", tmp_path / "copy")["ids_kept"]


# -- 3. memories the store does not have ------------------------------------------------------


def test_export_refuses_a_mirror_with_memories_the_store_lacks(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    """Another machine's mirror, pulled and not imported yet: nothing is removed; once
    imported, exporting keeps its memories (they are this store's now)."""
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", small)
    mine = tmp_path / "mine"
    service = open_store(mine)
    try:
        service.remember("We deploy on Tuesdays, never on Fridays.")
    finally:
        service.close()
    before = snapshot_files(mirror)
    theirs = len(list((mirror / "items").rglob("*.json")))
    code, _, err = run(capsys, "export", "files", mirror, "--data-dir", mine)
    assert code == 1
    assert f"this mirror has {theirs} memories this store does not (items/" in err
    assert f"run `memory-app import files {mirror}` first, or pass --prune to remove them" in err
    assert snapshot_files(mirror) == before
    ok(capsys, "import", "files", mirror, "--data-dir", mine)
    exported = ok(capsys, "export", "files", mirror, "--data-dir", mine)
    assert exported["pruned"] == [] and exported["memories"] == theirs + 1
    # Only renamed: their ids were taken here, so their files carry this store's ids.
    assert len(list((mirror / "items").rglob("*.json"))) == theirs + 1

    def words(files: list[str]) -> set[str]:
        return {Path(f).name.split("-", 1)[1] for f in files if f.startswith("items/")}

    assert exported["removed"] and words(exported["removed"]) <= words(exported["written"])


# -- 4. bad numbers and duplicates ----------------------------------------------------------


@pytest.fixture
def mirror(capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "mirror"
    ok(capsys, "export", "files", folder, "--data-dir", small)
    return folder


def _set_line(path: Path, starts: str, line: str) -> int:
    """Replace the first line starting so; its number."""
    lines = path.read_text().splitlines()
    at = next(n for n, text in enumerate(lines) if text.startswith(starts))
    lines[at] = line
    path.write_text("\n".join(lines) + "\n")
    return at + 1


def test_a_number_the_database_cannot_hold(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = next((mirror / "items").rglob("*.json"))
    text = path.read_text()
    at = _set_line(path, '    "access_count":', '    "access_count": 99999999999999999999,')
    err = refused(capsys, mirror, tmp_path)
    assert (
        f"{path}: line {at}: the memory: access_count must be a whole number from "
        "-9223372036854775808 to 9223372036854775807"
    ) in err
    path.write_text(text)
    at = _set_line(path, '    "importance":', '    "importance": 1e400,')
    err = refused(capsys, mirror, tmp_path)
    assert f"{path}: line {at}: the memory: importance must be a finite number" in err


def test_a_conflict_member_listed_twice(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = mirror / "conflicts.json"
    data = json.loads(path.read_text())
    members = data["conflicts"][0]["members"]
    members.append({**members[0], "position": len(members)})
    path.write_text(json.dumps(data, indent=2))
    err = refused(capsys, mirror, tmp_path)
    item = members[0]["item_id"]
    assert f"{path}: line " in err
    assert f"memory #{item} is listed twice among the members of conflict #1" in err


def test_a_row_the_database_refuses_names_the_file_and_writes_nothing(
    mirror: Path, tmp_path: Path
) -> None:
    """Past the reader's checks (a mirror changed after reading), the store's own
    refusal is the mirror's error, and the transaction rolls back."""
    read = read_mirror(mirror)
    members = read.conflicts[0].members
    members.append({**members[0], "position": len(members)})
    data = tmp_path / "target"
    service = open_store(data)
    try:
        with pytest.raises(MirrorError) as caught, service.db.writing() as session:
            merge_mirror(session, read)
        assert str(caught.value).startswith(f"{mirror / 'conflicts.json'}: cannot be imported")
        assert "UNIQUE constraint failed: conflict_member" in str(caught.value)
    finally:
        service.close()
    assert all(rows == [] for table, rows in dump(data).items() if table != "category")


# -- 5. two machines, the same new id --------------------------------------------------------


def test_two_machines_new_memories_with_one_id_both_come_in(
    capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(small, a)
    shutil.copytree(small, b)
    said = {a: "We deploy on Tuesdays, never on Fridays.", b: "Release tags look like v1.2.3."}
    new: dict[Path, int] = {}
    for data, text in said.items():
        service = open_store(data)
        try:
            new[data] = service.remember(text)[1].id
        finally:
            service.close()
    assert new[a] == new[b]  # the same next id on both machines
    mirrors = {data: tmp_path / f"mirror-{data.name}" for data in (a, b)}
    for data, folder in mirrors.items():
        ok(capsys, "export", "files", folder, "--data-dir", data)
    # What git makes of the two: B's new file joins A's folder (their names differ).
    merged = mirrors[a]
    [b_file] = (mirrors[b] / "items").rglob(f"{new[b]}-*.json")
    target = merged / b_file.relative_to(mirrors[b])
    assert not target.exists()
    shutil.copyfile(b_file, target)
    # A conflict that names the shared id, told apart by its member's content.
    conflicts = merged / "conflicts.json"
    data = json.loads(conflicts.read_text())
    other = data["conflicts"][0]["members"][0]
    data["conflicts"].append(
        {
            **data["conflicts"][0],
            "id": 99,
            "history": [],
            "members": [
                {**other, "conflict_id": 99, "position": 0},
                {"conflict_id": 99, "item_id": new[b], "position": 1, "content": said[b]},
            ],
        }
    )
    conflicts.write_text(json.dumps(data, indent=2))

    fresh = tmp_path / "fresh"
    report = ok(capsys, "import", "files", merged, "--data-dir", fresh)
    assert report["ids_kept"] is False
    contents = {
        m["content"]: m["id"] for m in ok(capsys, "list", "--limit", "1000", "--data-dir", fresh)
    }
    # One keeps the id (the first file by name), the other takes the next.
    assert sorted((contents[said[a]], contents[said[b]])) == [new[a], new[a] + 1]
    shown = ok(capsys, "show", contents[said[b]], "--data-dir", fresh)
    assert [e["action"] for e in shown["history"]] == ["create"]
    listed = ok(capsys, "conflicts", "list", "--status", "all", "--data-dir", fresh)
    assert [c["item_ids"] for c in listed if contents[said[b]] in c["item_ids"]] == [
        [other["item_id"], contents[said[b]]]
    ]
    # Into each machine's store: the other's memory comes in, nothing doubles.
    for data, theirs in ((a, said[b]), (b, said[a])):
        got = ok(capsys, "import", "files", merged, "--data-dir", data)
        assert len(got["memories_added"]) == 1
        added = ok(capsys, "show", got["memories_added"][0], "--data-dir", data)
        assert added["content"] == theirs
        again = ok(capsys, "import", "files", merged, "--data-dir", data)
        assert again["memories_added"] == []


def test_the_same_memory_in_two_files_is_still_refused(
    capsys: pytest.CaptureFixture[str], mirror: Path, tmp_path: Path
) -> None:
    path = next((mirror / "items").rglob("*.json"))
    copy = path.with_name(path.stem + "-copy.json")
    shutil.copyfile(path, copy)
    err = refused(capsys, mirror, tmp_path)
    first, second = sorted((path, copy))
    assert f"{second}: line " in err and f"is also in {first}" in err


def test_a_memory_superseded_by_a_held_one_still_imports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A stated update whose new text was held: the older memory is exported without
    the successor the mirror leaves out, and the mirror reads back."""
    data = tmp_path / "data"
    service = open_store(data)
    try:
        [older] = scripted(service, "d1", ExtractedItem("project_conventions", ANSIBLE, 0.9))
        text = f"Deploys use the key {TOKEN}"
        update = ExtractedItem("project_conventions", text, 0.9, updates=older)
        [newer] = scripted(service, "d2", update)
        assert service.get_item(newer).status == "held"
        assert service.get_item(older).superseded_by == newer
    finally:
        service.close()
    mirror = tmp_path / "mirror"
    assert ok(capsys, "export", "files", mirror, "--data-dir", data)["held_left_out"] == 1
    copy = tmp_path / "copy"
    ok(capsys, "import", "files", mirror, "--data-dir", copy)
    shown = ok(capsys, "show", older, "--data-dir", copy)
    assert shown["status"] == "superseded" and shown["superseded_by"] is None
