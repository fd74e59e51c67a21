"""A person's links between memories in the file mirror (`links.json`): they survive an
export and import into an empty data folder, by the memories' mirror ids; discovered
links are not written (the import discovers them again), a link a person removed stays
removed, a link to a memory the mirror leaves out is not written, an older mirror
without the file still imports, and a wrong link is named with its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.extract.base import ExtractedItem
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import mirror_files as layout
from tests.helpers import ScriptedExtractor, conversation
from tests.small_store import build_small_store

SECRET = "The staging token is ghp_8fJ2kQ9zXw3LmN7pR4tV6yB1cD5eH0sA"


def ok(capsys: pytest.CaptureFixture[str], *args: str | int | Path) -> Any:
    code = main([*(str(a) for a in args), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, f"memory-app {args} exited {code}: {err or out}"
    return json.loads(out)


def open_store(data: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())


def id_of(service: MemoryService, start: str) -> int:
    listed = service.list_items(status=None, limit=100)
    (found,) = [r.id for r in listed if r.content.startswith(start)]
    return found


def links_of(capsys: pytest.CaptureFixture[str], data: Path, item: int) -> set[tuple[Any, ...]]:
    listed = ok(capsys, "links", "list", item, "--data-dir", data)
    return {
        (link["kind"], link["target"], link["origin"], link["direction"])
        for link in listed
        if link["target_type"] == "memory"
    }


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The small store with its links discovered, then a person's work: two links made,
    a discovered one removed, and a link to a memory held as a possible secret."""
    data = tmp_path / "source"
    service = open_store(data)
    try:
        build_small_store(service)
        talk = conversation(("Here are my notes; please remember them for later on.", "Noted."))
        extractor = ScriptedExtractor([ExtractedItem("implementation_notes", SECRET, 0.9)])
        (held,) = MemoryService(service.db, extractor).memorize(talk).items_added
        service.rebuild_links()
        ids = {
            "celery": id_of(service, "Let's go with Celery"),
            "pathlib": id_of(service, "I prefer pathlib"),
            "async": id_of(service, "We always use async/await"),
            "loop": id_of(service, "The root cause was a shared event loop"),
            "layout": id_of(service, "Tests live in tests/"),
            "fixtures": id_of(service, "Please use pytest fixtures"),
            "held": held,
        }
        service.add_link(ids["celery"], ids["pathlib"], "depends-on")
        service.add_link(ids["async"], ids["fixtures"], "related")
        service.remove_link(ids["loop"], ids["layout"], "related")  # discovered, removed
        service.add_link(ids["held"], ids["celery"], "related")
    finally:
        service.close()
    return data, ids


def test_a_persons_links_survive_the_round_trip_into_an_empty_store(
    capsys: pytest.CaptureFixture[str], linked: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    data, ids = linked
    mirror = tmp_path / "mirror"
    exported = ok(capsys, "export", "files", mirror, "--data-dir", data)
    written = json.loads((mirror / layout.LINKS).read_text(encoding="utf-8"))["links"]
    ends = {(w["source_id"], w["target_id"], w["kind"], w["origin"]) for w in written}
    assert ends == {
        (ids["celery"], ids["pathlib"], "depends-on", "person"),
        (ids["async"], ids["fixtures"], "related", "person"),
        (min(ids["loop"], ids["layout"]), max(ids["loop"], ids["layout"]), "related", "rejected"),
    }  # no discovered link, none with the held memory
    assert exported["links"] == 3
    assert json.loads((mirror / layout.MANIFEST).read_text())["counts"]["links"] == 3

    copy = tmp_path / "empty" / "data"
    imported = ok(capsys, "import", "files", mirror, "--data-dir", copy)
    assert imported["ids_kept"] and imported["links_added"] == 3
    assert imported["links_discovered"] > 0  # discovery ran over the imported memories

    assert ("depends-on", ids["pathlib"], "person", "out") in links_of(capsys, copy, ids["celery"])
    assert ("related", ids["fixtures"], "person", "out") in links_of(capsys, copy, ids["async"])
    # Removed by a person: discovery, run by the import, leaves it away; the other
    # links discovery finds are there again.
    loop = links_of(capsys, copy, ids["loop"])
    assert not any(target == ids["layout"] for _, target, _, _ in loop)
    assert {link for link in loop if link[2] == "discovered"} == {
        link for link in links_of(capsys, data, ids["loop"]) if link[2] == "discovered"
    }
    # Exported again: the same links file; imported again: nothing added twice.
    again = tmp_path / "again"
    ok(capsys, "export", "files", again, "--data-dir", copy)
    assert (again / layout.LINKS).read_bytes() == (mirror / layout.LINKS).read_bytes()
    assert ok(capsys, "import", "files", mirror, "--data-dir", copy)["links_added"] == 0


def test_links_follow_memories_that_get_new_ids(
    capsys: pytest.CaptureFixture[str], linked: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    """Into a store whose ids are taken by other memories, a link joins the memories
    it joined in the mirror, under their new ids."""
    data, ids = linked
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", data)
    other = tmp_path / "other"
    service = open_store(other)
    try:
        notes = [
            ExtractedItem("implementation_notes", f"Ticket T-{n}0{n} covers the cart.", 0.9)
            for n in range(16)
        ]
        talk = conversation(("Remember these tickets, they are about the cart totals.", "OK."))
        MemoryService(service.db, ScriptedExtractor(notes)).memorize(talk)
    finally:
        service.close()
    imported = ok(capsys, "import", "files", mirror, "--data-dir", other)
    assert not imported["ids_kept"]
    service = open_store(other)
    try:
        celery = id_of(service, "Let's go with Celery")
        pathlib = id_of(service, "I prefer pathlib")
        assert celery != ids["celery"] and pathlib != ids["pathlib"]
        found = {(x.kind, x.other_id, x.origin) for x in service.memory_links(celery)}
        assert ("depends-on", pathlib, "person") in found
    finally:
        service.close()


def test_an_older_mirror_without_links_still_imports(
    capsys: pytest.CaptureFixture[str], linked: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    data, _ = linked
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", data)
    (mirror / layout.LINKS).unlink()
    imported = ok(capsys, "import", "files", mirror, "--data-dir", tmp_path / "copy")
    assert imported["links_added"] == 0 and imported["memories_added"]


def test_a_wrong_link_is_named_with_its_file_and_line(
    capsys: pytest.CaptureFixture[str], linked: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    data, ids = linked
    mirror = tmp_path / "mirror"
    ok(capsys, "export", "files", mirror, "--data-dir", data)
    path = mirror / layout.LINKS
    path.write_text(path.read_text().replace('"depends-on"', '"blocks"'), encoding="utf-8")
    copy = tmp_path / "copy"
    code = main(["import", "files", str(mirror), "--data-dir", str(copy), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1
    assert "links.json" in error and "line" in error and "'blocks'" in error
    path.write_text(path.read_text().replace('"blocks"', '"depends-on"'), encoding="utf-8")
    text = path.read_text().replace(f'"target_id": {ids["pathlib"]}', '"target_id": 999')
    path.write_text(text, encoding="utf-8")
    assert main(["import", "files", str(mirror), "--data-dir", str(copy), "--json"]) == 1
    assert "memory #999 is not in the mirror" in json.loads(capsys.readouterr().out)["error"]
