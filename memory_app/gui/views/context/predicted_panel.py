"""The Context view's "Predicted" tab: the memories likely needed for a branch, some files
and the last error, before any prompt is typed (seed 004's predictive context), each
with why it was predicted. The ranking is memory_app/retrieval/predict.py, run on the
database worker; the branch is read from the project's git checkout when it has one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.gui.colours import ERROR, muted_style, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.views.context.request_bar import project_labels
from memory_app.retrieval.git_checkout import GitError, run_git
from memory_app.retrieval.predict import Prediction, Signals, predict, signals_from

PREDICT_LIMIT = 20
ID_ROLE = Qt.ItemDataRole.UserRole
MEMORY, WHY, SCORE = range(3)


def checked_out_branch(project: str | None) -> str | None:
    """The branch checked out in the project's folder; None when it is not a folder here,
    not a git checkout, or on a detached HEAD. One `git symbolic-ref`: cheap."""
    if not project or not Path(project).is_dir():
        return None
    try:
        done = run_git(Path(project), "symbolic-ref", "--quiet", "--short", "HEAD")
    except (GitError, OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def split_files(text: str) -> list[str]:
    """The files typed, comma separated; blanks dropped."""
    return [part.strip() for part in text.split(",") if part.strip()]


class PredictedPanel(QWidget):
    """Project, branch, files and last error; Predict; the memories with their reasons.
    Activating a memory (Enter, double click) opens it in Memories."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("predictedPanel")
        self.context = context
        self.predictions: list[Prediction] = []
        self._auto_branch: str | None = None  # what was filled in from git (replaceable)
        self._serial = 0

        heading = QLabel(
            "<b>{}</b>".format(self.tr("Predicted for this branch and these files")), self
        )
        explain = QLabel(
            self.tr(
                "The memories an assistant would likely need before any prompt is typed: "
                "about the files, learnt on the branch, or answering the error."
            ),
            self,
        )
        explain.setWordWrap(True)
        explain.setStyleSheet(muted_style(self.palette()))
        self.project = QComboBox(self)
        self.project.setObjectName("predictProject")
        self.project.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.project.setMinimumContentsLength(14)
        self.project.addItem(self.tr("All projects"), None)
        self.project.currentIndexChanged.connect(lambda _i: self.fill_branch())
        self.branch = QLineEdit(self)
        self.branch.setObjectName("predictBranch")
        self.branch.setPlaceholderText(self.tr("e.g. feature/retry"))
        self.branch.setClearButtonEnabled(True)
        self.files = QLineEdit(self)
        self.files.setObjectName("predictFiles")
        self.files.setPlaceholderText(self.tr("src/api/client.ts, tests/test_client.py"))
        self.files.setToolTip(
            self.tr("Files open or recently edited, comma separated, relative to the project")
        )
        self.files.setClearButtonEnabled(True)
        self.error = QLineEdit(self)
        self.error.setObjectName("predictError")
        self.error.setPlaceholderText(self.tr("Optional: the last error message"))
        self.error.setClearButtonEnabled(True)
        self.predict_button = QPushButton(self.tr("Pre&dict"), self)
        self.predict_button.setObjectName("predictButton")
        self.predict_button.setDefault(True)
        self.predict_button.clicked.connect(self.run)
        for edit in (self.branch, self.files, self.error):
            edit.returnPressed.connect(self.run)

        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(6)
        # (row, column, label, field, columns the field spans); Predict ends the last row.
        for row, column, text, widget, span in (
            (0, 0, self.tr("Pro&ject"), self.project, 1),
            (0, 2, self.tr("Bra&nch"), self.branch, 2),
            (1, 0, self.tr("F&iles"), self.files, 4),
            (2, 0, self.tr("Last err&or"), self.error, 3),
        ):
            label = QLabel(text, self)
            label.setBuddy(widget)
            grid.addWidget(label, row, column)
            grid.addWidget(widget, row, column + 1, 1, span)
        grid.addWidget(self.predict_button, 2, 4)
        grid.setColumnStretch(3, 1)

        self.results = QTreeWidget(self)
        self.results.setObjectName("predictedMemories")
        self.results.setHeaderLabels([self.tr("Memory"), self.tr("Why"), self.tr("Score")])
        self.results.setRootIsDecorated(False)
        self.results.setWordWrap(True)
        self.results.setAlternatingRowColors(True)
        header = self.results.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(MEMORY, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(WHY, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SCORE, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(WHY, 360)
        self.results.itemActivated.connect(self._open_memory)
        self.status = QLabel(self)
        self.status.setObjectName("predictStatus")
        self.status.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(heading)
        layout.addWidget(explain)
        layout.addLayout(grid)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)

    # -- the fields -------------------------------------------------------------------

    def show_projects(self, projects: list[tuple[str, int]]) -> None:
        """Offer these projects (path, memory count), keeping the one picked."""
        current = self.current_project()
        labels = project_labels([path for path, _ in projects])
        self.project.blockSignals(True)
        self.project.clear()
        self.project.addItem(self.tr("All projects"), None)
        for path, count in projects:
            self.project.addItem(f"{labels[path]} ({count:,})", path)
            self.project.setItemData(self.project.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        self.project.setCurrentIndex(max(self.project.findData(current), 0))
        self.project.blockSignals(False)

    def current_project(self) -> str | None:
        data = self.project.currentData()
        return data if isinstance(data, str) else None

    def fill_branch(self) -> None:
        """Fill the branch from the project's checkout, unless one was typed."""
        if self.branch.text().strip() and self.branch.text() != self._auto_branch:
            return
        self.context.spawn(self._fill_branch(self.current_project()))

    async def _fill_branch(self, project: str | None) -> None:
        branch = await self.context.call(checked_out_branch, project)
        if project != self.current_project():
            return  # another project was picked meanwhile
        if self.branch.text().strip() and self.branch.text() != self._auto_branch:
            return  # typed meanwhile
        self._auto_branch = branch or ""
        self.branch.setText(branch or "")

    # -- predicting -------------------------------------------------------------------

    def run(self) -> object:
        signals = signals_from(
            self.current_project(),
            self.branch.text(),
            split_files(self.files.text()),
            self.error.text().strip(),
        )
        if signals.is_empty():
            self.show_status(self.tr("Give at least one signal: a branch, a file or an error."))
            self.show_predictions([])
            return None
        self._serial += 1
        return self.context.spawn(self._run(self._serial, signals))

    async def _run(self, serial: int, signals: Signals) -> None:
        self.show_status(self.tr("Predicting…"), error=False)
        try:
            found = await self.context.call(predict, self.context.service, signals, PREDICT_LIMIT)
        except ValueError as exc:
            if serial == self._serial:
                self.show_status(str(exc))
            return
        if serial != self._serial:
            return  # a newer prediction is under way
        self.show_predictions(found)
        if found:
            self.show_status(self.tr("%Ln memories predicted", "", len(found)), error=False)
        else:
            self.show_status(self.tr("No memory is predicted for these signals."), error=False)

    def show_predictions(self, found: list[Prediction]) -> None:
        self.predictions = list(found)
        self.results.clear()
        for prediction in found:
            why = "; ".join(prediction.reasons)
            item = QTreeWidgetItem(
                [
                    f"#{prediction.id}  {prediction.content}",
                    why,
                    f"{prediction.score:.2f}",
                ]
            )
            item.setData(MEMORY, ID_ROLE, prediction.id)
            item.setToolTip(
                MEMORY, f"{prediction.category.replace('_', ' ')}: {prediction.content}"
            )
            item.setToolTip(WHY, why)
            item.setTextAlignment(SCORE, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            self.results.addTopLevelItem(item)
        first = self.results.topLevelItem(0)
        if first is not None:
            self.results.setCurrentItem(first)

    def show_status(self, text: str, *, error: bool = True) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(text_style(ERROR, self.palette()) if error else "")

    def _open_memory(self, item: QTreeWidgetItem, _column: int) -> None:
        ident = item.data(MEMORY, ID_ROLE)
        if isinstance(ident, int):
            self.context.events.navigate.emit("memories", ident)
