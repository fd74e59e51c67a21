"""Search benchmark (issue: GUI performance): search keystroke to table updated in the
Memories view, on a store of N generated memories. Target: p95 under 100 ms at 100,000.

In process, offscreen: a QApplication and the qasync loop, the real MemoriesView shown at
1200×720 over a real store, queries typed one character at a time with a person's pauses
(QTest.keyClicks per character, awaits between keys). The view's pipeline is:

1. every keystroke: the proxy narrows the rows already loaded (synchronous, "quick
   filter"), and a 150 ms single-shot debounce timer (re)starts;
2. when typing pauses for 150 ms: `apply_filters()` → `model.set_query()`: count + first
   page on the database worker, then a model reset and `loaded`;
3. the table viewport repaints with the full-text results.

Per query, timestamps are taken from slots on the real signals, never by polling:
t0 just before the final keystroke, the debounce timer's timeout, the model's `loaded`
for the query whose text is the full typed text, and the end of the table viewport's
first paint after it. The target is judged on the end-to-end time t0 → painted,
debounce included, because that is what a person waits for; the parts are reported so
it is clear which of debounce, query and rendering costs what.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from benchmarks.gui_startup import build_store
from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.demo import AREAS, NOUNS, TOOLS, VERBS
from memory_app.domain.records import ItemQuery
from memory_app.extract.offline import OfflineExtractor
from memory_app.gui.app import build_context
from memory_app.gui.context import AppContext
from memory_app.gui.views.memories import SEARCH_DEBOUNCE_MS, MemoriesView
from memory_app.service import MemoryService

TARGET_P95_MS = 100.0
WAIT_TIMEOUT_S = 60.0  # for one query's results
BUDGET_S = 150.0  # for all queries: past it the rest are not typed (and the run fails)
SQL_REPLAY_S = 20.0
# Pause between two keystrokes, uniformly drawn: 60–200 ms is a fast-to-average typist
# (60–90 words a minute). Pauses above the debounce start a query while typing, which
# the final query may then have to wait behind on the database worker, as in real use.
KEY_PAUSE_S = (0.06, 0.20)
READ_PAUSE_S = 0.25  # looking at the results before the next search
QUERY_KINDS = ("tool", "tool + area", "noun", "identifier", "area", "two tools")


def generate_queries(count: int, seed: int = 23) -> list[str]:
    """What people type into the search box: query n is of kind QUERY_KINDS[n % 6]."""
    rng = random.Random(seed)
    queries = []
    for n in range(count):
        kind = n % len(QUERY_KINDS)
        if kind == 0:
            queries.append(rng.choice(TOOLS))
        elif kind == 1:
            queries.append(f"{rng.choice(TOOLS)} {rng.choice(AREAS)}")
        elif kind == 2:
            queries.append(rng.choice(NOUNS))
        elif kind == 3:
            queries.append(f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}")
        elif kind == 4:
            queries.append(rng.choice(AREAS))
        else:
            queries.append(" ".join(rng.sample(TOOLS, 2)))
    return queries


class Clock(QObject):
    """Timestamps of the moments that matter, recorded on the GUI thread as they happen,
    and futures that resolve when a condition over them becomes true."""

    def __init__(self, view: MemoriesView) -> None:
        super().__init__(view)
        self.fired: list[float] = []  # debounce timer timeouts (after apply_filters ran)
        self.loaded: list[tuple[float, str]] = []  # model `loaded`: (time, query text)
        self.paints: list[list[float]] = []  # table viewport paints: [start, end]
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        # Connected after the view's own slots, so each runs once the view has reacted.
        view._search_timer.timeout.connect(self._fired)
        view.model.loaded.connect(self._loaded)
        self._model = view.model
        view.table.viewport().installEventFilter(self)

    def _fired(self) -> None:
        self.fired.append(time.perf_counter())
        self._check()

    def _loaded(self, _total: int) -> None:
        self.loaded.append((time.perf_counter(), self._model.query.text))
        self._check()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            paint = [time.perf_counter(), 0.0]
            self.paints.append(paint)
            # A zero timer runs once this paint (and the window's flush) has finished.
            QTimer.singleShot(0, lambda: self._painted(paint))
        return False

    def _painted(self, paint: list[float]) -> None:
        paint[1] = time.perf_counter()
        self._check()

    def _check(self) -> None:
        for entry in list(self._waiters):
            condition, future = entry
            if not future.done() and condition():
                future.set_result(None)
                self._waiters.remove(entry)

    async def until(self, condition: Callable[[], bool], what: str, timeout: float) -> None:
        if condition():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}") from None

    def loaded_after(self, since: float, text: str) -> float | None:
        return next((t for t, q in self.loaded if t >= since and q == text), None)

    def painted_after(self, since: float) -> float | None:
        return next((end for start, end in self.paints if start >= since and end), None)


class OutOfTime(Exception):
    """The benchmark's time budget ran out."""


