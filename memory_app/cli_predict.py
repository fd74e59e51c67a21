"""`memory-app predict`: the memories likely needed for the files, branch and error at
hand, before any prompt (seed 004's predictive context), each with why.

Argument parsing and printing only; the ranking is memory_app/retrieval/predict.py.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parser is built without the database layer (cli.py)
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "the memories likely needed for these files, this branch and this error, "
        "before any prompt, with why each was predicted"
    )
    p = sub.add_parser("predict", help=text, description=text, parents=[common])
    p.add_argument(
        "--file",
        dest="files",
        metavar="PATH",
        action="append",
        default=[],
        help="a file open or recently edited, relative to --project or absolute; repeatable",
    )
    p.add_argument("--branch", metavar="NAME", help="the checked-out git branch")
    p.add_argument("--error", metavar="TEXT", help="the last error message")
    p.add_argument("--project", help="the project folder: its memories and global ones")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument(
        "--time-of-day",
        action="store_true",
        help="also favour memories that came up at this hour on other days",
    )


def predict(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.retrieval.predict import predict as ranked
    from memory_app.retrieval.predict import signals_from

    at = service.clock() if args.time_of_day else None
    signals = signals_from(args.project, args.branch, args.files, args.error, at)
    if signals.is_empty():
        raise ValueError("give at least one signal: --file PATH, --branch NAME or --error TEXT")
    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")
    found = ranked(service, signals, args.limit, now=service.clock())
    payload = [p.to_json() for p in found]
    if not found:
        return payload, "No memory is predicted for these signals."
    lines = []
    for p in found:
        lines.append(f"#{p.id:<6} {p.score:.3f}  [{p.category}] {p.content}")
        lines.append(f"        {'; '.join(p.reasons)}")
    return payload, "\n".join(lines)


HANDLERS = {"predict": predict}
