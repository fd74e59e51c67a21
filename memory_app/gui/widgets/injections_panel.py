"""What the assistant saw: the recall hooks' latest answers, live (seed 004).

Claude Code's recall hooks add memories to the assistant's prompts and log each answer
beside the store. While this panel is visible it takes that log into the store every few
seconds (off the GUI thread) and lists the answers newest first; for the selected one it
shows the memories given, each with its score and whether the answer used it.

The hook never writes a prompt down: the prompt appears once the session's conversation
has been imported, which is also when each memory is judged cited or ignored.
"""

from __future__ import annotations

import html
import logging
from datetime import datetime
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QHideEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedLayout,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import InjectedMemory, InjectionRecord
from memory_app.gui.colours import SUCCESS, WARNING, text_colour
from memory_app.gui.context import AppContext
from memory_app.gui.times import full_time, relative_time
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.gui.widgets.tree_items import top_level_items

log = logging.getLogger(__name__)

POLL_MS = 5000  # how often the hooks' log is taken while the panel is visible
LIMIT = 50  # injections listed
WHEN, PROJECT, EVENT, OUTCOME, COUNT, PROMPT = range(6)
MEMORY, SCORE, VERDICT = range(3)
RECORD_ROLE = Qt.ItemDataRole.UserRole  # the InjectionRecord / InjectedMemory of a row
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

# Cited green and ignored amber, readable on the palette (colours.py); the verdict is
# always written out too, so the colour only helps the eye.
VERDICT_COLOURS = {"cited": SUCCESS, "ignored": WARNING}


def folder_name(project: str | None) -> str:
    """A project as the list shows it: its folder's name."""
    if not project:
        return "—"
    return PurePath(project).name or project


def short_time(when: datetime, now: datetime | None = None) -> str:
    """The time of day for today's injections, the date and time for older ones."""
    local = when.astimezone()
    today = (now or datetime.now(local.tzinfo)).astimezone(local.tzinfo).date()
    return f"{local:%H:%M:%S}" if local.date() == today else f"{local:%Y-%m-%d %H:%M}"


def one_line(text: str) -> str:
    return " ".join(text.split())