class Budget:
    """A deadline for the whole measurement, so a pathologically slow build still finishes
    (and fails) in bounded time instead of hanging."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self, cap: float = WAIT_TIMEOUT_S) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime()
        return min(left, cap)


async def _idle(context: AppContext, budget: Budget) -> None:
    """Wait until the app's background tasks (stale queries included) are done."""
    deadline = time.monotonic() + budget.left()
    while context.tasks.running:
        if time.monotonic() > deadline:
            raise OutOfTime()
        await asyncio.sleep(0.01)


async def _type(view: MemoriesView, text: str, rng: random.Random) -> list[tuple[float, float]]:
    """Type over the search box's selected text a character at a time, like a person
    after Ctrl+F; returns (before, after) perf_counter times of each keystroke."""
    view.focus_search()  # what Ctrl+F does: focus and select all, so typing replaces
    keys = []
    for n, char in enumerate(text):
        if n:
            await asyncio.sleep(rng.uniform(*KEY_PAUSE_S))
        before = time.perf_counter()
        QTest.keyClicks(view.search, char)
        keys.append((before, time.perf_counter()))
    if view.search.text() != text:
        raise RuntimeError(f"typed {text!r} but the search box holds {view.search.text()!r}")
    return keys


async def _one(
    view: MemoriesView, clock: Clock, text: str, rng: random.Random, budget: Budget
) -> dict[str, Any]:
    fired_before = len(clock.fired)
    keys = await _type(view, text, rng)
    t0 = keys[-1][0]
    expected = text.strip()
    await clock.until(
        lambda: clock.loaded_after(t0, expected) is not None, f"{text!r}", budget.left()
    )
    loaded = clock.loaded_after(t0, expected)
    assert loaded is not None
    await clock.until(
        lambda: clock.painted_after(loaded) is not None, "the table to paint", budget.left()
    )
    painted = clock.painted_after(loaded)
    assert painted is not None
    fired = next(t for t in clock.fired if t >= t0)
    # The quick filter: each keystroke's synchronous cost (insert + proxy narrowing), and
    # the first table paint after it, when one came before anything else could cause it
    # (the next keystroke, the debounce timer, a query's rows arriving).
    quick = [after - before for before, after in keys]
    quick_paint = []
    for n, (before, _after) in enumerate(keys):
        later = [keys[n + 1][0]] if n + 1 < len(keys) else []
        later += [t for t in clock.fired if t >= before][:1]
        later += [t for t, _q in clock.loaded if t >= before][:1]
        end = clock.painted_after(before)
        if end is not None and end < min(later, default=float("inf")):
            quick_paint.append(end - before)
    return {
        "text": text,
        "keys": len(keys),
        "queries_while_typing": sum(1 for t in clock.fired[fired_before:] if t < t0),
        "total": view.model.total,
        "end_to_end": painted - t0,
        "debounce": fired - t0,
        "query": loaded - fired,
        "render": painted - loaded,
        "after_debounce": painted - fired,
        "quick": quick,
        "quick_paint": quick_paint,
    }


