"""Settings: where the store lives, whether Claude Code uses this app, whether its new
sessions are imported automatically, whether the local API runs, which extractor runs
(and its key and model), which categories exist.

With no API key but the Claude Code CLI installed, the extractor section says so and
offers the CLI with one click; nothing switches without the person choosing it."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.domain.records import CategoryInfo
from memory_app.extract.base import CONFIDENCE_THRESHOLD, ExtractorError
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import keyring_available, save_api_key
from memory_app.gui.auto_import import set_auto_import, stored_choice
from memory_app.gui.colours import ERROR, text_style
from memory_app.gui.context import AppContext
from memory_app.gui.extractor_choice import (
    CHOICES,
    build_extractor,
    claude_cli_path,
    claude_settings,
    current_key,
)
from memory_app.gui.forms.ui_settings_view import Ui_SettingsForm
from memory_app.gui.maintenance_scheduler import SETTLE_SECONDS, STARTUP_IMPORT_LIMIT
from memory_app.gui.views.base import View
from memory_app.gui.widgets.claude_code_setup import ClaudeCodePanel
from memory_app.gui.widgets.local_api import LocalApiPanel
from memory_app.gui.widgets.scroll_page import scroll_page
from memory_app.gui.widgets.welcome import home_relative
from memory_app.ingest import claude_projects_dir, codex_sessions_dir
from memory_app.service import claude_judge_for

AUTO_POLICY = "newer_if_confident"
CATEGORIES_MIN_HEIGHT = 180  # the list scrolls with the page rather than shrink to a line


class SettingsView(View):
    key = "settings"
    icon = "settings"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Settings")
        # The form is a page in a scroll area: its sections are taller than a small window.
        self.page = QWidget()
        self.ui = Ui_SettingsForm()
        self.ui.setupUi(self.page)
        self.scroll_area, _page = scroll_page(self, "settingsScroll", content=self.page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll_area)
        self.claude_code = ClaudeCodePanel(context, self.page)
        self.ui.outerLayout.insertWidget(1, self.claude_code)  # after Storage
        self.ui.outerLayout.insertWidget(2, self._build_importing())
        self.local_api = LocalApiPanel(context, self.page)
        self.ui.outerLayout.insertWidget(3, self.local_api)
        # Made after the form, the sections would come last when tabbing: put them in place.
        chain = [
            self.ui.database,
            *self.claude_code.focus_chain(),
            self.auto_import,
            self.local_api.serve,
            self.ui.extractorChoice,
        ]
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)
        self.ui.categories.setMinimumHeight(CATEGORIES_MIN_HEIGHT)
        # A tall window's spare height goes to the category list, not between rows.
        self.ui.outerLayout.setStretchFactor(self.ui.categoriesGroup, 1)
        service = context.service
        path = service.db.path
        self.ui.dataDir.setText(str(path.parent) if path else "—")
        self.ui.database.setText(str(path) if path else service.db.url)
        self.ui.openDataDir.setEnabled(path is not None)
        self.ui.openDataDir.clicked.connect(self.open_data_dir)
        for hint in (self.ui.storageHint, self.ui.extractorHint):
            hint.setMinimumWidth(360)  # wrapped labels in a form shrink to a narrow column
        header = self.ui.categories.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.ui.threshold.setText(f"{CONFIDENCE_THRESHOLD:.2f}")

        captions = {
            "offline": self.tr("Offline rules (no network)"),
            "claude": self.tr("Claude (Anthropic API)"),
            "claude-cli": self.tr("Claude Code CLI (your Claude login)"),
            "auto": self.tr("Claude when a key is set, else offline"),
        }
        for value, text in CHOICES:
            self.ui.extractorChoice.addItem(captions.get(value, text), value)
        self._build_cli_hint()
        stored = str(context.settings.value("extractor/choice", "offline"))
        self.ui.extractorChoice.setCurrentIndex(max(0, self.ui.extractorChoice.findData(stored)))
        model = str(context.settings.value("extractor/model", "") or ClaudeSettings().model)
        self.ui.model.setText(model)
        self.ui.saveKey.setEnabled(keyring_available())
        if not keyring_available():
            self.ui.saveKey.setToolTip(self.tr("No system keyring here: use ANTHROPIC_API_KEY"))
        self.ui.extractorChoice.currentIndexChanged.connect(lambda *_: self.apply_extractor())
        self.ui.model.editingFinished.connect(self.apply_extractor)
        self.ui.apiKey.editingFinished.connect(self.apply_extractor)
        self.ui.saveKey.clicked.connect(self.save_key)
        self.ui.testConnection.clicked.connect(self.test_connection)
        self.ui.judgeHint.setMinimumWidth(360)
        auto = str(context.settings.value("conflicts/auto_resolve", "")) == AUTO_POLICY
        self.ui.autoResolve.setChecked(auto)
        self.ui.autoResolve.toggled.connect(self.apply_auto_resolve)
        self.apply_auto_resolve(auto)
        self.apply_extractor(quiet=True)

    # -- importing --------------------------------------------------------------------

    def _build_importing(self) -> QGroupBox:
        """Whether new Claude Code and Codex sessions are imported without asking (first asked on
        the welcome page; off until the person says yes)."""
        group = QGroupBox(self.tr("Importing"), self.page)
        group.setObjectName("importingGroup")
        self.auto_import = QCheckBox(
            self.tr("Import &new Claude Code and Codex sessions automatically"), group
        )
        self.auto_import.setObjectName("autoImport")
        self.auto_import.setChecked(stored_choice(self.context.settings) is True)
        self.auto_import.toggled.connect(self.apply_auto_import)
        self.auto_import_hint = QLabel(
            self.tr(
                "When Memory Curator starts and while it is open, sessions in {folder} and "
                "{codex_folder} that have been quiet for %Ln minutes are imported, at most "
                "{limit} at a time. Off: import them from Sources yourself.",
                "",
                round(SETTLE_SECONDS / 60),
            ).format(
                folder=home_relative(claude_projects_dir()),
                codex_folder=home_relative(codex_sessions_dir()),
                limit=STARTUP_IMPORT_LIMIT,
            ),
            group,
        )
        self.auto_import_hint.setObjectName("autoImportHint")
        self.auto_import_hint.setWordWrap(True)
        self.auto_import_hint.setMinimumWidth(360)
        column = QVBoxLayout(group)
        column.addWidget(self.auto_import)
        column.addWidget(self.auto_import_hint)
        self.context.events.auto_import_changed.connect(self._auto_import_changed)
        return group

    def apply_auto_import(self, on: bool) -> None:
        """The person's answer: switching it on looks for new sessions at once."""
        set_auto_import(self.context, on, import_now=True)

    def _auto_import_changed(self, on: bool, _import_now: bool) -> None:
        """Answered on the welcome page (or settled on the first start): show it."""
        if self.auto_import.isChecked() != on:
            self.auto_import.blockSignals(True)
            self.auto_import.setChecked(on)
            self.auto_import.blockSignals(False)

    # -- extractor --------------------------------------------------------------------

    def _build_cli_hint(self) -> None:
        """Below the choice: "no key, but the Claude Code CLI is here", with a button that
        chooses it (shown only then, see `_show_cli_hint`)."""
        self.cli_hint_row = QWidget(self.ui.extractorGroup)
        self.cli_hint_row.setObjectName("cliHintRow")
        self.cli_hint = QLabel(self.cli_hint_row)
        self.cli_hint.setObjectName("cliHint")
        self.cli_hint.setWordWrap(True)
        self.cli_hint.setMinimumWidth(300)
        self.use_cli = QPushButton(self.tr("Use the Claude Code CLI"), self.cli_hint_row)
        self.use_cli.setObjectName("useCli")
        self.use_cli.clicked.connect(lambda: self.choose("claude-cli"))
        row = QHBoxLayout(self.cli_hint_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.cli_hint, 1)
        row.addWidget(self.use_cli)
        self.ui.extractorLayout.insertRow(1, self.cli_hint_row)
        self.cli_hint_row.setVisible(False)

    def choose(self, value: str) -> None:
        """Select an extractor in the list, as the person would (it applies at once)."""
        self.ui.extractorChoice.setCurrentIndex(self.ui.extractorChoice.findData(value))

    def _show_cli_hint(self) -> None:
        """Offer the CLI when no key is found, the CLI is installed and not chosen yet."""
        path = None
        if self.choice() != "claude-cli" and current_key(self.ui.apiKey.text()) is None:
            path = claude_cli_path()
        if path is not None:
            self.cli_hint.setText(
                self.tr(
                    "No API key is set, but the Claude Code CLI is installed ({path}): it "
                    "can read your conversations with your Claude login instead."
                ).format(path=path)
            )
        self.cli_hint_row.setVisible(path is not None)

    def choice(self) -> str:
        return str(self.ui.extractorChoice.currentData())

    def apply_extractor(self, quiet: bool = False) -> None:
        """Use the chosen extractor from now on (imports already running keep theirs)."""
        settings = self.context.settings
        settings.setValue("extractor/choice", self.choice())
        settings.setValue("extractor/model", self.ui.model.text().strip())
        self._show_cli_hint()
        try:
            extractor = build_extractor(self.choice(), self.ui.apiKey.text(), self.ui.model.text())
        except (ExtractorError, ValueError) as exc:
            self.ui.keySource.setStyleSheet(text_style(ERROR, self.palette()))
            self.ui.keySource.setText(
                self.tr("{error}. Using the offline extractor meanwhile.").format(error=exc)
            )
            self.context.service.extractor = build_extractor("offline", "", "")
            self.context.service.conflict_judge = None
            return
        self.context.service.extractor = extractor
        # With Claude reading conversations, Claude also judges contradiction candidates.
        self.context.service.conflict_judge = claude_judge_for(extractor)
        self._show_key_source()
        if not quiet:
            names = {
                "offline": self.tr("the offline extractor"),
                "claude": "Claude",
                "claude-cli": self.tr("Claude, through the Claude Code CLI"),
            }
            self.context.events.notify.emit(
                self.tr("New conversations are read by {extractor}.").format(
                    extractor=names.get(extractor.name, extractor.name)
                ),
                None,
            )

    def apply_auto_resolve(self, on: bool) -> None:
        """Newer-wins-when-confident from now on (or every conflict waits for a person)."""
        self.context.service.auto_resolve = AUTO_POLICY if on else None
        self.context.settings.setValue("conflicts/auto_resolve", AUTO_POLICY if on else "")

    def _show_key_source(self) -> None:
        self.ui.keySource.setStyleSheet("")
        path = claude_cli_path() if self.choice() == "claude-cli" else None
        if path is not None:
            self.ui.keySource.setText(
                self.tr(
                    "Using the Claude Code CLI ({path}) and your Claude login: no API key "
                    "is needed, nor sent to it."
                ).format(path=path)
            )
            return
        key = current_key(self.ui.apiKey.text())
        if key is None:
            self.ui.keySource.setText(
                self.tr(
                    "No key: set ANTHROPIC_API_KEY, or type one above (kept for this session, "
                    "or saved in the system keyring)."
                )
            )
            return
        where = {
            "environment": self.tr("Using the key from ANTHROPIC_API_KEY."),
            "keyring": self.tr("Using the key from the system keyring."),
            "typed": self.tr("Using the key from above."),
        }
        self.ui.keySource.setText(
            where.get(key.source)
            or self.tr("Using the key from {source}.").format(source=key.source)
        )

    def save_key(self) -> None:
        typed = self.ui.apiKey.text().strip()
        if not typed:
            self.ui.keySource.setText(self.tr("Type a key first."))
            return
        self.context.spawn(self._save_key(typed))

    async def _save_key(self, typed: str) -> None:
        try:
            await self.context.call(save_api_key, typed)
        except Exception as exc:  # keyring backends fail in many ways; say so, lose nothing
            self.ui.keySource.setStyleSheet(text_style(ERROR, self.palette()))
            self.ui.keySource.setText(
                self.tr("Could not save the key in the keyring: {error}").format(error=exc)
            )
            return
        self.ui.apiKey.clear()
        self.apply_extractor(quiet=True)
        self.ui.keySource.setText(self.tr("Saved in the system keyring."))

    def test_connection(self) -> None:
        if self.choice() == "claude-cli":
            self.ui.testConnection.setEnabled(False)
            self.ui.connectionResult.setStyleSheet("")
            self.ui.connectionResult.setText(self.tr("Testing…"))
            self.context.spawn(self._test_cli_connection(claude_settings(self.ui.model.text())))
            return
        key = current_key(self.ui.apiKey.text())
        if key is None:
            self.ui.connectionResult.setStyleSheet(text_style(ERROR, self.palette()))
            self.ui.connectionResult.setText(self.tr("No API key to test."))
            return
        self.ui.testConnection.setEnabled(False)
        self.ui.connectionResult.setStyleSheet("")
        self.ui.connectionResult.setText(self.tr("Testing…"))
        self.context.spawn(self._test_connection(key, claude_settings(self.ui.model.text())))

    async def _test_connection(self, key: object, settings: ClaudeSettings) -> None:
        from memory_app.extract.claude import check_connection

        try:
            result = await self.context.call(check_connection, key, settings)
        finally:
            self.ui.testConnection.setEnabled(True)
        self.ui.connectionResult.setStyleSheet(
            "" if result.ok else text_style(ERROR, self.palette())
        )
        if result.ok:
            self.ui.connectionResult.setText(
                self.tr("Connected: {model} answered in {ms} ms.").format(
                    model=result.model, ms=result.latency_ms
                )
            )
        else:
            self.ui.connectionResult.setText(result.message)

    async def _test_cli_connection(self, settings: ClaudeSettings) -> None:
        from memory_app.extract.claude_cli import check_cli_connection
        from memory_app.extract.claude_cli_settings import ClaudeCliSettings

        try:
            result = await self.context.call(
                check_cli_connection, settings, ClaudeCliSettings.from_env()
            )
        except ValueError as exc:  # a bad MEMORY_APP_CLAUDE_CLI_TIMEOUT
            self.ui.connectionResult.setStyleSheet(text_style(ERROR, self.palette()))
            self.ui.connectionResult.setText(str(exc))
            return
        finally:
            self.ui.testConnection.setEnabled(True)
        self.ui.connectionResult.setStyleSheet(
            "" if result.ok else text_style(ERROR, self.palette())
        )
        if result.ok:
            self.ui.connectionResult.setText(
                self.tr(
                    "Connected through the Claude Code CLI: {model} answered in {ms} ms."
                ).format(model=result.model, ms=result.latency_ms)
            )
        else:
            self.ui.connectionResult.setText(result.message)

    # -- the rest ---------------------------------------------------------------------

    def open_data_dir(self) -> None:
        path = self.context.service.db.path
        if path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent)))

    async def reload(self) -> None:
        # Settled on the first start after this view was made (an existing store says yes).
        self._auto_import_changed(stored_choice(self.context.settings) is True, False)
        self.show_categories(await self.context.call(self.context.service.categories))
        await self.claude_code.refresh()

    def show_categories(self, categories: list[CategoryInfo]) -> None:
        self.ui.categories.clear()
        for category in categories:
            self.ui.categories.addTopLevelItem(
                QTreeWidgetItem([category.name, f"{category.item_count:,}", category.description])
            )
