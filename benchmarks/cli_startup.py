"""CLI startup benchmark (issue 17): how long `memory-app --version`, `--help`, a
subcommand's `--help` and `completion bash` take, whole process, against a command that
opens the store (`stats` on an empty one) and a bare interpreter.

Each command runs as `python -m memory_app ARGS` in a fresh process, `runs` times after
one untimed warm-up (so the bytecode cache is filled, as for an installed app), with
MEMORY_APP_DATA_DIR in a temporary folder. Wall time and the CPU time the child used are
both reported; the target is the CPU time of `--help` (wall time on a shared machine
depends on what else runs). Before the parser was built from light modules, `--help`
and `--version` imported the database layer: 580 ms of CPU each on the 2-core machine
with the bytecode cached (the issue measured 1.4 s), 75 ms after.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms

TARGET_HELP_CPU_P95_MS = 250.0
COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "search --help": ["search", "--help"],
    "completion bash": ["completion", "bash"],
    "stats (opens the store)": ["stats"],
}
REPO = Path(__file__).resolve().parent.parent


def _once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, check=True, timeout=120)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _measure(argv: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    _once(argv, env)  # warm-up: bytecode cache, page cache
    samples = [_once(argv, env) for _ in range(runs)]
    return {
        "wall": summarize_ms([w for w, _ in samples]),
        "cpu": summarize_ms([c for _, c in samples]),
    }


def run(runs: int = 20) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cli-bench-") as tmp:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env["MEMORY_APP_DATA_DIR"] = str(Path(tmp) / "data")
        results = {
            name: _measure([sys.executable, "-m", "memory_app", *args], env, runs)
            for name, args in COMMANDS.items()
        }
        results["python -c pass"] = _measure([sys.executable, "-c", "pass"], env, runs)
    help_cpu = results["--help"]["cpu"]["p95_ms"]
    return {
        "benchmark": "cli_startup",
        "runs": runs,
        "commands": results,
        "target_help_cpu_p95_ms": TARGET_HELP_CPU_P95_MS,
        "passed": help_cpu <= TARGET_HELP_CPU_P95_MS,
    }


def report(result: dict[str, Any]) -> str:
    lines = [f"cli_startup: whole process, {result['runs']} runs each (wall / CPU)"]
    for name, figures in result["commands"].items():
        w, c = figures["wall"], figures["cpu"]
        lines.append(
            f"  {name:<24} wall p50 {w['p50_ms']:7.1f} ms p95 {w['p95_ms']:7.1f} ms   "
            f"CPU p50 {c['p50_ms']:7.1f} ms p95 {c['p95_ms']:7.1f} ms"
        )
    verdict = "PASS" if result["passed"] else "FAIL"
    lines.append(f"  target --help CPU p95 <= {result['target_help_cpu_p95_ms']} ms: {verdict}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(run()))
