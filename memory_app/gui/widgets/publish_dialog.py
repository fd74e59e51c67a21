"""Publishing to the team, previewed: exactly what would leave this machine, per memory.

The list is the service's own preview (domain/publishing.py), the one `memory-app team
publish --dry-run` prints: the text after the redaction re-check, category, tags, the
project under its team name (or left out), and the cited conversation turns only when
the person ticks the box. Memories that cannot go (held as a possible secret, a token
that looks like one, not active) are listed apart with the reason, and never sent. The
dialog is opened with `open()`; it asks for a new preview when the box changes
(`source_toggled`) and says what to publish with `publish_requested`.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.publishing import OutgoingMemory, PublishPreview
from memory_app.gui.colours import muted_style
from memory_app.retrieval.context import category_name


class PublishDialog(QDialog):
    publish_requested = Signal(list)  # the ids to publish

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("publishDialog")
        self.setWindowTitle(self.tr("Publish to Team"))
        self.resize(640, 520)
        self.preview: PublishPreview | None = None
        self.heading = QLabel(self)
        self.heading.setObjectName("publishHeading")
        self.heading.setWordWrap(True)
        self.note = QLabel(
            self.tr(
                "Only what is listed here leaves this machine, with the next team sync: never "
                "a conversation, and no folder of this computer (a project goes by its git "
                "remote's name, or not at all)."
            ),
            self,
        )
        self.note.setWordWrap(True)
        self.note.setStyleSheet(muted_style(self.palette()))
        self.listing = QTextBrowser(self)
        self.listing.setObjectName("publishListing")
        self.listing.setOpenLinks(False)
        self.buttons = QDialogButtonBox(self)
        self.publish_button = self.buttons.addButton(
            self.tr("Publish"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.publish_button.setObjectName("publishButton")
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._publish)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        layout.addWidget(self.listing, 1)
        layout.addWidget(self.buttons)
        self.heading.setText(self.tr("Checking what would be sent…"))
        self.publish_button.setEnabled(False)

    def show_preview(self, preview: PublishPreview) -> None:
        self.preview = preview
        sendable, blocked = preview.sendable, preview.blocked
        fresh = [m for m in sendable if not m.already_team]
        if fresh:
            self.heading.setText(
                "<b>{}</b>".format(
                    self.tr("%Ln memories will be shared with your team.", "", len(fresh))
                )
            )
        elif blocked and not sendable:
            self.heading.setText(
                "<b>{}</b>".format(
                    self.tr(
                        "Nothing can be published: %Ln memories are held back.", "", len(blocked)
                    )
                )
            )
        else:
            self.heading.setText("<b>{}</b>".format(self.tr("These memories are already shared.")))
        parts = [self._memory_html(m) for m in sendable]
        if blocked:
            parts.append("<h4>{}</h4>".format(escape(self.tr("Not published"))))
            parts += [self._blocked_html(m) for m in blocked]
        self.listing.setHtml("".join(parts))
        self.publish_button.setEnabled(bool(fresh))

    def _memory_html(self, memory: OutgoingMemory) -> str:
        facts = [
            self.tr("Category: {category} ({type})").format(
                category=category_name(memory.category), type=memory.type
            ),
            self.tr("Project: {name}").format(name=memory.project)
            if memory.project
            else self.tr("Project: not sent"),
        ]
        if memory.tags:
            facts.append(self.tr("Tags: {tags}").format(tags=", ".join(memory.tags)))
        if memory.already_team:
            facts.append(self.tr("already a team memory"))
        lines = [
            f"<p><b>#{memory.item_id}</b> {escape(memory.content)}<br>",
            f"<small>{escape(' · '.join(facts))}</small>",
        ]
        if memory.redactions:
            removed = self.tr(
                "%Ln secrets taken out by the redaction re-check", "", len(memory.redactions)
            )
            lines.append(f"<br><small>{escape(removed)}</small>")
        lines.append("</p>")
        return "".join(lines)

    def _blocked_html(self, memory: OutgoingMemory) -> str:
        reason = memory.blocked or ""
        return f"<p><b>#{memory.item_id}</b> <i>{escape(reason)}</i></p>"

    def _publish(self) -> None:
        if self.preview is None:
            return
        ids = [m.item_id for m in self.preview.sendable if not m.already_team]
        if ids:
            self.publish_requested.emit(ids)
        self.accept()
