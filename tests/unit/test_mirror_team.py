"""A memory's team identity in the file mirror: its `uid` and `sharing` travel with it,
this store's sync state with a team store (`team_seq`, `team_dirty`) does not, and the
import recognises a memory by its uid even when its words and origin changed."""

from __future__ import annotations

import json
from pathlib import Path

from memory_app.config import resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.operations.mirror import export_files, import_files
from memory_app.service import MemoryService
from memory_app.store import mirror_files as layout
from tests.small_store import build_small_store


def open_store(data: Path) -> MemoryService:
    return MemoryService.open(resolve_settings(data, env={}), OfflineExtractor())


def memory_files(folder: Path) -> list[dict[str, object]]:
    return [
        json.loads(p.read_text())["memory"]
        for p in sorted(folder.rglob("*.json"))
        if "items" in p.parts
    ]


def test_uid_and_sharing_travel_and_the_sync_state_stays(tmp_path: Path) -> None:
    source = open_store(tmp_path / "source")
    try:
        build_small_store(source)
        first = source.list_items(limit=1)[0]
        source.publish([first.id])
        assert source.get_item(first.id).team_dirty
        export_files(source, tmp_path / "mirror")
    finally:
        source.close()
    written = memory_files(tmp_path / "mirror")
    assert written and all("uid" in m and "sharing" in m for m in written)
    assert not any("team_seq" in m or "team_dirty" in m for m in written)
    assert layout.MANIFEST in {p.name for p in (tmp_path / "mirror").iterdir()}

    target = open_store(tmp_path / "target")
    try:
        import_files(target, tmp_path / "mirror")
        by_uid = {r.uid: r for r in target.list_items(status=None, limit=500)}
        assert by_uid[first.uid].sharing == "team"
        assert by_uid[first.uid].team_seq is None  # this store has not synced it yet
        assert len(by_uid) == len(written)
    finally:
        target.close()


def test_a_memory_is_matched_by_its_uid_when_its_words_and_origin_changed(
    tmp_path: Path,
) -> None:
    source = open_store(tmp_path / "source")
    try:
        build_small_store(source)
        export_files(source, tmp_path / "mirror")
    finally:
        source.close()
    target = open_store(tmp_path / "target")
    try:
        import_files(target, tmp_path / "mirror")
        count = len(target.list_items(status=None, limit=500))
    finally:
        target.close()
    # In the mirror, one memory now says something else and claims another origin.
    path = next(p for p in sorted((tmp_path / "mirror").rglob("*.json")) if "items" in p.parts)
    data = json.loads(path.read_text())
    memory = data["memory"]
    memory["content"] = "Rewritten on the other machine: use uv for every virtualenv."
    memory["extracted_at"] = "2020-01-01T00:00:00+00:00"
    memory["updated_at"] = "2030-01-01T00:00:00+00:00"
    path.write_text(json.dumps(data, indent=2))
    target = open_store(tmp_path / "target")
    try:
        done = import_files(target, tmp_path / "mirror")
        assert done.merged.memories_added == []  # the same memory, not a second one
        after = {r.uid: r for r in target.list_items(status=None, limit=500)}
        assert len(after) == count
        assert after[memory["uid"]].content.startswith("Rewritten on the other machine")
    finally:
        target.close()