class InjectionsPanel(QWidget):
    """The recall hooks' latest answers and, for the selected one, the memories given.

    Double-click or Enter on a memory opens it in the Memories view (through the app's
    `navigate` event); Enter on an answer moves to its memories.
    """

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("injectionsPanel")
        self.context = context
        self.records: list[InjectionRecord] = []
        self.loaded = False  # the first answer of the store arrived
        self._polling = False
        self._reload_wanted = False
        self.poll_timer = QTimer(self)
        self.poll_timer.setInterval(POLL_MS)
        self.poll_timer.timeout.connect(lambda: self.poll())

        self.main = QWidget(self)
        column = QVBoxLayout(self.main)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(6)
        splitter = QSplitter(Qt.Orientation.Vertical, self.main)
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_details())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([380, 260])
        splitter.setChildrenCollapsible(False)
        column.addWidget(splitter, 1)
        self.footer = QLabel(
            self.tr(
                "Checked every few seconds while shown · Enter or double-click opens a memory "
                "in Memories"
            ),
            self.main,
        )
        self.footer.setObjectName("injectionsFooter")
        self._mute(self.footer)
        column.addWidget(self.footer)

        self.empty = EmptyState(
            icon="context",
            title=self.tr("Nothing injected yet"),
            text=self.tr(
                "Install the Claude Code hooks in Settings > Claude Code. Then each time the "
                "assistant is given memories, for a prompt or a new session, it shows up here "
                "within seconds: which memories, and whether the answer used them."
            ),
            action=self.tr("Open &Settings"),
            parent=self,
        )
        assert self.empty.button is not None
        self.empty.button.clicked.connect(
            lambda: self.context.events.navigate.emit("settings", None)
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.main)
        self.pages.addWidget(self.empty)
        self.pages.setCurrentWidget(self.empty)
        self.show_details(None)
        context.events.sources_changed.connect(self._store_changed)
        context.events.memories_changed.connect(self._store_changed)

    # -- building ---------------------------------------------------------------------

    def _build_list(self) -> QWidget:
        self.list = QTreeWidget(self.main)
        self.list.setObjectName("injectionList")
        self.list.setHeaderLabels(
            [
                self.tr("When"),
                self.tr("Project"),
                self.tr("Event"),
                self.tr("Outcome"),
                self.tr("Memories"),
                self.tr("Prompt", "column: the prompt's text"),
            ]
        )
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAllColumnsShowFocus(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setAccessibleName(self.tr("What the assistant saw, newest first"))
        header = self.list.header()
        header.setStretchLastSection(True)
        for column in (WHEN, PROJECT, EVENT, OUTCOME, COUNT):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.headerItem().setTextAlignment(COUNT, RIGHT)
        self.list.currentItemChanged.connect(lambda *_: self._current_changed())
        self.list.itemActivated.connect(lambda _item, _column: self._focus_memories())
        return self.list

    def _build_details(self) -> QWidget:
        panel = QWidget(self.main)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        self.summary = QLabel(panel)
        self.summary.setObjectName("injectionSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.prompt = QLabel(panel)
        self.prompt.setObjectName("injectionPrompt")
        self.prompt.setWordWrap(True)
        self.prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prompt.setMaximumHeight(self.prompt.fontMetrics().lineSpacing() * 4 + 4)
        self.memories = QTreeWidget(panel)
        self.memories.setObjectName("injectedMemories")
        self.memories.setHeaderLabels(
            [self.tr("Memories given"), self.tr("Score"), self.tr("Verdict")]
        )
        self.memories.setRootIsDecorated(False)
        self.memories.setUniformRowHeights(True)
        self.memories.setAllColumnsShowFocus(True)
        self.memories.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.memories.setAccessibleName(self.tr("Memories given for the selected prompt"))
        header = self.memories.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(MEMORY, QHeaderView.ResizeMode.Stretch)
        for column in (SCORE, VERDICT):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.memories.headerItem().setTextAlignment(SCORE, RIGHT)
        self.memories.itemActivated.connect(lambda item, _column: self.open_memory(item))
        layout.addWidget(self.summary)
        layout.addWidget(self.prompt)
        layout.addWidget(self.memories, 1)
        return panel

    @staticmethod
    def _mute(label: QLabel, muted: bool = True) -> None:
        # A role, not a style sheet: the placeholder colour is translucent, and a role
        # follows the palette when the system switches between light and dark.
        role = QPalette.ColorRole.PlaceholderText if muted else QPalette.ColorRole.WindowText
        label.setForegroundRole(role)

    # -- words ------------------------------------------------------------------------

    def event_words(self, event: str) -> str:
        """The hook event that gave memories, as the list says it."""
        return {
            "UserPromptSubmit": self.tr("Prompt", "event: a prompt was submitted"),
            "SessionStart": self.tr("Session start"),
        }.get(event, event)

    def outcome_words(self, outcome: str) -> str:
        return {
            "injected": self.tr("Injected"),
            "reused": self.tr("Same topic"),
            "no_match": self.tr("Nothing matched"),
            "skipped": self.tr("Not searched"),
        }.get(outcome, outcome)

    def outcome_tip(self, outcome: str) -> str:
        return {
            "injected": self.tr("The hook added these memories to what the assistant was given."),
            "reused": self.tr(
                "Same topic as a prompt just before: its memories were still in the "
                "conversation, so nothing new was added."
            ),
            "no_match": self.tr(
                "The hook searched, but no memory matched closely enough: nothing was added."
            ),
            "skipped": self.tr(
                "An acknowledgement (“ok”, “thanks”) or nothing to search for: the hook "
                "did not search."
            ),
        }.get(outcome, "")

    def verdict_words(self, verdict: str) -> str:
        return {
            "cited": self.tr("Cited"),
            "ignored": self.tr("Ignored"),
            "pending": self.tr("Pending"),
            "reused": self.tr("Reused"),
        }.get(verdict, verdict.capitalize())

    def verdict_tip(self, verdict: str) -> str:
        return {
            "cited": self.tr(
                "The answer that followed used this memory: it named it, used a name from "
                "its code, or said what it says."
            ),
            "ignored": self.tr("The answer that followed did not use this memory."),
            "pending": self.tr(
                "Not judged yet: judged once this session's conversation is imported."
            ),
            "reused": self.tr(
                "Still in the conversation from an earlier prompt on the same topic: not "
                "given again, not judged."
            ),
        }.get(verdict, "")

    def _no_prompt_tip(self, record: InjectionRecord) -> str:
        if record.event != "UserPromptSubmit":
            return ""
        return self.tr(
            "The hook never writes a prompt down. It is shown here once this session's "
            "conversation has been imported (Sources)."
        )

    # -- live -------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.poll_timer.start()
        self.poll(reload=True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.poll_timer.stop()

    def poll(self, *, reload: bool = False) -> Any:
        """Take the hooks' log into the store, off the GUI thread; reload the list when
        that added injections (or when `reload` asks for it anyway)."""
        if self._polling:
            self._reload_wanted = self._reload_wanted or reload
            return None
        self._polling = True
        return self.context.spawn(self._poll(reload))

    async def _poll(self, reload: bool) -> None:
        try:
            added = await self._take_log()
            if added or reload:
                await self.reload()
            while self._reload_wanted:
                self._reload_wanted = False
                await self.reload()
        finally:
            self._polling = False

    async def _take_log(self) -> int:
        service = self.context.service
        if service.db.damage is not None:  # a damaged store refuses every write
            return 0
        try:
            return await self.context.call(service.take_injection_log)
        except Exception:  # a poll must never put the window in error: the lines wait
            log.warning("could not take the hooks' injection log", exc_info=True)
            return 0

    async def reload(self) -> None:
        """The latest injections from the store."""
        records = await self.context.call(self.context.service.recent_injections, LIMIT)
        self.show_records(records)

    def _store_changed(self) -> None:
        # An import judges injections and fills in prompts; an edit changes a memory's text.
        if self.isVisible():
            self.poll(reload=True)

    # -- showing ----------------------------------------------------------------------

    def show_records(self, records: list[InjectionRecord]) -> None:
        first = not self.loaded
        self.loaded = True
        self.pages.setCurrentWidget(self.main if records else self.empty)
        if records == self.records and not first:
            return  # nothing new: keep the selection and scroll position as they are
        selected = self.selected_injection()
        selected_id = selected.id if selected is not None else None
        memory = self.selected_memory()
        memory_id = memory.item_id if memory is not None else None
        scroll = self.list.verticalScrollBar().value()
        self.records = list(records)
        self.list.setUpdatesEnabled(False)
        self.list.blockSignals(True)
        self.list.clear()
        now = datetime.now().astimezone()
        for record in records:
            self.list.addTopLevelItem(self._injection_row(record, now))
        rows = top_level_items(self.list)
        current = next(
            (r for r in rows if r.data(WHEN, RECORD_ROLE).id == selected_id),
            rows[0] if rows else None,
        )
        if current is not None:
            self.list.setCurrentItem(current)
        self.list.blockSignals(False)
        self.list.verticalScrollBar().setValue(scroll)
        self.list.setUpdatesEnabled(True)
        self.show_details(self.selected_injection(), memory_id)

    def _injection_row(self, record: InjectionRecord, now: datetime) -> QTreeWidgetItem:
        count = len(record.memories)
        row = QTreeWidgetItem(
            [
                short_time(record.at, now),
                folder_name(record.project),
                self.event_words(record.event),
                self.outcome_words(record.outcome),
                f"{count:,}" if count else "—",
                one_line(record.prompt) if record.prompt else "",
            ]
        )
        row.setData(WHEN, RECORD_ROLE, record)
        row.setToolTip(WHEN, f"{full_time(record.at)} ({relative_time(record.at)})")
        row.setToolTip(PROJECT, record.project or self.tr("No project"))
        row.setToolTip(OUTCOME, self.outcome_tip(record.outcome))
        row.setTextAlignment(COUNT, RIGHT)
        row.setToolTip(COUNT, self.tr("%Ln memories given", "", count))
        if record.prompt:
            row.setToolTip(PROMPT, html.escape(record.prompt))
        else:
            row.setText(PROMPT, self._missing_prompt(record))
            row.setForeground(PROMPT, self._muted_brush())
            font = QFont(self.list.font())
            font.setItalic(True)
            row.setFont(PROMPT, font)
            row.setToolTip(PROMPT, self._no_prompt_tip(record))
        if record.outcome in ("no_match", "skipped"):
            for column in (OUTCOME, COUNT):
                row.setForeground(column, self._muted_brush())
        return row

    def _missing_prompt(self, record: InjectionRecord) -> str:
        if record.event == "SessionStart":
            return self.tr("New session: standing context")
        return self.tr("Prompt not imported yet")

    def show_details(self, record: InjectionRecord | None, memory_id: int | None = None) -> None:
        self.memories.clear()
        if record is None:
            self.summary.setText(
                "<i>{}</i>".format(
                    html.escape(self.tr("Select a prompt to see the memories it was given."))
                )
            )
            self.prompt.setText("")
            self.prompt.hide()
            return
        headline = self.tr("{event} in {project}").format(
            event=self.event_words(record.event), project=folder_name(record.project)
        )
        count = len(record.memories)
        if record.outcome == "injected":
            what = self.tr("%Ln memories given", "", count)
        elif record.outcome == "reused" and record.reused_from:
            what = self.tr("same topic as the prompt of {time}: nothing new given").format(
                time=short_time(record.reused_from)
            )
        elif record.outcome == "reused":
            what = self.tr("same topic as the prompt: nothing new given")
        else:
            what = {
                "no_match": self.tr("nothing matched"),
                "skipped": self.tr("not searched"),
            }.get(record.outcome, record.outcome.lower())
        self.summary.setText(
            f"<b>{html.escape(headline)}</b> · {html.escape(full_time(record.at))}"
            f" · {html.escape(what)}"
        )
        self.summary.setToolTip(self.outcome_tip(record.outcome))
        self.prompt.show()
        if record.prompt:
            self.prompt.setText(record.prompt)
            self._mute(self.prompt, False)
            self.prompt.setToolTip("")
        else:
            self.prompt.setText(
                self.tr("The prompt is shown once this session's conversation is imported.")
                if record.event == "UserPromptSubmit"
                else self.tr(
                    "A new session: the assistant was given standing context (conflicts, "
                    "pinned memories, conventions)."
                )
            )
            self._mute(self.prompt)
            self.prompt.setToolTip(self._no_prompt_tip(record))
        for memory in record.memories:
            row = self._memory_row(memory)
            self.memories.addTopLevelItem(row)
            if memory.item_id == memory_id:
                self.memories.setCurrentItem(row)
        if not record.memories:
            note = QTreeWidgetItem([self._no_memories(record), "", ""])
            note.setFlags(Qt.ItemFlag.ItemIsEnabled)
            note.setForeground(MEMORY, self._muted_brush())
            self.memories.addTopLevelItem(note)

    def _no_memories(self, record: InjectionRecord) -> str:
        return {
            "no_match": self.tr("No memory matched this prompt closely enough."),
            "skipped": self.tr("Not searched: nothing in this prompt to look for."),
        }.get(record.outcome, self.tr("No memories were given."))

    def _memory_row(self, memory: InjectedMemory) -> QTreeWidgetItem:
        score = f"{memory.score:.2f}" if memory.score is not None else "—"
        verdict = self.verdict_words(memory.verdict)
        row = QTreeWidgetItem([f"#{memory.item_id}  {one_line(memory.content)}", score, verdict])
        row.setData(MEMORY, RECORD_ROLE, memory)
        row.setTextAlignment(SCORE, RIGHT)
        opens = self.tr("Memory #{id}: Enter or double-click opens it in Memories.").format(
            id=memory.item_id
        )
        row.setToolTip(
            MEMORY, f"<p>{html.escape(memory.content)}</p><p><i>{html.escape(opens)}</i></p>"
        )
        row.setToolTip(
            SCORE,
            self.tr("Ranking score for this prompt")
            if memory.score is not None
            else self.tr("Standing context for a new session: not ranked"),
        )
        row.setToolTip(VERDICT, self.verdict_tip(memory.verdict))
        row.setForeground(VERDICT, QBrush(self._verdict_colour(memory.verdict)))
        return row

    def _verdict_colour(self, verdict: str) -> QColor:
        palette = self.memories.palette()
        if verdict in VERDICT_COLOURS:
            return text_colour(VERDICT_COLOURS[verdict], palette)
        return palette.color(QPalette.ColorRole.PlaceholderText)

    def _muted_brush(self) -> QBrush:
        return QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText))

    # -- selection and actions --------------------------------------------------------

    def selected_injection(self) -> InjectionRecord | None:
        item = self.list.currentItem()
        data = item.data(WHEN, RECORD_ROLE) if item is not None else None
        return data if isinstance(data, InjectionRecord) else None

    def selected_memory(self) -> InjectedMemory | None:
        item = self.memories.currentItem()
        data = item.data(MEMORY, RECORD_ROLE) if item is not None else None
        return data if isinstance(data, InjectedMemory) else None

    def _current_changed(self) -> None:
        self.show_details(self.selected_injection())

    def _focus_memories(self) -> None:
        """Enter on an answer: on to its memories, the first one selected."""
        first = self.memories.topLevelItem(0)
        if first is None or not isinstance(first.data(MEMORY, RECORD_ROLE), InjectedMemory):
            return
        if self.memories.currentItem() is None:
            self.memories.setCurrentItem(first)
        self.memories.setFocus(Qt.FocusReason.OtherFocusReason)

    def open_memory(self, item: QTreeWidgetItem | None) -> None:
        """Show the memory in the Memories view."""
        data = item.data(MEMORY, RECORD_ROLE) if item is not None else None
        if isinstance(data, InjectedMemory):
            self.context.events.navigate.emit("memories", data.item_id)
