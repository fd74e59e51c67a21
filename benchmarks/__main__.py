"""Run benchmarks and write their figures to benchmarks/results/<name>.json.

python -m benchmarks                # every benchmark
python -m benchmarks store --items 20000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import store_search

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("which", nargs="*", choices=["store"], default=["store"])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    failed = False
    if "store" in args.which:
        result = store_search.run(items=args.items, queries=args.queries)
        (RESULTS / "store_search.json").write_text(json.dumps(result, indent=2))
        print(store_search.report(result))
        failed |= not result["passed"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
