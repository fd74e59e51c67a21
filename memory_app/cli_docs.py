"""docs/cli.md, the command line reference, written from the argparse parser.

    python -m memory_app.cli_docs            # rewrite docs/cli.md
    python -m memory_app.cli_docs --check    # exit 1 when docs/cli.md is out of date

tests/unit/test_cli_docs.py fails when the committed file differs from what this writes.
The page is built from the parser's structure (not argparse's help text, which changes
between Python versions), so it is the same on every Python the app supports.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_app.cli_help import iter_parsers

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
COMMON = ("--data-dir", "--db-url", "--json", "--verbose", "--help")

HEAD = """\
# Command line reference

<!-- Written by `python -m memory_app.cli_docs` from the parser: do not edit by hand.
     tests/unit/test_cli_docs.py fails when it is out of date. -->

`memory-app` with no command opens the desktop window. Every command below also takes
these options, before or after the command's own words:

{common}

Errors go to stderr (or `{{"error": …}}` on stdout with `--json`) with exit code 1; a
command line it cannot read exits 2. `memory-app COMMAND --help` shows a command's
options and examples in the terminal; [configuration.md](configuration.md) lists the
environment variables and files the commands read.

Commands: {index}
"""


def render(parser: argparse.ArgumentParser) -> str:
    parsers = list(iter_parsers(parser))
    common = _table([a for a in parser._actions if _is_common(a)], with_common=True)
    index = ", ".join(
        f"[{' '.join(path)}](#{_anchor(path)})" for path, _ in parsers if len(path) == 1
    )
    parts = [HEAD.format(common=common, index=index)]
    helps: dict[tuple[str, ...], str] = {(): parser.description or ""}
    for path, each in parsers:
        for action in each._actions:
            if _is_subcommands(action):
                assert isinstance(action, argparse._SubParsersAction)
                helps.update({(*path, a.dest): a.help or "" for a in action._choices_actions})
    for path, each in parsers:
        parts.append(_section(path, each, each.description or helps.get(path, "")))
    return "\n".join(parts).rstrip("\n") + "\n"


def _section(path: tuple[str, ...], parser: argparse.ArgumentParser, what: str) -> str:
    title = " ".join(("memory-app", *path))
    lines = [f"{'#' * min(2 + max(len(path) - 1, 0), 4)} {title}", ""]
    if path and what:
        lines += [_sentence(what), ""]
    lines += [f"Usage: `{_usage(title, parser)}`", ""]
    own = [a for a in parser._actions if not _is_common(a) and not _is_subcommands(a)]
    if own:
        lines += [_table(own), ""]
    for action in parser._actions:
        if _is_subcommands(action):
            assert isinstance(action, argparse._SubParsersAction)
            helps = {a.dest: a.help for a in action._choices_actions}
            lines += ["| Command | What it does |", "|---|---|"]
            lines += [
                f"| [`{name}`](#{_anchor((*path, name))}) | {_cell(helps.get(name) or '')} |"
                for name in action.choices
            ]
            lines.append("")
    if parser.epilog:
        head, _, body = parser.epilog.partition("\n")
        lines += [f"{head}", "", "```sh", *(line[2:] for line in body.splitlines()), "```", ""]
    return "\n".join(lines)


def _usage(title: str, parser: argparse.ArgumentParser) -> str:
    words = [title]
    if any(not _is_common(a) and a.option_strings for a in parser._actions):
        words.append("[options]")
    for action in parser._actions:
        if action.option_strings:
            continue
        if _is_subcommands(action):
            words.append(f"{action.metavar or 'COMMAND'} ...")
            continue
        name = _metavar(action)
        shapes = {
            "?": f"[{name}]",
            "*": f"[{name} ...]",
            "+": f"{name} [{name} ...]",
            argparse.REMAINDER: f"[{name} ...]",
        }
        words.append(shapes.get(str(action.nargs), name))
    return " ".join(words)


def _table(actions: list[argparse.Action], with_common: bool = False) -> str:
    rows = ["| Argument | Meaning | Default |", "|---|---|---|"]
    for action in actions:
        if isinstance(action, argparse._HelpAction) and not with_common:
            continue
        name = ", ".join(action.option_strings) or _metavar(action)
        if action.option_strings and action.nargs != 0:
            name += f" {_metavar(action)}"
        rows.append(f"| `{name}` | {_cell(action.help or '')} | {_default(action)} |")
    return "\n".join(rows)


def _metavar(action: argparse.Action) -> str:
    if isinstance(action.metavar, str):
        return action.metavar
    if action.choices and not _is_subcommands(action):
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper()


def _default(action: argparse.Action) -> str:
    value = action.default
    if value is None or action.nargs == 0 or value in (argparse.SUPPRESS, [], ""):
        return ""
    return f"`{value}`"


def _is_common(action: argparse.Action) -> bool:
    return any(o in COMMON for o in action.option_strings)


def _is_subcommands(action: argparse.Action) -> bool:
    return isinstance(action, argparse._SubParsersAction)


def _sentence(text: str) -> str:
    text = text.strip()
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _anchor(path: tuple[str, ...]) -> str:
    """GitHub's anchor of the heading `memory-app WORDS`."""
    return "-".join(("memory-app", *path)).lower()


def main(argv: list[str] | None = None) -> int:
    from memory_app.cli import build_parser

    args = argv if argv is not None else sys.argv[1:]
    text = render(build_parser())
    if "--check" in args:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC.name} is out of date: python -m memory_app.cli_docs", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"Wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
