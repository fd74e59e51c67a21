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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QPalette

SIZE = (1280, 800)
CONTEXT_TASK = "add an endpoint to cancel an order"
PREDICTED_FILES = "src/orders_api/services/payments.py, tests/routers/test_orders.py"
DEFAULT_STORE = "~/.local/share/memory-app"  # where a user's store is, on Linux
# A dark palette (Qt's Fusion colours) to look at the views as a dark desktop shows them.
DARK = {
    "Window": "#353535",
    "WindowText": "#ffffff",
    "Base": "#2a2a2a",
    "AlternateBase": "#323232",
    "ToolTipBase": "#2a2a2a",
    "ToolTipText": "#ffffff",
    "PlaceholderText": "#8c8c8c",
    "Text": "#ffffff",
    "Button": "#353535",
    "ButtonText": "#ffffff",
    "BrightText": "#ff5555",
    "Light": "#505050",
    "Midlight": "#424242",
    "Mid": "#2f2f2f",
    "Dark": "#232323",
    "Shadow": "#141414",
    "Highlight": "#2a82da",
    "HighlightedText": "#ffffff",
    "Link": "#5ea9f0",
    "LinkVisited": "#b48ef0",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_app.gui.screenshots")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument(
        "--generated", type=int, default=0, help="extra generated memories (scale checks only)"
    )
    parser.add_argument(
        "--palette", choices=("system", "dark"), default="system", help="colours of the window"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="VIEW",
        help="render only this view (a key such as 'context'; may be repeated)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from memory_app.config import resolve_settings
    from memory_app.demo import build_demo_store
    from memory_app.gui.app import build_context, build_main_window, prepare_application_identity
    from memory_app.gui.context import AppContext
    from memory_app.gui.event_loop import EventLoop
    from memory_app.gui.translations import install_translators
    from memory_app.gui.views.context import INJECTIONS, PREDICTED, ContextView
    from memory_app.gui.views.memories import MemoriesView
    from memory_app.service import MemoryService

    prepare_application_identity()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_translators(app)
    if args.palette == "dark":
        QApplication.setStyle("Fusion")
        QApplication.setPalette(dark_palette())
    loop = EventLoop(app)
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
                    if view.key == "settings":
                        show_default_store(view)
                    window.grab().save(str(args.out / f"{view.key}.png"))
                    if isinstance(view, ContextView):  # the demo's hook answers, judged
                        window.navigate("context", INJECTIONS)
                        settle(context)
                        window.grab().save(str(args.out / "context-injections.png"))
                        window.navigate("context", PREDICTED)  # for a file of the demo
                        view.predicted.files.setText(PREDICTED_FILES)
                        view.predicted.run()
                        settle(context)
                        window.grab().save(str(args.out / "context-predicted.png"))
                        view.main.setCurrentIndex(0)
            window.close()
            context.shutdown()
            service.close()
    print(f"screenshots written to {args.out}")
    return 0


def show_default_store(view: object) -> None:
    """The demo store lives in a temporary folder of the machine rendering the pictures:
    the Settings picture shows the folder a user's store has by default instead."""
    ui = getattr(view, "ui", None)
    for name, text in (("dataDir", DEFAULT_STORE), ("database", f"{DEFAULT_STORE}/memory.db")):
        field = getattr(ui, name, None)
        if field is not None:
            field.setText(text)


def dark_palette() -> QPalette:
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(QPalette.ColorRole[role], QColor(colour))
    for role in ("WindowText", "Text", "ButtonText"):
        palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole[role], QColor("#7f7f7f"))
    return palette


if __name__ == "__main__":
    raise SystemExit(main())
