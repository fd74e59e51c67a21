"""Projects memory stays out of: paused (`/memory off`), denied by `memoryignore`
patterns or by a `.memoryignore` in the project. Nothing of their sessions is stored."""

from __future__ import annotations

from pathlib import Path

from memory_app.config import Settings
from memory_app.privacy_gate import (
    IGNORE_FILE,
    PROJECT_IGNORE,
    paused_projects,
    set_paused,
    why_excluded,
)
from memory_app.service import MemoryService
from tests.helpers import conversation

RULE = ("Always use uv instead of pip for every install in this repository.", "Noted.")


def _session(project: Path, session: str = "s1") -> object:
    return conversation(RULE, session=session, project=str(project))


def test_a_paused_project_and_its_subfolders_are_not_remembered(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    app = tmp_path / "work" / "app"
    (app / "api").mkdir(parents=True)
    assert set_paused(settings.data_dir, str(app), True) == [str(app.resolve())]
    for folder, session in ((app, "a"), (app / "api", "b")):
        result = service.memorize(_session(folder, session))  # type: ignore[arg-type]
        assert result.status == "skipped" and "memory is off" in (result.reason or "")
    assert service.get_stats().resources == 0
    assert set_paused(settings.data_dir, str(app), False) == []
    assert service.memorize(_session(app, "c")).status == "success"  # type: ignore[arg-type]


def test_deny_patterns_and_a_project_file_keep_projects_out(
    service: MemoryService, settings: Settings, tmp_path: Path
) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.data_dir / IGNORE_FILE).write_text(
        f"# client work stays out\n{tmp_path}/clients/*\n", encoding="utf-8"
    )
    client = tmp_path / "clients" / "acme" / "backend"
    client.mkdir(parents=True)
    own = tmp_path / "own"
    (own / "sub").mkdir(parents=True)
    (own / PROJECT_IGNORE).write_text("", encoding="utf-8")
    free = tmp_path / "free"
    free.mkdir()
    assert "matches" in (why_excluded(settings.data_dir, str(client)) or "")
    assert PROJECT_IGNORE in (why_excluded(settings.data_dir, str(own / "sub")) or "")
    assert why_excluded(settings.data_dir, str(free)) is None
    assert why_excluded(settings.data_dir, None) is None
    for n, folder in enumerate((client, own / "sub", free)):
        service.memorize(_session(folder, f"s{n}"))  # type: ignore[arg-type]
    assert [r.project for r in service.resources()] == [str(free)]


def test_a_damaged_pause_file_pauses_nothing(settings: Settings) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.data_dir / "memory-off.json").write_text("{not json", encoding="utf-8")
    assert paused_projects(settings.data_dir) == []
    assert set_paused(settings.data_dir, str(settings.data_dir), True)  # replaced whole
