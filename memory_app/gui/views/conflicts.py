"""Conflicts: an inbox of contradicting memories and a side-by-side panel to resolve them
(seed 000 §7.3, UX.md "Conflicts"). Nothing is overwritten without the person."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import ConflictDetail, ConflictRecord, MemoryRecord
from memory_app.domain.textdiff import word_differences
from memory_app.domain.validation import ValidationError
from memory_app.gui.colours import ERROR, muted_style, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.times import relative_time
from memory_app.gui.views.base import View
from memory_app.gui.widgets.empty_state import EmptyState

OPEN = ("unresolved", "pending_user_review")
AUTO_RESOLVED = ("auto_resolved",)
# (statuses asked for, resolved only), in the order of the filter's choices
# (`ConflictsView.filter_names`): "Auto-resolved" lists the updates applied without asking
# (a newer rule said it replaces an older one), so a person can reverse one.
FILTERS = (
    (OPEN, False),
    (AUTO_RESOLVED, False),
    ((), True),
    ((), False),
)


def highlighted(runs: list[tuple[str, bool]], colour: str) -> str:
    """HTML of a statement with its differing words marked."""
    out = []
    for piece, differs in runs:
        text = html.escape(piece)
        out.append(
            f'<span style="background:{colour}; font-weight:600">{text}</span>' if differs else text
        )
    return "".join(out)


class ConflictCard(QFrame):
    """One side of a conflict: the statement, its numbers, and where it came from.
    `side` names it ("older" or "newer"), `title` is what its heading says."""

    def __init__(self, side: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{side}Card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.side = QLabel(f"<b>{html.escape(title)}</b>", self)
        self.content = QLabel(self)
        self.content.setWordWrap(True)
        self.content.setTextFormat(Qt.TextFormat.RichText)
        self.content.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meta = QLabel(self)
        self.meta.setWordWrap(True)
        self.excerpt = QLabel(self)
        self.excerpt.setWordWrap(True)
        self.excerpt.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setSpacing(6)
        for widget in (self.side, self.content, self.meta, self.excerpt):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.meta.setStyleSheet(muted_style(self.palette()))

    def show_item(
        self, item: MemoryRecord, runs: list[tuple[str, bool]], excerpt: str, mark: str
    ) -> None:
        statement = f'<span style="font-size:large">{highlighted(runs, mark)}</span>'  # markup
        self.content.setText(statement)
        if item.access_count:
            used = self.tr("used %Ln×", "", item.access_count)
        else:
            used = self.tr("not used yet")
        if item.last_accessed_at:
            used = self.tr("{uses} · last {when}").format(
                uses=used, when=relative_time(item.last_accessed_at)
            )
        self.meta.setText(
            self.tr(
                "#{number} · {category} · confidence {confidence} · {when}\n{uses} · {status}"
            ).format(
                number=item.id,
                category=item.category.replace("_", " ").capitalize(),
                confidence=f"{item.confidence:.2f}",
                when=relative_time(item.valid_from or item.extracted_at),
                uses=used,
                status=item.status,  # the store's word
            )
        )
        if item.source_resource_id is None:
            self.excerpt.setText("<i>{}</i>".format(html.escape(self.tr("Written by hand."))))
            return
        start = item.turn_start if item.turn_start is not None else -1
        end = item.turn_end if item.turn_end is not None else start
        quote = self.tr("“…{excerpt}…”").format(excerpt=html.escape(excerpt)) if excerpt else ""
        link = self.tr("Open conversation #{number} ↗").format(number=item.source_resource_id)
        anchor = f'<a href="source:{item.source_resource_id}:{start}:{end}">{html.escape(link)}</a>'
        self.excerpt.setText(f"<i>{quote}</i> {anchor}" if quote else anchor)


class ConflictsView(View):
    key = "conflicts"
    icon = "conflicts"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Conflicts")
        self.detail: ConflictDetail | None = None
        self.records: list[ConflictRecord] = []

        self.filter = QComboBox(self)
        for text in self.filter_names():
            self.filter.addItem(text)
        self.filter.currentIndexChanged.connect(lambda *_: self.context.spawn(self.reload()))
        self.inbox = QListWidget(self)
        self.inbox.setObjectName("conflictInbox")
        self.inbox.setSpacing(3)
        self.inbox.setWordWrap(True)
        self.inbox.currentItemChanged.connect(lambda *_: self._selected())
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 8, 4, 8)
        left_layout.addWidget(self.filter)
        left_layout.addWidget(self.inbox, 1)

        right = QWidget(self)
        column = QVBoxLayout(right)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(10)
        self.header = QLabel(right)
        self.header.setWordWrap(True)
        self.older = ConflictCard("older", self.tr("Older"), right)
        self.newer = ConflictCard("newer", self.tr("Newer"), right)
        for card in (self.older, self.newer):
            card.excerpt.linkActivated.connect(self._open_source)
        cards = QHBoxLayout()
        cards.setSpacing(10)
        cards.addWidget(self.older, 1)
        cards.addWidget(self.newer, 1)
        self.more = QLabel(right)
        self.note = QLineEdit(right)
        self.note.setObjectName("resolutionNote")
        self.note.setPlaceholderText(
            self.tr("Note: why, or when each applies (kept with the resolution)")
        )
        self.buttons: dict[str, QPushButton] = {}
        actions = QHBoxLayout()
        actions.setSpacing(6)
        for decision, text, key, tip in self.decisions():
            button = QPushButton(text, right)
            button.setToolTip(tip.format(key=key))
            button.clicked.connect(lambda _c=False, d=decision: self.resolve(d))
            self.buttons[decision] = button
            actions.addWidget(button)
            shortcut = QShortcut(QKeySequence(key), self.inbox)
            shortcut.setWhatsThis(
                self.tr("{action} (in the inbox)").format(action=text.replace("&", ""))
            )
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(lambda d=decision: self.resolve(d))
        self.merge_button = QPushButton(self.tr("&Merge…"), right)
        self.merge_button.setToolTip(self.tr("Write one statement that replaces both (Alt+M)"))
        self.merge_button.clicked.connect(self.start_merge)
        self.skip_button = QPushButton(self.tr("&Skip ›"), right)
        self.skip_button.setToolTip(self.tr("Leave this one open and show the next (Alt+S)"))
        self.skip_button.clicked.connect(self.next_conflict)
        self.reopen_button = QPushButton(self.tr("&Reopen"), right)
        self.reopen_button.setToolTip(
            self.tr(
                "Undo this resolution: both memories are active again and the conflict is "
                "open (Alt+R)"
            )
        )
        self.reopen_button.clicked.connect(self.reopen)
        actions.addWidget(self.merge_button)
        actions.addWidget(self.reopen_button)
        actions.addStretch(1)
        actions.addWidget(self.skip_button)
        self.merge_editor = QPlainTextEdit(right)
        self.merge_editor.setObjectName("mergedStatement")
        self.merge_editor.setPlaceholderText(self.tr("The one statement to keep instead of both"))
        self.merge_editor.setMaximumHeight(90)
        self.merge_save = QPushButton(self.tr("Save Merged Statement"), right)
        self.merge_save.clicked.connect(lambda: self.resolve("merge"))
        self.merge_cancel = QPushButton(self.tr("Cancel"), right)
        self.merge_cancel.clicked.connect(lambda: self._show_merge(False))
        merge_row = QHBoxLayout()
        merge_row.addWidget(self.merge_editor, 1)
        merge_buttons = QVBoxLayout()
        merge_buttons.addWidget(self.merge_save)
        merge_buttons.addWidget(self.merge_cancel)
        merge_buttons.addStretch(1)
        merge_row.addLayout(merge_buttons)
        self.error = QLabel(right)
        self.error.setStyleSheet(text_style(ERROR, self.palette()))
        self.error.setWordWrap(True)
        self.error.hide()
        column.addWidget(self.header)
        column.addLayout(cards)
        column.addWidget(self.more)
        column.addWidget(self.note)
        column.addLayout(actions)
        column.addLayout(merge_row)
        column.addWidget(self.error)
        column.addStretch(1)
        self._merge_widgets = (self.merge_editor, self.merge_save, self.merge_cancel)
        self._show_merge(False)

        splitter = QSplitter(self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 900])
        splitter.setCollapsible(1, False)
        self.main = splitter
        self.empty = EmptyState(
            icon="conflicts",
            title=self.tr("No contradictions"),
            text=self.tr(
                "When two memories disagree (say, “use tabs” and later “we switched to "
                "spaces”), they appear here side by side for you to decide. Nothing is "
                "overwritten without you."
            ),
            parent=self,
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.main)
        context.events.memories_changed.connect(self._store_changed)

    def filter_names(self) -> tuple[str, ...]:
        """The filter's choices, in the order of FILTERS."""
        return (self.tr("Open"), self.tr("Auto-resolved"), self.tr("Resolved"), self.tr("All"))

    def decisions(self) -> tuple[tuple[str, str, str, str], ...]:
        """(decision, button text with its Alt mnemonic, plain key on the inbox, what it
        does: a tooltip with the `{key}` to place)"""
        return (
            (
                "keep_older",
                self.tr("Keep &older"),
                "O",
                self.tr(
                    "The newer memory is superseded by the older one (Alt+{key}, or {key} in "
                    "the inbox)"
                ),
            ),
            (
                "keep_newer",
                self.tr("Keep &newer"),
                "N",
                self.tr(
                    "The older memory is superseded by the newer one (Alt+{key}, or {key} in "
                    "the inbox)"
                ),
            ),
            (
                "keep_both",
                self.tr("Keep &both"),
                "B",
                self.tr(
                    "Both stay; the note says when each applies (Alt+{key}, or {key} in the inbox)"
                ),
            ),
            (
                "mark_outdated",
                self.tr("Older out&dated"),
                "D",
                self.tr(
                    "The older memory stops being valid now (Alt+{key}, or {key} in the inbox)"
                ),
            ),
            (
                "higher_confidence",
                self.tr("&Higher confidence"),
                "H",
                self.tr("Keep whichever is more confident (Alt+{key}, or {key} in the inbox)"),
            ),
        )

    def status_words(self, status: str) -> str:
        """A conflict's status as the inbox and the notices say it."""
        words = {
            "unresolved": self.tr("open"),
            "pending_user_review": self.tr("open"),
            "accepted_newer": self.tr("kept newer"),
            "accepted_older": self.tr("kept older"),
            "accepted_higher_confidence": self.tr("kept higher confidence"),
            "kept_both_with_context": self.tr("kept both"),
            "marked_outdated": self.tr("older marked outdated"),
            "auto_resolved": self.tr("resolved automatically"),
            "merged": self.tr("merged"),
        }
        return words.get(status, status)

    # -- loading ----------------------------------------------------------------------

    def statuses(self) -> tuple[str, ...]:
        return FILTERS[self.filter.currentIndex()][0]

    async def reload(self) -> None:
        records = await self.context.call(self.context.service.conflicts, self.statuses())
        if FILTERS[self.filter.currentIndex()][1]:  # resolved: everything not open
            records = [r for r in records if r.status not in OPEN]
        self.show_conflicts(records)

    def show_conflicts(self, records: list[ConflictRecord]) -> None:
        current = self.current_id()
        self.records = records
        self.inbox.blockSignals(True)
        self.inbox.clear()
        for record in records:
            title = record.reason or self.tr("Conflict #{number}").format(number=record.id)
            state = self.status_words(record.status)
            item = QListWidgetItem(
                f"{title}\n{record.category.replace('_', ' ')} · {relative_time(record.created_at)}"
                + ("" if record.status in OPEN else f" · {state}")
            )
            item.setData(Qt.ItemDataRole.UserRole, record.id)
            self.inbox.addItem(item)
        self.inbox.blockSignals(False)
        anything = bool(records) or self.filter.currentIndex() != 0
        self.pages.setCurrentWidget(self.main if anything else self.empty)
        ids = [r.id for r in records]
        if ids:
            self.inbox.setCurrentRow(ids.index(current) if current in ids else 0)
        else:
            self._clear_detail()

    def current_id(self) -> int | None:
        item = self.inbox.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _selected(self) -> None:
        ident = self.current_id()
        if ident is not None:
            self.context.spawn(self._load(ident))

    async def _load(self, ident: int) -> None:
        detail = await self.context.call(self.context.service.conflict_detail, ident)
        if self.current_id() == ident:
            self.show_detail(detail)

    def show_detail(self, detail: ConflictDetail) -> None:
        self.detail = detail
        record, items = detail.record, detail.items
        state = self.status_words(record.status)
        title = self.tr("Conflict in {category}").format(category=record.category.replace("_", " "))
        detected = self.tr("detected {when}").format(when=relative_time(record.created_at))
        reason = f" · {html.escape(record.reason)}" if record.reason else ""
        note = self.tr("Note: {note}").format(note=record.notes) if record.notes else ""
        heading = (
            f"<b>{html.escape(title)}</b> · {html.escape(detected)}{reason} · "
            f"<i>{html.escape(state)}</i>" + (f"<br>{html.escape(note)}" if note else "")
        )
        self.header.setText(heading)
        older, newer = items[0], items[-1]
        runs_old, runs_new = word_differences(older.content, newer.content)
        mark = self._mark_colour()
        self.older.show_item(older, runs_old, detail.excerpts.get(older.id, ""), mark)
        self.newer.show_item(newer, runs_new, detail.excerpts.get(newer.id, ""), mark)
        extra = len(items) - 2
        self.more.setText(
            self.tr("…and %Ln more memories in this conflict.", "", extra) if extra > 0 else ""
        )
        self.more.setVisible(extra > 0)
        is_open = record.status in OPEN
        for button in (*self.buttons.values(), self.merge_button, self.skip_button):
            button.setEnabled(is_open)
            button.setVisible(is_open)
        self.reopen_button.setVisible(not is_open)
        self.note.setEnabled(is_open)
        self.error.hide()
        self._show_merge(False)
        self.merge_editor.setPlainText(newer.content)

    def _clear_detail(self) -> None:
        self.detail = None
        self.header.setText("<i>{}</i>".format(html.escape(self.tr("Select a conflict."))))
        for card in (self.older, self.newer):
            card.content.clear()
            card.meta.clear()
            card.excerpt.clear()
        for button in (*self.buttons.values(), self.merge_button, self.skip_button):
            button.setEnabled(False)
        self.reopen_button.setVisible(False)

    def _mark_colour(self) -> str:
        colour = self.palette().color(QPalette.ColorRole.Highlight)
        colour.setAlpha(70)
        return f"rgba({colour.red()},{colour.green()},{colour.blue()},0.28)"

    # -- resolving --------------------------------------------------------------------

    def start_merge(self) -> None:
        self._show_merge(True)
        self.merge_editor.setFocus()

    def _show_merge(self, shown: bool) -> None:
        for widget in self._merge_widgets:
            widget.setVisible(shown)

    def resolve(self, decision: str) -> Any:
        if self.detail is None or self.detail.record.status not in OPEN:
            return None
        merged = self.merge_editor.toPlainText().strip() if decision == "merge" else None
        return self.context.spawn(self._resolve(self.detail.record.id, decision, merged))

    async def _resolve(self, ident: int, decision: str, merged: str | None) -> None:
        service = self.context.service
        try:
            record = await self.context.call(
                service.resolve_conflict,
                ident,
                decision,
                note=self.note.text().strip(),
                merged_content=merged,
            )
        except ValidationError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.note.clear()
        outcome = self.status_words(record.status)
        self.context.events.notify.emit(
            self.tr("Conflict #{number}: {outcome}.").format(number=ident, outcome=outcome),
            self._undo,
        )
        self.context.events.memories_changed.emit()
        await self.reload()

    def reopen(self) -> Any:
        if self.detail is None or self.detail.record.status in OPEN:
            return None
        return self.context.spawn(self._reopen(self.detail.record.id))

    async def _reopen(self, ident: int) -> None:
        try:
            await self.context.call(self.context.service.reopen_conflict, ident)
        except ValidationError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.context.events.notify.emit(
            self.tr("Conflict #{number} is open again.").format(number=ident), None
        )
        self.context.events.memories_changed.emit()
        await self.reload()

    def next_conflict(self) -> None:
        row = self.inbox.currentRow()
        if self.inbox.count() > 1:
            self.inbox.setCurrentRow((row + 1) % self.inbox.count())

    def _undo(self) -> None:
        self.context.spawn(self._undo_async())

    async def _undo_async(self) -> None:
        ids = await self.context.call(self.context.service.undo)
        self.context.events.notify.emit(
            self.tr("Undid the resolution.") if ids else self.tr("Nothing to undo."), None
        )
        self.context.events.memories_changed.emit()

    def _open_source(self, href: str) -> None:
        _, resource, start, end = href.split(":")
        first, last = int(start), int(end)
        where = (int(resource), first if first >= 0 else None, last if last >= 0 else None)
        self.context.events.navigate.emit("sources", where)

    def _store_changed(self) -> None:
        if self.isVisible():
            self.context.spawn(self.reload())
