"""Branch memory (seed 001 §7) on a real git repository: memories learnt on each branch
(Claude Code sessions whose `gitBranch` differs, imported as a person would), the
CLAUDE_base.md and CLAUDE_{branch}.md files, and CLAUDE.md's managed block following
`git checkout`, run again by hand and by the post-checkout hook."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.domain.claude_md import BEGIN_MARKER, END_MARKER
from memory_app.retrieval import export_file
from tests.helpers import claude_session_file, system_tool

ROOT = Path(__file__).resolve().parents[3]
WHEN = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
PYTEST = "We use pytest for every test in this repo, never unittest."
REDIS = "We decided to store sessions in Redis, not JWT, so they can be revoked."
INVOICE = "Bug: the invoice total is off by one cent because the tax is rounded per line."
TABS = "Always indent with tabs in this project."
NOTES = f"## User\n\n{TABS}\n\n## Assistant\n\nUnderstood: tabs.\n"
LEARNT = {"main": PYTEST, "feature/auth": REDIS, "feature/billing": INVOICE}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [system_tool("git"), "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def block(claude_md: Path) -> str:
    text = claude_md.read_text(encoding="utf-8")
    return text[text.index(BEGIN_MARKER) : text.index(END_MARKER)]


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A repository with main and two feature branches, feature/auth checked out; each
    branch's session taught one memory, and a markdown note (no branch) one more. The
    store is MEMORY_APP_DATA_DIR, as a person's would be."""
    top = tmp_path.resolve() / "app"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.name", "Test")
    git(top, "config", "user.email", "test@example.org")
    (top / "README.md").write_text("app\n", encoding="utf-8")
    git(top, "add", "README.md")
    git(top, "commit", "-q", "-m", "start")
    for branch in ("feature/billing", "feature/auth"):
        git(top, "checkout", "-q", "-b", branch, "main")
        (top / f"{branch.split('/')[1]}.txt").write_text(branch, encoding="utf-8")
        git(top, "add", ".")
        git(top, "commit", "-q", "-m", branch)
    (top / "CLAUDE.md").write_text("# App\n\nMy own notes stay.\n", encoding="utf-8")
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "data"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n, (branch, rule) in enumerate(LEARNT.items()):
        name = f"s{n}.jsonl"
        exchange = [(WHEN, rule, "Understood, I will keep to that.")]
        claude_session_file(sessions / name, f"s{n}", str(top), exchange, branch=branch)
    (sessions / "notes.md").write_text(NOTES, encoding="utf-8")
    code, out, err = run(capsys, "import", str(sessions), "--json")
    assert code == 0, err
    assert sum(len(r["items_added"]) for r in json.loads(out)["results"]) == 4
    monkeypatch.chdir(top)
    return top


def test_each_memory_keeps_the_branch_it_was_learnt_on(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "list", "--json")
    branches = {m["content"]: m["branch"] for m in json.loads(out)}
    assert branches == {
        PYTEST: "main",
        REDIS: "feature/auth",
        INVOICE: "feature/billing",
        TABS: None,
    }
    _, out, _ = run(capsys, "list", "--branch", "feature/auth", "--json")
    assert [m["content"] for m in json.loads(out)] == [REDIS]
    _, out, _ = run(capsys, "show", str(json.loads(out)[0]["id"]))
    assert "branch feature/auth" in out


def test_context_for_a_branch_holds_its_memories_and_the_base_ones(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "context", "--branch", "feature/auth", "--json")
    assert code == 0
    context = json.loads(out)["context"]
    assert all(rule in context for rule in (REDIS, PYTEST, TABS))
    assert INVOICE not in context  # another branch's memory
    _, out, _ = run(capsys, "context", "--json")
    assert INVOICE in json.loads(out)["context"]  # without --branch: every branch's