async def _measure(
    view: MemoriesView, context: AppContext, texts: list[str], budget_s: float
) -> dict[str, Any]:
    budget = Budget(budget_s)
    clock = Clock(view)
    rng = random.Random(5)
    view.activate()  # what the main window does when the view is shown
    rows: list[dict[str, Any]] = []
    finals: list[ItemQuery] = []
    unfinished: str | None = None
    try:
        await clock.until(lambda: bool(clock.loaded), "the first page", budget.left())
        await _idle(context, budget)
        await asyncio.sleep(READ_PAUSE_S)
        for text in texts:
            unfinished = text
            rows.append(await _one(view, clock, text, rng, budget))
            finals.append(view.model.query)
            unfinished = None
            await _idle(context, budget)
            await asyncio.sleep(READ_PAUSE_S)
    except (OutOfTime, TimeoutError):
        pass
    # The same final queries straight against the store on the database worker (at most
    # SQL_REPLAY_S of them): how much of "query" is SQL, how much the loop and the reset.
    sql_count, sql_page = [], []
    replay_until = time.monotonic() + SQL_REPLAY_S
    if unfinished is None:
        for query in finals:
            if time.monotonic() > replay_until:
                break
            t = time.perf_counter()
            await context.call(context.service.count_items, query)
            sql_count.append(time.perf_counter() - t)
            t = time.perf_counter()
            await context.call(context.service.query_items, query)
            sql_page.append(time.perf_counter() - t)
    return {
        "rows": rows,
        "unfinished": unfinished,
        "sql_count": sql_count,
        "sql_page": sql_page,
    }


def run(items: int = 100_000, queries: int = 60, budget_s: float = BUDGET_S) -> dict[str, Any]:
    texts = generate_queries(queries)
    load_before = os.getloadavg()[0]
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="memory-bench-search-") as folder:
        root = Path(folder)
        store = build_store(root / "data", items)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        service = MemoryService.open(resolve_settings(root / "data"), OfflineExtractor())
        settings = QSettings(str(root / "settings.ini"), QSettings.Format.IniFormat)
        context = build_context(service, settings)
        view = MemoriesView(context)
        view.resize(1200, 720)
        view.show()
        try:
            measured = loop.run_until_complete(_measure(view, context, texts, budget_s))
        finally:
            view.close()
            context.shutdown()
            loop.run_until_complete(asyncio.sleep(0))
            service.close()
            view.deleteLater()
            loop.run_until_complete(asyncio.sleep(0))
            asyncio.set_event_loop(None)
            loop.close()
    rows = measured["rows"]

    def part(name: str, subset: list[dict[str, Any]] = rows) -> dict[str, float] | None:
        return summarize_ms([r[name] for r in subset]) if subset else None

    def listed(samples: list[float]) -> dict[str, float] | None:
        return summarize_ms(samples) if samples else None

    end_to_end = part("end_to_end")
    calm = [r for r in rows if not r["queries_while_typing"]]
    busy = [r for r in rows if r["queries_while_typing"]]
    slowest = sorted(rows, key=lambda r: r["end_to_end"], reverse=True)[:5]
    complete = len(rows) == len(texts)
    return {
        "benchmark": "gui_search",
        "items": items,
        "store_memories": store["memories"],
        "store_build_seconds": store["build_seconds"],
        "queries_asked": len(texts),
        "queries": len(rows),
        "unfinished_query": measured["unfinished"],
        "budget_s": budget_s,
        "keystrokes": sum(r["keys"] for r in rows),
        "queries_with_results": sum(1 for r in rows if r["total"]),
        "debounce_ms_configured": SEARCH_DEBOUNCE_MS,
        "key_pause_s": list(KEY_PAUSE_S),
        "end_to_end": end_to_end,
        "debounce": part("debounce"),
        "query": part("query"),
        "render": part("render"),
        "after_debounce": part("after_debounce"),
        "sql_count": listed(measured["sql_count"]),
        "sql_first_page": listed(measured["sql_page"]),
        "quick_filter_sync": listed([q for r in rows for q in r["quick"]]),
        "quick_filter_painted": listed([q for r in rows for q in r["quick_paint"]]),
        "queries_typed_with_a_query_in_flight": len(busy),
        "end_to_end_no_query_while_typing": part("end_to_end", calm),
        "end_to_end_query_while_typing": part("end_to_end", busy),
        "end_to_end_by_kind": {
            kind: part("end_to_end", rows[n :: len(QUERY_KINDS)])
            for n, kind in enumerate(QUERY_KINDS)
        },
        "slowest": [
            {
                "text": r["text"],
                "total": r["total"],
                **{k: round(r[k] * 1000, 1) for k in ("end_to_end", "debounce", "query", "render")},
            }
            for r in slowest
        ],
        "judged_on": "end_to_end (last keystroke → table painted, debounce included)",
        "target_p95_ms": TARGET_P95_MS,
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "passed": complete and end_to_end is not None and end_to_end["p95_ms"] < TARGET_P95_MS,
    }


