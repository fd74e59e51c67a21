"""The user documentation in docs/ keeps up with the code: the CLI reference is what the
parser says, every MEMORY_APP_* variable is in the configuration reference, the messages
the troubleshooting guide explains are still the ones the code prints, and the README
links them all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_app.cli import build_parser
from memory_app.cli_docs import DOC, render

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "memory_app"
DOCS = REPO / "docs"
VARIABLE = re.compile(r"\bMEMORY_APP_[A-Z0-9_]*[A-Z0-9]")
# Each explained in docs/troubleshooting.md, each printed by the code as written here.
MESSAGES = (
    "is not a Memory Curator database",
    "is cut off: it holds",
    "is damaged: SQLite",
    "is locked by another program",
    "but this version of Memory Curator",
    "is read-only, so",
    "cannot be written (",
    "Cannot create or use the data folder",
    "The disk holding",
    "the disk may be full or failing",
    "is not supported; use a sqlite:/// URL or a postgresql:// one",
    "Cannot reach the team database",
    "The team database refused the login",
    "The team database does not exist on the server",
    "no Anthropic API key: set",
    "invalid API key: Anthropic rejected it (HTTP 401)",
    "the API key may not use this (HTTP 403)",
    "was not found (HTTP 404)",
    "rate limited by the Anthropic API (HTTP 429)",
    "the Anthropic API is overloaded (HTTP 529)",
    "the request to Claude timed out",
    "could not reach the Anthropic API (network error)",
    "Anthropic API unreachable, skipped",
    "the API answered with a body that is not a Messages response",
    "Claude's answer was cut off at max_tokens=",
    "Claude's answer was not valid after",
    "choose one of",
    "is not a number",
    "is not valid JSON (",
    "fix it or move it aside, nothing was changed",
    "already has another MCP server named",
    "another mem.md is there (left as it is)",
    "cannot find the",
    "Pending (extraction failed, kept, will retry)",
    "unsupported file type",
)


def _sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py")))


def _flat(text: str) -> str:
    """Markdown as prose: line breaks and quote marks (`>`) of a wrapped quote removed."""
    return " ".join(line.lstrip("> ").strip() for line in text.splitlines())


def test_the_cli_reference_is_up_to_date() -> None:
    current = DOC.read_text(encoding="utf-8")
    assert current == render(build_parser()), (
        "docs/cli.md is out of date: run `python -m memory_app.cli_docs`"
    )


def test_every_memory_app_variable_is_documented() -> None:
    used = set(VARIABLE.findall(_sources()))
    documented = set(VARIABLE.findall((DOCS / "configuration.md").read_text(encoding="utf-8")))
    assert {"MEMORY_APP_DATA_DIR", "MEMORY_APP_CLAUDE_MODEL"} <= used
    assert not used - documented, f"not in docs/configuration.md: {sorted(used - documented)}"
    assert not documented - used, f"documented but read nowhere: {sorted(documented - used)}"


@pytest.mark.parametrize("message", MESSAGES)
def test_troubleshooting_explains_a_message_the_code_prints(message: str) -> None:
    assert message in _sources(), f"the code no longer says {message!r}"
    guide = _flat((DOCS / "troubleshooting.md").read_text(encoding="utf-8"))
    assert message in guide, f"docs/troubleshooting.md does not explain {message!r}"


def test_docs_are_linked_and_their_links_resolve() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for page in ("configuration.md", "troubleshooting.md", "cli.md"):
        assert f"(docs/{page})" in readme, f"README does not link docs/{page}"
    for page in ("configuration.md", "troubleshooting.md", "cli.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (DOCS / target).exists(), f"docs/{page} links to a missing {target}"
