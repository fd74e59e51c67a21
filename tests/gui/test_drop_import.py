"""Files and folders dropped on the main window are imported as File > Import does."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.drop_import import plan_drop
from memory_app.gui.main_window import MainWindow

ACTIONS = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction | Qt.DropAction.LinkAction
SESSIONS = ("simonw_sample_session.jsonl", "spotter_short.jsonl")


@pytest.fixture
def window(qtbot, context: AppContext, settle: Callable[..., None]) -> Iterator[MainWindow]:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    settle()
    yield main
    main.close()


@pytest.fixture
def sessions(samples_dir: Path) -> list[Path]:
    return [samples_dir / "claude-code" / name for name in SESSIONS]


def urls(*items: Path | str) -> QMimeData:
    """What a file manager drags: text/uri-list with file: URLs (or any URL given)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(i)) if isinstance(i, Path) else QUrl(i) for i in items])
    return mime


def drag_enter(window: MainWindow, mime: QMimeData) -> QDragEnterEvent:
    event = QDragEnterEvent(
        QPoint(window.width() // 2, window.height() // 2),
        ACTIONS,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    event.setAccepted(False)
    QApplication.sendEvent(window, event)
    return event


def drop(window: MainWindow, mime: QMimeData) -> QDropEvent:
    event = QDropEvent(
        QPointF(window.width() / 2, window.height() / 2),
        ACTIONS,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    event.setAccepted(False)
    QApplication.sendEvent(window, event)
    return event


def test_dropped_session_files_are_imported_with_the_import_feedback(
    window: MainWindow,
    context: AppContext,
    sessions: list[Path],
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    mime = urls(*sessions)
    entered = drag_enter(window, mime)
    assert entered.isAccepted()
    assert entered.dropAction() == Qt.DropAction.CopyAction  # never Move: the files stay
    assert window.drop_highlight.isVisible()
    assert window.drop_highlight.text == "Drop to import 2 files"
    central = window.centralWidget()
    assert central is not None
    assert window.drop_highlight.geometry() == central.geometry()

    dropped = drop(window, mime)
    assert dropped.isAccepted()
    assert dropped.dropAction() == Qt.DropAction.CopyAction
    assert not window.drop_highlight.isVisible()
    assert window.current_view().key == "sources"  # where File > Import shows its progress
    run_until(lambda: context.service.get_stats().resources == 2, timeout=120)
    settle(timeout=60)
    report = getattr(window.view("sources"), "last_report", None)
    assert report is not None and len(report.results) == 2
    assert context.status.state == context.status.READY
    assert context.status.message  # the import's summary, as after File > Import


def test_a_dropped_folder_is_imported(
    window: MainWindow,
    context: AppContext,
    sessions: list[Path],
    tmp_path: Path,
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(sessions[0], folder)
    mime = urls(folder)
    assert drag_enter(window, mime).isAccepted()
    assert window.drop_highlight.text == "Drop to import 1 folder"
    assert drop(window, mime).isAccepted()
    run_until(lambda: context.service.get_stats().resources == 1, timeout=120)
    settle(timeout=60)


def test_web_addresses_and_text_are_refused_with_a_message(
    window: MainWindow, context: AppContext
) -> None:
    entered = drag_enter(window, urls("https://example.com/chat.jsonl"))
    assert not entered.isAccepted()
    assert not window.drop_highlight.isVisible()
    assert window.toast.isVisible()
    assert "https://example.com/chat.jsonl is not a file on this computer" in (
        window.toast.label.text()
    )

    text = QMimeData()
    text.setText("some words")
    assert not drag_enter(window, text).isAccepted()
    assert window.toast.label.text().startswith("Only files and folders can be dropped here")
    assert context.service.get_stats().resources == 0


def test_unsupported_files_are_refused_and_skipped_in_a_mixed_drop(
    window: MainWindow,
    context: AppContext,
    sessions: list[Path],
    tmp_path: Path,
    run_until: Callable[..., None],
    settle: Callable[..., None],
) -> None:
    picture = tmp_path / "diagram.png"
    picture.write_bytes(b"\x89PNG\r\n")
    assert not drag_enter(window, urls(picture)).isAccepted()
    assert "diagram.png: not a kind that can be imported" in window.toast.label.text()
    assert ".jsonl" in window.toast.label.text()  # says what can be dropped

    mixed = urls(sessions[0], picture)
    assert drag_enter(window, mixed).isAccepted()
    assert window.drop_highlight.text == "Drop to import 1 file"
    assert drop(window, mixed).isAccepted()
    assert window.toast.label.text() == "Skipped diagram.png: not a kind that can be imported."
    run_until(lambda: context.service.get_stats().resources == 1, timeout=120)
    settle(timeout=60)


def test_leaving_the_window_removes_the_highlight(window: MainWindow, sessions: list[Path]) -> None:
    assert drag_enter(window, urls(*sessions)).isAccepted()
    assert window.drop_highlight.isVisible()
    QApplication.sendEvent(window, QDragLeaveEvent())
    assert not window.drop_highlight.isVisible()


def test_files_gone_before_the_drop_are_reported(tmp_path: Path) -> None:
    plan = plan_drop(urls(tmp_path / "gone.jsonl"))
    assert not plan.accepted
    assert plan.refusal() == "Cannot import gone.jsonl: not found."
