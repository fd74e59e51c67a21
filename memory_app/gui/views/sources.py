"""Sources: the imported conversations, a reader for each, and importing more.

The list is a table over `ResourceTableModel`; the reader renders a conversation's stored
text turn by turn (tool traffic in a muted monospace block, redactions marked, the turns
that produced memories tinted and linked to them). Imports run as a long job on their own
thread; its progress crosses to the GUI thread through a queued Qt signal.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QItemSelection,
    QObject,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedLayout,
    QStackedWidget,
    QTableView,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.background import import_in_process
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.jobs import JobState
from memory_app.domain.records import (
    ImportReport,
    ItemQuery,
    MemoryRecord,
    ResourceRecord,
    TurnRecord,
)
from memory_app.domain.redaction import removed_secrets
from memory_app.extract.base import ExtractorError
from memory_app.extract.credentials import find_api_key
from memory_app.gui.context import AppContext
from memory_app.gui.extractor_choice import claude_extractor
from memory_app.gui.models.resource_table_model import (
    BRANCH,
    DATE,
    MEMORIES,
    OBJECT_ROLE,
    PROJECT,
    TITLE,
    TURNS,
    ResourceTableModel,
    format_date,
    resource_proxy,
    resource_title,
)
from memory_app.gui.views.base import View
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.ingest import claude_projects_dir
from memory_app.service import MemoryService

log = logging.getLogger(__name__)

# Tool output longer than this many lines (or characters) is cut, with a link to expand it.
TOOL_PREVIEW_LINES = 20
TOOL_PREVIEW_CHARS = 2000
# The list reads resources in pages of this size (one service call returns one page).
_PAGE = 500
# The statuses of memories a conversation "produced" (deleted ones are gone for the user).
_PRODUCED_STATUSES = ("active", "archived", "superseded")
_REDACTION = re.compile(r"\[REDACTED:[^\]\s]{1,64}\]")
_PROBLEM = re.compile(r"^(?P<where>.*?:\d+): (?P<message>.*)$", re.S)
_CATEGORY_NAMES = {c.key: c.name for c in DEFAULT_CATEGORIES}
_SETTINGS_FOLDER = "sources/lastFolder"
_EXTRACT_TIP = (
    "Let Claude read the selected conversation again: new memories are added, "
    "known ones reinforced (needs an Anthropic API key)"
)
_NO_KEY_TIP = (
    "Needs an Anthropic API key: set ANTHROPIC_API_KEY, or save a key in Settings > Extractor"
)
_SETTINGS_SPLITTER = "sources/splitter"


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def _mix(base: QColor, tint: QColor, amount: float) -> QColor:
    """`tint` laid over `base` at opacity `amount`, as an opaque colour.

    Rich text gets plain hex colours: the result is the same on every Qt version and
    with every style, light or dark.
    """
    return QColor(
        round(base.red() + (tint.red() - base.red()) * amount),
        round(base.green() + (tint.green() - base.green()) * amount),
        round(base.blue() + (tint.blue() - base.blue()) * amount),
    )


# -- the reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReaderColours:
    """The reader's colours, derived from the palette so light and dark both read well."""

    text: str
    muted: str
    produced: str  # a turn that produced memories: Highlight at low alpha
    focused: str  # the turns navigated to: Highlight, stronger
    tool: str  # the background of tool calls and output
    redaction: str
    pending: str  # the note on a conversation whose extraction is pending
    monospace: str

    @classmethod
    def from_palette(cls, palette: QPalette) -> ReaderColours:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        highlight = palette.color(QPalette.ColorRole.Highlight)
        dark = base.lightness() < 128
        return cls(
            text=text.name(),
            muted=_mix(base, text, 0.62).name(),
            produced=_mix(base, highlight, 0.16 if not dark else 0.24).name(),
            focused=_mix(base, highlight, 0.38 if not dark else 0.5).name(),
            tool=_mix(base, text, 0.05 if not dark else 0.08).name(),
            redaction=_mix(base, QColor("#f0a800"), 0.45).name(),
            pending=_mix(base, QColor("#d98c00"), 0.16 if not dark else 0.26).name(),
            monospace=QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family(),
        )


@dataclass
class Conversation:
    """What the reader shows: one conversation, its turns and the memories it produced."""

    record: ResourceRecord
    text: str
    turns: list[TurnRecord]
    memories: list[MemoryRecord]

    def memories_by_turn(self) -> tuple[dict[int, list[MemoryRecord]], set[int]]:
        """The memories to link at each turn (the first of their span), and every turn
        a memory came from."""
        linked: dict[int, list[MemoryRecord]] = {}
        produced: set[int] = set()
        for memory in self.memories:
            if memory.turn_start is None:
                continue
            end = memory.turn_end if memory.turn_end is not None else memory.turn_start
            produced.update(range(memory.turn_start, end + 1))
            linked.setdefault(memory.turn_start, []).append(memory)
        return linked, produced


