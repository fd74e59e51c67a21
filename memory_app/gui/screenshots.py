"""Render every view of the main window to PNG on a demo store, offscreen.

    python -m memory_app.gui.screenshots docs/screenshots      (or `make screenshots`)

The README shows the pictures; rendering them is also the quickest way to look at what
a change did to the window.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

SIZE = (1280, 800)
CONTEXT_TASK = "fix the flaky tests in the fixtures"
# Prompts the recall hooks answer for the "What the assistant saw" tab, in the demo's shop.
HOOK_PROJECT = "/home/dev/shop"
HOOK_PROMPTS = ("fix the flaky tests in the fixtures", "thanks", "add retries to the importer")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_app.gui.screenshots")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--generated", type=int, default=3000, help="extra generated memories")
    parser.add_argument(
        "--only",
        action="append",
        metavar="VIEW",
        help="render only this view (a key such as 'context'; may be repeated)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    import qasync
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from memory_app.config import resolve_settings
    from memory_app.demo import build_demo_store
    from memory_app.gui.app import build_context, build_main_window, prepare_application_identity
    from memory_app.gui.context import AppContext
    from memory_app.gui.views.context import INJECTIONS, ContextView
    from memory_app.gui.views.memories import MemoriesView
    from memory_app.service import MemoryService

    prepare_application_identity()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    args.out.mkdir(parents=True, exist_ok=True)

    def settle(context: AppContext) -> None:
        async def idle() -> None:
            await asyncio.sleep(0.05)
            deadline = time.monotonic() + 30
            while context.tasks.running and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)

        loop.run_until_complete(idle())

    with tempfile.TemporaryDirectory(prefix="memory-shots-") as folder:
        runs = (("empty", None), ("demo", args.generated))
        for label, generated in runs if not args.only else runs[1:]:
            store = resolve_settings(Path(folder) / label)
            service = MemoryService.open(store)
            if generated is not None:
                build_demo_store(service, generated=generated)
            settings = QSettings(str(Path(folder) / f"{label}.ini"), QSettings.Format.IniFormat)
            context = build_context(service, settings)
            window = build_main_window(context)
            window.resize(*SIZE)
            window.show()
            settle(context)
            if label == "empty":
                window.navigate("dashboard")
                settle(context)
                window.grab().save(str(args.out / "welcome.png"))
            else:
                for view in window.views:
                    if args.only and view.key not in args.only:
                        continue
                    if view.key == "maintenance":  # a pending changeset to review
                        for kind in ("nightly", "weekly"):
                            service.run_maintenance(kind, dry_run=True)
                    window.navigate(view.key)
                    settle(context)
                    if isinstance(view, MemoriesView):
                        view.table.selectRow(0)
                        settle(context)
                    if view.key == "sources":
                        table = getattr(view, "table", None)
                        if table is not None:
                            table.selectRow(0)
                            settle(context)
                    if isinstance(view, ContextView):
                        view.task.setText(CONTEXT_TASK)
                        view.refresh()
                        settle(context)
                    window.grab().save(str(args.out / f"{view.key}.png"))
                    if isinstance(view, ContextView):
                        ask_the_hooks(store.data_dir)
                        window.navigate("context", INJECTIONS)
                        settle(context)
                        window.grab().save(str(args.out / "context-injections.png"))
                        view.main.setCurrentIndex(0)
            window.close()
            context.shutdown()
            service.close()
    print(f"screenshots written to {args.out}")
    return 0


def ask_the_hooks(data_dir: Path) -> None:
    """A session start and a few prompts through the recall hooks' own code, which log
    their answers beside the store as they do in Claude Code."""
    import json
    from datetime import UTC, datetime, timedelta

    from memory_app.hooks import runtime

    env = {"MEMORY_APP_DATA_DIR": str(data_dir), "MEMORY_APP_HOOK_WORKER": "0"}
    now = datetime.now(UTC) + timedelta(seconds=1)
    start = {"session_id": "demo", "cwd": HOOK_PROJECT, "source": "startup"}
    runtime.handle("SessionStart", json.dumps(start).encode(), env, now)
    for number, prompt in enumerate(HOOK_PROMPTS, start=1):
        payload = {"session_id": "demo", "cwd": HOOK_PROJECT, "prompt": prompt}
        when = now + timedelta(seconds=40 * number)
        runtime.handle("UserPromptSubmit", json.dumps(payload).encode(), env, when)


if __name__ == "__main__":
    raise SystemExit(main())
