"""The link commands of `memory-app`: links between memories (memory_app/links).

    memory-app links list ID
    memory-app links add ID TARGET --kind related|depends-on
    memory-app links remove ID TARGET --kind KIND
    memory-app links rebuild

Argument parsing and printing only; the work is in memory_app/links.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memory_app.links.model import HAND_KINDS, KINDS

if TYPE_CHECKING:
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "links between memories: related, depends-on, contradicts, supersedes, part-of"
    p = sub.add_parser("links", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="links_command", metavar="ACTION", required=True)
    text = "a memory's links, both ways: kind, the other memory (or episode), who made it"
    q = inner.add_parser("list", help=text, description=text, parents=[common])
    q.add_argument("id", type=int, help="the memory's id, as list and search show it")
    text = "link a memory to another by hand (undo with `memory-app undo`)"
    q = inner.add_parser("add", help=text, description=text, parents=[common])
    q.add_argument("id", type=int, help="the memory the link starts from")
    q.add_argument("target", type=int, help="the memory it links to")
    q.add_argument(
        "--kind",
        choices=HAND_KINDS,
        default="related",
        help="related (the default), or depends-on: ID needs TARGET",
    )
    text = "remove a link; a discovered one stays away (undo with `memory-app undo`)"
    q = inner.add_parser("remove", help=text, description=text, parents=[common])
    q.add_argument("id", type=int, help="the memory the link starts from")
    q.add_argument("target", type=int, help="the memory (or episode, for part-of) it links to")
    q.add_argument("--kind", choices=KINDS, required=True, help="the link's kind")
    text = "discover the links again now (nightly maintenance does it too)"
    inner.add_parser("rebuild", help=text, description=text, parents=[common])


def links(service: MemoryService, args: argparse.Namespace) -> Output:
    command = args.links_command
    if command == "list":
        found = service.memory_links(args.id)
        lines = [f"{link.line()}  ({link.origin})" for link in found]
        text = "\n".join(lines) or f"Memory #{args.id} has no links."
        return [link.to_json() for link in found], text
    if command == "add":
        link = service.add_link(args.id, args.target, args.kind)
        return link.to_json(), f"Linked #{args.id} → {link.line()}"
    if command == "remove":
        service.remove_link(args.id, args.target, args.kind)
        payload = {"removed": {"source": args.id, "target": args.target, "kind": args.kind}}
        return payload, f"Removed the {args.kind} link from #{args.id} to #{args.target}."
    report = service.rebuild_links()
    counts = ", ".join(f"{n} {kind}" for kind, n in report.by_kind.items()) or "none"
    text = (
        f"Discovered links: {counts}. "
        f"{report.added} added, {report.updated} updated, {report.removed} removed."
    )
    return report.to_json(), text


HANDLERS = {"links": links}