@dataclass
class ReaderState:
    conversation: Conversation
    focus: tuple[int, int] | None = None
    expanded: set[int] = field(default_factory=set)


def _escape(text: str, colours: ReaderColours) -> str:
    """HTML of plain text: escaped, line breaks kept, redaction markers highlighted."""
    out: list[str] = []
    last = 0
    for match in _REDACTION.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(
            f'<span style="background-color:{colours.redaction}; font-weight:600">'
            f"{html.escape(match.group(0), quote=False)}</span>"
        )
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out).replace("\r\n", "\n").replace("\n", "<br>")


def _split_turn(chunk: str) -> tuple[str, str]:
    """ "User: hello" → ("User", "hello"); the label is what the store rendered."""
    label, sep, body = chunk.partition(": ")
    if not sep or "\n" in label or len(label) > 60:
        label, _, body = chunk.partition(":")
        if "\n" in label or len(label) > 60:
            return "", chunk
    return label.strip(), body.strip("\n")


def _preview(body: str, expanded: bool) -> tuple[str, str]:
    """The part of a tool block to show and the words of the link to the rest ("" if
    nothing is hidden)."""
    lines = body.splitlines()
    if expanded:
        return body, ""
    shown = "\n".join(lines[:TOOL_PREVIEW_LINES])
    hidden_lines = max(0, len(lines) - TOOL_PREVIEW_LINES)
    if len(shown) > TOOL_PREVIEW_CHARS:
        cut = shown[:TOOL_PREVIEW_CHARS]
        hidden_lines = len(lines) - cut.count("\n") - 1
        more = len(body) - len(cut)
        words = (
            _plural(hidden_lines, "more line") if hidden_lines else _plural(more, "more character")
        )
        return cut, f"… {words}"
    if hidden_lines:
        return shown, f"… {_plural(hidden_lines, 'more line')}"
    return body, ""


def _time(turn: TurnRecord) -> str:
    if turn.timestamp is None:
        return ""
    when = turn.timestamp.astimezone() if turn.timestamp.tzinfo else turn.timestamp
    return when.strftime("%H:%M")


def _category_name(key: str) -> str:
    return _CATEGORY_NAMES.get(key, key.replace("_", " ").capitalize())


def _snippet(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _header_html(conversation: Conversation, colours: ReaderColours) -> str:
    record = conversation.record
    facts: list[str] = []
    if record.project:
        facts.append(html.escape(record.project))
    if record.branch:
        facts.append(f"branch {html.escape(record.branch)}")
    if record.started_at is not None:
        when = format_date(record.started_at)
        if record.ended_at is not None and record.ended_at > record.started_at:
            end = format_date(record.ended_at)
            when += " – " + (end[11:] if end[:10] == when[:10] else end)
        facts.append(when)
    else:
        facts.append(f"imported {format_date(record.imported_at)}")
    counts = [
        _plural(record.turn_count, "turn"),
        # A pending conversation has no memories yet: the note below says why.
        "extraction pending"
        if record.status == "pending"
        else _plural(record.item_count, "memory", "memories"),
    ]
    removed = removed_secrets(conversation.text)  # "3 secrets removed: 2 AWS keys, ..."
    if removed:
        counts.append(html.escape(removed))
    parts = [
        f'<h2 style="margin-bottom:4px">{html.escape(resource_title(record))}</h2>',
        f'<p style="color:{colours.muted}; margin-top:0; margin-bottom:0">{" · ".join(facts)}</p>',
        f'<p style="color:{colours.muted}; margin-top:2px">{" · ".join(counts)}</p>',
    ]
    if record.status == "pending":
        parts.append(_pending_html(record, colours))
    loose = [m for m in conversation.memories if m.turn_start is None]
    if loose:
        parts.append(f"<p>{_memory_links(loose, colours)}</p>")
    if not conversation.turns:
        parts.append(f'<p style="color:{colours.muted}">This conversation has no turns.</p>')
    return "".join(parts)


def _pending_html(record: ResourceRecord, colours: ReaderColours) -> str:
    """Why a kept conversation has no memories yet, and a link to try again now."""
    reason = html.escape(record.status_reason or "the extractor failed")
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{colours.pending}"'
        f' style="margin-top:6px; margin-bottom:4px"><tr><td>'
        f'<p style="margin:0"><b>Extraction pending:</b> {reason}</p>'
        f'<p style="margin-top:4px; margin-bottom:0; color:{colours.muted}">'
        "The conversation is kept; no memories were taken from it yet. "
        f'<a href="retry:{record.id}">Retry now</a></p>'
        "</td></tr></table>"
    )


