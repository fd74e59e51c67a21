"""The Maintenance view's schedule: one row per job (on/off, how often, whether its
changes wait for a review, when it last ran and runs next, Run now), Run all with the
dry-run switch, and the progress of the job that is running."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.maintenance import JOB_DESCRIPTIONS, JOB_KINDS, Schedule
from memory_app.gui.colours import muted_style
from memory_app.gui.maintenance_runner import job_title
from memory_app.gui.times import full_time, relative_time, upcoming_time
from memory_app.operations.maintenance import JobStatus


@dataclass
class JobRow:
    """The widgets of one job's row."""

    kind: str
    enabled: QCheckBox
    every: QSpinBox
    auto_apply: QCheckBox
    last_run: QLabel
    next_run: QLabel
    run: QPushButton

    def schedule(self) -> Schedule:
        return Schedule(
            self.kind,
            enabled=self.enabled.isChecked(),
            every_days=self.every.value(),
            auto_apply=self.auto_apply.isChecked(),
        )


class SchedulePanel(QGroupBox):
    """The jobs, their schedules and Run now; the running job's progress and Cancel.

    Signals:
        schedule_changed(object): the person changed a job's `Schedule`.
        run_requested(str, bool): run a job ("nightly"… or "full" for Run all), dry run.
        cancel_requested: stop the running job.
        dry_run_changed(bool): the dry-run switch was flipped.
    """

    schedule_changed = Signal(object)
    run_requested = Signal(str, bool)
    cancel_requested = Signal()
    dry_run_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Schedule"))
        self.setObjectName("maintenanceSchedule")
        self.rows: dict[str, JobRow] = {}
        self.statuses: dict[str, JobStatus] = {}
        self._running = False
        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(4)
        headers = (
            self.tr("Job"),
            self.tr("Every"),
            self.tr("Changes"),
            self.tr("Last run"),
            self.tr("Next run"),
        )
        muted = muted_style(self.palette())
        for column, text in enumerate(headers):
            header = QLabel(text, self)
            header.setStyleSheet(muted)
            grid.addWidget(header, 0, column)
        for line, kind in enumerate(JOB_KINDS, start=1):
            row = self._build_row(kind)
            self.rows[kind] = row
            for column, widget in enumerate(
                (row.enabled, row.every, row.auto_apply, row.last_run, row.next_run, row.run)
            ):
                grid.addWidget(widget, line, column)
        grid.setColumnStretch(4, 1)

        self.dry_run = QCheckBox(self.tr("&Dry run: only propose changes"), self)
        self.dry_run.setObjectName("dryRun")
        self.dry_run.setChecked(True)
        self.dry_run.setToolTip(
            self.tr(
                "On: the jobs only look and propose changes; nothing in the store changes.\n"
                "Off: they also refresh decay, look for contradictions and rebuild the search "
                "index; their changes are applied only for jobs set to apply without review."
            )
        )
        self.dry_run.toggled.connect(self.dry_run_changed)
        # Alt+L: Alt+A is the changeset's Accept.
        self.run_all = QPushButton(self.tr("Run A&ll"), self)
        self.run_all.setObjectName("runAll")
        self.run_all.setToolTip(self.tr("Run the three jobs one after another"))
        self.run_all.clicked.connect(lambda: self.run_requested.emit("full", self.is_dry_run()))
        actions = QHBoxLayout()
        actions.addWidget(self.dry_run)
        actions.addStretch(1)
        actions.addWidget(self.run_all)

        self.progress_bar = QProgressBar(self)
        self.progress_bar.setObjectName("maintenanceProgress")
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedWidth(180)
        self.progress_bar.setAccessibleName(self.tr("Maintenance progress"))
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("maintenanceProgressLabel")
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("cancelMaintenance")
        self.cancel_button.setToolTip(self.tr("Stop the job; the store stays as it was"))
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.progress_row = QWidget(self)
        progress = QHBoxLayout(self.progress_row)
        progress.setContentsMargins(0, 0, 0, 0)
        progress.addWidget(self.progress_bar)
        progress.addWidget(self.progress_label, 1)
        progress.addWidget(self.cancel_button)
        self.progress_row.hide()

        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addSpacing(4)
        layout.addLayout(actions)
        layout.addWidget(self.progress_row)

    def _description(self, kind: str) -> str:
        descriptions = {
            "nightly": self.tr(
                "Merges near-duplicates, looks for contradictions, refreshes decay."
            ),
            "weekly": self.tr(
                "Compresses memories older than 30 days into their category summary and "
                "archives old, unused, unimportant ones."
            ),
            "monthly": self.tr(
                "Checks every memory against the rules and the search index for damage."
            ),
        }
        return descriptions.get(kind) or JOB_DESCRIPTIONS.get(kind, "")

    def _show_every(self, every: QSpinBox, days: int) -> None:
        """ "every 7 days" around the spin box's number, in the words of the language."""
        words = self.tr("every %Ln days", "", days)
        before, number, after = words.partition(str(days))
        if not number:  # a translation without the number: all of it after
            before, after = "", f" {words}"
        every.setPrefix(before)
        every.setSuffix(after)

    def _build_row(self, kind: str) -> JobRow:
        title = job_title(kind)
        description = self._description(kind)
        enabled = QCheckBox(title, self)
        enabled.setObjectName(f"{kind}Enabled")
        enabled.setToolTip(
            self.tr("{description}\nUntick to stop running it on a schedule.").format(
                description=description
            )
        )
        every = QSpinBox(self)
        every.setObjectName(f"{kind}Every")
        every.setRange(1, 365)
        self._show_every(every, every.value())
        every.setKeyboardTracking(False)  # typing "14" saves once, not "1" then "14"
        every.setAccessibleName(self.tr("{job}: run every how many days").format(job=title))
        every.setToolTip(self.tr("How often {job} runs").format(job=title.lower()))
        auto_apply = QCheckBox(self.tr("Apply without review"), self)
        auto_apply.setObjectName(f"{kind}AutoApply")
        auto_apply.setToolTip(
            self.tr(
                "Apply this job's changes when it runs on its schedule, as one undoable "
                "group.\nOtherwise they wait below for you to accept or reject."
            )
        )
        auto_apply.setAccessibleName(
            self.tr("{job}: apply its changes without review").format(job=title)
        )
        last_run = QLabel(relative_time(None), self)
        last_run.setObjectName(f"{kind}LastRun")
        next_run = QLabel("", self)
        next_run.setObjectName(f"{kind}NextRun")
        run = QPushButton(self.tr("Run Now"), self)
        run.setObjectName(f"{kind}Run")
        run.setAccessibleName(self.tr("Run {job} now").format(job=title.lower()))
        row = JobRow(kind, enabled, every, auto_apply, last_run, next_run, run)
        enabled.toggled.connect(lambda _on: self._edited(row))
        every.valueChanged.connect(lambda _value: self._edited(row))
        auto_apply.toggled.connect(lambda _on: self._edited(row))
        run.clicked.connect(lambda: self.run_requested.emit(kind, self.is_dry_run()))
        return row

    # -- state ----------------------------------------------------------------------------

    def is_dry_run(self) -> bool:
        return self.dry_run.isChecked()

    def show_schedule(self, statuses: list[JobStatus], now: datetime | None = None) -> None:
        """Show the jobs as the store has them (no change signals while filling in)."""
        now = now or datetime.now(UTC)
        for status in statuses:
            row = self.rows.get(status.schedule.kind)
            if row is None:
                continue
            self.statuses[row.kind] = status
            schedule = status.schedule
            for widget, value in (
                (row.enabled, schedule.enabled),
                (row.auto_apply, schedule.auto_apply),
            ):
                widget.blockSignals(True)
                widget.setChecked(value)
                widget.blockSignals(False)
            row.every.blockSignals(True)
            row.every.setValue(schedule.every_days)
            self._show_every(row.every, schedule.every_days)
            row.every.blockSignals(False)
            row.last_run.setText(relative_time(status.last_run, now))
            row.last_run.setToolTip(
                self.tr("Last finished a real run {time}").format(time=full_time(status.last_run))
                if status.last_run
                else self.tr("Has not finished a real (not dry) run yet")
            )
            self._show_next(row, status, now)
            self._enable_row(row)

    def _show_next(self, row: JobRow, status: JobStatus, now: datetime) -> None:
        font = QFont(row.next_run.font())
        font.setBold(status.due)
        row.next_run.setFont(font)
        if status.next_run is None:
            row.next_run.setText(self.tr("off"))
            row.next_run.setToolTip(self.tr("Not scheduled: tick the job to run it on a schedule"))
        else:
            row.next_run.setText(upcoming_time(status.next_run, now))
            row.next_run.setToolTip(
                self.tr("Runs in the background within the hour while the app is open")
                if status.due
                else full_time(status.next_run)
            )

    def _edited(self, row: JobRow) -> None:
        self._show_every(row.every, row.every.value())
        self._enable_row(row)
        self.schedule_changed.emit(row.schedule())

    def _enable_row(self, row: JobRow) -> None:
        scheduled = row.enabled.isChecked()
        row.every.setEnabled(scheduled)
        row.auto_apply.setEnabled(scheduled)
        row.run.setEnabled(not self._running)

    # -- a running job --------------------------------------------------------------------

    def set_running(self, label: str | None) -> None:
        """Show that a job runs (its label), or that none does (None)."""
        self._running = label is not None
        for row in self.rows.values():
            row.run.setEnabled(not self._running)
        self.run_all.setEnabled(not self._running)
        self.progress_row.setVisible(self._running)
        self.cancel_button.setEnabled(self._running)
        self.cancel_button.setText(self.tr("Cancel"))
        if label is not None:
            self.progress_bar.setRange(0, 0)  # busy until the first report
            self.progress_label.setText(f"{label}…")
            self.progress_label.setToolTip(label)

    def show_progress(self, done: int, total: int, message: str) -> None:
        if total:
            self.progress_bar.setRange(0, total)
            self.progress_bar.setValue(done)
        else:
            self.progress_bar.setRange(0, 0)
        if self.cancel_button.isEnabled() and message:
            metrics = self.progress_label.fontMetrics()
            width = max(120, self.progress_label.width())
            self.progress_label.setText(
                metrics.elidedText(message, Qt.TextElideMode.ElideRight, width)
            )
            self.progress_label.setToolTip(message)

    def show_cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.progress_label.setText(self.tr("Cancelling at the next safe point…"))