def _line(label: str, s: dict[str, float] | None) -> str:
    if s is None:
        return f"    {label:<44} (none)\n"
    return (
        f"    {label:<44} p50 {s['p50_ms']:>8} ms  p95 {s['p95_ms']:>8} ms  "
        f"max {s['max_ms']:>8} ms  (n={s['n']})\n"
    )


def report(result: dict[str, Any]) -> str:
    verdict = "PASS" if result["passed"] else "FAIL"
    r = result
    text = (
        f"gui_search: {r['store_memories']:,} memories (store built in "
        f"{r['store_build_seconds']} s); {r['queries']} of {r['queries_asked']} queries typed "
        f"key by key ({r['keystrokes']} keystrokes, {r['key_pause_s'][0] * 1000:.0f}–"
        f"{r['key_pause_s'][1] * 1000:.0f} ms apart), {r['queries_with_results']} with results\n"
    )
    if r["unfinished_query"] is not None:
        text += (
            f"  !! stopped: the results for {r['unfinished_query']!r} had not been shown when "
            f"the {r['budget_s']:.0f} s budget (or the per-query wait) ran out\n"
        )
    text += (
        "  last keystroke → table painted with the full-text results (JUDGED):\n"
        + _line("end to end, debounce included", r["end_to_end"])
        + "  its parts:\n"
        + _line(f"debounce (configured {r['debounce_ms_configured']} ms)", r["debounce"])
        + _line("query: timer fired → model loaded", r["query"])
        + _line("render: loaded → viewport paint finished", r["render"])
        + _line("debounce excluded: timer fired → painted", r["after_debounce"])
        + "  the same final queries straight on the database worker:\n"
        + _line("count_items", r["sql_count"])
        + _line("query_items (first page)", r["sql_first_page"])
        + f"  {r['queries_typed_with_a_query_in_flight']} queries had a pause > debounce while "
        "typing (a query for a prefix started before the last key):\n"
        + _line("end to end, no query while typing", r["end_to_end_no_query_while_typing"])
        + _line("end to end, query while typing", r["end_to_end_query_while_typing"])
        + "  by kind (end to end):\n"
        + "".join(_line(kind, s) for kind, s in r["end_to_end_by_kind"].items())
        + "  every keystroke: quick filter over the loaded rows (proxy):\n"
        + _line("keystroke → proxy filtered (synchronous)", r["quick_filter_sync"])
        + _line("keystroke → table painted", r["quick_filter_painted"])
        + "  slowest: "
        + "; ".join(
            f"{s['text']!r} {s['end_to_end']} ms (debounce {s['debounce']}, query "
            f"{s['query']}, render {s['render']}; {s['total']:,} hits)"
            for s in r["slowest"][:3]
        )
        + f"\n  load average (1 min) before/after: {r['load_average_1min'][0]} / "
        f"{r['load_average_1min'][1]} (2 cores)"
        + f"\n  target p95 < {r['target_p95_ms']:.0f} ms, judged on {r['judged_on']}: {verdict}"
    )
    if not r["passed"] and r["debounce"] and r["after_debounce"]:
        text += (
            f"\n  (the debounce alone is {r['debounce']['p50_ms']} ms at p50; with it excluded "
            f"the p95 is {r['after_debounce']['p95_ms']} ms)"
        )
    return text
