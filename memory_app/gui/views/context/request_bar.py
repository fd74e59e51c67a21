"""The row at the top of the Context preview: the task, the project and the token budget.

It says what is asked and remembers the budget; when to ask (at once for a project, after
a pause in typing for the rest) is the view's business, told through two signals.
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QWidget

from memory_app.domain.budget import MAX_BUDGET, MIN_BUDGET
from memory_app.gui.context import AppContext
from memory_app.retrieval.context import ContextRequest

DEFAULT_BUDGET = 2000
BUDGET_KEY = "context/budget"


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
        project_changed(): another project was picked.
    """

    edited = Signal()
    project_changed = Signal()

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
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
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
        )

    def project_label(self, project: str | None) -> str | None:
        """A project's short name as the picker shows it; None for every project's context
        (the sentences naming a context have one form for each)."""
        if project is None:
            return None
        return self._labels.get(project, project)