def _memory_links(memories: Sequence[MemoryRecord], colours: ReaderColours) -> str:
    lines = []
    for memory in memories:
        lines.append(
            f'↳ <a href="memory:{memory.id}">memory #{memory.id}</a>'
            f'<span style="color:{colours.muted}"> · {html.escape(_category_name(memory.category))}'
            f" · “{html.escape(_snippet(memory.content))}”</span>"
        )
    return "<br>".join(lines)


def render_conversation(state: ReaderState, colours: ReaderColours, base_pt: float) -> str:
    """The reader's HTML for a conversation: a header, then each turn."""
    conversation = state.conversation
    linked, produced = conversation.memories_by_turn()
    small_pt = max(7.0, base_pt - 1)
    parts = [
        f'<html><body style="color:{colours.text}">',
        _header_html(conversation, colours),
    ]
    text = conversation.text
    for turn in conversation.turns:
        label, body = _split_turn(text[turn.start : turn.end])
        label = label or turn.speaker.title()
        is_tool = turn.kind in ("tool_use", "tool_result")
        focused = state.focus is not None and state.focus[0] <= turn.position <= state.focus[1]
        background = (
            colours.focused if focused else colours.produced if turn.position in produced else ""
        )
        bgcolor = f' bgcolor="{background}"' if background else ""
        meta = _time(turn)
        heading = f'<a name="turn-{turn.position}"></a><b>{html.escape(label)}</b>' + (
            f'<span style="color:{colours.muted}">&nbsp;&nbsp;{meta}</span>' if meta else ""
        )
        parts.append(
            f'<table width="100%" cellspacing="0" cellpadding="6"{bgcolor}'
            f' style="margin-top:2px; margin-bottom:2px"><tr><td>'
            f'<p style="margin:0">{heading}</p>'
        )
        if is_tool:
            shown, more = _preview(body, turn.position in state.expanded)
            tool_bg = "" if background else f' bgcolor="{colours.tool}"'
            block = (
                f'<table width="100%" cellspacing="0" cellpadding="5"{tool_bg}'
                f' style="margin-top:3px"><tr><td>'
                f"<p style=\"margin:0; font-family:'{colours.monospace}'; font-size:{small_pt}pt;"
                f' color:{colours.muted}; white-space:pre-wrap">{_escape(shown, colours)}</p>'
            )
            if more:
                block += (
                    f'<p style="margin-top:4px; margin-bottom:0; font-size:{small_pt}pt">'
                    f'<a href="expand:{turn.position}">{html.escape(more)}</a></p>'
                )
            elif turn.position in state.expanded:
                block += (
                    f'<p style="margin-top:4px; margin-bottom:0; font-size:{small_pt}pt">'
                    f'<a href="collapse:{turn.position}">Show less</a></p>'
                )
            parts.append(block + "</td></tr></table>")
        else:
            parts.append(
                f'<p style="margin-top:3px; margin-bottom:0; white-space:pre-wrap">'
                f"{_escape(body, colours)}</p>"
            )
        if turn.position in linked:
            parts.append(
                f'<p style="margin-top:6px; margin-bottom:0">'
                f"{_memory_links(linked[turn.position], colours)}</p>"
            )
        parts.append("</td></tr></table>")
    parts.append("</body></html>")
    return "".join(parts)


# -- the import result ----------------------------------------------------------------------


def summarize_report(report: ImportReport) -> str:
    """ "Imported 5 conversations · 12 memories · 3 duplicates reinforced · 2 skipped"."""
    parts = [f"Imported {_plural(report.resources_added, 'conversation')}"]
    parts.append(_plural(report.items_added, "memory", "memories"))
    parts.append(_plural(report.items_reinforced, "duplicate") + " reinforced")
    parts.append(f"{len(report.skipped):,} skipped")
    if report.errors:
        parts.append(_plural(len(report.errors), "error"))
    if report.pending:
        parts.append(f"{len(report.pending):,} pending (extraction failed, kept, will retry)")
    if report.problems:
        parts.append(_plural(len(report.problems), "unreadable line"))
    if report.cancelled:
        parts.insert(0, "Import cancelled")
    return " · ".join(parts)


