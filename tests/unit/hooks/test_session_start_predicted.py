"""SessionStart adds the memories predicted for the checked-out branch (read from
.git/HEAD, no git process) and the files the project's latest conversation edited: the
hook run as Claude Code runs it, a process over a store the app built."""

from __future__ import annotations

import json
from pathlib import Path

from memory_app.config import resolve_settings
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.hooks.predicted import git_branch
from memory_app.service import MemoryService
from tests.helpers import ScriptedExtractor
from tests.unit.hooks.test_runtime import context_of, hook_env, log_lines, run_hook

NAMED = "Retries in client.ts back off exponentially, at most five attempts."
SILENT = "Keep request timeouts at ten seconds: the gateway cuts longer calls."
ELSEWHERE = "The billing export runs at midnight UTC."


def _store(data: Path, project: Path) -> None:
    extractor = ScriptedExtractor([ExtractedItem("implementation_notes", ELSEWHERE, 0.9)])
    service = MemoryService.open(resolve_settings(data), extractor)
    try:
        older = Transcript(
            source_kind="claude-code",
            turns=(Turn(0, "user", ELSEWHERE),),
            session_id="old",
            branch="main",
            project=str(project),
        )
        service.memorize(older)
        extractor.items = [
            ExtractedItem("implementation_notes", NAMED, 0.9, turn_start=0, turn_end=0),
            ExtractedItem("implementation_notes", SILENT, 0.9, turn_start=1, turn_end=1),
        ]
        turns = (
            Turn(0, "user", NAMED),
            Turn(1, "user", SILENT),
            Turn(2, "assistant", f"[Edit] {project}/src/api/client.ts", "tool_use"),
        )
        latest = Transcript(
            source_kind="claude-code",
            turns=turns,
            session_id="latest",
            branch="feature/retry",
            project=str(project),
        )
        service.memorize(latest)
    finally:
        service.close()


def test_session_start_adds_what_the_branch_and_last_edits_predict(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/retry\n", encoding="utf-8")
    data = tmp_path / "data"
    _store(data, project)
    stdin = json.dumps(
        {"session_id": "s", "cwd": str(project / "src"), "hook_event_name": "SessionStart"}
    )
    # cwd is a folder inside the project: its memories and its repository still count.
    result = run_hook("SessionStart", stdin.encode(), hook_env(data))
    text = context_of(result, "SessionStart")
    assert "Predicted for this branch and these files:" in text
    section = text.split("Predicted for this branch and these files:")[1]
    assert section.index(NAMED) < section.index(SILENT)
    assert "(mentions client.ts)" in section
    assert "(learnt while editing api/client.ts)" in section  # relative to the cwd, src/
    assert ELSEWHERE not in section  # neither on this branch nor about the edited file
    assert log_lines(data) == []


def test_the_branch_comes_from_head_and_a_worktree_pointer(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "deep" / "er").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n", encoding="utf-8")
    assert git_branch(str(repo / "deep" / "er")) == "feature/x"
    (repo / ".git" / "HEAD").write_text("3f2a9c0d1e\n", encoding="utf-8")  # detached
    assert git_branch(str(repo)) is None
    worktree = tmp_path / "wt"
    worktree.mkdir()
    admin = repo / ".git" / "worktrees" / "wt"
    admin.mkdir(parents=True)
    (admin / "HEAD").write_text("ref: refs/heads/fix/y\n", encoding="utf-8")
    (worktree / ".git").write_text(f"gitdir: {admin}\n", encoding="utf-8")
    assert git_branch(str(worktree)) == "fix/y"
    assert git_branch(str(tmp_path / "nowhere")) is None
