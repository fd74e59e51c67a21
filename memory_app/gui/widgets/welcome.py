"""The first-run page of the dashboard: where conversations come from, and who reads them.

Shown while the store is empty. It offers Claude Code's history folder when there is one
(with how many sessions it holds), file and folder imports otherwise, and explains the two
extractors with the one in use marked. Nothing is imported until the person asks: the
Claude Code import is also where they say whether new sessions should keep being imported
automatically (`auto_import.py`; Settings can change it later).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPaintEvent, QPalette, QPen, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from memory_app.assets import APP_ICON_NAME, icon_path
from memory_app.gui.auto_import import set_auto_import, stored_choice
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.widgets.scroll_page import scroll_page
from memory_app.ingest import claude_projects_dir

COLUMN_WIDTH = 560  # a readable line; the column narrows with the window, never widens
ICON_SIZE = 64
SESSION_LIMIT = 20_000  # counting stops here ("20,000+ sessions"): a first look, not a census
IMPORT_JOBS = ("import", "startup-import")  # what the panel's Cancel stops


# -- what is on disk (no Qt) ------------------------------------------------------------------


@dataclass(frozen=True)
class ClaudeHistory:
    """Claude Code's projects folder and how much it holds.

    `sessions` counts `<project>/<session>.jsonl` files; `capped` says counting stopped
    at the limit, so there are at least that many.
    """

    folder: Path
    exists: bool
    sessions: int = 0
    projects: int = 0
    capped: bool = False


def find_claude_history(limit: int = SESSION_LIMIT) -> ClaudeHistory:
    """Count Claude Code's sessions without opening them (blocking: run it off the GUI
    thread). Only the folder and its project folders are listed: sub-agent files further
    down belong to their session and do not count again."""
    folder = claude_projects_dir()
    if not folder.is_dir():
        return ClaudeHistory(folder, exists=False)
    sessions = projects = 0
    try:
        with os.scandir(folder) as entries:
            project_folders = sorted(
                entry.path for entry in entries if _visible(entry.name) and entry.is_dir()
            )
    except OSError:
        return ClaudeHistory(folder, exists=True)
    for project in project_folders:
        found = 0
        try:
            with os.scandir(project) as entries:
                for entry in entries:
                    if _visible(entry.name) and entry.name.endswith(".jsonl") and entry.is_file():
                        found += 1
                        if sessions + found >= limit:
                            break
        except OSError:
            continue
        if found:
            sessions += found
            projects += 1
        if sessions >= limit:
            return ClaudeHistory(folder, True, sessions, projects, capped=True)
    return ClaudeHistory(folder, True, sessions, projects)


def _visible(name: str) -> bool:
    return not name.startswith(".")


def home_relative(path: Path) -> str:
    """`path` with the home folder written as `~` (as people type it)."""
    try:
        inside = path.relative_to(Path.home())
    except ValueError:
        return str(path)
    return "~" if inside == Path() else f"~{os.sep}{inside}"


def describe_history(history: ClaudeHistory) -> str:
    """The line under (or instead of) the "Import Claude Code History" button."""
    return _WORDS.describe_history(history)


class WelcomeWords(QObject):
    """The welcome page's counted phrases outside a widget (a QObject: lupdate collects
    them from `self.tr` only, see gui/times.py)."""

    def describe_history(self, history: ClaudeHistory) -> str:
        where = home_relative(history.folder)
        if not history.exists:
            return self.tr("No Claude Code history found in {folder}.").format(folder=where)
        if history.sessions == 0:
            return self.tr("No Claude Code sessions in {folder} yet.").format(folder=where)
        if history.capped:  # counting stopped: "20,000+ sessions", never "session"
            sessions = self.tr("{count}+ sessions").format(count=f"{history.sessions:,}")
        else:
            sessions = self.tr("%Ln sessions", "", history.sessions)
        projects = self.tr("%Ln projects", "", history.projects)
        return self.tr("{sessions} from {projects} in {folder}").format(
            sessions=sessions, projects=projects, folder=where
        )


_WORDS = WelcomeWords()


# -- the panel ---------------------------------------------------------------------------------


def _caption(name: str, parent: QWidget) -> QLabel:
    """A centred, wrapped line of plain text in the palette's quieter colour."""
    label = QLabel("", parent)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def _centred_row(*widgets: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setSpacing(8)
    row.addStretch(1)
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row


class ExtractorCard(QFrame):
    """One extractor: its name, what it does, and an "In use" mark when it reads imports.

    Painted like the dashboard's stat cards (Base fill, Mid border; Highlight border when in
    use), so it follows light and dark palettes without a stylesheet.
    """

    RADIUS = 6.0

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.active = False
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.title = QLabel(title, self)
        font = QFont(self.title.font())
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.badge = QLabel(self.tr("In use"), self)
        self.badge.setObjectName("extractorInUse")
        self.badge.setForegroundRole(QPalette.ColorRole.Highlight)
        self.badge.setFont(font)
        self.badge.hide()
        self.text = QLabel(text, self)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        for label in (self.title, self.text):
            label.setForegroundRole(QPalette.ColorRole.Text)  # the card is filled with Base

        heading = QHBoxLayout()
        heading.setSpacing(8)
        heading.addWidget(self.title)
        heading.addStretch(1)
        heading.addWidget(self.badge)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(14, 10, 14, 12)
        self.column.setSpacing(6)
        self.column.addLayout(heading)
        self.column.addWidget(self.text, 1)

    def set_active(self, active: bool) -> None:
        self.active = active
        self.badge.setVisible(active)
        self.setAccessibleDescription(self.tr("In use") if active else "")
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = 2.0 if self.active else 1.0
        role = QPalette.ColorRole.Highlight if self.active else QPalette.ColorRole.Mid
        rect = QRectF(self.rect()).adjusted(width / 2, width / 2, -width / 2, -width / 2)
        painter.setPen(QPen(QColor(palette.color(role)), width))
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, self.RADIUS, self.RADIUS)


