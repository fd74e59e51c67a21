"""The retrieval commands of `memory-app`: retrieve, context, export claude-md.

Argument parsing and printing only; the work is in MemoryService.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_app.domain.branches import DEFAULT_BASE_BRANCHES, BranchScope, learnt_branch
from memory_app.domain.budget import ContextPlan
from memory_app.domain.claude_md import DEFAULT_MAX_CHARS
from memory_app.domain.records import ITEM_STATUSES
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery, RetrievedMemory

if TYPE_CHECKING:  # the parser is built without the database layer (cli.py)
    from memory_app.retrieval.assisted import Assistance
    from memory_app.retrieval.context import ContextRequest
    from memory_app.service import MemoryService

Output = tuple[Any, str]
DEFAULT_BUDGET = 2000


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, parents=[common])

    p = add("retrieve", "the memories that best fit a task, with why each ranked where it did")
    p.add_argument("query", nargs="?", default="", help="the task (empty: rank by standing)")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--category", action="append", default=[], help="repeatable")
    p.add_argument("--type", dest="types", action="append", default=[], help="repeatable")
    p.add_argument("--tag", dest="tags", action="append", default=[], help="repeatable")
    p.add_argument("--project", help="that project's memories and global ones")
    p.add_argument("--since", type=_date, help="said on or after (YYYY-MM-DD or ISO time)")
    p.add_argument("--until", type=_date, help="said on or before")
    p.add_argument("--min-importance", type=float)
    p.add_argument("--status", action="append", choices=ITEM_STATUSES, help="repeatable")
    p.add_argument("--at", type=_date, help="time travel: what was valid at that moment")
    p.add_argument("--min-score", type=float, default=0.0)
    _assisted_option(p)

    p = add("context", "what would be injected for a task: tiered, within a token budget")
    p.add_argument("query", nargs="?", default="", help="the task (empty: general context)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="tokens (about 4 chars)")
    p.add_argument("--project", help="that project's memories and global ones")
    p.add_argument("--exclude", type=int, action="append", default=[], help="memory id")
    p.add_argument(
        "--session",
        metavar="ID",
        help="also this conversation so far (a Claude Code session id, or a conversation's "
        "number): its chunk summaries fill what the memories leave of the budget",
    )
    _branch_options(p)
    _assisted_option(p)

    p = add("export", "write memory where the assistant reads it")
    inner = p.add_subparsers(dest="export_target", metavar="TARGET", required=True)
    text = "write the managed memory block into a CLAUDE.md (your own text is kept)"
    q = inner.add_parser("claude-md", help=text, description=text, parents=[common])
    q.add_argument(
        "path",
        type=Path,
        nargs="?",
        help="the CLAUDE.md to update (created if missing); with --branches, by default "
        "the one at the top of the git repository",
    )
    q.add_argument(
        "--project",
        help="that project's memories and global ones (with --branches, by default the "
        "git repository's folder)",
    )
    q.add_argument("--max-chars", type=int, default=DEFAULT_MAX_CHARS)
    q.add_argument(
        "--via",
        type=Path,
        help="put the block in this file instead and import it from PATH with @file",
    )
    q.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    _branch_options(q)
    q.add_argument(
        "--branches",
        nargs="?",
        const="",
        metavar="DIR",
        help="seed 001's branch memory: write CLAUDE_base.md and one CLAUDE_{branch}.md "
        "per branch with memories into DIR (default: .claude at the top of the git "
        "repository) and switch the block to the checked-out branch; run it again after "
        "a git checkout (or see --install-hook)",
    )
    q.add_argument(
        "--install-hook",
        action="store_true",
        help="with --branches: also install a git post-checkout hook that runs this "
        "export on every branch checkout",
    )


def _assisted_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--assisted",
        action="store_true",
        help="let Claude add search words and pick categories (needs ANTHROPIC_API_KEY; "
        "costs a few hundred tokens; without a key or on any error: the offline ranking, "
        "and says why)",
    )


def _branch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--branch",
        metavar="NAME",
        help="only what that git branch sees: its own memories and the base ones (learnt "
        "on no branch or on the default branch)",
    )
    p.add_argument(
        "--base-branch",
        metavar="NAME",
        action="append",
        default=[],
        help="the default branch, whose memories every branch sees; repeatable (default: "
        "the repository's, else main and master)",
    )


def _date(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a date: use YYYY-MM-DD or an ISO time"
        ) from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def retrieve(service: MemoryService, args: argparse.Namespace) -> Output:
    filters = RetrievalFilters(
        categories=tuple(args.category),
        types=tuple(args.types),
        tags=tuple(t.lower() for t in args.tags),
        project=args.project,
        since=args.since,
        until=args.until,
        min_importance=args.min_importance,
        statuses=tuple(args.status) if args.status else None,
        valid_at=args.at,
    )
    query = RetrievalQuery(
        text=args.query, filters=filters, limit=args.limit, min_score=args.min_score
    )
    if args.assisted:
        return _retrieve_assisted(service, query)
    results = service.retrieve(query, record_access=True)
    payload = [_result_json(r) for r in results]
    if not results:
        return payload, "No memory matches."
    lines = []
    for r in results:
        lines.append(f"#{r.record.id:<6} {r.score:.3f}  [{r.record.category}] {r.record.content}")
        lines.append(f"        {r.breakdown.describe()}")
    return payload, "\n".join(lines)


def context(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.retrieval.context import ContextRequest

    request = ContextRequest(
        task=args.query,
        project=args.project,
        budget=args.budget,
        exclude=frozenset(args.exclude),
        branch=_scope(args),
        conversation=args.session,
    )
    if args.assisted:
        return _context_assisted(service, request)
    plan = service.build_context(request, record_access=True)
    return plan_json(plan), plan.render()


def _retrieve_assisted(service: MemoryService, query: RetrievalQuery) -> Output:
    """`retrieve --assisted`: the results as a list under "results", with "assisted"."""
    from memory_app.retrieval import assisted

    assistant = assisted.assistant_from_env()
    try:
        found = assisted.retrieve(service, query, assistant, record_access=True)
    finally:
        assistant.close()
    help_ = found.assistance
    payload = {"results": [_result_json(r) for r in found.results], "assisted": help_.to_json()}
    lines = [s.render() for s in help_.summaries]
    for r in found.results:
        mark = "  (found by Claude's queries)" if r.record.id in help_.added else ""
        lines.append(
            f"#{r.record.id:<6} {r.score:.3f}  [{r.record.category}] {r.record.content}{mark}"
        )
        lines.append(f"        {r.breakdown.describe()}")
    if not found.results:
        lines.append("No memory matches.")
    lines.append(_assisted_line(help_))
    return payload, "\n".join(lines)


def _context_assisted(service: MemoryService, request: ContextRequest) -> Output:
    """`context --assisted`: the plan's JSON with the summaries that lead it and "assisted"."""
    from memory_app.retrieval import assisted

    assistant = assisted.assistant_from_env()
    try:
        built = assisted.context(service, request, assistant, record_access=True)
    finally:
        assistant.close()
    payload = plan_json(built.plan)
    payload.update(
        used_tokens=built.used,
        remaining_tokens=built.plan.budget - built.used,
        context=built.render(),
        assisted=built.assistance.to_json(),
    )
    return payload, built.render() + "\n" + _assisted_line(built.assistance)


