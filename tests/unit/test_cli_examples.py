"""The "Examples:" of `memory-app --help` and the subcommands' help: each command line is
run exactly as written, in order, against a temporary home and a small store, as a person
would paste them into a shell (`~` expanded, `> FILE` redirected, `mkdir -p` made)."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
from pathlib import Path

import pytest

from memory_app.cli import build_parser, main
from memory_app.cli_help import EXAMPLES, example_lines, iter_parsers
from memory_app.config import resolve_settings
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from tests.unit.test_conflicts_service import SPACES, TABS, said

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "samples"
SESSION = SAMPLES / "claude-code" / "simonw_sample_session.jsonl"
NOTES = """\
## User

We use pytest for every test in this repo, never unittest.

## Assistant

Understood: pytest only.
"""
# The commands a person reaches for first: their help must end with examples.
MAIN_COMMANDS = (
    "",
    "import",
    "search",
    "list",
    "show",
    "edit",
    "forget",
    "conflicts",
    "retrieve",
    "context",
    "export",
    "maintenance",
    "hooks",
    "completion",
)


def _with_examples() -> list[tuple[str, argparse.ArgumentParser]]:
    return [(" ".join(path), p) for path, p in iter_parsers(build_parser()) if p.epilog]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Memories #1 (tabs, 40 days ago) and #2 (spaces, yesterday) in open conflict #1."""
    folder = tmp_path_factory.mktemp("examples") / "data"
    service = MemoryService.open(resolve_settings(folder, env={}), OfflineExtractor())
    try:
        service.memorize(said(TABS, 40, "a"))
        service.memorize(said(SPACES, 1, "b"))
        assert [c.id for c in service.conflicts()] == [1]
    finally:
        service.close()
    return folder


def test_the_main_commands_end_their_help_with_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = dict(_with_examples())
    assert set(MAIN_COMMANDS) <= set(shown)
    assert set(EXAMPLES) == set(shown)  # no example text names a command that is not there
    for name, parser in shown.items():
        with pytest.raises(SystemExit) as exit_:
            main([*name.split(), "--help"])
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        lines = example_lines(parser.epilog)
        assert lines and all(line.startswith(("memory-app ", "mkdir -p ")) for line in lines)
        tail = [line.strip() for line in out.rstrip().splitlines()[-len(lines) - 1 :]]
        assert tail == ["Examples:", *lines], f"`memory-app {name} --help` ends otherwise"


def test_every_example_parses_with_the_real_parser() -> None:
    parser = build_parser()
    for _, each in _with_examples():
        for line in example_lines(each.epilog):
            words = shlex.split(line, comments=True)
            if words[0] != "memory-app":
                continue
            if "--help" in words:
                continue  # prints help and exits: run by the test below
            words = words[: words.index(">")] if ">" in words else words
            parser.parse_args(words[1:])  # exits 2 on a mistake


@pytest.mark.parametrize("name", [n for n, _ in _with_examples()], ids=lambda n: n or "memory-app")
def test_examples_run_as_written(
    name: str,
    store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path(os.environ["HOME"])  # a temporary one (tests/conftest.py)
    for variable in ("CLAUDE_CONFIG_DIR", "MEMORY_APP_EXTRACTOR", "MEMORY_APP_HOOK_WORKER"):
        monkeypatch.delenv(variable, raising=False)
    data = tmp_path / "data"
    shutil.copytree(store, data)
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))
    projects = home / ".claude" / "projects" / "-home-me-code-app"
    projects.mkdir(parents=True)
    shutil.copy(SESSION, projects / SESSION.name)
    (home / "code" / "app").mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text(NOTES, encoding="utf-8")
    monkeypatch.chdir(work)

    epilog = dict(_with_examples())[name].epilog
    for line in example_lines(epilog):
        _run(line, home, capsys)


def _run(line: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One command line as a shell would run it: `~` expanded, `> FILE` written."""
    words = [
        str(home) + word[1:] if word == "~" or word.startswith("~/") else word
        for word in shlex.split(line, comments=True)
    ]
    target = None
    if ">" in words:
        at = words.index(">")
        target, words = Path(words[at + 1]), words[:at]
    if words[:2] == ["mkdir", "-p"]:
        for folder in words[2:]:
            Path(folder).mkdir(parents=True, exist_ok=True)
        return
    assert words[0] == "memory-app", line
    try:
        code = main(words[1:])
    except SystemExit as exc:  # --help
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 0, f"`{line}` exited {code}: {err or out}"
    if target is not None:
        assert target.parent.is_dir(), f"`{line}`: no folder {target.parent}"
        target.write_text(out, encoding="utf-8")
        assert out.strip(), line
