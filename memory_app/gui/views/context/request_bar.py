"""The rows at the top of the Context preview: the task, the project and the token
budget; under them the conversation whose summaries join the context ("This conversation
so far", memory_app/chunks) and "Ask Claude" with what Claude did.

It says what is asked and remembers the budget; when to ask (at once for a project or a
conversation, after a pause in typing for the rest, Claude only when asked) is the
view's business, told through its signals.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.budget import MAX_BUDGET, MIN_BUDGET
from memory_app.domain.records import ResourceRecord
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.models.resource_table_model import format_date, resource_title
from memory_app.retrieval.context import ContextRequest

if TYPE_CHECKING:
    from memory_app.retrieval.assisted import Assistance

DEFAULT_BUDGET = 2000
BUDGET_KEY = "context/budget"
RECENT_CONVERSATIONS = 25  # offered in the conversation picker, newest first


def project_labels(paths: list[str]) -> dict[str, str]:
    """Short names for the picker: the folder name, or its last two parts when two
    projects share a folder name."""
    names = [PurePath(p).name or p for p in paths]
    labels = {}
    for path, name in zip(paths, names, strict=True):
        if names.count(name) > 1:
            name = "/".join(PurePath(path).parts[-2:])
        labels[path] = name
    return labels


class ContextRequestBar(QWidget):
    """`task`, `project` and `budget`, and the request they make.

    Signals:
        edited(): the task or the budget changed (the budget is already remembered).
        project_changed(): another project (or conversation) was picked.
        ask_claude(): "Ask Claude" was pressed.
    """

    edited = Signal()
    project_changed = Signal()
    ask_claude = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._labels: dict[str, str] = {}
        self.task = QLineEdit(self)
        self.task.setObjectName("contextTask")
        self.task.setPlaceholderText(self.tr("Describe the task, e.g. add retries to the importer"))
        self.task.setClearButtonEnabled(True)
        self.task.textChanged.connect(lambda _text: self.edited.emit())
        self.project = QComboBox(self)
        self.project.setObjectName("contextProject")
        self.project.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.project.setMinimumContentsLength(14)
        self.project.addItem(self.tr("All projects"), None)
        self.project.currentIndexChanged.connect(lambda _index: self.project_changed.emit())
        self.budget = QSpinBox(self)
        self.budget.setObjectName("contextBudget")
        self.budget.setRange(MIN_BUDGET, MAX_BUDGET)
        self.budget.setSingleStep(250)
        self.budget.setSuffix(self.tr(" tokens"))
        self.budget.setGroupSeparatorShown(True)
        self.budget.setToolTip(
            self.tr("How much context the assistant is given, estimated at four characters a token")
        )
        stored = self.context.settings.value(BUDGET_KEY, DEFAULT_BUDGET)
        try:
            self.budget.setValue(int(stored))  # type: ignore[call-overload]  # QSettings: untyped
        except (TypeError, ValueError):
            self.budget.setValue(DEFAULT_BUDGET)
        self.budget.valueChanged.connect(self._budget_changed)
        self.conversation = QComboBox(self)
        self.conversation.setObjectName("contextConversation")
        self.conversation.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.conversation.setMinimumContentsLength(24)
        self.conversation.setMaximumWidth(420)
        self.conversation.addItem(self.tr("None"), None)
        self.conversation.setToolTip(self._conversation_tip())
        self.conversation.currentIndexChanged.connect(self._conversation_changed)
        self.ask_button = QPushButton(self.tr("Ask C&laude"), self)
        self.ask_button.setObjectName("askClaude")
        self.ask_button.clicked.connect(self.ask_claude.emit)
        self.assist_note = QLabel(self)
        self.assist_note.setObjectName("assistNote")
        self.assist_note.setWordWrap(True)
        self.assist_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.set_claude(ready=False, asking=False)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        row = QHBoxLayout()
        row.setSpacing(6)
        column.addLayout(row)
        second = QHBoxLayout()
        second.setSpacing(6)
        column.addLayout(second)
        conversation_label = QLabel(self.tr("Con&versation"), self)
        conversation_label.setBuddy(self.conversation)
        second.addWidget(conversation_label)
        second.addWidget(self.conversation)
        second.addSpacing(6)
        second.addWidget(self.ask_button)
        second.addWidget(self.assist_note, 1)
        row.addWidget(self.task, 1)
        row.addSpacing(6)
        project_label = QLabel(self.tr("&Project"), self)
        project_label.setBuddy(self.project)
        row.addWidget(project_label)
        row.addWidget(self.project)
        row.addSpacing(6)
        budget_label = QLabel(self.tr("&Budget"), self)
        budget_label.setBuddy(self.budget)
        row.addWidget(budget_label)
        row.addWidget(self.budget)

    def _budget_changed(self, value: int) -> None:
        self.context.settings.setValue(BUDGET_KEY, value)
        self.edited.emit()

    def show_projects(self, projects: list[tuple[str, int]]) -> None:
        """Offer these projects (path, memory count), keeping the one picked."""
        current = self.current_project()
        self._labels = project_labels([path for path, _ in projects])
        self.project.blockSignals(True)
        self.project.clear()
        self.project.addItem(self.tr("All projects"), None)
        self.project.setItemData(0, self._every_project_tip(), Qt.ItemDataRole.ToolTipRole)
        for path, count in projects:
            self.project.addItem(f"{self._labels[path]} ({count:,})", path)
            self.project.setItemData(self.project.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        index = self.project.findData(current)
        self.project.setCurrentIndex(max(index, 0))
        self.project.blockSignals(False)
        self.project.setToolTip(current or self._every_project_tip())

    def _every_project_tip(self) -> str:
        return self.tr("Every project's memories")

    def show_project_tip(self) -> None:
        """The picker's tooltip names the project picked in full."""
        self.project.setToolTip(self.current_project() or self._every_project_tip())

    def current_project(self) -> str | None:
        data = self.project.currentData()
        return data if isinstance(data, str) else None

    def current_request(self) -> ContextRequest:
        return ContextRequest(
            task=self.task.text().strip(),
            project=self.current_project(),
            budget=self.budget.value(),
            conversation=self.current_conversation(),
        )

    # -- the conversation -------------------------------------------------------------

    def _conversation_tip(self) -> str:
        return self.tr(
            "A conversation whose summaries join the context as “This conversation so far”, "
            "in what the memories leave of the budget"
        )

    def _conversation_changed(self, _index: int) -> None:
        data = self.conversation.currentData()
        self.conversation.setToolTip(
            self.conversation.itemData(
                self.conversation.currentIndex(), Qt.ItemDataRole.ToolTipRole
            )
            if data is not None
            else self._conversation_tip()
        )
        self.project_changed.emit()

    def show_conversations(self, records: list[ResourceRecord]) -> None:
        """Offer these conversations (newest first), keeping the one picked while it is
        still stored (else None)."""
        current = self.current_conversation()
        self.conversation.blockSignals(True)
        self.conversation.clear()
        self.conversation.addItem(self.tr("None"), None)
        for record in records:
            title = resource_title(record)
            short = title if len(title) <= 48 else title[:47] + "…"
            when = format_date(record.started_at or record.imported_at)[:10]
            self.conversation.addItem(f"#{record.id} {short} · {when}", str(record.id))
            self.conversation.setItemData(
                self.conversation.count() - 1,
                self.tr("Conversation #{id}: {title}").format(id=record.id, title=title),
                Qt.ItemDataRole.ToolTipRole,
            )
        index = self.conversation.findData(current)
        self.conversation.setCurrentIndex(max(index, 0))
        self.conversation.blockSignals(False)
        if index < 0 and current is not None:
            self._conversation_changed(0)  # it is gone: the preview goes without it
        elif index >= 0:
            self.conversation.setToolTip(
                self.conversation.itemData(index, Qt.ItemDataRole.ToolTipRole)
                if current is not None
                else self._conversation_tip()
            )

    def current_conversation(self) -> str | None:
        data = self.conversation.currentData()
        return data if isinstance(data, str) else None

    # -- Ask Claude -------------------------------------------------------------------

    def set_claude(self, *, ready: bool, asking: bool) -> None:
        """ "Ask Claude" is offered when Claude is configured, and idle while it answers."""
        self.ask_button.setEnabled(ready and not asking)
        self.ask_button.setText(self.tr("Asking Claude…") if asking else self.tr("Ask C&laude"))
        self.ask_button.setToolTip(
            self.tr(
                "Let Claude turn the task into search words and pick categories, then build "
                "this context with them (one or two small requests; the offline preview if "
                "Claude fails)"
            )
            if ready
            else self.tr(
                "Needs Claude: choose Claude as the extractor in Settings, or set "
                "ANTHROPIC_API_KEY (or save a key in Settings > Extractor)"
            )
        )

    def show_assistance(self, assistance: Assistance | None) -> None:
        """What Claude did for the preview shown, or why it was not used; nothing for an
        offline preview."""
        if assistance is None:
            self._note("")
        elif assistance.fallback is not None:
            self._note(
                self.tr("Claude was not used: {reason}. This is the offline preview.").format(
                    reason=assistance.fallback
                ),
                error=True,
            )
        else:
            none = self.tr("none")
            categories = ", ".join(c.replace("_", " ") for c in assistance.categories)
            if assistance.sufficient is None:
                sufficient = self.tr("summaries not checked")
            elif assistance.sufficient:
                sufficient = self.tr("their summaries answer the task and lead the context")
            else:
                sufficient = self.tr("their summaries do not answer the task")
            self._note(
                self.tr("Claude searched for: {queries} · in {categories}: {sufficient}").format(
                    queries="; ".join(assistance.queries) or none,
                    categories=categories or self.tr("every category"),
                    sufficient=sufficient,
                )
            )

    def _note(self, text: str, *, error: bool = False) -> None:
        self.assist_note.setText(text)
        self.assist_note.setToolTip(text)
        self.assist_note.setStyleSheet(text_style(ERROR, self.palette()) if error else "")

    def project_label(self, project: str | None) -> str | None:
        """A project's short name as the picker shows it; None for every project's context
        (the sentences naming a context have one form for each)."""
        if project is None:
            return None
        return self._labels.get(project, project)
