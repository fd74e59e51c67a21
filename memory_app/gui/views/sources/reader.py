"""The reader of Sources: the chosen conversation, or a hint while none is chosen.

It owns what reading needs and nothing else: loading a conversation (with the memories
it produced) off the GUI thread, dropping answers that arrive after another conversation
was asked for, keeping the scroll position and the expanded tool blocks across a refresh,
scrolling to the turns a memory came from, and following the links in the text. The HTML
itself comes from `conversation_html`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import QFrame, QLabel, QStackedWidget, QTextBrowser, QWidget

from memory_app.chunks.context import chunks_of
from memory_app.domain.records import ItemQuery
from memory_app.gui.context import AppContext
from memory_app.gui.views.sources.conversation_html import (
    Conversation,
    ReaderColours,
    ReaderState,
    render_conversation,
)
from memory_app.service import MemoryService

SUMMARY_KEY = "sources/summary_open"  # the chunk summaries unfolded, remembered
# The statuses of memories a conversation "produced" (deleted ones are gone for the user).
_PRODUCED_STATUSES = ("active", "archived", "superseded")


def fetch_conversation(service: MemoryService, resource_id: int) -> Conversation:
    """A conversation, its turns, its chunks with their summaries and the memories it
    produced (runs on the DB worker)."""
    record, text = service.get_resource(resource_id)
    turns = service.resource_turns(resource_id)
    with service.db.reading() as session:
        chunks = chunks_of(session.connection(), resource_id)
    memories = service.query_items(
        ItemQuery(
            source_resource_id=resource_id,
            statuses=_PRODUCED_STATUSES,
            sort_key=None,
            descending=False,
            limit=10_000,
        )
    )
    memories.sort(key=lambda m: m.id)
    return Conversation(record, text, turns, memories, chunks)


class ConversationReader(QStackedWidget):
    """Two pages: `hint` while nothing is chosen, `browser` with the conversation.

    A memory link opens the memory in Memories; the expand/collapse links fold tool
    output; the "Retry now" link of a pending conversation is passed on.

    Signals:
        retry_requested(int): the "Retry now" link was clicked (the resource id).
    """

    retry_requested = Signal(int)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._state: ReaderState | None = None
        self._shown_id: int | None = None
        self._request = 0
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("sourceReader")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.anchorClicked.connect(self._link_clicked)
        self.browser.document().setDocumentMargin(12)
        self.hint = QLabel(self.tr("Select a conversation to read it."), self)
        self.hint.setObjectName("readerHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)
        self.hint.setFrameShape(QFrame.Shape.StyledPanel)
        self.addWidget(self.hint)
        self.addWidget(self.browser)

    @property
    def shown_id(self) -> int | None:
        """The conversation asked for last (shown, or on its way)."""
        return self._shown_id

    @property
    def conversation(self) -> Conversation | None:
        """The conversation the reader shows."""
        return self._state.conversation if self._state else None

    @property
    def focused_turns(self) -> tuple[int, int] | None:
        return self._state.focus if self._state else None

    def show_hint(self) -> None:
        self._shown_id = None
        self._state = None
        self._request += 1
        self.browser.clear()
        self.setCurrentWidget(self.hint)

    def open(self, resource_id: int, focus: tuple[int, int] | None, *, keep: bool = False) -> None:
        """Load and show a conversation, highlighting the `focus` turns; `keep`: the same
        conversation again, staying where the reader was."""
        self._shown_id = resource_id
        self._request += 1
        self.context.spawn(self._load(self._request, resource_id, focus, keep))

    async def _load(
        self, request: int, resource_id: int, focus: tuple[int, int] | None, keep: bool
    ) -> None:
        try:
            conversation = await self.context.call(
                fetch_conversation, self.context.service, resource_id
            )
        except LookupError:  # the store's NotFoundError: deleted meanwhile
            if request == self._request:
                self._show_message(
                    self.tr("Conversation #{id} is no longer in the store.").format(id=resource_id)
                )
            return
        if request != self._request:
            return  # another conversation was asked for meanwhile
        expanded = self._state.expanded if keep and self._state is not None else set()
        self._state = ReaderState(conversation, focus, expanded, self._summary_open())
        scroll = self.browser.verticalScrollBar().value() if keep else None
        self._render(scroll=scroll)
        if focus is not None and not keep:
            self.scroll_to_turn(focus[0])

    def _summary_open(self) -> bool:
        return str(self.context.settings.value(SUMMARY_KEY, "false")).lower() == "true"

    def set_summary_open(self, unfolded: bool) -> None:
        """Unfold or fold the chunk summaries (remembered for the next conversation)."""
        self.context.settings.setValue(SUMMARY_KEY, "true" if unfolded else "false")
        if self._state is not None:
            self._state.summary_open = unfolded
            self._render(scroll=self.browser.verticalScrollBar().value())

    def _show_message(self, text: str) -> None:
        self._state = None
        self.browser.setHtml(f"<p>{html.escape(text)}</p>")
        self.setCurrentWidget(self.browser)

    def _render(self, scroll: int | None = None) -> None:
        if self._state is None:
            return
        colours = ReaderColours.from_palette(self.browser.palette())
        base_pt = self.browser.font().pointSizeF()
        self.browser.setHtml(render_conversation(self._state, colours, base_pt))
        self.setCurrentWidget(self.browser)
        if scroll is not None:
            self.browser.verticalScrollBar().setValue(scroll)

    def rerender(self) -> None:
        """Render the shown conversation again in place (the palette changed)."""
        if self._state is not None:
            self._render(scroll=self.browser.verticalScrollBar().value())

    def scroll_to_turn(self, position: int) -> None:
        """Scroll the reader so the turn is at the top (now, and again once laid out)."""
        self._scroll_to_anchor(f"turn-{position}")
        QTimer.singleShot(0, self.browser, lambda: self._scroll_to_anchor(f"turn-{position}"))

    def _scroll_to_anchor(self, anchor: str) -> None:
        self.browser.scrollToAnchor(anchor)
        bar = self.browser.verticalScrollBar()
        if bar.value() < bar.maximum():
            # Show the turn's padding and a sliver of the turn before, not a cut edge.
            bar.setValue(max(0, bar.value() - self.fontMetrics().height()))

    def _link_clicked(self, url: QUrl) -> None:
        scheme, target = url.scheme(), url.path()
        if not target.isdigit():
            return
        if scheme == "memory":
            self.context.events.navigate.emit("memories", int(target))
        elif scheme == "turn":  # a chunk's first turn, from the summary
            self.scroll_to_turn(int(target))
        elif scheme in ("summary-open", "summary-close"):
            self.set_summary_open(scheme == "summary-open")
        elif scheme == "retry":
            self.retry_requested.emit(int(target))
        elif scheme in ("expand", "collapse") and self._state is not None:
            if scheme == "expand":
                self._state.expanded.add(int(target))
            else:
                self._state.expanded.discard(int(target))
            self._render(scroll=self.browser.verticalScrollBar().value())
