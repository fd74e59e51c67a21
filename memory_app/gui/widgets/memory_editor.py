"""The memory editor pane: fields, inline validation errors, archive, source, history
and links."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QDateTime, QObject, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QWidget

from memory_app.domain.categories import MEMORY_TYPES
from memory_app.domain.records import SCOPES, AuditRecord, CategoryInfo, MemoryRecord
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.forms.ui_memory_editor import Ui_MemoryEditorForm
from memory_app.gui.widgets.memory_links import LinksSection

# The statuses the Archive button has a use for (archive or unarchive; hidden for others).
ARCHIVABLE = ("active", "archived")
_FIELD_ERRORS = {
    "content": "contentError",
    "category": "categoryError",
    "confidence": "confidenceError",
    "type": "typeError",
    "importance": "importanceError",
    "scope": "scopeError",
    "tags": "tagsError",
    "valid_from": "validityError",
    "valid_until": "validityError",
}


def describe_event(event: AuditRecord) -> str:
    """One history line: when, who, what (and which fields a change touched)."""
    when = event.at.astimezone().strftime("%Y-%m-%d %H:%M")
    what = event.action
    if event.before and event.after:
        changed = [
            k
            for k in event.after
            if event.before.get(k) != event.after.get(k) and k not in ("last_seen_at", "updated_at")
        ]
        if changed:
            what += f": {', '.join(c.replace('_', ' ') for c in changed)}"
    return f"{when} · {event.actor} · {what}"


class UsageWords(QObject):
    """A memory's usage feedback in words. A QObject because lupdate collects a counted
    phrase only from `self.tr(text, "", n)`, never the count of `translate(...)`."""

    def text(self, injected: int, cited: int, ignored: int) -> str:
        if injected <= 0:
            return self.tr("Never given to the assistant")
        # A plural form (English says "Injected once" for one), its numbers with separators.
        text = self.tr(
            "Injected {count} times, cited {cited}, ignored {ignored}", "", injected
        ).format(count=f"{injected:,}", cited=f"{cited:,}", ignored=f"{ignored:,}")
        waiting = injected - cited - ignored
        if waiting > 0:
            text = self.tr("{usage} · {count} not judged yet", "", waiting).format(
                usage=text, count=f"{waiting:,}"
            )
        return text


_USAGE = UsageWords()


def usage_text(injected: int, cited: int, ignored: int) -> str:
    """A memory's usage feedback in words, as the memory editor shows it."""
    return _USAGE.text(injected, cited, ignored)


def _to_qt(value: datetime | None) -> QDateTime:
    if value is None:
        return QDateTime.currentDateTime()
    return QDateTime.fromSecsSinceEpoch(int(value.timestamp()))


def _from_qt(value: QDateTime) -> datetime:
    return datetime.fromtimestamp(value.toSecsSinceEpoch(), tz=UTC)