class ImportResultBar(QFrame):
    """The outcome of the last import above the list, with a "Details" toggle listing what
    was skipped, what failed and which lines could not be read."""

    INFO, WARNING, ERROR = "info", "warning", "error"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importResult")
        self.kind = self.INFO
        self.text = QLabel(self)
        self.text.setObjectName("importResultText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_button = QToolButton(self)
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.toggled.connect(self._toggle_details)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss")
        self.close_button.clicked.connect(self.hide)
        self.details = QTreeWidget(self)
        self.details.setObjectName("importDetails")
        self.details.setRootIsDecorated(False)
        self.details.setHeaderLabels(["Outcome", "File", "Reason"])
        self.details.setAlternatingRowColors(True)
        self.details.setUniformRowHeights(True)
        self.details.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.details.hide()

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.text, 1)
        top.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.details)
        self.hide()

    def show_report(self, report: ImportReport) -> None:
        self.details.clear()
        rows: list[tuple[str, str, str]] = []
        rows += [("Skipped", r.source, r.reason or "") for r in report.skipped]
        rows += [("Error", r.source, r.reason or "") for r in report.errors]
        rows += [("Pending", r.source, r.reason or "") for r in report.pending]
        for problem in report.problems:
            match = _PROBLEM.match(problem)
            where, why = (match["where"], match["message"]) if match else (problem, "")
            rows.append(("Unreadable line", where, why))
        for outcome, source, reason in rows:
            path = source.split(" [", 1)[0]
            # Importers name the file at the start of their messages; the row already does.
            short = reason.removeprefix(f"{path}: ") if path else reason
            item = QTreeWidgetItem([outcome, PurePath(source).name or source, short])
            item.setToolTip(1, source)
            item.setToolTip(2, reason)
            self.details.addTopLevelItem(item)
        for column in range(2):
            self.details.resizeColumnToContents(column)
        self._fit_details(len(rows))
        kind = self.WARNING if report.errors or report.pending or report.problems else self.INFO
        self._show(summarize_report(report), kind, has_details=bool(rows))

    def _fit_details(self, rows: int) -> None:
        """As tall as its rows, up to about eight, then it scrolls."""
        row = self.details.sizeHintForRow(0) if rows else self.fontMetrics().height()
        header = self.details.header().sizeHint().height()
        frame = 2 * self.details.frameWidth()
        self.details.setFixedHeight(header + frame + row * max(1, min(rows, 8)) + 2)

    def show_error(self, message: str) -> None:
        self.details.clear()
        self._show(message, self.ERROR, has_details=False)

    def _show(self, text: str, kind: str, *, has_details: bool) -> None:
        self.kind = kind
        self.text.setText(text)
        self.details_button.setVisible(has_details)
        self.details_button.setChecked(False)
        self.details.hide()
        self.restyle()
        self.show()

    def _toggle_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def restyle(self) -> None:
        """Tint the bar for its kind from the surrounding palette (the bar's own palette
        is changed by its style sheet, so it cannot be the source)."""
        parent = self.parentWidget()
        palette = parent.palette() if parent is not None else QApplication.palette()
        base = palette.color(QPalette.ColorRole.Window)
        tint = {
            self.INFO: palette.color(QPalette.ColorRole.Highlight),
            self.WARNING: QColor("#d98c00"),
            self.ERROR: QColor("#d03b3b"),
        }[self.kind]
        sheet = (
            f"QFrame#importResult {{ background: {_mix(base, tint, 0.14).name()};"
            f" border: 1px solid {_mix(base, tint, 0.55).name()}; border-radius: 4px; }}"
        )
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)


def _reextract_work(
    service: MemoryService, ids: Sequence[int], doing: str
) -> Callable[[JobState], ImportReport]:
    """A job running `service.reextract` over conversations, reported like an import."""

    def work(job: JobState) -> ImportReport:
        results = []
        for done, ident in enumerate(ids):
            if job.cancelled:
                break
            job.report(done, len(ids), f"{doing} #{ident}")
            results.append(service.reextract(ident))
        job.report(len(results), len(ids), "Extraction finished")
        return ImportReport(
            files=len(ids), results=tuple(results), cancelled=len(results) < len(ids)
        )

    return work


class _ProgressBridge(QObject):
    """Carries a job's progress from its thread to the GUI thread.

    Signals:
        progressed(int, int, int, str): import number, done, total, message; emitted on
            the job thread and connected with a queued connection, so the slot runs on
            the GUI thread.
    """

    progressed = Signal(int, int, int, str)


# -- the view ---------------------------------------------------------------------------


