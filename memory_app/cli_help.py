"""The "Examples:" that end `memory-app --help` and the main subcommands' help.

Every line below is a real command line: tests/unit/test_cli_examples.py runs each one,
exactly as written, in a temporary home and store (each command's examples in order, as a
person would type them), so an example that stops working fails the tests; text after `#`
is a comment. `demo` has none here: it builds a whole store (tests/gui/test_app_launch.py
runs it).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

EXAMPLES: dict[str, str] = {
    "": """
  memory-app import ~/.claude/projects        # learn from your Claude Code history
  memory-app search "async await" --limit 5   # full-text search, best first
  memory-app show 1                           # one memory with its source and history
  memory-app conflicts list                   # contradictions waiting for a decision
  memory-app hooks install                    # remember and recall inside Claude Code
  memory-app import --help                    # each command's options and examples
""",
    "import": """
  memory-app import ~/.claude/projects         # every Claude Code session (or one file)
  memory-app import notes.md --format markdown # a markdown conversation
  memory-app import ~/.claude/projects --json  # the report as JSON, for scripts
""",
    "retry": """
  memory-app retry                      # extract again what failed (e.g. the API was down)
  memory-app retry --extractor offline  # or give up on Claude and use the offline rules
""",
    "search": """
  memory-app search "async await" --limit 5
  memory-app search 'pyt category:coding_preferences'   # pyt finds pytest; a filter
  memory-app search '"indent with" -yaml'               # a phrase, and a word left out
  memory-app search tabs --status superseded --json
""",
    "list": """
  memory-app list --category coding_preferences --status active
  memory-app list --pinned
  memory-app list --limit 20 --offset 20 --json   # the second page, for scripts
  memory-app list --branch feature/auth           # learnt on that git branch
""",
    "show": """
  memory-app show 1          # content, category, confidence, source, history
  memory-app show 1 --json
""",
    "edit": """
  memory-app edit 1 --content "Indent with tabs, except in YAML" --confidence 0.9
  memory-app edit 1 --tags style,formatting --pin
  memory-app undo                                  # take the last change back
""",
    "forget": """
  memory-app forget 1    # soft delete: it stops being recalled
  memory-app restore 1   # bring it back (or: memory-app undo)
""",
    "conflicts": """
  memory-app conflicts list
  memory-app conflicts show 1                      # both statements side by side
  memory-app conflicts resolve 1 --keep newer --note "the formatter changed"
  memory-app undo                                  # reopen it
  memory-app conflicts resolve 1 --merge "Tabs in Makefiles, spaces everywhere else"
  memory-app conflicts list --status all
""",
    "retrieve": """
  memory-app retrieve "write a database migration" --limit 5
  memory-app retrieve tabs --category project_conventions --since 2024-01-01 --json
  memory-app retrieve "which database do we use" --assisted   # Claude adds search words
""",
    "context": """
  memory-app context "fix the flaky login test" --budget 1000
  memory-app context --project ~/code/app --json
  memory-app context "add the login form" --branch feature/auth   # and the base memories
  memory-app context "use spaces" --session 2 --budget 600  # and that conversation so far
""",
    "predict": """
  memory-app predict --file src/api/client.ts --branch feature/retry   # before any prompt
  memory-app predict --error "TypeError: Cannot read properties of undefined" --json
  memory-app predict --project ~/code/app --file src/api/client.ts --time-of-day
""",
    "export": """
  memory-app export claude-md CLAUDE.md --dry-run   # show the diff, write nothing
  memory-app export claude-md CLAUDE.md             # your own text in it is kept
  memory-app export claude-md CLAUDE.md --branch feature/auth   # base + that branch
  memory-app export files ~/memory-mirror           # the store as files, for git
  memory-app import files ~/memory-mirror           # read a mirror back (another machine)
""",
    "backup": """
  memory-app backup                       # a dated copy in the data folder's backups/
  memory-app backup ~/memory-copy.db      # or this file (a folder: a dated file in it)
  memory-app restore ~/memory-copy.db     # put it back; the current store is kept aside
""",
    "maintenance": """
  memory-app maintenance run nightly --dry-run   # what it would merge, archive, re-index
  memory-app maintenance run due --quiet         # from cron or a systemd timer
  memory-app maintenance status
  memory-app maintenance undo                    # the changes of the latest run
""",
    "serve": """
  memory-app serve --token        # the API token (made on first use), for a client
  memory-app serve --new-token    # replace it; running servers keep the old one until restarted
""",
    "episodes": """
  memory-app episodes list                  # newest first: goal, outcome, duration
  memory-app episodes show 1                # milestones and problems, with their turns
  memory-app episodes list --outcome abandoned --json
""",
    "chunks": """
  memory-app chunks 2           # conversation #2 (or a Claude Code session id) in chunks
  memory-app chunks 2 --json    # with each chunk's turns, topics and token counts
""",
    "links": """
  memory-app links add 1 2 --kind depends-on   # #1 needs #2: context brings #2 along
  memory-app links list 1                      # both ways, with who made each
  memory-app links remove 1 2 --kind depends-on
  memory-app undo                              # the link is back
  memory-app links rebuild --json              # discover again (nightly does it too)
""",
    "team publish": """
  memory-app team publish 1 --dry-run        # exactly what would leave this machine
  memory-app team publish 1 2                # recorded; they leave with the next team sync
  memory-app team unpublish 2                # personal again; the next sync withdraws it
  memory-app undo                            # takes the last step back
""",
    "hooks": """
  memory-app hooks install                         # user scope: ~/.claude/settings.json
  memory-app hooks status
  memory-app hooks install --project ~/code/app --mcp
  memory-app hooks uninstall --project ~/code/app
  memory-app hooks uninstall
""",
    "desktop": """
  memory-app desktop install     # menu entry, icons, AppStream metainfo
  memory-app desktop uninstall   # exactly what install wrote
""",
    "off": """
  memory-app off --project ~/code/app   # nothing captured from or recalled into it
  memory-app on --project ~/code/app
""",
    "stats": """
  memory-app stats
  memory-app stats --json
""",
    "completion": """
  mkdir -p ~/.local/share/bash-completion/completions
  memory-app completion bash > ~/.local/share/bash-completion/completions/memory-app
  mkdir -p ~/.zfunc                           # and fpath+=(~/.zfunc) before compinit
  memory-app completion zsh > ~/.zfunc/_memory-app
  mkdir -p ~/.config/fish/completions
  memory-app completion fish > ~/.config/fish/completions/memory-app.fish
""",
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps a text of several lines (the examples) as written; wraps one-line
    descriptions to the terminal as argparse usually does."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def iter_parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """The parser and each subcommand's, depth first, with the words that reach it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from iter_parsers(sub, (*path, name))


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Give every parser the formatter and the commands in EXAMPLES their epilog."""
    for path, each in iter_parsers(parser):
        each.formatter_class = HelpFormatter
        text = EXAMPLES.get(" ".join(path))
        if text is not None:
            each.epilog = "Examples:\n" + text.strip("\n")


def example_lines(epilog: str | None) -> list[str]:
    """The command lines of an epilog, as a person would copy them."""
    if not epilog or not epilog.startswith("Examples:"):
        return []
    return [line.strip() for line in epilog.splitlines()[1:] if line.strip()]
