"""Import stall benchmark (issue: GUI performance): the longest event-loop stall on the
GUI thread while an import runs, with the main window shown over a store of N generated
memories. Target: longest gap under 50 ms at 100,000 items.

In process, offscreen: a QApplication and the qasync loop, the real main window
(`build_main_window(build_context(...))`), and a real import of F generated Claude Code
sessions through `context.jobs.run("import", … import_in_process (a child process) …)`, its progress
carried to the GUI thread by a queued Qt signal into the StatusModel, as the app does.
A 5 ms precise QTimer records each tick on the GUI thread; a gap between two ticks is
how long the loop could not answer the user.

Timeline: t=0 is window.show(); the ticker and the import start at t=0. The first
200 ms (first layout and paint of the window) are excluded: a gap spanning the 200 ms
mark counts from the mark. Judged: gaps up to the end of the import job. After the job,
the app refreshes its views (sources_changed / memories_changed); gaps during that
refresh are reported separately, not judged.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import itertools
import json
import random
import sys
import tempfile
import threading
import time
import traceback
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication

from benchmarks.gui_startup import build_store
from benchmarks.stats import percentile
from memory_app.background import import_in_process
from memory_app.config import resolve_settings
from memory_app.demo import AREAS, NOUNS, TOOLS, VERBS
from memory_app.domain.jobs import JobState
from memory_app.extract.offline import OfflineExtractor
from memory_app.gui.app import build_context, build_main_window
from memory_app.service import MemoryService

TARGET_MAX_GAP_MS = 50.0
TICK_MS = 5
EXCLUDED_START_S = 0.2
AFTER_IMPORT_S = 2.0  # keep ticking through the refresh the import triggers
IMPORT_TIMEOUT_S = 150.0
# The real sessions kept with the tests (tests/fixtures/samples/SOURCES.md says whence).
SAMPLES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "samples" / "claude-code"
TRACE_AFTER_S = 0.03
TRACE_DEPTH = 6
REAL_SAMPLE_EVERY = 10  # every 10th file is a varied copy of a real session, if present

# Explicit preferences, decisions and conventions; drawn from a small pool, so the same
# statement recurs across files and the dedupe path (reinforce, not add) is exercised.
PREFERENCES = (
    "One rule for this codebase: we always use {t1} for {a1}, never {t2}.",
    "I prefer {t1} over {t2} for anything in {a1}.",
    "We decided to use {t1} for {a1} because {t2} was too slow.",
    "Please keep the {a1} config in src/{a1}/settings.py; do not duplicate it in {a2}.",
    "Always run {t1} before committing changes to the {a1} folder.",
    "Never call {t2} directly from the {a1} code; go through the {t1} wrapper.",
    "Commit messages follow Conventional Commits, like feat({a1}): add {n1} support.",
    "Tests for {a1} use {t1} fixtures, not {t2} mocks.",
)
ASKS = (
    "Can you look at src/{a1}/{n1}.py? The {fn} function fails when {t1} times out.",
    "The {a1} tests are flaky again, about one run in five. Can you find out why?",
    "Please add a {n1} endpoint next to the {n2} one in the {a1} module.",
    "Run the {a1} tests again please, and show me what failed.",
    "Why does {fn} take so long on a big {n1} table?",
    "Let's rename {fn} to {fn2} everywhere, including the {a2} docs.",
)
ANSWERS = (
    "I read src/{a1}/{n1}.py. The {fn} function retries forever when {t1} does not answer, "
    "so one slow call blocks the whole {a2} queue. I capped the retries at three and added "
    "a timeout.",
    "The root cause is shared state: {fn} keeps a module-level {n1} cache that leaks "
    "between {a1} tests. I moved it into a fixture so each test starts clean.",
    "Done. I added the {n1} handler, wired it into the router and wrote two tests for it; "
    "all {a1} tests pass.",
    "{fn} loads every {n1} row before filtering. I pushed the filter into the query and "
    "added an index on the {n2} column, which makes it about forty times faster.",
)


def _code(rng: random.Random, lines: int) -> str:
    """A plausible source listing, as a Read tool result carries."""
    out = []
    for n in range(lines):
        verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
        out.append(
            f"{n + 1:>5}\tdef {verb}_{noun}({other}: {other.title()}) -> {noun.title()}:\n"
            f"{n + 1:>5}\t    return {rng.choice(TOOLS)}.{verb}({other}, retries={n % 5})"
        )
    return "\n".join(out)


def _session_lines(number: int, rng: random.Random) -> list[dict[str, Any]]:
    """One Claude Code session: user asks, assistant answers split over several lines
    sharing message.id (thinking, text, tool_use), tool results, hook progress lines."""
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    project = f"/home/dev/project-{number % 12}"
    branch = rng.choice(("main", "develop", f"feature/{rng.choice(NOUNS)}"))
    when = datetime(2026, 1, 5, 9, tzinfo=UTC) + timedelta(hours=7 * number)
    base = {"cwd": project, "sessionId": session, "gitBranch": branch, "version": "2.1.38"}
    lines: list[dict[str, Any]] = [
        {"type": "file-history-snapshot", "messageId": str(uuid.uuid4()), "snapshot": {}}
    ]
    parent: str | None = None

    def add(kind: str, **fields: Any) -> None:
        nonlocal parent, when
        when += timedelta(seconds=rng.randrange(3, 90))
        ident = str(uuid.UUID(int=rng.getrandbits(128)))
        lines.append(
            {
                **base,
                "type": kind,
                "parentUuid": parent,
                "uuid": ident,
                "timestamp": when.isoformat().replace("+00:00", "Z"),
                **fields,
            }
        )
        parent = ident

    def words() -> dict[str, str]:
        t1, t2 = rng.sample(TOOLS[:24], 2)  # a smaller pool: statements recur across files
        a1, a2 = rng.sample(AREAS[:16], 2)
        n1, n2 = rng.sample(NOUNS, 2)
        fn = f"{rng.choice(VERBS)}_{n1}"
        fn2 = f"{rng.choice(VERBS)}_{n2}"
        return {"t1": t1, "t2": t2, "a1": a1, "a2": a2, "n1": n1, "n2": n2, "fn": fn, "fn2": fn2}

    exchanges = rng.randrange(8, 16)
    preference_turns = set(rng.sample(range(exchanges), 3))
    for turn in range(exchanges):
        w = words()
        ask = rng.choice(ASKS).format(**w)
        if turn in preference_turns:
            ask = f"{ask} {rng.choice(PREFERENCES).format(**w)}"
        add("user", message={"role": "user", "content": ask}, userType="external")
        add("progress", data={"type": "hook_progress", "hookEvent": "UserPromptSubmit"})
        message_id = f"msg_{rng.getrandbits(64):016x}"
        usage = {"input_tokens": 3, "output_tokens": rng.randrange(20, 900)}

        def assistant(block: dict[str, Any], mid: str = message_id, use: Any = usage) -> None:
            body = {"id": mid, "role": "assistant", "content": [block], "usage": use}
            add("assistant", message={"model": "claude-opus-4-6", "type": "message", **body})

        assistant({"type": "thinking", "thinking": f"Look at {w['fn']} first.", "signature": "x"})
        assistant({"type": "text", "text": f"I'll start with src/{w['a1']}/{w['n1']}.py."})
        tool_id = f"toolu_{rng.getrandbits(64):016x}"
        path = f"{project}/src/{w['a1']}/{w['n1']}.py"
        assistant({"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": path}})
        add(
            "user",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_id,
                        "content": _code(rng, rng.randrange(20, 60)),
                    }
                ],
            },
        )
        answer_id = f"msg_{rng.getrandbits(64):016x}"
        add(
            "assistant",
            message={
                "model": "claude-opus-4-6",
                "id": answer_id,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": rng.choice(ANSWERS).format(**w)}],
                "usage": usage,
            },
        )
    return lines


def _varied_sample(source: Path, number: int) -> str:
    """A real session with a new session id and the user's words changed a little, so its
    content hash differs from every other copy."""
    session = str(uuid.UUID(int=number))
    out = []
    for raw in source.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            out.append(raw)
            continue
        if "sessionId" in record:
            record["sessionId"] = session
        message = record.get("message")
        if record.get("type") == "user" and isinstance(message, dict):
            _vary(message, f" (run {number}, on the {AREAS[number % len(AREAS)]})")
        out.append(json.dumps(record))
    return "\n".join(out) + "\n"


def _vary(message: dict[str, Any], suffix: str) -> None:
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = content + suffix
        return
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            block["text"] = str(block.get("text", "")) + suffix
            return


def write_conversations(folder: Path, count: int, seed: int = 3) -> dict[str, int]:
    """`count` Claude Code session files in `folder`; returns their number and bytes."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    samples = sorted(SAMPLES.glob("*.jsonl")) if SAMPLES.is_dir() else []
    size = real = 0
    for number in range(count):
        target = folder / f"session-{number:04d}.jsonl"
        if samples and number % REAL_SAMPLE_EVERY == REAL_SAMPLE_EVERY - 1:
            text = _varied_sample(samples[(number // REAL_SAMPLE_EVERY) % len(samples)], number)
            real += 1
        else:
            text = "".join(json.dumps(line) + "\n" for line in _session_lines(number, rng))
        target.write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
    return {"files": count, "bytes": size, "real_sample_copies": real}


class _StallTracer(threading.Thread):
    """With --trace-stalls: when the GUI thread has not ticked for TRACE_AFTER_S, samples
    every thread's stack once per stall, to show what the GUI thread was stuck in and what
    the others were doing meanwhile. It needs the GIL to run, so it perturbs a little."""

    def __init__(self, ticks: list[float]) -> None:
        super().__init__(name="stall-tracer", daemon=True)
        self.ticks = ticks
        self.gui = threading.get_ident()
        self.samples: list[dict[str, Any]] = []
        self.done = threading.Event()

    def run(self) -> None:
        traced_tick = None
        while not self.done.wait(0.005):
            last = self.ticks[-1]
            waited = time.perf_counter() - last
            if waited < TRACE_AFTER_S or last == traced_tick:
                continue
            traced_tick = last
            names = {t.ident: t.name for t in threading.enumerate()}
            stacks = {}
            for ident, frame in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                name = "GUI" if ident == self.gui else names.get(ident, str(ident))
                stacks[name] = [
                    f"{_short(f.filename)}:{f.lineno} {f.name}"
                    for f in traceback.extract_stack(frame)[-TRACE_DEPTH:]
                ]
            self.samples.append({"tick": last, "waited_ms": round(waited * 1000, 1), **stacks})


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/memory_app/", "/benchmarks/"):
        if marker in filename:
            return marker.strip("/") + "/" + filename.split(marker, 1)[1]
    return filename


class _ProgressBridge(QObject):
    """Carries the job's progress to the GUI thread (a queued connection), as the app does."""

    progressed = Signal(int, int, str)


def _gaps(ticks: list[float], start: float, end: float) -> list[tuple[float, float]]:
    """(gap, when it began) for each gap between consecutive ticks, clipped to [start,
    end]: a gap spanning a bound counts only its part inside."""
    out = []
    for before, after in itertools.pairwise(ticks):
        lo, hi = max(before, start), min(after, end)
        if hi > lo:
            out.append((hi - lo, lo))
    return out


def _stats(gaps: list[tuple[float, float]]) -> dict[str, float] | None:
    if not gaps:
        return None
    values = [g * 1000 for g, _ in gaps]
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 2),
        "p99_ms": round(percentile(values, 99), 2),
        "max_ms": round(max(values), 2),
        "over_50_ms": sum(1 for v in values if v >= 50),
        "over_20_ms": sum(1 for v in values if v >= 20),
    }


async def _measure(window: Any, context: Any, paths: list[Path], trace: bool) -> dict[str, Any]:
    ticks: list[float] = []
    progress: list[tuple[float, int]] = []  # (time on the GUI thread, files done)
    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(lambda: ticks.append(time.perf_counter()))

    def on_progress(done: int, total: int, message: str) -> None:
        progress.append((time.perf_counter(), done))
        context.status.progress(done, total, message)

    bridge = _ProgressBridge()
    bridge.progressed.connect(on_progress, Qt.ConnectionType.QueuedConnection)
    state = JobState(on_progress=bridge.progressed.emit)
    service = context.service

    t0 = time.perf_counter()
    window.show()
    ticker.start()
    ticks.append(t0)
    tracer = _StallTracer(ticks) if trace else None
    if tracer is not None:
        tracer.start()
    context.status.begin("Importing conversations")
    job = context.jobs.run("import", lambda job: import_in_process(service, paths, job=job), state)
    report = await asyncio.wait_for(job, IMPORT_TIMEOUT_S)
    t_end = time.perf_counter()
    context.status.finish("Import finished")
    context.events.sources_changed.emit()
    context.events.memories_changed.emit()
    await asyncio.sleep(AFTER_IMPORT_S)
    ticker.stop()
    ticks.append(time.perf_counter())
    bridge.progressed.disconnect()
    if tracer is not None:
        tracer.done.set()
        tracer.join()
    return {
        "traces": tracer.samples if tracer is not None else None,
        "t0": t0,
        "t_end": t_end,
        "ticks": ticks,
        "progress": progress,
        "report": report,
    }


def run(items: int = 100_000, files: int = 200, trace: bool = False) -> dict[str, Any]:
    app = QApplication.instance() or QApplication([])
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="memory-bench-stall-") as folder:
        root = Path(folder)
        store = build_store(root / "data", items)
        written = write_conversations(root / "import", files)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        service = MemoryService.open(resolve_settings(root / "data"), OfflineExtractor())
        settings = QSettings(str(root / "settings.ini"), QSettings.Format.IniFormat)
        context = build_context(service, settings)
        window = build_main_window(context)
        try:
            measured = loop.run_until_complete(_measure(window, context, [root / "import"], trace))
        finally:
            window.close()
            context.shutdown()
            loop.run_until_complete(asyncio.sleep(0))
            service.close()
            window.deleteLater()
            loop.run_until_complete(asyncio.sleep(0))
            asyncio.set_event_loop(None)
            loop.close()
    t0, t_end, ticks = measured["t0"], measured["t_end"], measured["ticks"]
    judged = _gaps(ticks, t0 + EXCLUDED_START_S, t_end)
    first = _gaps(ticks, t0, t0 + EXCLUDED_START_S)
    after = _gaps(ticks, t_end, ticks[-1])
    progress = measured["progress"]

    def file_at(moment: float) -> int:
        return max((done for when, done in progress if when <= moment), default=0)

    worst = sorted(judged, reverse=True)[:5]
    report = measured["report"]
    added = sum(len(r.items_added) for r in report.results)
    reinforced = sum(len(r.items_reinforced) for r in report.results)
    duration = t_end - t0
    stats = _stats(judged)
    return {
        "benchmark": "gui_import_stall",
        "items": items,
        "store_memories": store["memories"],
        "store_build_seconds": store["build_seconds"],
        "files": written["files"],
        "files_real_sample_copies": written["real_sample_copies"],
        "import_megabytes": round(written["bytes"] / 1e6, 1),
        "import_seconds": round(duration, 2),
        "files_per_second": round(written["files"] / duration, 1),
        "conversations": len(report.results),
        "outcomes": {
            k: sum(1 for r in report.results if r.status == k)
            for k in sorted({r.status for r in report.results})
        },
        "memories_added": added,
        "memories_reinforced": reinforced,
        "tick_ms": TICK_MS,
        "ticks": len(ticks),
        "excluded_start_ms": EXCLUDED_START_S * 1000,
        "gaps_during_import": stats,
        "gaps_first_200_ms": _stats(first),
        "gaps_after_import_refresh": _stats(after),
        "after_import_window_s": AFTER_IMPORT_S,
        "longest_gaps": [
            {
                "gap_ms": round(gap * 1000, 1),
                "at_ms": round((when - t0) * 1000),
                "files_done": file_at(when),
            }
            for gap, when in worst
        ],
        "stall_traces": [
            {**{k: v for k, v in t.items() if k != "tick"}, "at_ms": round((t["tick"] - t0) * 1000)}
            for t in measured["traces"]
        ]
        if measured["traces"] is not None
        else None,
        "target_max_gap_ms": TARGET_MAX_GAP_MS,
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "passed": stats is not None and stats["max_ms"] < TARGET_MAX_GAP_MS,
    }


