"""The team commands of `memory-app` (issue 20): a team's shared memory.

    memory-app team publish ID... [--dry-run]
    memory-app team unpublish ID...
    memory-app team sync

Each action is one parser builder in PARSERS and one handler in ACTIONS, so a new action
(connect, init, sync) is two entries, not an edit of a dispatcher. Argument parsing and
printing only; the work is in memory_app/operations/team.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memory_app import cli_team_link, cli_team_sync

if TYPE_CHECKING:
    from memory_app.domain.publishing import OutgoingMemory, PublishPreview
    from memory_app.service import MemoryService

Output = tuple[Any, str]
Action = Callable[["MemoryService", argparse.Namespace], Output]


def _publish_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "share memories with your team: shows exactly what would leave this machine "
        "(redaction re-checked, project by its git remote, never a conversation); "
        "they leave with the next team sync"
    )
    q = inner.add_parser("publish", help=text, description=text, parents=[common])
    q.add_argument("ids", type=int, nargs="+", metavar="ID", help="the memories' ids")
    q.add_argument(
        "--dry-run", action="store_true", help="only show what would be sent; record nothing"
    )


def _unpublish_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = "make team memories personal again; the next team sync withdraws them"
    q = inner.add_parser("unpublish", help=text, description=text, parents=[common])
    q.add_argument("ids", type=int, nargs="+", metavar="ID", help="the memories' ids")


PARSERS: list[Callable[[Any, argparse.ArgumentParser], None]] = [
    _publish_parser,
    _unpublish_parser,
    *cli_team_link.PARSERS,  # init, members, connect, status, disconnect
    *cli_team_sync.PARSERS,  # sync
]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "team memory: publish memories to your team's shared store"
    p = sub.add_parser("team", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    for build in PARSERS:
        build(inner, common)


def _describe(memory: OutgoingMemory) -> list[str]:
    if memory.blocked is not None:
        return [f"#{memory.item_id}  NOT PUBLISHED: {memory.blocked}"]
    where = [f"{memory.category} ({memory.type})"]
    if memory.project:
        where.append(f"project {memory.project}")
    if memory.branch:
        where.append(f"branch {memory.branch}")
    if memory.tags:
        where.append("tags " + ", ".join(memory.tags))
    lines = [f"#{memory.item_id}  {' · '.join(where)}" + ("  (already team)" * memory.already_team)]
    lines.append(f"    {memory.content}")
    if memory.context:
        lines.append(f"    context: {memory.context}")
    if memory.project_note and not memory.project:
        lines.append(f"    {memory.project_note}")
    if memory.redactions:
        kinds = ", ".join(sorted(set(memory.redactions)))
        lines.append(f"    re-checked: {len(memory.redactions)} secret(s) taken out ({kinds})")
    lines.append("    conversation: not sent (it never leaves this machine)")
    return lines


def preview_text(preview: PublishPreview) -> str:
    """The preview as the CLI prints it: every memory, what goes and what cannot."""
    lines: list[str] = []
    for memory in preview.memories:
        lines += _describe(memory)
    sendable = len(preview.sendable)
    if preview.dry_run:
        head = f"Would publish {sendable} of {len(preview.memories)} (dry run: nothing recorded)."
    elif preview.published:
        head = (
            f"Published {len(preview.published)}: recorded here as team memories, they "
            "leave with the next team sync (`memory-app undo` takes it back)."
        )
    else:
        head = "Nothing published."
    return "\n".join([head, *lines])


def publish(service: MemoryService, args: argparse.Namespace) -> Output:
    preview = service.publish_preview(args.ids) if args.dry_run else service.publish(args.ids)
    return preview.to_json(), preview_text(preview)


def unpublish(service: MemoryService, args: argparse.Namespace) -> Output:
    changed = service.unpublish(args.ids)
    listed = ", ".join(f"#{i}" for i in changed)
    text = f"Personal again: {listed}. The next team sync withdraws what the team store has."
    return {"unpublished": changed}, text


ACTIONS: dict[str, Action] = {
    "publish": publish,
    "unpublish": unpublish,
    **cli_team_link.ACTIONS,
    **cli_team_sync.ACTIONS,
}


def team(service: MemoryService, args: argparse.Namespace) -> Output:
    return ACTIONS[args.team_command](service, args)


HANDLERS = {"team": team}
