"""Sources: the reader's summary of a conversation (its chunks and their rolling summary,
memory_app/chunks) on a real store, folded by default, unfolded by its link, each chunk
linking to its first turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QUrl

from memory_app.gui.context import AppContext
from memory_app.gui.views.sources import SourcesView
from memory_app.gui.views.sources.conversation_summary import CLOSE_LINK, OPEN_LINK
from memory_app.gui.views.sources.reader import SUMMARY_KEY
from tests.helpers import conversation

TOPICS = ["parser", "importer", "retries", "logging", "migrations"]
# 25 exchanges: three chunks of ten messages, then one of twenty (chunks/builder.py).
LONG_EXCHANGES = [
    (
        f"Please fix the {TOPICS[n % 5]} bug number {n} in module_{n}.py today.",
        f"Fixed the {TOPICS[n % 5]} bug {n}: module_{n}.py now checks its input.",
    )
    for n in range(25)
]
LONG = conversation(*LONG_EXCHANGES)


def open_reader(
    qtbot: Any, context: AppContext, settle: Callable[..., None], chat: Any = LONG
) -> SourcesView:
    context.service.memorize(chat)
    view = SourcesView(context)
    qtbot.addWidget(view)
    view.resize(1100, 760)
    view.show()
    view.activate()
    settle()
    view.table.selectRow(0)
    settle()
    return view


def test_the_summary_is_folded_then_unfolds_with_each_chunk_and_the_rolling_summary(
    qtbot: Any, context: AppContext, settle: Callable[..., None]
) -> None:
    view = open_reader(qtbot, context, settle)
    reader = view.reader_pages
    conversation = reader.conversation
    assert conversation is not None
    assert [(c.turn_start, c.turn_end) for c in conversation.chunks] == [
        (0, 9),
        (10, 19),
        (20, 29),
        (30, 39),
        (40, 49),
    ]
    text = reader.browser.toPlainText()
    assert "Summary in 5 chunks · Show" in text
    assert "In short" not in text  # folded: one line above the turns
    assert OPEN_LINK in reader.browser.toHtml()

    reader.browser.anchorClicked.emit(QUrl(OPEN_LINK))
    text = reader.browser.toPlainText()
    assert "Summary in 5 chunks · Hide" in text
    assert "In short" in text and "Earlier:" in text and "Then:" in text
    for start, end in ((0, 9), (20, 29), (40, 49)):
        assert f"Turns {start}–{end}" in text
        assert f'href="turn:{start}"' in reader.browser.toHtml()
    assert "Please fix the parser bug number 20" in text  # chunk 3's request
    assert str(context.settings.value(SUMMARY_KEY)) == "true"  # remembered

    # A chunk's link scrolls the reader to its first turn.
    bar = reader.browser.verticalScrollBar()
    bar.setValue(0)
    reader.browser.anchorClicked.emit(QUrl("turn:20"))
    settle()
    assert bar.value() > 0
    top = reader.browser.cursorForPosition(reader.browser.viewport().rect().topLeft())
    shown = reader.browser.toPlainText()[top.position() : top.position() + 200]
    assert "bug number 10 " in shown  # turn 20 is exchange 10's request

    reader.browser.anchorClicked.emit(QUrl(CLOSE_LINK))
    assert "In short" not in reader.browser.toPlainText()
    assert str(context.settings.value(SUMMARY_KEY)) == "false"


def test_a_short_conversation_has_one_chunk_and_no_rolling_summary(
    qtbot: Any, context: AppContext, settle: Callable[..., None]
) -> None:
    context.settings.setValue(SUMMARY_KEY, "true")  # unfolded last time
    view = open_reader(qtbot, context, settle, conversation(*LONG_EXCHANGES[:2]))
    text = view.reader_pages.browser.toPlainText()
    assert "Summary in 1 chunk · Hide" in text
    assert "Turns 0–3" in text
    assert "In short" not in text  # it would repeat the one chunk's summary