class SourcesView(View):
    """Imported conversations (left), the selected one to read (right), and importing.

    Navigation arguments of `activate`: a resource id, `(resource_id, turn_start,
    turn_end)` to open a conversation at those turns, or "import" to import a folder.
    """

    key = "sources"
    title = "Sources"
    icon = "sources"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.model = ResourceTableModel(self)
        self.proxy: QSortFilterProxyModel = resource_proxy(self.model, self)
        self._activated = False
        self._target: tuple[int, tuple[int, int] | None] | None = None
        self._reader: ReaderState | None = None
        self._reader_id: int | None = None
        self._reader_request = 0
        self._reload_wanted = False
        self._reload_running = False
        self._resetting = False
        self._columns_fitted = False
        self._import_serial = 0
        self._bridge: _ProgressBridge | None = None
        self._claude_key = False  # a key in the environment or keyring (looked up on reload)
        self.last_report: ImportReport | None = None

        self._build()
        context.events.sources_changed.connect(self._schedule_reload)
        context.events.memories_changed.connect(self._schedule_reload)
        context.events.import_requested.connect(self._import_requested)

    # -- building -------------------------------------------------------------------------

    def _build(self) -> None:
        self.import_files_button = QPushButton("Import Files…", self)
        self.import_files_button.setToolTip(
            "Import Claude Code sessions (.jsonl) or chats saved as text or markdown"
        )
        self.import_files_button.clicked.connect(self.import_files)
        self.import_folder_button = QPushButton("Import Folder…", self)
        self.import_folder_button.setToolTip(
            "Import every conversation in a folder, e.g. ~/.claude/projects"
        )
        self.import_folder_button.clicked.connect(self.import_folder)
        self.extract_button = QPushButton("Extract with Claude", self)
        self.extract_button.setObjectName("extractWithClaude")
        self.extract_button.setToolTip(_EXTRACT_TIP)
        self.extract_button.clicked.connect(self.extract_with_claude)
        self.extract_button.setEnabled(False)
        self.retry_button = QPushButton("Retry Extraction", self)
        self.retry_button.setToolTip(
            "Extract the selected conversation again now: its extraction failed (the API "
            "was down or answered badly), so it was kept without memories"
        )
        self.retry_button.clicked.connect(self.retry_extraction)
        self.retry_button.hide()
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("importProgressText")
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress_label.setMaximumWidth(360)
        self.progress_label.setAlignment(
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        )
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setObjectName("importProgress")
        self.progress_bar.setFixedWidth(180)
        self.progress_bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop the import after the current file")
        self.cancel_button.clicked.connect(self.cancel_import)
        toolbar = QHBoxLayout()
        toolbar.setSpacing(6)
        toolbar.addWidget(self.import_files_button)
        toolbar.addWidget(self.import_folder_button)
        toolbar.addWidget(self.extract_button)
        toolbar.addWidget(self.retry_button)
        toolbar.addStretch(1)
        toolbar.addWidget(self.progress_label, 1)
        toolbar.addWidget(self.progress_bar)
        toolbar.addWidget(self.cancel_button)
        self._set_importing(False)

        self.result_bar = ImportResultBar(self)

        # Left: filter and list.
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("sourceFilter")
        self.filter_edit.setPlaceholderText("Filter by title, project, branch or file")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.filter_edit.textChanged.connect(self._update_count)
        self.table = QTableView(self)
        self.table.setObjectName("sourceList")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(DATE, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.list_count = QLabel(self)
        self.list_count.setObjectName("sourceCount")
        self.list_count.setEnabled(False)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(6)
        left_layout.addWidget(self.filter_edit)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.list_count)

        # Right: the reader, or a hint while nothing is selected.
        self.reader = QTextBrowser(self)
        self.reader.setObjectName("sourceReader")
        self.reader.setOpenLinks(False)
        self.reader.setOpenExternalLinks(False)
        self.reader.anchorClicked.connect(self._link_clicked)
        self.reader.document().setDocumentMargin(12)
        self.reader_hint = QLabel("Select a conversation to read it.", self)
        self.reader_hint.setObjectName("readerHint")
        self.reader_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reader_hint.setWordWrap(True)
        self.reader_hint.setEnabled(False)
        self.reader_hint.setFrameShape(QFrame.Shape.StyledPanel)
        self.reader_pages = QStackedWidget(self)
        self.reader_pages.addWidget(self.reader_hint)
        self.reader_pages.addWidget(self.reader)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("sourcesSplitter")
        self.splitter.addWidget(left)
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
            "sources",
            "No conversations yet",
            "Import Claude Code sessions (the .jsonl files under ~/.claude/projects) or "
            "conversations saved as text or markdown. Each one is kept as it was, with "
            "secrets redacted, and every memory links back to the turns it came from.",
            action="Import Claude Code History…",
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
        layout.addLayout(toolbar)
        layout.addWidget(self.result_bar)
        layout.addWidget(pages_host, 1)

    # -- loading ----------------------------------------------------------------------------

    def activate(self, argument: Any = None) -> None:
        self._activated = True
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
        self._claude_key = await self.context.call(lambda: find_api_key() is not None)
        self.show_resources(records)
        self._update_extract_button()

    def show_resources(self, records: list[ResourceRecord]) -> None:
        """Show these conversations, keeping the selection (or going to a navigation target)."""
        selected = self.selected_resource()
        keep_id = selected.id if selected is not None else self._reader_id
        self._resetting = True
        try:
            self.model.set_records(records)
            self.pages.setCurrentWidget(self.splitter if records else self.empty)
            if records and not self._columns_fitted:
                # Once: later reloads keep the widths a person may have dragged.
                self._fit_columns()
                self._columns_fitted = True
            target, self._target = self._target, None
            if target is not None:
                resource_id, focus = target
                self._open(resource_id, focus)
                if not self._select(resource_id) and self.filter_edit.text():
                    self.filter_edit.clear()  # the filter hid it
                    self._select(resource_id)
            elif keep_id is not None and self.model.row_of(keep_id) >= 0:
                # The same conversation: refresh it (its memories may have changed) and
                # keep the reader where it was.
                self._select(keep_id)
                self._open(keep_id, self.focused_turns, keep=True)
            else:
                self._select(None)
                self._show_hint()
        finally:
            self._resetting = False
        self._show_retry(self.selected_resource())  # its status may have changed
        self._update_count()

    def _fit_columns(self) -> None:
        """Size the columns to their contents, capping project and branch so the title
        keeps the room (it stretches)."""
        header = self.table.horizontalHeader()
        for column in (DATE, PROJECT, BRANCH, TURNS, MEMORIES):
            self.table.resizeColumnToContents(column)
        for column, cap in ((PROJECT, 100), (BRANCH, 80)):
            if header.sectionSize(column) > cap:
                header.resizeSection(column, cap)

    def _update_count(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        text = _plural(total, "conversation")
        if shown != total:
            text = f"{shown:,} of {text}"
        self.list_count.setText(text)

    def _schedule_reload(self) -> None:
        """Coalesce change notifications into one reload at a time."""
        if not self._activated:
            return
        self._reload_wanted = True
        if not self._reload_running:
            self._reload_running = True
            self.context.spawn(self._reload_while_wanted())

    async def _reload_while_wanted(self) -> None:
        try:
            while self._reload_wanted:
                self._reload_wanted = False
                await self.reload()
        finally:
            self._reload_running = False

    # -- selection and the reader -----------------------------------------------------------

    def selected_resource(self) -> ResourceRecord | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        record = rows[0].data(OBJECT_ROLE)
        return record if isinstance(record, ResourceRecord) else None

    def _select(self, resource_id: int | None) -> bool:
        """Select the row of a conversation (None clears); False if it is not shown."""
        selection = self.table.selectionModel()
        if resource_id is None:
            selection.clearSelection()
            return False
        row = self.model.row_of(resource_id)
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        selection.select(
            index,
            selection.SelectionFlag.ClearAndSelect | selection.SelectionFlag.Rows,
        )
        selection.setCurrentIndex(index, selection.SelectionFlag.NoUpdate)
        self.table.scrollTo(index)
        return True

    def _selection_changed(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        if self._resetting:
            return
        record = self.selected_resource()
        self._update_extract_button()
        self._show_retry(record)
        # Nothing selected (the filter hid the row): the reader keeps what it shows.
        if record is not None and record.id != self._reader_id:
            self._open(record.id, None)

    def _show_hint(self) -> None:
        self._reader_id = None
        self._reader = None
        self._reader_request += 1
        self.reader.clear()
        self.reader_pages.setCurrentWidget(self.reader_hint)

    def open_conversation(self, resource_id: int, focus: tuple[int, int] | None = None) -> None:
        """Show a conversation in the reader, optionally at (and highlighting) turns."""
        self._open(resource_id, focus)

    def _open(self, resource_id: int, focus: tuple[int, int] | None, *, keep: bool = False) -> None:
        self._reader_id = resource_id
        self._reader_request += 1
        self.context.spawn(self._load_conversation(self._reader_request, resource_id, focus, keep))

    @staticmethod
    def _fetch_conversation(service: MemoryService, resource_id: int) -> Conversation:
        record, text = service.get_resource(resource_id)
        turns = service.resource_turns(resource_id)
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
        return Conversation(record, text, turns, memories)

    async def _load_conversation(
        self, request: int, resource_id: int, focus: tuple[int, int] | None, keep: bool
    ) -> None:
        try:
            conversation = await self.context.call(
                self._fetch_conversation, self.context.service, resource_id
            )
        except LookupError:  # the store's NotFoundError: deleted meanwhile
            if request == self._reader_request:
                self._show_message(f"Conversation #{resource_id} is no longer in the store.")
            return
        if request != self._reader_request:
            return  # another conversation was asked for meanwhile
        expanded = self._reader.expanded if keep and self._reader is not None else set()
        self._reader = ReaderState(conversation, focus, expanded)
        scroll = self.reader.verticalScrollBar().value() if keep else None
        self._render(scroll=scroll)
        if focus is not None and not keep:
            self.scroll_to_turn(focus[0])

    def _show_message(self, text: str) -> None:
        self._reader = None
        self.reader.setHtml(f"<p>{html.escape(text)}</p>")
        self.reader_pages.setCurrentWidget(self.reader)

    def _render(self, scroll: int | None = None) -> None:
        if self._reader is None:
            return
        colours = ReaderColours.from_palette(self.reader.palette())
        base_pt = self.reader.font().pointSizeF()
        self.reader.setHtml(render_conversation(self._reader, colours, base_pt))
        self.reader_pages.setCurrentWidget(self.reader)
        if scroll is not None:
            self.reader.verticalScrollBar().setValue(scroll)

    def scroll_to_turn(self, position: int) -> None:
        """Scroll the reader so the turn is at the top (now, and again once laid out)."""
        self._scroll_to_anchor(f"turn-{position}")
        QTimer.singleShot(0, self.reader, lambda: self._scroll_to_anchor(f"turn-{position}"))

    def _scroll_to_anchor(self, anchor: str) -> None:
        self.reader.scrollToAnchor(anchor)
        bar = self.reader.verticalScrollBar()
        if bar.value() < bar.maximum():
            # Show the turn's padding and a sliver of the turn before, not a cut edge.
            bar.setValue(max(0, bar.value() - self.fontMetrics().height()))

    @property
    def conversation(self) -> Conversation | None:
        """The conversation the reader shows."""
        return self._reader.conversation if self._reader else None

    @property
    def focused_turns(self) -> tuple[int, int] | None:
        return self._reader.focus if self._reader else None

    def _link_clicked(self, url: QUrl) -> None:
        scheme, target = url.scheme(), url.path()
        if not target.isdigit():
            return
        if scheme == "memory":
            self.context.events.navigate.emit("memories", int(target))
        elif scheme == "retry":
            self.retry_conversation(int(target))
        elif scheme in ("expand", "collapse") and self._reader is not None:
            if scheme == "expand":
                self._reader.expanded.add(int(target))
            else:
                self._reader.expanded.discard(int(target))
            self._render(scroll=self.reader.verticalScrollBar().value())

    # -- importing --------------------------------------------------------------------------

    @property
    def importing(self) -> bool:
        return self._bridge is not None

    def import_files(self) -> None:
        """Ask for files and import them."""
        paths = self.context.dialogs.import_paths(self, self._start_folder(prefer_claude=False))
        if paths:
            self._remember_folder(paths[0].parent)
            self.start_import(paths)

    def import_folder(self) -> None:
        """Ask for a folder (Claude Code's projects folder offered first) and import it."""
        folder = self.context.dialogs.import_folder(self, self._start_folder(prefer_claude=True))
        if folder is not None:
            self._remember_folder(folder)
            self.start_import([folder])

    def _import_requested(self, request: object) -> None:
        """Another view asked to import (see AppEvents.import_requested)."""
        if request == "files":
            self.import_files()
        elif request == "folder":
            self.import_folder()
        elif isinstance(request, list | tuple):
            self.start_import([Path(path) for path in request])

    def _start_folder(self, *, prefer_claude: bool) -> Path | None:
        claude = claude_projects_dir()
        stored = self.context.settings.value(_SETTINGS_FOLDER)
        last = (
            Path(stored) if isinstance(stored, str) and stored and Path(stored).is_dir() else None
        )
        choices = (claude, last) if prefer_claude else (last, claude)
        return next((c for c in choices if c is not None and c.is_dir()), None)

    def _remember_folder(self, folder: Path) -> None:
        self.context.settings.setValue(_SETTINGS_FOLDER, str(folder))

    def start_import(self, paths: Sequence[Path]) -> Any:
        """Import files or folders as a job; returns the task (a new import cancels the
        running one)."""
        return self.context.spawn(self._import(list(paths)))

    def cancel_import(self) -> None:
        self.context.jobs.cancel("import")
        if self.importing:
            self.cancel_button.setEnabled(False)
            self.progress_label.setText("Cancelling after the current file…")

    def extract_with_claude(self) -> Any:
        """Run Claude over the selected conversation as a job (progress, cancel, summary)."""
        resource = self.selected_resource()
        if resource is None:
            return None
        try:
            extractor = claude_extractor(self.context)
        except ExtractorError as exc:
            message = f"Cannot extract with Claude: {exc}"
            self.context.status.fail(message)
            self.result_bar.show_error(message)
            return None
        claude = MemoryService(self.context.service.db, extractor)  # the same store
        work = _reextract_work(claude, [resource.id], "Claude is reading conversation")
        return self.context.spawn(self._import([], work=work, label="Extracting with Claude"))

    def retry_extraction(self) -> Any:
        """Extract the selected pending conversation again now (the Retry button)."""
        resource = self.selected_resource()
        if resource is None or resource.status != "pending":
            return None
        return self.retry_conversation(resource.id)

    def retry_conversation(self, resource_id: int) -> Any:
        """Extract a pending conversation again now with the extractor in use: the same
        job as "Extract with Claude" (it stays pending, with the new reason, on failure)."""
        if self.importing:
            return None
        work = _reextract_work(self.context.service, [resource_id], "Extracting conversation")
        return self.context.spawn(self._import([], work=work, label="Retrying extraction"))

    def claude_available(self) -> bool:
        """Claude can be asked: it is the extractor in use, or a key is set."""
        return getattr(self.context.service.extractor, "name", "") == "claude" or self._claude_key

    def _update_extract_button(self) -> None:
        """Enabled for a selected conversation when Claude can be asked and nothing runs;
        without a key the tooltip says what is missing."""
        ready = self.claude_available()
        chosen = hasattr(self, "table") and self.selected_resource() is not None
        self.extract_button.setEnabled(ready and chosen and not self.importing)
        self.extract_button.setToolTip(_EXTRACT_TIP if ready else _NO_KEY_TIP)

    def _show_retry(self, record: ResourceRecord | None) -> None:
        self.retry_button.setVisible(record is not None and record.status == "pending")
        self.retry_button.setEnabled(not self.importing)

    async def _import(
        self,
        paths: list[Path],
        *,
        work: Callable[[JobState], ImportReport] | None = None,
        label: str = "Importing conversations",
    ) -> None:
        self._import_serial += 1
        serial = self._import_serial
        bridge = _ProgressBridge()
        bridge.progressed.connect(self._progress, Qt.ConnectionType.QueuedConnection)
        self._bridge = bridge
        state = JobState(on_progress=lambda d, t, m: bridge.progressed.emit(serial, d, t, m))
        service = self.context.service
        self.result_bar.hide()
        self._set_importing(True)
        self.progress_bar.setRange(0, 0)
        self.progress_label.setText("Looking for conversations…" if work is None else label + "…")
        self.context.status.begin(label)
        if work is None:

            def work(job: JobState) -> ImportReport:
                return import_in_process(service, paths, job=job)

        try:
            report = await self.context.jobs.run("import", work, state)
        except Exception as exc:  # a failed import must leave the window working
            log.warning("import failed", exc_info=exc)
            if serial == self._import_serial:
                message = f"Import failed: {exc}" if str(exc) else f"Import failed ({exc!r})"
                self.context.status.fail(message)
                self.result_bar.show_error(message)
            return
        finally:
            if serial == self._import_serial:
                self._bridge = None
                self._set_importing(False)
        self.last_report = report
        if serial == self._import_serial:
            self.result_bar.show_report(report)
            self.context.status.finish(
                "Import cancelled" if report.cancelled else summarize_report(report).split(" · ")[0]
            )
        if report.results:
            self.context.events.sources_changed.emit()
            self.context.events.memories_changed.emit()
        if not self._activated:
            self._activated = True
            self._schedule_reload()

    def _progress(self, serial: int, done: int, total: int, message: str) -> None:
        """On the GUI thread: a job reported progress (late reports are dropped)."""
        if serial != self._import_serial or self._bridge is None:
            return
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)
        if self.cancel_button.isEnabled():
            shown = f"{message} ({min(done + 1, total)}/{total})" if total else message
            metrics = self.progress_label.fontMetrics()
            width = max(120, self.progress_label.width())
            self.progress_label.setText(
                metrics.elidedText(shown, Qt.TextElideMode.ElideMiddle, width)
            )
            self.progress_label.setToolTip(shown)
        self.context.status.progress(done, total, message)

    def _set_importing(self, running: bool) -> None:
        for widget in (self.progress_label, self.progress_bar, self.cancel_button):
            widget.setVisible(running)
        self.cancel_button.setEnabled(running)
        self._update_extract_button()
        self.retry_button.setEnabled(not running)
        if not running:
            self.progress_label.clear()
            self.progress_label.setToolTip("")

    # -- events -----------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.result_bar.restyle()
            if self._reader is not None:
                self._render(scroll=self.reader.verticalScrollBar().value())