def _line(label: str, s: dict[str, float] | None) -> str:
    if s is None:
        return f"    {label:<34} (no ticks)\n"
    return (
        f"    {label:<34} longest {s['max_ms']:>7} ms, p99 {s['p99_ms']:>6} ms, "
        f"p50 {s['p50_ms']:>5} ms; {s['n']} gaps, {s['over_50_ms']} ≥ 50 ms, "
        f"{s['over_20_ms']} ≥ 20 ms\n"
    )


def report(result: dict[str, Any]) -> str:
    r = result
    verdict = "PASS" if r["passed"] else "FAIL"
    outcomes = ", ".join(f"{n} {k}" for k, n in r["outcomes"].items())
    return (
        f"gui_import_stall: {r['store_memories']:,} memories (store built in "
        f"{r['store_build_seconds']} s), main window shown; import of {r['files']} Claude Code "
        f"files ({r['import_megabytes']} MB, {r['files_real_sample_copies']} varied copies of "
        f"real sessions) in {r['import_seconds']} s = {r['files_per_second']} files/s\n"
        f"  {r['conversations']} conversations: {outcomes}; {r['memories_added']} memories "
        f"added, {r['memories_reinforced']} reinforced\n"
        f"  {r['tick_ms']} ms GUI-thread ticker, {r['ticks']} ticks; gaps between ticks:\n"
        + _line("during the import (JUDGED)", r["gaps_during_import"])
        + _line(f"first {r['excluded_start_ms']:.0f} ms (excluded)", r["gaps_first_200_ms"])
        + _line(
            f"{r['after_import_window_s']:.0f} s after (refresh, not judged)",
            r["gaps_after_import_refresh"],
        )
        + "  longest judged gaps: "
        + ", ".join(
            f"{g['gap_ms']} ms at {g['at_ms']} ms (file {g['files_done']})"
            for g in r["longest_gaps"]
        )
        + _traces(r.get("stall_traces"))
        + f"\n  load average (1 min) before/after: {r['load_average_1min'][0]} / "
        f"{r['load_average_1min'][1]} (2 cores)"
        + f"\n  target longest gap < {r['target_max_gap_ms']:.0f} ms (t=0 at window.show(), "
        f"first {r['excluded_start_ms']:.0f} ms excluded): {verdict}"
    )


def _traces(traces: list[dict[str, Any]] | None) -> str:
    if traces is None:
        return ""
    text = f"\n  stack samples of {len(traces)} stalls (GUI thread ≥ {TRACE_AFTER_S * 1000:.0f} ms "
    text += "without a tick), innermost frame last; see the JSON for all:"
    for sample in sorted(traces, key=lambda t: -t["waited_ms"])[:6]:
        text += f"\n    at {sample['at_ms']} ms, {sample['waited_ms']} ms without a tick:"
        for name, stack in sample.items():
            if isinstance(stack, list) and (name == "GUI" or name.startswith("memory-")):
                text += f"\n      {name:<12} " + " > ".join(stack[-3:])
    return text
