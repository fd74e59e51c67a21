"""Settings: where the store lives, which extractor runs, which categories exist."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHeaderView, QTreeWidgetItem, QWidget

from memory_app.domain.records import CategoryInfo
from memory_app.extract.base import CONFIDENCE_THRESHOLD
from memory_app.gui.context import AppContext
from memory_app.gui.forms.ui_settings_view import Ui_SettingsForm
from memory_app.gui.views.base import View

EXTRACTOR_NAMES = {"offline": "Offline (rule-based)", "claude": "Claude (Anthropic API)"}


class SettingsView(View):
    key = "settings"
    title = "Settings"
    icon = "settings"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.ui = Ui_SettingsForm()
        self.ui.setupUi(self)
        service = context.service
        path = service.db.path
        self.ui.dataDir.setText(str(path.parent) if path else "—")
        self.ui.database.setText(str(path) if path else service.db.url)
        self.ui.openDataDir.setEnabled(path is not None)
        self.ui.openDataDir.clicked.connect(self.open_data_dir)
        name = service.extractor.name
        self.ui.extractorName.setText(EXTRACTOR_NAMES.get(name, name))
        self.ui.threshold.setText(f"{CONFIDENCE_THRESHOLD:.2f}")
        for hint in (self.ui.storageHint, self.ui.extractorHint):
            hint.setMinimumWidth(360)  # wrapped labels in a form shrink to a narrow column
        header = self.ui.categories.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)

    def open_data_dir(self) -> None:
        path = self.context.service.db.path
        if path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent)))

    async def reload(self) -> None:
        self.show_categories(await self.context.call(self.context.service.categories))

    def show_categories(self, categories: list[CategoryInfo]) -> None:
        self.ui.categories.clear()
        for category in categories:
            self.ui.categories.addTopLevelItem(
                QTreeWidgetItem([category.name, f"{category.item_count:,}", category.description])
            )