def _assisted_line(help_: Assistance) -> str:
    if help_.note:
        return help_.note
    said = (
        "sufficient"
        if help_.sufficient
        else "not sufficient"
        if help_.sufficient is False
        else "not checked"
    )
    return (
        f"Assisted: queries {'; '.join(help_.queries) or 'none'}; categories "
        f"{', '.join(help_.categories) or 'any'}; summaries {said}; "
        f"{help_.usage.input_tokens if help_.usage else 0} + "
        f"{help_.usage.output_tokens if help_.usage else 0} tokens."
    )


def _base(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(dict.fromkeys(args.base_branch)) or DEFAULT_BASE_BRANCHES


def _scope(args: argparse.Namespace) -> BranchScope | None:
    if args.branch is None:
        return None
    return BranchScope.working_on(_named_branch(args.branch), _base(args))


def _named_branch(name: str) -> str:
    branch = learnt_branch(name)
    if branch is None:
        raise ValueError(f"--branch {name!r} names no branch")
    return branch


def export(service: MemoryService, args: argparse.Namespace) -> Output:
    if args.branches is not None:
        if args.branch is not None:
            raise ValueError(
                "--branch and --branches do not go together: --branches "
                "follows the checked-out branch"
            )
        return _export_branches(service, args)
    if args.install_hook:
        raise ValueError("--install-hook goes with --branches")
    if args.path is None:
        raise ValueError("name the CLAUDE.md to update (or use --branches in a git repository)")
    branch = None if args.branch is None else _named_branch(args.branch)
    plan = service.plan_claude_md(
        args.path,
        project=args.project,
        max_chars=args.max_chars,
        via=args.via,
        branch=branch,
        base=_base(args),
    )
    diff = plan.diff()
    payload: dict[str, Any] = {
        "path": str(args.path),
        "via": str(args.via) if args.via else None,
        "branch": branch,
        "changed": plan.changed,
        "included": list(plan.included),
        "dropped": list(plan.dropped),
        "conflicted": list(plan.conflicted),
        "diff": diff,
        "written": False,
    }
    notes = []
    if plan.dropped:
        notes.append(f"{len(plan.dropped)} left out by the size cap (--max-chars)")
    if plan.conflicted:
        notes.append(
            f"{len(plan.conflicted)} in unresolved conflicts left out "
            "(resolve them: memory-app conflicts list)"
        )
    tail = "".join(f"\n{n[0].upper()}{n[1:]}." for n in notes)
    if args.dry_run or not plan.changed:
        return payload, ("Already up to date." if not plan.changed else diff) + tail
    service.write_claude_md(plan)
    payload["written"] = True
    return payload, f"Wrote {len(plan.included)} memories to {args.path}.{tail}"


def _export_branches(service: MemoryService, args: argparse.Namespace) -> Output:
    """`export claude-md --branches [DIR]`: the branch files and the switched block."""
    from memory_app.retrieval.branch_export import BASE_FILE
    from memory_app.retrieval.git_checkout import checkout_of

    chosen = Path(args.branches) if args.branches else None
    checkout = checkout_of(args.path.parent if args.path else chosen or Path.cwd())
    folder = chosen or checkout.top / ".claude"  # made when missing, as Puffin does
    target = args.path or checkout.top / "CLAUDE.md"
    base = tuple(dict.fromkeys(args.base_branch)) or checkout.base
    project = args.project or str(checkout.top)
    plan = service.plan_branch_files(
        checkout,
        folder=folder,
        target=target,
        project=project,
        base=base,
        max_chars=args.max_chars,
        via=args.via,
        make_folder=chosen is None,
    )
    diff = plan.diff()
    branch = checkout.branch or "a detached HEAD"
    payload: dict[str, Any] = {
        "repository": str(checkout.top),
        "branch": checkout.branch,
        "base_branches": list(base),
        "project": project,
        "folder": str(folder),
        "files": [
            {
                "path": str(f.plan.path),
                "branch": f.branch,
                "included": list(f.included),
                "dropped": list(f.dropped),
                "changed": f.plan.changed,
            }
            for f in plan.files
        ],
        "removed": [str(path) for path, _ in plan.removed],
        "claude_md": {
            "path": str(target),
            "via": str(args.via) if args.via else None,
            "included": list(plan.block.included),
            "dropped": list(plan.block.dropped),
            "conflicted": list(plan.block.conflicted),
            "changed": plan.block.changed,
        },
        "changed": plan.changed,
        "diff": diff,
        "written": False,
        "hook": None,
    }
    lines = []
    if args.dry_run or not plan.changed:
        lines.append("Already up to date." if not plan.changed else diff.rstrip("\n"))
    else:
        service.write_branch_files(plan)
        payload["written"] = True
        others = len(plan.files) - 1
        lines.append(
            f"Wrote {BASE_FILE} and {others} branch file{'s' if others != 1 else ''} to "
            f"{folder}; the block in {target} holds the base memories and {branch}'s "
            f"({len(plan.block.included)} memories)."
        )
        if plan.removed:
            lines.append(f"Removed {len(plan.removed)} file(s) of branches without memories.")
    if plan.block.dropped:
        lines.append(
            f"{len(plan.block.dropped)} left out of the block by the size cap (--max-chars)."
        )
    if plan.block.conflicted:
        lines.append(
            f"{len(plan.block.conflicted)} in unresolved conflicts left out "
            "(resolve them: memory-app conflicts list)."
        )
    if args.install_hook:
        from memory_app.retrieval.checkout_hook import install

        hook = install(checkout.top, _hook_arguments(args, folder, target), dry_run=args.dry_run)
        payload["hook"] = str(hook.path)
        lines.append(hook.message)
    return payload, "\n".join(lines)


def _hook_arguments(args: argparse.Namespace, folder: Path, target: Path) -> list[str]:
    """This export's options with absolute paths: what the hook runs after a checkout."""
    words = [
        "export",
        "claude-md",
        str(target.absolute()),
        "--branches",
        str(folder.absolute()),
        "--max-chars",
        str(args.max_chars),
    ]
    if args.project:
        words += ["--project", args.project]
    if args.via:
        words += ["--via", str(args.via.absolute())]
    for name in args.base_branch:
        words += ["--base-branch", name]
    if getattr(args, "data_dir", None):
        words += ["--data-dir", str(Path(args.data_dir).absolute())]
    if getattr(args, "db_url", None):
        words += ["--db-url", args.db_url]
    return words


def plan_json(plan: ContextPlan) -> dict[str, Any]:
    return {
        "budget": plan.budget,
        "used_tokens": plan.used,
        "remaining_tokens": plan.remaining,
        "tiers": [
            {
                "tier": t.key,
                "allowance": t.allowance,
                "used_tokens": t.used,
                "entries": [
                    {
                        "text": e.text,
                        "tokens": e.tokens,
                        "item_id": e.item_id,
                        "conflict_id": e.conflict_id,
                        "level": e.level,
                        "score": e.breakdown.total if e.breakdown else None,
                        "components": e.breakdown.components() if e.breakdown else None,
                    }
                    for e in t.entries
                ],
                "left_out": [e.item_id or e.conflict_id for e in t.left_out],
            }
            for t in plan.tiers
        ],
        "context": plan.render(),
    }


def _result_json(result: RetrievedMemory) -> dict[str, Any]:
    return {
        **result.record.to_json(),
        "score": result.score,
        "components": result.breakdown.components(),
    }


HANDLERS = {"retrieve": retrieve, "context": context, "export": export}
