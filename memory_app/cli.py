"""`memory-app`: the command line. Argument parsing and printing only; the work is in
MemoryService. With no subcommand it opens the desktop window."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app import (
    __version__,
    cli_backup,
    cli_chunks,
    cli_completion,
    cli_desktop,
    cli_episodes,
    cli_help,
    cli_links,
    cli_maintenance,
    cli_mirror,
    cli_predict,
    cli_retrieval,
    cli_serve,
    cli_team,
)
from memory_app.domain.jobs import JobState
from memory_app.domain.records import (
    CONFLICT_STATUSES,
    ITEM_STATUSES,
    ConflictDetail,
    ConflictRecord,
    ImportReport,
    MemoryRecord,
)
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.domain.search_syntax import SYNTAX_HELP
from memory_app.domain.usage import UsageSummary
from memory_app.domain.validation import ValidationError
from memory_app.extract.base import Extractor, ExtractorError
from memory_app.extract.factory import (
    EXTRACTOR_CHOICES,
    EXTRACTOR_ENV,
    default_choice,
    make_extractor,
)
from memory_app.store.errors import StoreError

# Only light modules above: `--help`, `--version` and `completion` build the parser and
# answer without the database layer, the Claude SDK or Qt (tests/unit/test_cli_startup.py).
# The service and the rest are imported by the commands that use them.
if TYPE_CHECKING:
    from memory_app.config import Settings
    from memory_app.hooks.mcp_config import McpReport
    from memory_app.hooks.slash_command import CommandReport
    from memory_app.service import MemoryService

# The importers (memory_app.ingest.FORMATS, not imported here: it loads them all).
FORMATS = (
    "claude-code",
    "codex",
    "chatgpt",
    "puffin-history",
    "puffin-memory",
    "markdown",
    "text",
)


def _common() -> argparse.ArgumentParser:
    # SUPPRESS lets the same options appear before or after the subcommand.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help="folder holding the store")
    common.add_argument("--db-url", default=argparse.SUPPRESS, help="database URL (sqlite:///…)")
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output"
    )
    common.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="debug messages on stderr and in the log file",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="memory-app",
        description="Memory Curator: the long-term memory of AI coding assistants.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, parents=[common])

    p = add("import", "import conversations (files or folders) and learn from them")
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a conversation file, or a folder of them (such as ~/.claude/projects or "
        "~/.codex/sessions); `files DIR` reads a mirror written by `export files DIR`",
    )
    p.add_argument("--format", choices=FORMATS, help="skip auto-detection")
    p.add_argument(
        "--extractor",
        choices=EXTRACTOR_CHOICES,
        default=None,
        help="offline rules (the default; MEMORY_APP_EXTRACTOR changes it), claude "
        "(needs ANTHROPIC_API_KEY), claude-cli (the Claude Code CLI and your Claude "
        "login), or auto (claude when a key is set, else offline)",
    )

    p = add(
        "retry",
        "extract the conversations kept pending (their extraction failed) again; "
        "exits 1 while any is still pending",
    )
    p.add_argument(
        "--extractor",
        choices=EXTRACTOR_CHOICES,
        default=None,
        help="which extractor reads them, as for import",
    )

    p = add("search", "full-text search over memories, best first")
    p.add_argument("query", help=SYNTAX_HELP + " When none has every word, any word will do.")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--category")
    p.add_argument("--status", choices=ITEM_STATUSES, default="active")

    p = add("list", "list memories, newest first")
    p.add_argument("--category")
    p.add_argument("--status", choices=ITEM_STATUSES, default="active")
    p.add_argument("--pinned", action="store_true", help="only pinned memories")
    p.add_argument("--branch", metavar="NAME", help="only those learnt on that git branch")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--offset", type=int, default=0)

    p = add("show", "show one memory with its source and history")
    p.add_argument("id", type=int, help="the memory's id, as list and search show it")

    add("categories", "list categories with their memory counts")
    add("stats", "counts at a glance")
    p = add("usage", "tokens and estimated cost of the Claude extractor so far")
    p.add_argument("--runs", type=int, default=0, help="also list the latest N model calls")
    p = add(
        "test-connection", "send Claude one tiny request: is the key valid, how fast it answers"
    )
    p.add_argument(
        "--extractor",
        choices=("claude", "claude-cli"),
        default=None,
        help="what to test: the API key (claude, the default) or the Claude Code CLI "
        "(claude-cli, the default when MEMORY_APP_EXTRACTOR=claude-cli)",
    )

    p = add("edit", "change a memory")
    p.add_argument("id", type=int, help="the memory's id, as list and search show it")
    p.add_argument("--content", help="the new statement")
    p.add_argument("--category", help="move it to this category (its key, as categories shows)")
    p.add_argument("--confidence", type=float, help="from 0 to 1")
    p.add_argument("--tags", help="comma-separated")
    pin = p.add_mutually_exclusive_group()
    pin.add_argument(
        "--pin", dest="pinned", action="store_true", default=None, help="always in context"
    )
    pin.add_argument("--unpin", dest="pinned", action="store_false", help="ranked as others")

    p = add("forget", "delete a memory (reversible with restore or undo)")
    p.add_argument("id", type=int, help="the memory's id, as list and search show it")
    p = add(
        "restore",
        "bring back a forgotten memory (ID), or put a backup in place of the store (PATH; "
        "the current store is kept in backups/)",
    )
    p.add_argument(
        "id",
        type=cli_backup.memory_id_or_path,
        metavar="ID|PATH",
        help="the memory's id, as list and search show it; or a backup file",
    )
    p = add("keep", "release a memory held for review (a possible secret) into use")
    p.add_argument("id", type=int, help="the memory's id, as list and search show it")
    add("undo", "undo your last change")
    _add_conflicts(sub, common)
    cli_retrieval.add_parsers(sub, common)
    cli_maintenance.add_parsers(sub, common)
    cli_links.add_parsers(sub, common)
    cli_episodes.add_parsers(sub, common)
    cli_chunks.add_parsers(sub, common)
    cli_serve.add_parsers(sub, common)
    cli_predict.add_parsers(sub, common)
    cli_mirror.add_parsers(sub, common)  # after cli_retrieval: adds `export files`
    cli_backup.add_parsers(sub, common)
    cli_desktop.add_parsers(sub, common)
    cli_team.add_parsers(sub, common)
    _add_hooks(sub, common)
    for name, text in (
        ("off", "pause memory for a project: nothing captured, nothing recalled (/mem off)"),
        ("on", "turn memory back on for a project paused with `off` (/mem on)"),
    ):
        p = add(name, text)
        p.add_argument("--project", metavar="DIR", default=".", help="the project (default: .)")
    p = add(
        "slash",
        "what the /mem command in Claude Code runs, for the current folder's project: "
        "list [QUERY], pin ID, forget ID, off, on, why",
    )
    p.add_argument("action", nargs="?", default="", metavar="ACTION")
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="ARGS")
    add(
        "capture",
        "import the sessions the Claude Code hooks queued (the hooks start this themselves)",
    )
    p = add("demo", "fill an empty store with demo conversations (try the app without your own)")
    p.add_argument("--generated", type=int, default=0, help="also add N generated memories")
    add(
        "mcp",
        "serve the memory to an assistant as MCP tools over stdio "
        "(search, retrieve, context, remember, forget, pin, list_conflicts)",
    )
    add("gui", "open the desktop window (the default)")
    p = add("completion", "print the completion script for bash, zsh or fish")
    p.add_argument("shell", choices=cli_completion.SHELLS)
    cli_help.add_examples(parser)
    return parser


KEEP_CHOICES = {
    "newer": "keep_newer",
    "older": "keep_older",
    "both": "keep_both",
    "higher-confidence": "higher_confidence",
    "outdated": "mark_outdated",
}


def _add_conflicts(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "memories that contradict each other: list, show side by side, resolve"
    p = sub.add_parser("conflicts", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="conflicts_command", metavar="ACTION", required=True)
    q = inner.add_parser("list", help="list conflicts, newest first", parents=[common])
    q.add_argument("--status", choices=(*CONFLICT_STATUSES, "open", "all"), default="open")
    q = inner.add_parser("show", help="one conflict side by side", parents=[common])
    q.add_argument("id", type=int, help="the conflict's id, as conflicts list shows it")
    q = inner.add_parser(
        "resolve", help="decide an open conflict (undo reverts it)", parents=[common]
    )
    q.add_argument("id", type=int, help="the conflict's id, as conflicts list shows it")
    how = q.add_mutually_exclusive_group(required=True)
    how.add_argument("--keep", choices=tuple(KEEP_CHOICES), help="which memory stays valid")
    how.add_argument("--merge", metavar="TEXT", help="replace both with one new statement")
    q.add_argument("--note", default="", help="why, or when each applies (for --keep both)")


def _add_hooks(sub: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "add, remove or check this app's Claude Code setup: the hooks in settings.json, "
        "the /mem command and, with --mcp, the MCP server"
    )
    p = sub.add_parser("hooks", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="hooks_command", metavar="ACTION", required=True)
    for name, help_text in (
        ("install", "merge the hooks beside other tools' ones (a backup is kept), add /mem"),
        ("uninstall", "remove exactly what `hooks install` added (the MCP server too)"),
        ("status", "which events have this app's hook, /mem and the MCP server, and where"),
    ):
        q = inner.add_parser(name, help=help_text, description=help_text, parents=[common])
        scope = q.add_mutually_exclusive_group()
        scope.add_argument("--project", type=Path, metavar="DIR", help="DIR/.claude/settings.json")
        scope.add_argument(
            "--user",
            action="store_true",
            help="$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json (default)",
        )
        if name == "install":
            q.add_argument(
                "--mcp",
                action="store_true",
                help="also register `memory-app mcp` as an MCP server "
                "(~/.claude.json, or DIR/.mcp.json with --project)",
            )


def _pause(data_dir: Path, project: str, off: bool) -> tuple[Any, str]:
    from memory_app.privacy_gate import set_paused

    paused = set_paused(data_dir, project, off)
    folder = str(Path(project).expanduser().resolve())
    state = "off" if off else "on"
    text = f"Memory is {state} for {folder}." + (
        " Nothing is captured from it or recalled into it until `memory-app on`." if off else ""
    )
    return {"project": folder, "memory": state, "paused": paused}, text


def _hooks(args: argparse.Namespace) -> tuple[Any, str]:
    """`hooks install|uninstall|status`: the hooks, /mem and the MCP server (hooks/setup.py);
    raises SettingsFileError. Needs no store."""
    from memory_app.hooks import setup

    reports = setup.run(args.hooks_command, args.project, mcp=getattr(args, "mcp", False))
    hooks, command, server = reports.hooks, reports.command, reports.mcp
    lines = [f"Claude Code settings ({reports.scope} scope): {hooks.path}"]
    lines += [
        f"  {event:<17} {'installed' if cmd else 'not installed'}"
        + ("" if not cmd or cmd == setup.hook_command(event) else " (outdated)")
        for event, cmd in hooks.events.items()
    ]
    lines += [f"/mem command: {command.path}", f"  {_command_state(command)}"]
    lines += [f"MCP server {server.to_json()['name']}: {server.path}", f"  {_server_state(server)}"]
    if args.hooks_command != "status":
        done = [
            label
            for label, changed in (
                ("the hooks", hooks.changed),
                ("the /mem command", command.changed),
                ("the MCP server", server.changed),
            )
            if changed
        ]
        verb = "Installed" if args.hooks_command == "install" else "Removed"
        what = " and ".join([", ".join(done[:-1]), done[-1]] if len(done) > 1 else done)
        lines.insert(0, f"{verb} {what}." if done else "Nothing to change.")
        lines += [f"Previous file kept as {r.backup}" for r in (hooks, server) if r.backup]
        if server.removed:
            lines.append(f"Deleted {server.path}: it held only this app's server.")
        if server.changed and server.installed and reports.scope == "project":
            lines.append("Claude Code asks to approve a project's MCP server before its first use.")
    return reports.to_json(), "\n".join(lines)


def _command_state(report: CommandReport) -> str:
    if report.foreign:
        return "not installed: another mem.md is there (left as it is)"
    if not report.installed:
        return "not installed"
    return "installed" if report.current else "installed (outdated: run hooks install)"


def _server_state(report: McpReport) -> str:
    if report.error:
        return f"unknown: {report.error}"
    if report.foreign:
        return "not registered: another server has that name (left as it is)"
    if not report.installed:
        return "not registered (memory-app hooks install --mcp registers it)"
    return "registered" if report.current else "registered (outdated: run hooks install --mcp)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "completion":  # a script on stdout: no store, no log file
        return _print(None, cli_completion.script(parser, args.shell).rstrip("\n"), False)
    from memory_app import logs

    with logs.session(logs.log_folder(), verbose=getattr(args, "verbose", False)):
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    from memory_app.config import resolve_settings
    from memory_app.retrieval.export_file import ExportError
    from memory_app.service import MemoryService

    as_json = getattr(args, "json", False)
    settings = resolve_settings(getattr(args, "data_dir", None), getattr(args, "db_url", None))
    if args.command in (None, "gui"):
        from memory_app.gui.app import run_app

        return run_app(settings)
    if args.command == "test-connection":
        payload, text, code = _test_connection(args.extractor)
        return _print(payload, text, as_json, code)
    if args.command == "desktop":  # no store needed
        from memory_app.desktop import DesktopError

        try:
            return _print(*cli_desktop.run(args), as_json)
        except DesktopError as exc:
            return _fail(str(exc), as_json)
    if args.command in ("off", "on"):  # a file beside the store, read by the hooks too
        return _print(*_pause(settings.data_dir, args.project, args.command == "off"), as_json)
    if args.command == "hooks":  # no store needed either
        from memory_app.hooks.settings_file import SettingsFileError

        try:
            return _print(*_hooks(args), as_json)
        except SettingsFileError as exc:
            return _fail(str(exc), as_json)
    if cli_backup.handles(args):  # the store's file: a restore needs it closed
        try:
            return _print(*cli_backup.run(args, settings), as_json)
        except StoreError as exc:
            return _fail(str(exc), as_json)
    if args.command == "mcp":  # stdout carries the protocol only: no _print
        return _serve_mcp(settings)
    if args.command == "slash":
        # /mem passes what was typed as one quoted argument: split it here, at spaces
        # only (an apostrophe in "what's cached" is a letter, not shell quoting).
        typed = " ".join([args.action, *args.words]).split()
        args.action, args.words = (typed[0], typed[1:]) if typed else ("", [])
        problem = _slash_usage_error(args)
        if problem is not None:
            return _fail(problem, as_json, code=2)
        if args.action not in SLASH_STORE_ACTIONS:  # no store needed
            return _print(*_slash_without_store(args, settings), as_json)
    handler = _HANDLERS[args.command]
    try:
        extractor = _extractor(args)
    except (ExtractorError, ValueError) as exc:
        return _fail(str(exc), as_json)
    try:
        service = MemoryService.open(settings, extractor)
    except StoreError as exc:
        return _fail(str(exc), as_json)
    try:
        output = handler(service, args)
    except (
        ValidationError,
        StoreError,
        FileNotFoundError,
        ValueError,
        ExportError,
        cli_maintenance.MaintenanceFailed,
    ) as exc:
        return _fail(str(exc), as_json)
    finally:
        service.close()
        close = getattr(extractor, "close", None)
        if close is not None:
            close()
    code = _print(*output, as_json)
    if args.command == "import" and output[0]["errors"]:
        return 1  # a script must see that a file was not imported (pending ones were)
    if args.command == "retry" and output[0]["pending"]:
        return 1  # and that the extraction it asked for failed again
    if service.db.damage is not None:  # what could be read is shown; the damage still fails
        print(f"memory-app: error: {service.db.damage}", file=sys.stderr)
        return 1
    return code


def _serve_mcp(settings: Settings) -> int:
    """`memory-app mcp`: serve until the client closes stdin. A store that cannot be
    opened is reported on stderr, never on stdout, which belongs to the protocol."""
    from memory_app.mcp_server import serve
    from memory_app.service import MemoryService

    try:
        service = MemoryService.open(settings)
    except StoreError as exc:
        return _fail(str(exc), as_json=False)
    try:
        serve(service)
    finally:
        service.close()
    return 0


def _print(payload: Any, text: str, as_json: bool, code: int = 0) -> int:
    try:
        if as_json:
            print(json.dumps(payload, indent=2, ensure_ascii=False))
        elif text:
            print(text, file=sys.stderr if code else sys.stdout)
    except BrokenPipeError:  # `memory-app ... | head` closed the pipe: not an error
        sys.stderr.close()
    return code


def _extractor(args: argparse.Namespace) -> Extractor | None:
    """The extractor `import` or `retry` asked for; None (the service's offline default)
    elsewhere."""
    if args.command not in ("import", "retry", "capture"):
        return None
    if args.command == "import" and cli_mirror.is_mirror_import(args):
        return None  # a mirror holds memories already: nothing to extract, no key needed
    return make_extractor(getattr(args, "extractor", None) or default_choice())


def _test_connection(choice: str | None) -> tuple[Any, str, int]:
    if (choice or os.environ.get(EXTRACTOR_ENV, "").strip().lower()) == "claude-cli":
        return _test_cli_connection()
    from memory_app.extract.claude import check_connection
    from memory_app.extract.claude_settings import ClaudeSettings
    from memory_app.extract.credentials import NO_KEY_MESSAGE, find_api_key

    try:
        settings = ClaudeSettings.from_env()
    except ValueError as exc:
        return {"ok": False, "error": str(exc)}, f"memory-app: error: {exc}", 1
    key = find_api_key()
    if key is None:
        return {"ok": False, "error": NO_KEY_MESSAGE}, f"memory-app: error: {NO_KEY_MESSAGE}", 1
    check = check_connection(key, settings)
    payload = {
        "ok": check.ok,
        "model": check.model,
        "latency_ms": check.latency_ms,
        "message": check.message,
        "key_source": key.source,
    }
    if check.ok:
        return payload, f"Connected: {check.message} (key from {key.source}).", 0
    return payload, f"memory-app: error: {check.message}", 1


def _test_cli_connection() -> tuple[Any, str, int]:
    """`test-connection` for the Claude Code CLI: one tiny call, one line."""
    from memory_app.extract.claude_cli import check_cli_connection
    from memory_app.extract.claude_cli_settings import ClaudeCliSettings
    from memory_app.extract.claude_settings import ClaudeSettings

    try:
        check = check_cli_connection(ClaudeSettings.from_env(), ClaudeCliSettings.from_env())
    except ValueError as exc:
        return {"ok": False, "error": str(exc)}, f"memory-app: error: {exc}", 1
    payload = {
        "ok": check.ok,
        "model": check.model,
        "latency_ms": check.latency_ms,
        "message": check.message,
        "extractor": "claude-cli",
    }
    if check.ok:
        return payload, f"Connected: {check.message}.", 0
    return payload, f"memory-app: error: {check.message}", 1


def _fail(message: str, as_json: bool, code: int = 1) -> int:
    if as_json:
        print(json.dumps({"error": message}))
    else:
        print(f"memory-app: error: {message}", file=sys.stderr)
    return code


# -- handlers: each returns (json payload, human text) -------------------------------------

Output = tuple[Any, str]


def _import(service: MemoryService, args: argparse.Namespace) -> Output:
    job = JobState()
    if sys.stderr.isatty() and not getattr(args, "json", False):

        def show(done: int, total: int, message: str) -> None:
            print(f"\r[{done}/{total}] {message[:60]:<60}", end="", file=sys.stderr, flush=True)

        job.on_progress = show
    report = service.import_paths(args.paths, fmt=args.format, job=job)
    if job.on_progress is not None:
        print(file=sys.stderr)
    lines = [
        f"Files read: {report.files}",
        f"Conversations added: {report.resources_added}",
        f"Memories extracted: {report.items_added}",
        f"Duplicates reinforced: {report.items_reinforced}",
    ]
    lines += _section("Skipped", [f"{r.source}: {r.reason}" for r in report.skipped])
    lines += _section("Errors", [f"{r.source}: {r.reason}" for r in report.errors])
    lines += _pending_lines(report)
    lines += _section("Unreadable lines", report.problems)
    lines += _section("Notes", [n for r in report.results for n in r.notes] + list(report.notes))
    if report.usage is not None:
        lines.append(f"Claude usage: {_usage_line(report.usage)}")
    return report.to_json(), "\n".join(lines)


def _section(title: str, entries: Sequence[str]) -> list[str]:
    """`Title: N` and its entries indented, or nothing when there are none."""
    return [f"{title}: {len(entries)}", *(f"  {e}" for e in entries)] if entries else []


def _pending_lines(report: ImportReport) -> list[str]:
    pending = [f"{r.source}: {r.reason}" for r in report.pending]
    lines = _section("Pending (extraction failed, kept, will retry)", pending)
    return [*lines, "  Retry now with: memory-app retry"] if lines else []


def _retry(service: MemoryService, args: argparse.Namespace) -> Output:
    report = service.retry_pending()
    payload = {
        "retried": len(report.results),
        "memorized": [
            {"source": r.source, "resource_id": r.resource_id}
            for r in report.results
            if r.status in ("success", "empty")
        ],
        "items_added": report.items_added,
        "duplicates_reinforced": report.items_reinforced,
        "pending": report.to_json()["pending"],
        "notes": report.to_json()["notes"],
        "usage": report.usage.to_json() if report.usage else None,
        "results": [r.to_json() for r in report.results],
    }
    if not report.results:
        return payload, "No conversations are pending: nothing to retry."
    lines = [
        f"Pending conversations retried: {len(report.results)}",
        f"Memorized now: {len(payload['memorized'])}",
        f"Memories extracted: {report.items_added}",
        f"Duplicates reinforced: {report.items_reinforced}",
    ]
    lines += _section("Still pending", [f"{r.source}: {r.reason}" for r in report.pending])
    lines += _section("Notes", payload["notes"])
    if report.usage is not None:
        lines.append(f"Claude usage: {_usage_line(report.usage)}")
    return payload, "\n".join(lines)


def _usage_line(usage: UsageSummary) -> str:
    tokens = f"{usage.input_tokens:,} input + {usage.output_tokens:,} output tokens"
    requests = f"{usage.requests:,} {'request' if usage.requests == 1 else 'requests'}"
    cost = f"about ${usage.cost_usd:.4f}"
    if usage.unpriced_runs:
        cost += f" (+ {usage.unpriced_runs} calls to models with no known price)"
    return f"{requests}, {tokens}, {cost}"


def _usage(service: MemoryService, args: argparse.Namespace) -> Output:
    usage = service.usage()
    payload = usage.to_json()
    if not usage.runs:
        text = "No Claude calls recorded yet (the offline extractor costs nothing)."
    else:
        lines = [f"Total: {_usage_line(usage)}"]
        if usage.errors:
            lines.append(f"Failed calls: {usage.errors}")
        lines += [
            f"  {m.model:<28} {m.input_tokens:>12,} in {m.output_tokens:>10,} out"
            f"  ${m.cost_usd:.4f}"
            for m in usage.by_model
        ]
        text = "\n".join(lines)
    if args.runs > 0:
        runs = service.extraction_runs(args.runs)
        payload["runs"] = [r.to_json() for r in runs]
        text += "\n" + "\n".join(
            f"{r.at:%Y-%m-%d %H:%M} {r.kind:<8} {r.status:<8} {r.input_tokens:>8,} in "
            f"{r.output_tokens:>7,} out  {r.source or r.category or ''}"
            for r in runs
        )
    return payload, text


def _records(records: list[MemoryRecord], empty: str) -> Output:
    width = shutil.get_terminal_size((100, 20)).columns
    lines = []
    for r in records:
        head = f"#{r.id:<6} {r.category:<24} {r.confidence:.2f}  {'📌 ' if r.pinned else ''}"
        body = textwrap.shorten(r.content, max(30, width - len(head) - 1), placeholder="…")
        lines.append(head + body)
    return [_brief(r) for r in records], "\n".join(lines) or empty


def _brief(r: MemoryRecord) -> dict[str, Any]:
    keys = ("id", "category", "type", "content", "confidence", "importance", "status", "pinned")
    data = {k: getattr(r, k) for k in keys}
    data["tags"] = list(r.tags)
    data["branch"] = r.branch  # the git branch it was learnt on (None: none)
    data["extracted_at"] = r.extracted_at.isoformat()
    if r.score is not None:
        data["score"] = round(r.score, 4)
    return data


def _search(service: MemoryService, args: argparse.Namespace) -> Output:
    found = service.search(
        args.query, limit=args.limit, category=args.category, statuses=(args.status,)
    )
    return _records(found, "No memories match.")


def _list(service: MemoryService, args: argparse.Namespace) -> Output:
    items = service.list_items(
        category=args.category,
        status=args.status,
        pinned=True if args.pinned else None,
        branch=args.branch,
        limit=args.limit,
        offset=args.offset,
    )
    return _records(items, "No memories yet. Import a conversation: memory-app import PATH")


def _show(service: MemoryService, args: argparse.Namespace) -> Output:
    item = service.get_item(args.id)
    events = service.item_history(args.id)
    payload = item.to_json()
    payload["history"] = [e.to_json() for e in events]
    lines = [
        f"Memory #{item.id} ({item.status}{', pinned' if item.pinned else ''})",
        f"  {item.content}",
        f"Category:    {item.category} ({item.type})",
        f"Confidence:  {item.confidence:.2f}   importance {item.importance:.2f}",
        f"Tags:        {', '.join(item.tags) or '—'}",
        f"Scope:       {item.scope}{' · ' + item.project if item.project else ''}"
        + (f" · branch {item.branch}" if item.branch else ""),
        f"Extracted:   {item.extracted_at:%Y-%m-%d %H:%M} by {item.extractor or 'hand'}",
        f"Seen:        {item.reinforcement_count + 1}×, used {item.access_count}×",
        f"Sharing:     {item.sharing}"
        + (" · not synced yet" if item.team_dirty and item.sharing == "team" else ""),
    ]
    if item.source_resource_id is not None:
        where = f"conversation #{item.source_resource_id}"
        if item.turn_start is not None:
            where += f", turn {item.turn_start}"
        if item.line_start is not None:
            where += f", line {item.line_start}"
        lines.append(f"Source:      {where}")
    lines.append("History:")
    lines += [f"  {e.at:%Y-%m-%d %H:%M}  {e.actor:<11} {e.action}" for e in events]
    return payload, "\n".join(lines)


def _categories(service: MemoryService, args: argparse.Namespace) -> Output:
    cats = service.categories()
    text = "\n".join(f"{c.key:<26} {c.item_count:>7}  {c.name}" for c in cats)
    return [c.to_json() for c in cats], text


def _stats(service: MemoryService, args: argparse.Namespace) -> Output:
    s = service.get_stats()
    last = s.last_memorized.strftime("%Y-%m-%d %H:%M UTC") if s.last_memorized else "never"
    aside = ", ".join(
        f"{n} {status}" for status, n in sorted(s.items_by_status.items()) if status != "active"
    )
    lines = [
        f"Memories:        {s.items} active ({s.pinned} pinned)"
        + (f"; also kept: {aside}" if aside else ""),
        f"Conversations:   {s.resources}",
        f"Categories:      {s.categories}",
        f"Open conflicts:  {s.conflicts_open}",
        f"Last memorized:  {last}",
    ]
    return s.to_json(), "\n".join(lines)


def _edit(service: MemoryService, args: argparse.Namespace) -> Output:
    changes: dict[str, Any] = {}
    for name in ("content", "category", "confidence", "pinned"):
        value = getattr(args, name)
        if value is not None:
            changes[name] = value
    if args.tags is not None:
        changes["tags"] = [t for t in args.tags.split(",") if t.strip()]
    if not changes:
        raise ValueError(
            "nothing to change: give --content, --category, --confidence, --tags, --pin or --unpin"
        )
    item = service.edit_item(args.id, **changes)
    return _brief(item), f"Updated memory #{item.id}."


def _forget(service: MemoryService, args: argparse.Namespace) -> Output:
    item = service.forget(args.id)
    return _brief(item), f"Forgot memory #{item.id}. Undo with: memory-app restore {item.id}"


def _restore(service: MemoryService, args: argparse.Namespace) -> Output:
    item = service.restore(args.id)
    return _brief(item), f"Restored memory #{item.id}."


def _capture(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.capture_worker import drain

    folder = service.db.path.parent if service.db.path is not None else None
    results = drain(service, folder) if folder is not None else []
    if results is None:
        return {"busy": True, "results": []}, "Another capture worker is importing the queue."
    added = sum(1 for r in results if r.status in ("success", "empty"))
    payload = {"busy": False, "results": [r.to_json() for r in results]}
    sessions = "session" if len(results) == 1 else "sessions"
    new = "conversation" if added == 1 else "conversations"
    return payload, f"Captured {len(results)} queued {sessions} ({added} new {new})."


def _keep(service: MemoryService, args: argparse.Namespace) -> Output:
    item = service.keep(args.id)
    return _brief(item), f"Kept memory #{item.id}: it is active now."


def _undo(service: MemoryService, args: argparse.Namespace) -> Output:
    if not service.can_undo():
        return {"undone": []}, "Nothing to undo."
    ids = service.undo()  # none for a change to a link or a category
    text = f"Undid the last change to {len(ids)} memories." if ids else "Undid the last change."
    return {"undone": ids}, text


def _conflict_line(c: ConflictRecord) -> str:
    items = " vs ".join(f"#{i}" for i in c.item_ids)
    return f"#{c.id:<5} {c.status:<27} {c.category:<24} {items}  {c.reason or ''}".rstrip()


def _conflict_text(d: ConflictDetail) -> str:
    c = d.record
    lines = [f"Conflict #{c.id} in {c.category}: {c.status}", f"  {c.reason or ''}".rstrip()]
    for label, item in zip(("Older", "Newer"), (d.items[0], d.items[-1]), strict=False):
        said = (item.valid_from or item.extracted_at).strftime("%Y-%m-%d")
        lines += [
            "",
            f"{label}: memory #{item.id} ({item.status}, confidence {item.confidence:.2f}, {said})",
            f"  {item.content}",
        ]
        if d.excerpts.get(item.id):
            lines.append(f"  from: {d.excerpts[item.id]}")
    if c.decision:
        lines += ["", f"Decision: {c.decision}" + (f" — {c.notes}" if c.notes else "")]
    elif c.is_open:
        lines += ["", f"Resolve with: memory-app conflicts resolve {c.id} --keep newer|older|both"]
    return "\n".join(lines)


def _conflicts(service: MemoryService, args: argparse.Namespace) -> Output:
    action = args.conflicts_command
    if action == "list":
        statuses = {"open": ("unresolved", "pending_user_review"), "all": ()}.get(
            args.status, (args.status,)
        )
        found = service.conflicts(statuses)
        text = "\n".join(_conflict_line(c) for c in found) or "No conflicts."
        return [c.to_json() for c in found], text
    if action == "show":
        detail = service.conflict_detail(args.id)
        return detail.to_json(), _conflict_text(detail)
    decision = "merge" if args.merge is not None else KEEP_CHOICES[args.keep]
    record = service.resolve_conflict(args.id, decision, note=args.note, merged_content=args.merge)
    text = f"Resolved conflict #{record.id}: {record.status}. Undo with: memory-app undo"
    return record.to_json(), text


# -- /mem in Claude Code: `memory-app slash ACTION [ARGS]` (hooks/slash_command.py) ------------
# Short plain text for Claude to echo, about the project of the current folder (the hooks
# match memories' `project` on the session's cwd). Bad usage exits 2, an unknown id 1.

SLASH_USAGE = "/mem list [QUERY] | /mem pin ID | /mem forget ID | /mem off | /mem on | /mem why"
SLASH_STORE_ACTIONS = ("list", "pin", "forget")
SLASH_LIST_LIMIT = 10


def _slash_usage_error(args: argparse.Namespace) -> str | None:
    action, words = args.action, args.words
    if action in ("pin", "forget"):
        if len(words) != 1 or _memory_id(words[0]) is None:
            return f"{action} takes one memory id, such as: /mem {action} 12"
    elif action in ("off", "on", "why", "help", ""):
        if words:
            return f"{action or 'help'} takes no arguments. Usage: {SLASH_USAGE}"
    elif action != "list":
        return f"unknown action {action!r}. Usage: {SLASH_USAGE}"
    return None


def _memory_id(word: str) -> int | None:
    """`12` or `#12`, as `list` shows ids."""
    digits = word.removeprefix("#")
    return int(digits) if digits.isdigit() else None


def _slash_without_store(args: argparse.Namespace, settings: Settings) -> Output:
    project = str(Path.cwd())
    if args.action in ("off", "on"):
        return _pause(settings.data_dir, project, args.action == "off")
    if args.action == "why":
        from memory_app.hooks.injections import explain_last

        store = {
            "MEMORY_APP_DATA_DIR": str(settings.data_dir),
            "MEMORY_APP_DB_URL": settings.db_url,
        }
        text = explain_last({**os.environ, **store}, project)  # --data-dir counts too
        return {"project": project, "why": text}, text
    return {"usage": SLASH_USAGE}, f"Usage: {SLASH_USAGE}"


def _slash(service: MemoryService, args: argparse.Namespace) -> Output:
    """list, pin and forget: the same service calls as `retrieve`, `edit --pin`, `forget`."""
    project = str(Path.cwd())
    if args.action == "list":
        query = " ".join(args.words).strip()
        filters = RetrievalFilters(project=project)
        found = service.retrieve(
            RetrievalQuery(text=query, filters=filters, limit=SLASH_LIST_LIMIT)
        )
        records = [r.record for r in found]
        where = Path(project).name or project
        if not records:
            text = (
                f"No memory of {where} matches {query!r}."
                if query
                else f"No memories of {where} yet."
            )
            return [], text
        head = f"Memories of {where} matching {query!r}:" if query else f"Top memories of {where}:"
        return [_brief(r) for r in records], "\n".join(
            [head, *(f"- {_slash_line(r)}" for r in records)]
        )
    item_id = _memory_id(args.words[0])
    assert item_id is not None  # checked by _slash_usage_error
    if args.action == "pin":
        item = service.set_pinned(item_id, True)
        return _brief(item), f"Pinned {_slash_line(item)}\n(always in context now)"
    item = service.forget(item_id)
    return _brief(item), f"Forgot {_slash_line(item)}\n(undo: memory-app restore {item.id})"


def _slash_line(r: MemoryRecord) -> str:
    content = textwrap.shorten(r.content, 110, placeholder="…")
    return f"#{r.id} [{r.category}] {content}{' 📌' if r.pinned else ''}"


def _demo(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.demo import build_demo_store

    if service.get_stats().resources:
        raise ValueError(
            "this store already holds conversations; use an empty --data-dir for the demo"
        )
    if args.generated < 0:
        raise ValueError("--generated must be 0 or more")
    added = build_demo_store(service, generated=args.generated)
    text = (
        f"Demo store ready: {added['conversations']} conversations, {added['memories']} memories."
    )
    return added, text + " Open it with: memory-app --data-dir " + str(
        service.db.path.parent if service.db.path else ""
    )


_HANDLERS: dict[str, Callable[[MemoryService, argparse.Namespace], Output]] = {
    "import": cli_mirror.with_import_files(_import),
    "retry": _retry,
    "search": _search,
    "list": _list,
    "show": _show,
    "categories": _categories,
    "stats": _stats,
    "usage": _usage,
    "edit": _edit,
    "forget": _forget,
    "restore": _restore,
    "keep": _keep,
    "capture": _capture,
    "undo": _undo,
    "conflicts": _conflicts,
    "demo": _demo,
    "slash": _slash,
    **cli_retrieval.HANDLERS,
    **cli_maintenance.HANDLERS,
    **cli_links.HANDLERS,
    **cli_episodes.HANDLERS,
    **cli_chunks.HANDLERS,
    **cli_serve.HANDLERS,
    **cli_predict.HANDLERS,
    **cli_team.HANDLERS,
    **cli_mirror.HANDLERS,  # `export` again, with `export files` beside claude-md
}

if __name__ == "__main__":
    raise SystemExit(main())
