"""The Sources view: the parts of the page put together and kept in step.

The parts each do one thing (the action row and its jobs, the outcome bar, the list, the
reader); this module lays them out, loads the list, keeps the selection and the reader
in step across reloads, and goes to the conversation a navigation asks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QItemSelection, Qt, QTimer
from PySide6.QtWidgets import QSplitter, QStackedLayout, QVBoxLayout, QWidget

from memory_app.domain.records import ImportReport, ResourceRecord
from memory_app.extract.credentials import find_api_key
from memory_app.gui.context import AppContext
from memory_app.gui.views.base import View
from memory_app.gui.views.sources.conversation_html import Conversation
from memory_app.gui.views.sources.conversation_list import ConversationList
from memory_app.gui.views.sources.import_actions import ImportActions
from memory_app.gui.views.sources.import_result import ImportResultBar
from memory_app.gui.views.sources.reader import ConversationReader
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.service import MemoryService

# The list reads resources in pages of this size (one service call returns one page).
_PAGE = 500
_SETTINGS_SPLITTER = "sources/splitter"


class SourcesView(View):
    """Imported conversations (left), the selected one to read (right), and importing.

    Navigation arguments of `activate`: a resource id, `(resource_id, turn_start,
    turn_end)` to open a conversation at those turns, or "import" to import a folder.
    """

    key = "sources"
    icon = "sources"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Sources")
        self._target: tuple[int, tuple[int, int] | None] | None = None
        self._resetting = False

        self._build()
        context.events.sources_changed.connect(self.schedule_reload)
        context.events.memories_changed.connect(self.schedule_reload)
        context.events.import_requested.connect(self.action_row.handle_request)

    # -- building -------------------------------------------------------------------------

    def _build(self) -> None:
        # Built in the order of the focus chain: action row, outcome, list, reader.
        self.action_row = ImportActions(self.context, self.selected_resource, self)
        self.result_bar = ImportResultBar(self)
        self.action_row.started.connect(self.result_bar.hide)
        self.action_row.failed.connect(self.result_bar.show_error)
        self.action_row.reported.connect(self.result_bar.show_report)
        self.action_row.finished.connect(self._import_finished)

        self.conversations = ConversationList(self)
        self.conversations.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.reader_pages = ConversationReader(self.context, self)
        self.reader_pages.retry_requested.connect(self.action_row.retry_conversation)

        # The parts' widgets, by the names the rest of the app (and its tests) use.
        self.import_files_button = self.action_row.import_files_button
        self.import_folder_button = self.action_row.import_folder_button
        self.extract_button = self.action_row.extract_button
        self.retry_button = self.action_row.retry_button
        self.progress_label = self.action_row.progress_label
        self.progress_bar = self.action_row.progress_bar
        self.cancel_button = self.action_row.cancel_button
        self.model = self.conversations.model
        self.proxy = self.conversations.proxy
        self.filter_edit = self.conversations.filter_edit
        self.table = self.conversations.table
        self.list_count = self.conversations.count
        self.reader = self.reader_pages.browser
        self.reader_hint = self.reader_pages.hint

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("sourcesSplitter")
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(self.reader_pages)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setSizes([560, 440])
        state = self.context.settings.value(_SETTINGS_SPLITTER)
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.splitter.restoreState(state)
        self.splitter.splitterMoved.connect(
            lambda _pos, _index: self.context.settings.setValue(
                _SETTINGS_SPLITTER, self.splitter.saveState()
            )
        )

        self.empty = EmptyState(
            icon="sources",
            title=self.tr("No conversations yet"),
            text=self.tr(
                "Import Claude Code sessions (the .jsonl files under ~/.claude/projects) or "
                "conversations saved as text or markdown. Each one is kept as it was, with "
                "secrets redacted, and every memory links back to the turns it came from."
            ),
            action=self.tr("Import Claude Code History…"),
            parent=self,
        )
        assert self.empty.button is not None
        self.empty.button.clicked.connect(self.import_folder)

        pages_host = QWidget(self)
        self.pages = QStackedLayout(pages_host)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.splitter)

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(self.action_row)
        layout.addWidget(self.result_bar)
        layout.addWidget(pages_host, 1)

    # -- loading ----------------------------------------------------------------------------

    def activate(self, argument: Any = None) -> None:
        self.loaded = True
        if argument == "import":
            # After the view is shown: the folder picker is modal.
            QTimer.singleShot(0, self, self.import_folder)
        else:
            target = self._parse_target(argument)
            if target is not None:
                self._target = target
        super().activate(argument)

    @staticmethod
    def _parse_target(argument: Any) -> tuple[int, tuple[int, int] | None] | None:
        if isinstance(argument, int) and not isinstance(argument, bool):
            return argument, None
        if isinstance(argument, tuple | list) and argument and isinstance(argument[0], int):
            if len(argument) >= 3 and argument[1] is not None:
                start = int(argument[1])
                end = int(argument[2]) if argument[2] is not None else start
                return int(argument[0]), (min(start, end), max(start, end))
            return int(argument[0]), None
        return None

    @staticmethod
    def _fetch_resources(service: MemoryService) -> list[ResourceRecord]:
        records: list[ResourceRecord] = []
        while True:
            page = service.resources(limit=_PAGE, offset=len(records))
            records.extend(page)
            if len(page) < _PAGE:
                return records

    async def reload(self) -> None:
        records = await self.context.call(self._fetch_resources, self.context.service)
        # The keyring may be slow to answer: asked on the worker, each time the view loads
        # (a key saved in Settings meanwhile counts on the way back).
        self.action_row.claude_key = await self.context.call(lambda: find_api_key() is not None)
        self.show_resources(records)
        self.action_row.update_extract_button()

    def show_resources(self, records: list[ResourceRecord]) -> None:
        """Show these conversations, keeping the selection (or going to a navigation target)."""
        selected = self.selected_resource()
        keep_id = selected.id if selected is not None else self.reader_pages.shown_id
        self._resetting = True
        try:
            self.model.set_records(records)
            self.pages.setCurrentWidget(self.splitter if records else self.empty)
            self.conversations.fit_columns_once()
            target, self._target = self._target, None
            if target is not None:
                resource_id, focus = target
                self.reader_pages.open(resource_id, focus)
                if not self.conversations.select(resource_id) and self.filter_edit.text():
                    self.filter_edit.clear()  # the filter hid it
                    self.conversations.select(resource_id)
            elif keep_id is not None and self.model.row_of(keep_id) >= 0:
                # The same conversation: refresh it (its memories may have changed) and
                # keep the reader where it was.
                self.conversations.select(keep_id)
                self.reader_pages.open(keep_id, self.focused_turns, keep=True)
            else:
                self.conversations.select(None)
                self.reader_pages.show_hint()
        finally:
            self._resetting = False
        self.action_row.show_retry(self.selected_resource())  # its status may have changed
        self.conversations.update_count()

    # -- selection and the reader -----------------------------------------------------------

    def selected_resource(self) -> ResourceRecord | None:
        # The action row asks while it is being built, before the list exists.
        conversations: ConversationList | None = getattr(self, "conversations", None)
        return conversations.selected_resource() if conversations is not None else None

    def _selection_changed(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        if self._resetting:
            return
        record = self.selected_resource()
        self.action_row.update_extract_button()
        self.action_row.show_retry(record)
        # Nothing selected (the filter hid the row): the reader keeps what it shows.
        if record is not None and record.id != self.reader_pages.shown_id:
            self.reader_pages.open(record.id, None)

    def open_conversation(self, resource_id: int, focus: tuple[int, int] | None = None) -> None:
        """Show a conversation in the reader, optionally at (and highlighting) turns."""
        self.reader_pages.open(resource_id, focus)

    def scroll_to_turn(self, position: int) -> None:
        """Scroll the reader so the turn is at the top (now, and again once laid out)."""
        self.reader_pages.scroll_to_turn(position)

    @property
    def conversation(self) -> Conversation | None:
        """The conversation the reader shows."""
        return self.reader_pages.conversation

    @property
    def focused_turns(self) -> tuple[int, int] | None:
        return self.reader_pages.focused_turns

    # -- importing (the action row runs the jobs) -------------------------------------------

    @property
    def importing(self) -> bool:
        return self.action_row.importing

    @property
    def last_report(self) -> ImportReport | None:
        return self.action_row.last_report

    def import_files(self) -> None:
        """Ask for files and import them."""
        self.action_row.import_files()

    def import_folder(self) -> None:
        """Ask for a folder (Claude Code's projects folder offered first) and import it."""
        self.action_row.import_folder()

    def start_import(self, paths: Sequence[Path]) -> Any:
        """Import files or folders as a job; returns the task."""
        return self.action_row.start_import(paths)

    def cancel_import(self) -> None:
        self.action_row.cancel_import()

    def extract_with_claude(self) -> Any:
        """Run Claude over the selected conversation as a job (progress, cancel, summary)."""
        return self.action_row.extract_with_claude()

    def retry_extraction(self) -> Any:
        """Extract the selected pending conversation again now (the Retry button)."""
        return self.action_row.retry_extraction()

    def retry_conversation(self, resource_id: int) -> Any:
        """Extract a pending conversation again now with the extractor in use."""
        return self.action_row.retry_conversation(resource_id)

    def claude_available(self) -> bool:
        """Claude can be asked: it is the extractor in use, or a key is set."""
        return self.action_row.claude_available()

    def _import_finished(self) -> None:
        """A job ended with a report: a view never shown loads its list now."""
        if not self.loaded:
            self.loaded = True
            self.schedule_reload()

    # -- events -----------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.result_bar.restyle()
            self.reader_pages.rerender()
