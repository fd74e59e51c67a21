"""Run benchmarks and write their figures to benchmarks/results/<name>.json.

python -m benchmarks                          # every benchmark, at the issue's sizes
python -m benchmarks store --items 20000
python -m benchmarks locomo retrieve          # retrieval quality (LoCoMo) and speed
python -m benchmarks consolidation            # nightly maintenance at 100k memories
python -m benchmarks quality                  # memory quality: dev and frozen test sets
python -m benchmarks startup search stall --items 5000 --queries 20 --files 40
python -m benchmarks hook --items 10000 --runs 50   # UserPromptSubmit hook, whole process
python -m benchmarks cli --runs 20            # memory-app --version / --help, whole process
python -m benchmarks predict                  # predictive context: precision@5 vs search
python -m benchmarks team_search --items 5000  # SQLite beside PostgreSQL (needs postgresql)
python -m benchmarks team_sync                # 10,000 changes through one team store
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
NAMES = (
    "store",
    "retrieve",
    "locomo",
    "consolidation",
    "quality",
    "startup",
    "search",
    "stall",
    "hook",
    "cli",
    "predict",
    "team_search",
    "team_sync",
)


def _plan(name: str, args: argparse.Namespace) -> tuple[str, Callable[[], dict[str, Any]], Any]:
    """(result file stem, how to run it, the module with report()). The GUI benchmarks are
    imported only when asked for: they set QT_QPA_PLATFORM before Qt is imported."""
    if name == "store":
        from benchmarks import store_search as module

        store_queries = args.queries or 200
        return (
            "store_search",
            lambda: module.run(items=(args.items or 100_000), queries=store_queries),
            module,
        )
    if name == "retrieve":
        from benchmarks import retrieve as module

        return (
            "retrieve",
            lambda: module.run(items=(args.items or 100_000), queries=args.queries or 300),
            module,
        )
    if name == "locomo":
        from benchmarks import locomo as module

        return "locomo", module.run, module
    if name == "consolidation":
        from benchmarks import consolidation as module

        return "consolidation", lambda: module.run(items=(args.items or 100_000)), module
    if name == "quality":
        from benchmarks import quality as module

        return "quality", module.run, module
    if name == "startup":
        from benchmarks import gui_startup as module

        return (
            "gui_startup",
            lambda: module.run(items=(args.items or 100_000), runs=(args.runs or 5)),
            module,
        )
    if name == "search":
        from benchmarks import gui_search as module

        search_queries = args.queries or 60
        return (
            "gui_search",
            lambda: module.run(
                items=(args.items or 100_000), queries=search_queries, budget_s=args.budget
            ),
            module,
        )
    if name == "hook":
        from benchmarks import hook_latency as module

        hook_items, hook_runs = args.items or 10_000, args.runs or 50
        return "hook_latency", lambda: module.run(items=hook_items, runs=hook_runs), module
    if name == "cli":
        from benchmarks import cli_startup as module

        return "cli_startup", lambda: module.run(runs=args.runs or 20), module
    if name == "team_search":
        from benchmarks import team_search as module

        team_items, team_queries = args.items or 100_000, args.queries or 200
        return "team_search", lambda: module.run(items=team_items, queries=team_queries), module
    if name == "team_sync":
        from benchmarks import team_sync as module

        return "team_sync", lambda: module.run(items=args.items or 10_000), module
    if name == "predict":
        from benchmarks import predict as module

        return "predict", lambda: module.run(background=args.items or 3000), module
    from benchmarks import gui_import_stall as module

    return (
        "gui_import_stall",
        lambda: module.run(
            items=(args.items or 100_000), files=args.files, trace=args.trace_stalls
        ),
        module,
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument(
        "which", nargs="*", metavar="NAME", help=f"any of {', '.join(NAMES)}; default: all"
    )
    parser.add_argument(
        "--items", type=int, default=None, help="memories in the store (hook: 10,000, else 100,000)"
    )
    parser.add_argument(
        "--queries", type=int, default=None, help="queries (store: 200, search: 60)"
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="startup: launches per view (5); hook: processes (50); cli: per command (20)",
    )
    parser.add_argument("--files", type=int, default=200, help="stall: conversations imported")
    parser.add_argument(
        "--budget", type=float, default=150.0, help="search: seconds for all queries at most"
    )
    parser.add_argument(
        "--trace-stalls",
        action="store_true",
        help="stall: sample the threads' stacks during stalls (perturbs the figures a little)",
    )
    args = parser.parse_args()
    unknown = [n for n in args.which if n not in NAMES]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    RESULTS.mkdir(exist_ok=True)
    failed = False
    for name in [n for n in NAMES if n in args.which or not args.which]:
        stem, run, module = _plan(name, args)
        try:
            result = run()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            result = {"benchmark": stem, "passed": False, "error": f"{type(exc).__name__}: {exc}"}
            print(f"{stem}: FAILED to run: {result['error']}", file=sys.stderr)
        else:
            print(module.report(result), flush=True)
        (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
        failed |= not result["passed"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
