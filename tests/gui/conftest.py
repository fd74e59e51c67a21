"""GUI test harness: real widgets, a real store, the qasync loop driven by the test."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QLocale, QSettings
from PySide6.QtWidgets import QApplication, QWidget

from memory_app.gui.app import build_context
from memory_app.gui.context import AppContext, Dialogs
from memory_app.gui.event_loop import EventLoop
from memory_app.gui.translations import install_translators
from memory_app.service import MemoryService


class ScriptedDialogs(Dialogs):
    """Answers file pickers and confirmations the way the test says."""

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.folder: Path | None = None
        self.answer = True
        self.claude_md: Path | None = None
        self.backup_target: Path | None = None
        self.restore_source: Path | None = None
        self.asked: list[str] = []

    def import_paths(self, parent: QWidget, start: Path | None) -> list[Path]:
        self.asked.append("import_paths")
        return list(self.files)

    def import_folder(self, parent: QWidget, start: Path | None) -> Path | None:
        self.asked.append("import_folder")
        return self.folder

    def confirm(self, parent: QWidget, title: str, text: str) -> bool:
        self.asked.append(title)
        return self.answer

    def claude_md_path(self, parent: QWidget, start: Path) -> Path | None:
        self.asked.append("claude_md_path")
        return self.claude_md

    def backup_path(self, parent: QWidget, suggested: Path) -> Path | None:
        self.asked.append("backup_path")
        return self.backup_target

    def backup_to_restore(self, parent: QWidget, start: Path) -> Path | None:
        self.asked.append("backup_to_restore")
        return self.restore_source


@pytest.fixture(autouse=True)
def no_window_left(qapp: QApplication) -> Iterator[None]:
    """After each test (its loop already closed), the windows it left are closed and
    deleted, with whatever only a reference cycle kept: a timer of a window that
    outlived its test fired during a later test's event processing into a loop long
    closed (a worker crashed at the end of a slow non-GUI test)."""
    yield
    for widget in QApplication.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    gc.collect()
    # Only the deletions: other leftover events would run outside any asyncio loop.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(scope="session", autouse=True)
def english_words(qapp: QApplication) -> Iterator[None]:
    """The window's words as run_app shows them in English: the counted phrases take their
    singular ("1 memory") from the English catalogue."""
    translators = install_translators(qapp, QLocale(QLocale.Language.English))
    yield
    for translator in translators:
        qapp.removeTranslator(translator)


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    event_loop = EventLoop(qapp)
    asyncio.set_event_loop(event_loop)
    yield event_loop
    event_loop.run_until_complete(asyncio.sleep(0))
    asyncio.set_event_loop(None)
    event_loop.close()


@pytest.fixture
def context(
    service: MemoryService, loop: qasync.QEventLoop, tmp_path: Path
) -> Iterator[AppContext]:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    ctx = build_context(service, settings)
    ctx.dialogs = ScriptedDialogs()
    yield ctx
    ctx.tasks.cancel_all()
    loop.run_until_complete(asyncio.sleep(0))
    ctx.jobs.shutdown()
    ctx.db.shutdown()


@pytest.fixture
def settle(loop: qasync.QEventLoop, context: AppContext) -> Callable[..., None]:
    """Run the loop until every background task of the app has finished."""

    def run(timeout: float = 10.0) -> None:
        async def idle() -> None:
            deadline = time.monotonic() + timeout
            while context.tasks.running:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{context.tasks.running} tasks still running")
                await asyncio.sleep(0.005)
            await asyncio.sleep(0)

        loop.run_until_complete(idle())

    return run


@pytest.fixture
def run_until(loop: qasync.QEventLoop) -> Callable[..., None]:
    """Run the loop until a condition holds."""

    def run(condition: Callable[[], bool], timeout: float = 10.0) -> None:
        async def wait() -> None:
            deadline = time.monotonic() + timeout
            while not condition():
                if time.monotonic() > deadline:
                    raise TimeoutError("condition not met in time")
                await asyncio.sleep(0.005)

        loop.run_until_complete(wait())

    return run