class MemoryEditor(QWidget):
    """Edits one memory; the view saves it off the GUI thread.

    Signals:
        save_requested(int, dict): the person asked to save these changes to this item.
        archive_requested(int, bool): archive (True) or unarchive (False) this item.
        source_requested(object): (resource_id, turn_start, turn_end) to open in Sources.
    """

    save_requested = Signal(int, dict)
    archive_requested = Signal(int, bool)
    source_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = Ui_MemoryEditorForm()
        self.ui.setupUi(self)
        self.record: MemoryRecord | None = None
        for label in set(_FIELD_ERRORS.values()):
            error: QLabel = getattr(self.ui, label)
            error.setStyleSheet(text_style(ERROR, self.palette()))
            error.hide()
        type_names = {"code_pattern": self.tr("Code pattern"), "workflow": self.tr("Workflow")}
        for memory_type in MEMORY_TYPES:
            self.ui.type.addItem(type_names.get(memory_type, memory_type.capitalize()), memory_type)
        scope_names = {
            "session": self.tr("This session"),
            "project": self.tr("This project"),
            "global": self.tr("Everywhere"),
        }
        for scope in SCOPES:
            self.ui.scope.addItem(scope_names.get(scope, scope), scope)
        # Links under Source and History (memory_app/links); the view fills them.
        self.links = LinksSection(self)
        self.ui.outerLayout.addWidget(self.links)
        self.ui.save.clicked.connect(self.request_save)
        self.ui.archive.clicked.connect(self.request_archive)
        self.ui.revert.clicked.connect(self.revert)
        self.ui.source.linkActivated.connect(self._open_source)
        self.ui.hasValidFrom.toggled.connect(self.ui.validFrom.setEnabled)
        self.ui.hasValidUntil.toggled.connect(self.ui.validUntil.setEnabled)
        self.ui.hasValidFrom.setToolTip(self.tr("Set a start of validity"))
        self.ui.hasValidUntil.setToolTip(self.tr("Set an end of validity"))
        # Read-only facts in the muted text colour; a role, not a colour name, because
        # the placeholder colour is translucent (its name() would be plain black).
        for fact in (self.ui.source, self.ui.usage):
            fact.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.show_nothing()

    def set_categories(self, categories: Sequence[CategoryInfo]) -> None:
        current = self.ui.category.currentData()
        self.ui.category.clear()
        for category in categories:
            self.ui.category.addItem(category.name, category.key)
        if current is not None:
            self.ui.category.setCurrentIndex(max(0, self.ui.category.findData(current)))

    # -- showing ----------------------------------------------------------------------

    def show_nothing(self, text: str | None = None) -> None:
        """No memory to edit; `text` says why (by default: select one)."""
        self.record = None
        shown = text if text is not None else self.tr("Select a memory to edit it.")
        self.ui.heading.setText(f"<i>{html.escape(shown)}</i>")
        self._set_enabled(False)
        self.ui.content.setPlainText("")
        self.ui.tags.clear()
        self.ui.source.setText("—")
        self.ui.usage.setText("")
        self.ui.history.clear()
        self.links.show_links(None, ())
        self.ui.archive.hide()
        self.clear_errors()

    def show_record(self, record: MemoryRecord, history: Sequence[AuditRecord] = ()) -> None:
        self.record = record
        title = self.tr("Memory #{number}").format(number=record.id)
        status = "" if record.status == "active" else f" ({record.status})"  # the store's word
        self.ui.heading.setText(f"<b>{html.escape(title)}</b>{status}")
        self._set_enabled(True)
        self.ui.content.setPlainText(record.content)
        self.ui.category.setCurrentIndex(max(0, self.ui.category.findData(record.category)))
        self.ui.confidence.setValue(record.confidence)
        self._choose(self.ui.type, record.type)
        self.ui.importance.setValue(record.importance)
        self._choose(self.ui.scope, record.scope)
        self.ui.tags.setText(", ".join(record.tags))
        self.ui.pinned.setChecked(record.pinned)
        for box, edit, value in (
            (self.ui.hasValidFrom, self.ui.validFrom, record.valid_from),
            (self.ui.hasValidUntil, self.ui.validUntil, record.valid_until),
        ):
            box.setChecked(value is not None)
            edit.setEnabled(value is not None)
            edit.setDateTime(_to_qt(value))
        self.ui.source.setText(self._source_text(record))
        self.ui.usage.setText(
            usage_text(record.injected_count, record.cited_count, record.ignored_count)
        )
        self.show_history(history)
        archived = record.status == "archived"
        self.ui.archive.setVisible(record.status in ARCHIVABLE)
        self.ui.archive.setText(self.tr("Un&archive") if archived else self.tr("&Archive"))
        self.ui.archive.setToolTip(
            self.tr("Bring this memory back into use (undo with Ctrl+Z)")
            if archived
            else self.tr(
                "Put this memory away: kept, but out of search, context and the counts "
                "(undo with Ctrl+Z)"
            )
        )
        self.clear_errors()

    def refresh(self, record: MemoryRecord, history: Sequence[AuditRecord]) -> None:
        """Show the memory as the store has it now; while the person has unsaved edits
        to it, only its history changes, so typing is never lost."""
        if self.record is not None and self.record.id == record.id and self.changes():
            self.show_history(history)
            return
        self.show_record(record, history)

    def show_history(self, history: Sequence[AuditRecord]) -> None:
        self.ui.history.clear()
        self.ui.history.addItems([describe_event(e) for e in history])
        self.ui.history.scrollToBottom()

    def history_lines(self) -> list[str]:
        return [self.ui.history.item(i).text() for i in range(self.ui.history.count())]

    @staticmethod
    def _choose(combo: Any, value: str) -> None:
        """Select `value` in a combo box, adding it when it is not one of the choices
        (a type an older version stored), so showing a memory never changes it."""
        index = combo.findData(value)
        if index < 0:
            combo.addItem(value, value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    def _source_text(self, record: MemoryRecord) -> str:
        if record.source_resource_id is None:
            return self.tr("Written by hand.")
        start = record.turn_start if record.turn_start is not None else -1
        end = record.turn_end if record.turn_end is not None else start
        # Where in the conversation, most general first: "conversation #3, turn 2, line 5".
        where = [self.tr("conversation #{number}").format(number=record.source_resource_id)]
        if start >= 0 and start == end:
            where.append(self.tr("turn {turn}").format(turn=start))
        elif start >= 0:
            where.append(self.tr("turns {first}–{last}").format(first=start, last=end))
        if record.line_start is not None:
            where.append(self.tr("line {line}").format(line=record.line_start))
        href = f"source:{record.source_resource_id}:{start}:{end}"
        link = self.tr("Open {place}").format(place=", ".join(where))
        parts = [f'<a href="{href}">{html.escape(link)}</a>']
        if record.extractor:
            parts.append(
                html.escape(
                    self.tr("learnt by the {extractor} extractor").format(
                        extractor=record.extractor
                    )
                )
            )
        if record.reinforcement_count:
            parts.append(html.escape(self.tr("seen %Ln×", "", record.reinforcement_count + 1)))
        return " · ".join(parts)

    def _set_enabled(self, enabled: bool) -> None:
        for widget in (
            self.ui.content,
            self.ui.category,
            self.ui.confidence,
            self.ui.type,
            self.ui.importance,
            self.ui.scope,
            self.ui.tags,
            self.ui.pinned,
            self.ui.hasValidFrom,
            self.ui.hasValidUntil,
            self.ui.save,
            self.ui.revert,
            self.ui.archive,
        ):
            widget.setEnabled(enabled)
        if not enabled:
            self.ui.validFrom.setEnabled(False)
            self.ui.validUntil.setEnabled(False)

    # -- editing ----------------------------------------------------------------------

    def changes(self) -> dict[str, Any]:
        """The fields that differ from the shown record, as the service names them."""
        record = self.record
        if record is None:
            return {}
        tags = [t.strip().lower() for t in self.ui.tags.text().split(",") if t.strip()]
        valid_from = (
            _from_qt(self.ui.validFrom.dateTime()) if self.ui.hasValidFrom.isChecked() else None
        )
        valid_until = (
            _from_qt(self.ui.validUntil.dateTime()) if self.ui.hasValidUntil.isChecked() else None
        )
        values: dict[str, Any] = {
            "content": self.ui.content.toPlainText().strip(),
            "category": self.ui.category.currentData(),
            "confidence": round(self.ui.confidence.value(), 2),
            "type": self.ui.type.currentData(),
            "importance": round(self.ui.importance.value(), 2),
            "scope": self.ui.scope.currentData(),
            "tags": sorted(set(tags)),
            "pinned": self.ui.pinned.isChecked(),
            "valid_from": valid_from,
            "valid_until": valid_until,
        }
        current = {
            "content": record.content,
            "category": record.category,
            "confidence": round(record.confidence, 2),
            "type": record.type,
            "importance": round(record.importance, 2),
            "scope": record.scope,
            "tags": sorted(record.tags),
            "pinned": record.pinned,
            "valid_from": _rounded(record.valid_from),
            "valid_until": _rounded(record.valid_until),
        }
        return {k: v for k, v in values.items() if v != current[k]}

    def request_save(self) -> None:
        if self.record is None:
            return
        changes = self.changes()
        if not changes:
            self.show_errors({})
            return
        self.save_requested.emit(self.record.id, changes)

    def request_archive(self) -> None:
        if self.record is not None and self.record.status in ARCHIVABLE:
            self.archive_requested.emit(self.record.id, self.record.status == "active")

    def revert(self) -> None:
        if self.record is not None:
            history = self.history_lines()
            self.show_record(self.record)
            self.ui.history.addItems(history)

    def clear_errors(self) -> None:
        self.show_errors({})

    def show_errors(self, errors: dict[str, str]) -> None:
        """Mark each invalid field with its reason, right next to it."""
        shown: dict[str, list[str]] = {}
        for field, message in errors.items():
            label = _FIELD_ERRORS.get(field, "contentError")
            shown.setdefault(label, []).append(message)
        for label in set(_FIELD_ERRORS.values()):
            widget: QLabel = getattr(self.ui, label)
            widget.setText("\n".join(shown.get(label, [])))
            widget.setVisible(label in shown)

    def error_text(self, field: str) -> str:
        """The error shown next to a field, or "" when it is valid."""
        label: QLabel = getattr(self.ui, _FIELD_ERRORS[field])
        return "" if label.isHidden() else label.text()

    def _open_source(self, href: str) -> None:
        _, resource, start, end = href.split(":")
        first, last = int(start), int(end)
        self.source_requested.emit(
            (int(resource), first if first >= 0 else None, last if last >= 0 else None)
        )


def _rounded(value: datetime | None) -> datetime | None:
    """Validity as the editor can show it (whole seconds), so unchanged is unchanged."""
    return value.replace(microsecond=0) if value is not None else None
