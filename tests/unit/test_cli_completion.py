"""`memory-app completion bash|zsh|fish`: each script is produced from the parser, names the
subcommands, and is valid for its shell; bash's (and fish's, where fish is installed)
really completes: the script is sourced and its function asked, as the shell would."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memory_app.cli import build_parser, main
from memory_app.cli_help import iter_parsers

COMMANDS = sorted(p[0] for p, _ in iter_parsers(build_parser()) if len(p) == 1)


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    out, err = capsys.readouterr()
    assert not err
    return out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_script_names_every_subcommand(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = script(shell, capsys)
    assert "memory-app" in text
    assert len(COMMANDS) > 25 and "completion" in COMMANDS and "conflicts" in COMMANDS
    missing = [c for c in COMMANDS if c not in text]
    assert not missing
    for choice in ("higher-confidence", "claude-code", "nightly"):  # nested choices too
        assert choice in text


def test_no_store_and_no_log_for_a_script(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(tmp_path / "data"))
    script("bash", capsys)
    assert not (tmp_path / "data").exists()


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["completion", "tcsh"])
    assert exit_.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def _complete_bash(path: Path, *words: str) -> list[str]:
    """COMPREPLY for the command line WORDS with the cursor after the last word."""
    line = " ".join(words)
    quoted = " ".join(f"'{w}'" for w in words)
    program = f"""
source '{path}'
COMP_WORDS=({quoted})
COMP_CWORD={len(words) - 1}
COMP_LINE='{line}'
COMP_POINT={len(line)}
_shtab_memory_app memory-app '{words[-1]}' '{words[-2]}'
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        cwd=path.parent,
    )
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_bash_script_is_valid_and_completes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "memory-app.bash"
    path.write_text(script("bash", capsys), encoding="utf-8")
    check = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr
    assert "complete -o bashdefault -F _shtab_memory_app memory-app" in path.read_text()

    assert _complete_bash(path, "memory-app", "con") == ["conflicts", "context"]
    assert _complete_bash(path, "memory-app", "conflicts", "") == ["list", "show", "resolve"]
    keep = _complete_bash(path, "memory-app", "conflicts", "resolve", "1", "--keep", "")
    assert keep == ["newer", "older", "both", "higher-confidence", "outdated"]
    assert _complete_bash(path, "memory-app", "completion", "") == ["bash", "zsh", "fish"]
    assert "--limit" in _complete_bash(path, "memory-app", "search", "--")
    (tmp_path / "notes.md").write_text("User: hi\n", encoding="utf-8")
    assert "notes.md" in _complete_bash(path, "memory-app", "import", "no")  # file names


@pytest.mark.skipif(shutil.which("zsh") is None, reason="no zsh here")
def test_zsh_script_parses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "_memory-app"
    path.write_text(script("zsh", capsys), encoding="utf-8")
    assert path.read_text().startswith("#compdef memory-app")
    check = subprocess.run(["zsh", "-n", str(path)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="no fish here")
def test_fish_script_parses_and_completes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "memory-app.fish"
    path.write_text(script("fish", capsys), encoding="utf-8")
    check = subprocess.run(
        ["fish", "--no-execute", str(path)], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0, check.stderr
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source '{path}'; complete -C 'memory-app conflicts res'"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == ["resolve"]