class WelcomePanel(QWidget):
    """Importing the first conversations, and which extractor will read them.

    The panel asks for imports through `context.events.import_requested` (the Sources
    view owns importing: dialogs, progress, the report) and stays in place meanwhile; it
    follows any running import through `context.status`, opens Settings through
    `context.events.navigate`, and reads the extractor in use from
    `context.service.extractor` each time it is shown.
    """

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.history: ClaudeHistory | None = None
        self._following_import = False
        self._focused = False

        self.scroll_area, page = scroll_page(self, "welcomeScroll")
        page.setObjectName("welcomePage")
        self.column = QWidget(page)
        self.column.setObjectName("welcomeColumn")
        self.column.setMaximumWidth(COLUMN_WIDTH)

        layout = QVBoxLayout(self.column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self._build_header(layout)
        layout.addSpacing(16)
        self._build_imports(layout)
        layout.addSpacing(20)
        self._build_extractors(layout)

        # Centred both ways; narrower windows get a narrower column, short ones a scroll bar.
        across = QHBoxLayout()
        across.addStretch(1)
        across.addWidget(self.column, 1000)  # up to its maximum width, then the margins grow
        across.addStretch(1)
        down = QVBoxLayout(page)
        down.setContentsMargins(24, 24, 24, 24)
        down.addStretch(2)  # a little above the middle, where the eye expects it
        down.addLayout(across)
        down.addStretch(3)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)

        self.show_history(None)
        self.show_extractor()
        context.status.changed.connect(self._status_changed)
        context.events.auto_import_changed.connect(self._auto_import_changed)
        self._status_changed()

    def _build_header(self, layout: QVBoxLayout) -> None:
        picture = QLabel(self.column)
        picture.setPixmap(QIcon(str(icon_path(APP_ICON_NAME))).pixmap(ICON_SIZE, ICON_SIZE))
        picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel(self.tr("Welcome to Memory Curator"), self.column)
        self.title.setObjectName("welcomeTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text = QLabel(
            self.tr(
                "Memory Curator keeps what your AI coding assistant should remember: your"
                " preferences, decisions and conventions, learned from your past conversations."
                " Import some to begin."
            ),
            self.column,
        )
        self.text.setObjectName("welcomeText")
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(picture)
        layout.addSpacing(4)
        layout.addWidget(self.title)
        layout.addSpacing(2)
        layout.addWidget(self.text)

    def _build_imports(self, layout: QVBoxLayout) -> None:
        """Claude Code's history first when there is one, then files or a folder; below,
        a running import (a person's or the startup one) with Cancel, or how it ended."""
        self.history_button = QPushButton(self.tr("&Import Claude Code History"), self.column)
        self.history_button.setObjectName("importHistoryButton")
        self.history_button.clicked.connect(self._import_history)
        self.history_note = _caption("historyNote", self.column)
        # Said with the import above: until then nothing is imported automatically.
        self.keep_importing = QCheckBox(
            self.tr("&Keep importing new sessions automatically"), self.column
        )
        self.keep_importing.setObjectName("keepImporting")
        self.keep_importing.setToolTip(
            self.tr(
                "When Memory Curator starts and while it is open, Claude Code and Codex sessions"
                " that have been quiet for a few minutes are imported. Change it later in Settings."
            )
        )
        self.keep_importing.setChecked(stored_choice(self.context.settings) is not False)
        self.files_button = QPushButton(self.tr("Import Fi&le…"), self.column)
        self.files_button.setObjectName("importFileButton")
        self.files_button.setToolTip(
            self.tr(
                "Claude Code or Codex sessions (.jsonl), ChatGPT or Puffin exports (.json), "
                "text or Markdown files"
            )
        )
        self.files_button.clicked.connect(lambda: self.request_import("files"))
        self.folder_button = QPushButton(self.tr("Import F&older…"), self.column)
        self.folder_button.setObjectName("importFolderButton")
        self.folder_button.setToolTip(
            self.tr("Every conversation in a folder and the folders below it")
        )
        self.folder_button.clicked.connect(lambda: self.request_import("folder"))
        self.import_buttons = (self.history_button, self.files_button, self.folder_button)
        # The two rows of buttons as wide as each other: they line up as one block.
        half = max(b.sizeHint().width() + 16 for b in (self.files_button, self.folder_button))
        block = max(self.history_button.sizeHint().width() + 16, 2 * half + 8)
        half = (block - 8 + 1) // 2
        self.files_button.setMinimumWidth(half)
        self.folder_button.setMinimumWidth(half)
        self.history_button.setMinimumWidth(2 * half + 8)
        self.history_button.setMinimumHeight(self.history_button.sizeHint().height() + 8)
        others = _centred_row(self.files_button, self.folder_button)

        self.progress_row = QWidget(self.column)
        self.progress_row.setObjectName("welcomeProgressRow")
        self.progress_text = _caption("welcomeProgressText", self.progress_row)
        self.progress_text.setForegroundRole(QPalette.ColorRole.WindowText)
        self.progress_bar = QProgressBar(self.progress_row)
        self.progress_bar.setObjectName("welcomeProgress")
        self.progress_bar.setTextVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"), self.progress_row)
        self.cancel_button.setObjectName("welcomeCancel")
        self.cancel_button.setToolTip(self.tr("Stop the import after the current file"))
        self.cancel_button.clicked.connect(self.cancel_import)
        # Bar and Cancel together as wide as the buttons above them.
        self.progress_bar.setFixedWidth(2 * half - self.cancel_button.sizeHint().width())
        progress = QVBoxLayout(self.progress_row)
        progress.setContentsMargins(0, 8, 0, 0)
        progress.setSpacing(6)
        progress.addWidget(self.progress_text)
        progress.addLayout(_centred_row(self.progress_bar, self.cancel_button))
        self.progress_row.hide()
        self.outcome = _caption("welcomeOutcome", self.column)
        self.outcome.setForegroundRole(QPalette.ColorRole.WindowText)
        self.outcome.hide()

        layout.addWidget(self.history_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.history_note)
        layout.addWidget(self.keep_importing, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addSpacing(4)
        layout.addLayout(others)
        layout.addWidget(self.progress_row)
        layout.addWidget(self.outcome)

    def _build_extractors(self, layout: QVBoxLayout) -> None:
        """The two extractors side by side, the one in use marked; Claude's card leads to
        Settings."""
        rule = QWidget(self.column)  # a hairline in the cards' border colour, in any palette
        rule.setFixedHeight(1)
        rule.setAutoFillBackground(True)
        rule.setBackgroundRole(QPalette.ColorRole.Mid)
        heading = QLabel(self.tr("How conversations become memories"), self.column)
        heading.setObjectName("extractorsHeading")
        bold = QFont(heading.font())
        bold.setWeight(QFont.Weight.DemiBold)
        heading.setFont(bold)
        self.offline_card = ExtractorCard(
            self.tr("Offline extractor"),
            self.tr(
                "The default. Built-in rules read your conversations: no API key is needed,"
                " nothing leaves your computer, and it is fast."
            ),
            self.column,
        )
        self.offline_card.setObjectName("offlineExtractorCard")
        self.claude_card = ExtractorCard(
            self.tr("Claude"),
            self.tr(
                "Better extraction when an Anthropic API key is set in Settings. Only the"
                " conversation text is sent; it costs tokens, which the dashboard shows."
            ),
            self.column,
        )
        self.claude_card.setObjectName("claudeExtractorCard")
        self.setup_button = QPushButton(self.tr("&Set Up Claude…"), self.claude_card)
        self.setup_button.setObjectName("setUpClaudeButton")
        self.setup_button.setToolTip(self.tr("Open Settings: extractor, API key and model"))
        self.setup_button.clicked.connect(self.open_settings)
        self.claude_card.column.addWidget(self.setup_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.active_note = _caption("activeExtractor", self.column)
        self.active_note.setAlignment(Qt.AlignmentFlag.AlignLeft)
        cards = QGridLayout()
        cards.setContentsMargins(0, 0, 0, 0)
        cards.setHorizontalSpacing(12)
        cards.addWidget(self.offline_card, 0, 0)
        cards.addWidget(self.claude_card, 0, 1)
        cards.setColumnStretch(0, 1)
        cards.setColumnStretch(1, 1)

        layout.addWidget(rule)
        layout.addSpacing(8)
        layout.addWidget(heading)
        layout.addLayout(cards)
        layout.addWidget(self.active_note)

    # -- content ----------------------------------------------------------------------

    async def load(self) -> None:
        """Look for Claude Code's history (off the GUI thread) and show what was found."""
        self.show_history(await self.context.call(find_claude_history))
        self.show_extractor()

    def show_history(self, history: ClaudeHistory | None) -> None:
        """Offer Claude Code's history when it holds sessions; otherwise say why not."""
        self.history = history
        offered = history is not None and history.sessions > 0
        self.history_button.setVisible(offered)
        self.keep_importing.setVisible(offered)
        self.history_note.setText(describe_history(history) if history is not None else "")
        self.history_note.setVisible(history is not None)
        if offered:
            assert history is not None
            self.history_button.setToolTip(
                self.tr("Import every session in {folder}").format(folder=history.folder)
            )
        # Under the button a caption; without the button the sentence says why.
        self.history_note.setForegroundRole(
            QPalette.ColorRole.PlaceholderText if offered else QPalette.ColorRole.WindowText
        )
        # The first offered button is the default one, and where the keyboard starts.
        primary = self.primary_button()
        for button in self.import_buttons:
            button.setDefault(button is primary)
            button.setAutoDefault(button is primary)
        if self.window().focusWidget() in self.import_buttons and primary.isVisible():
            # The focused button may have just been hidden; the keyboard stays on the page.
            primary.setFocus(Qt.FocusReason.OtherFocusReason)

    def primary_button(self) -> QPushButton:
        """The default button: the Claude Code import when offered, else Import File…."""
        return self.history_button if self.history_button.isVisibleTo(self) else self.files_button

    def show_extractor(self) -> None:
        """Mark the extractor that reads new imports (Settings may have changed it)."""
        name = getattr(self.context.service.extractor, "name", "")
        self.offline_card.set_active(name == "offline")
        self.claude_card.set_active(name in ("claude", "claude-cli"))
        self.active_note.setText(self.reader_sentence(name))

    def reader_sentence(self, name: str) -> str:
        """Who reads new conversations, as Settings says it."""
        if name == "offline":
            return self.tr("New conversations are read by the offline extractor.")
        if name == "claude":
            return self.tr("New conversations are read by Claude.")
        if name == "claude-cli":
            return self.tr("New conversations are read by Claude, through the Claude Code CLI.")
        if not name:
            return self.tr("New conversations are read by an unknown extractor.")
        return self.tr("New conversations are read by {extractor}.").format(extractor=name)

    # -- actions ----------------------------------------------------------------------

    def request_import(self, request: object) -> None:
        """Ask the Sources view to import (see AppEvents.import_requested)."""
        self.context.events.import_requested.emit(request)

    def _import_history(self) -> None:
        """Import the whole history, and say whether new sessions keep coming in (the
        scheduler need not look now: this import takes them all)."""
        if self.history is not None and self.history.sessions:
            set_auto_import(self.context, self.keep_importing.isChecked(), import_now=False)
            self.request_import([self.history.folder])

    def open_settings(self) -> None:
        self.context.events.navigate.emit("settings", None)

    def _auto_import_changed(self, on: bool, _import_now: bool) -> None:
        self.keep_importing.setChecked(on)  # answered here, or in Settings meanwhile

    def cancel_import(self) -> None:
        for kind in IMPORT_JOBS:
            self.context.jobs.cancel(kind)
        self.cancel_button.setEnabled(False)
        self.progress_text.setText(self.tr("Cancelling after the current file…"))

    # -- a running import -------------------------------------------------------------

    def _status_changed(self) -> None:
        status = self.context.status
        importing = status.state == status.PROCESSING and not status.maintenance
        for button in self.import_buttons:
            button.setEnabled(not importing)
        self.keep_importing.setEnabled(not importing)
        if importing:
            if not self._following_import:
                self._following_import = True
                self.cancel_button.setEnabled(True)
                self.outcome.hide()
            self.progress_row.show()
            if self.cancel_button.isEnabled():
                done, total = status.done, status.total
                message = status.message or self.tr("Importing")
                if total:  # as the Sources view counts: the file being read, of all
                    message += f" ({min(done + 1, total)}/{total})"
                elif not message.endswith("…"):
                    message += "…"
                self.progress_text.setText(message)
            self.progress_bar.setRange(0, max(status.total, 0))
            self.progress_bar.setValue(status.done)
            return
        self.progress_row.hide()
        if self._following_import:
            # Still on this page afterwards: nothing was imported, or it failed. Say so.
            self._following_import = False
            message = status.message or ""
            self.outcome.setText(message)
            self.outcome.setStyleSheet(
                "" if status.state == status.READY else text_style(ERROR, self.palette())
            )
            self.outcome.setVisible(bool(message))

    # -- Qt ---------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.show_extractor()
        if not self._focused:
            # The first time only: where a new user's keyboard should start. Later visits
            # leave the focus where the person put it (the sidebar, say).
            self._focused = True
            self.primary_button().setFocus(Qt.FocusReason.OtherFocusReason)