def test_export_branches_writes_the_files_and_the_block_follows_a_checkout(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "export", "claude-md", "--branches", "--dry-run")
    assert code == 0 and "+++ b/.claude/CLAUDE_feature_auth.md" in out, err
    assert not (repo / ".claude").exists()  # a dry run writes (and makes) nothing
    code, out, err = run(capsys, "export", "claude-md", "--branches")
    assert code == 0, err
    assert "feature/auth" in out
    folder = repo / ".claude"
    assert sorted(p.name for p in folder.iterdir()) == [
        "CLAUDE_base.md",
        "CLAUDE_feature_auth.md",
        "CLAUDE_feature_billing.md",
    ]
    base = (folder / "CLAUDE_base.md").read_text(encoding="utf-8")
    auth = (folder / "CLAUDE_feature_auth.md").read_text(encoding="utf-8")
    billing = (folder / "CLAUDE_feature_billing.md").read_text(encoding="utf-8")
    # main is the default branch: its memory is base, with the one learnt on no branch.
    assert PYTEST in base and TABS in base and REDIS not in base and INVOICE not in base
    assert "## Branch memory: feature/auth" in auth
    assert REDIS in auth and all(rule not in auth for rule in (PYTEST, TABS, INVOICE))
    assert INVOICE in billing and all(rule not in billing for rule in (PYTEST, TABS, REDIS))
    claude_md = repo / "CLAUDE.md"
    assert claude_md.read_text(encoding="utf-8").startswith("# App\n\nMy own notes stay.\n")
    shown = block(claude_md)
    assert all(rule in shown for rule in (PYTEST, TABS, REDIS)) and INVOICE not in shown
    assert shown.index(PYTEST) < shown.index("## Branch memory: feature/auth") < shown.index(REDIS)

    git(repo, "checkout", "-q", "feature/billing")
    code, out, _ = run(capsys, "export", "claude-md", "--branches")
    assert code == 0
    shown = block(claude_md)
    assert all(rule in shown for rule in (PYTEST, TABS, INVOICE)) and REDIS not in shown
    assert (folder / "CLAUDE_feature_auth.md").read_text(encoding="utf-8") == auth

    git(repo, "checkout", "-q", "main")
    run(capsys, "export", "claude-md", "--branches")
    shown = block(claude_md)
    assert PYTEST in shown and TABS in shown and "Branch memory" not in shown
    assert REDIS not in shown and INVOICE not in shown
    code, out, _ = run(capsys, "export", "claude-md", "--branches")
    assert (code, out.strip()) == (0, "Already up to date.")

    git(repo, "checkout", "-q", "--detach", "feature/auth")  # no branch: the base alone
    code, out, _ = run(capsys, "export", "claude-md", "--branches", "--json")
    assert json.loads(out)["branch"] is None and "Branch memory" not in block(claude_md)


def test_a_branch_without_memories_loses_its_file_and_a_foreign_file_is_kept(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "export", "claude-md", "--branches")
    folder = repo / ".claude"
    mine = folder / "CLAUDE_specifications.md"  # a person's own, same pattern
    mine.write_text("# Specs\n", encoding="utf-8")
    _, out, _ = run(capsys, "list", "--branch", "feature/billing", "--json")
    run(capsys, "forget", str(json.loads(out)[0]["id"]))
    code, out, _ = run(capsys, "export", "claude-md", "--branches", "--dry-run")
    assert code == 0 and "-Bug: the invoice" not in out and "CLAUDE_feature_billing.md" in out
    assert (folder / "CLAUDE_feature_billing.md").exists()  # a dry run writes nothing
    code, out, _ = run(capsys, "export", "claude-md", "--branches", "--json")
    assert json.loads(out)["removed"] == [str(folder / "CLAUDE_feature_billing.md")]
    assert not (folder / "CLAUDE_feature_billing.md").exists()
    assert mine.read_text(encoding="utf-8") == "# Specs\n"


def test_the_post_checkout_hook_switches_the_block_by_itself(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "export", "claude-md", "--branches", "--install-hook")
    assert code == 0, err
    hook = repo / ".git" / "hooks" / "post-checkout"
    assert "Installed the post-checkout hook" in out and os.access(hook, os.X_OK)
    claude_md = repo / "CLAUDE.md"
    assert REDIS in block(claude_md)
    git(repo, "checkout", "-q", "feature/billing")  # the hook runs the export
    shown = block(claude_md)
    assert INVOICE in shown and REDIS not in shown and PYTEST in shown
    git(repo, "checkout", "-q", "main", "--", "README.md")  # files only: not a switch
    assert INVOICE in block(claude_md)
    code, out, _ = run(capsys, "export", "claude-md", "--branches", "--install-hook")
    assert "already installed" in out


