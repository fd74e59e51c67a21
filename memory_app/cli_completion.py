"""`memory-app completion bash|zsh|fish`: the shell completion script, generated from the
argparse parser by shtab, so it always knows every subcommand and option of this version.

Install (also in the README and `memory-app completion --help`):

    memory-app completion bash > ~/.local/share/bash-completion/completions/memory-app
    memory-app completion zsh > ~/.zfunc/_memory-app       # with fpath+=(~/.zfunc) in .zshrc
    memory-app completion fish > ~/.config/fish/completions/memory-app.fish
"""

from __future__ import annotations

import argparse
from pathlib import Path

SHELLS = ("bash", "zsh", "fish")
# Options that name a folder; every other option or argument of type Path names a file.
FOLDER_OPTIONS = ("--data-dir", "--data-home", "--project")


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for `shell`: subcommands, options, choices, and file or folder
    names where an argument is a path."""
    import shtab  # only this command needs it

    if shell not in SHELLS:
        raise ValueError(f"unknown shell {shell!r}: choose one of {', '.join(SHELLS)}")
    _mark_paths(parser, shtab.FILE, shtab.DIRECTORY)
    return shtab.complete(parser, shell=shell)


def _mark_paths(parser: argparse.ArgumentParser, file: object, folder: object) -> None:
    """Tell shtab which arguments complete file or folder names (`action.complete`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases share a parser
                _mark_paths(sub, file, folder)
        elif any(o in FOLDER_OPTIONS for o in action.option_strings):
            action.complete = folder  # type: ignore[attr-defined]
        elif action.type is Path:
            action.complete = file  # type: ignore[attr-defined]