def test_another_post_checkout_hook_is_left_as_it_is(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    code, _, err = run(capsys, "export", "claude-md", "--branches", "--install-hook")
    assert code == 1
    assert "is another post-checkout hook (left as it is)" in err and "-m memory_app" in err
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"


def test_export_for_one_branch_without_git(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere" / "CLAUDE.md"
    target.parent.mkdir()
    code, _, err = run(capsys, "export", "claude-md", str(target), "--branch", "feature/billing")
    assert code == 0, err
    shown = block(target)
    assert INVOICE in shown and PYTEST in shown and REDIS not in shown


def test_a_folder_outside_git_gets_a_clear_message(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    code, _, err = run(capsys, "export", "claude-md", "--branches")
    assert code == 1
    assert f"{plain} is not in a git repository" in err and "Traceback" not in err
    code, out, _ = run(capsys, "export", "claude-md", "--branches", "--json")
    assert code == 1 and "is not in a git repository" in json.loads(out)["error"]
    assert list(plain.iterdir()) == []
    code, _, err = run(capsys, "export", "claude-md")
    assert code == 1 and "name the CLAUDE.md to update" in err
    code, _, err = run(capsys, "export", "claude-md", "CLAUDE.md", "--install-hook")
    assert code == 1 and "--install-hook goes with --branches" in err
    monkeypatch.chdir(repo)
    code, _, err = run(capsys, "export", "claude-md", "--branches", "--branch", "main")
    assert code == 1 and "do not go together" in err


def test_the_readme_commands_run_as_written(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Branch memory") :]
    section = section[: section.index("\n### ", 1)]
    lines = re.findall(r"^memory-app .*$", section, flags=re.MULTILINE)
    assert len(lines) >= 3
    for line in lines:
        words = shlex.split(line, comments=True)
        code, _out, err = run(capsys, *words[1:])
        assert code == 0, f"`{line}` exited {code}: {err}"
    assert REDIS in block(repo / "CLAUDE.md")
    assert (repo / ".git" / "hooks" / "post-checkout").exists()


def test_a_branch_file_a_person_wrote_is_never_overwritten(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".claude").mkdir()
    theirs = repo / ".claude" / "CLAUDE_feature_auth.md"
    theirs.write_text("# Auth notes of my own\n", encoding="utf-8")
    code, _, err = run(capsys, "export", "claude-md", "--branches")
    assert code == 1 and f"{theirs} was not written by Memory Curator" in err
    assert theirs.read_text(encoding="utf-8") == "# Auth notes of my own\n"
    assert sorted(p.name for p in (repo / ".claude").iterdir()) == ["CLAUDE_feature_auth.md"]
    assert BEGIN_MARKER not in (repo / "CLAUDE.md").read_text(encoding="utf-8")


BASE_RULE = "We decided to run the queue workers with four threads, not eight, to save memory."


@pytest.mark.parametrize("name", ["base", "Base"])
def test_a_branch_named_base_gets_its_own_file_beside_the_base_one(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    git(repo, "checkout", "-q", "-b", name, "main")
    sessions = tmp_path / "more"
    sessions.mkdir()
    exchange = [(WHEN, BASE_RULE, "Understood, four threads.")]
    claude_session_file(sessions / "b.jsonl", "b", str(repo), exchange, branch=name)
    code, out, err = run(capsys, "import", str(sessions), "--json")
    assert code == 0 and len(json.loads(out)["results"][0]["items_added"]) == 1, err
    folder = repo / ".claude"
    for _ in range(3):  # the same every time: no file overwrites another
        code, out, err = run(capsys, "export", "claude-md", "--branches", "--json")
        assert code == 0, err
        written = {f["branch"]: Path(f["path"]) for f in json.loads(out)["files"]}
        assert len({p.name.lower() for p in written.values()}) == len(written)
        assert written[None].name == "CLAUDE_base.md"
        assert written[name].name.startswith(f"CLAUDE_{name}-")
        base = written[None].read_text(encoding="utf-8")
        own = written[name].read_text(encoding="utf-8")
        assert PYTEST in base and BASE_RULE not in base
        assert BASE_RULE in own and PYTEST not in own
        assert BASE_RULE in block(repo / "CLAUDE.md")
    assert len(list(folder.glob("CLAUDE_*.md"))) == 4


def test_a_write_failing_halfway_puts_back_the_files_already_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "export", "claude-md", "--branches")
    git(repo, "checkout", "-q", "feature/billing")
    for branch in ("feature/auth", "main"):  # auth's file is now stale, the base changes
        _, out, _ = run(capsys, "list", "--branch", branch, "--json")
        run(capsys, "forget", str(json.loads(out)[0]["id"]))
    folder = repo / ".claude"
    before = {p.name: p.read_bytes() for p in [*folder.iterdir(), repo / "CLAUDE.md"]}
    calls: list[object] = []
    real = export_file.os.replace

    def second_fails(source: object, target: object) -> None:
        calls.append(target)
        if len(calls) == 2:  # CLAUDE.md's
            raise OSError(28, "No space left on device")
        real(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(export_file.os, "replace", second_fails)
    code, _, err = run(capsys, "export", "claude-md", "--branches")
    monkeypatch.setattr(export_file.os, "replace", real)  # (undo() would drop the chdir)
    assert code == 1 and "No space left on device" in err and "put back" in err, err
    # The base file renamed into place, auth's removed, CLAUDE.md's failed; both put back.
    assert [Path(str(t)).name for t in calls] == [
        "CLAUDE_base.md",
        "CLAUDE.md",
        "CLAUDE_feature_auth.md",
        "CLAUDE_base.md",
    ]
    after = {p.name: p.read_bytes() for p in [*folder.iterdir(), repo / "CLAUDE.md"]}
    assert after == before  # every file as it was, no temporary file left
    code, out, err = run(capsys, "export", "claude-md", "--branches")
    assert code == 0, err
    assert not (folder / "CLAUDE_feature_auth.md").exists(), out


def test_a_block_file_named_like_a_branch_file_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    via = repo / ".claude" / "CLAUDE_base.md"
    via.parent.mkdir()
    code, _, err = run(capsys, "export", "claude-md", "--branches", "--via", str(via))
    assert code == 1 and f"{via} would hold both the base memories and the managed block" in err
    assert list(via.parent.iterdir()) == []
