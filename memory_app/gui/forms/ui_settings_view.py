# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'settings_view.ui'
##
## Created by: Qt User Interface Compiler version 6.11.3
##
## WARNING! All changes made in this file will be lost when recompiling UI file!
################################################################################

from PySide6.QtCore import (QCoreApplication, QDate, QDateTime, QLocale,
    QMetaObject, QObject, QPoint, QRect,
    QSize, QTime, QUrl, Qt)
from PySide6.QtGui import (QBrush, QColor, QConicalGradient, QCursor,
    QFont, QFontDatabase, QGradient, QIcon,
    QImage, QKeySequence, QLinearGradient, QPainter,
    QPalette, QPixmap, QRadialGradient, QTransform)
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QFormLayout,
    QGroupBox, QHBoxLayout, QHeaderView, QLabel,
    QLineEdit, QPushButton, QSizePolicy, QSpacerItem,
    QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

class Ui_SettingsForm(object):
    def setupUi(self, SettingsForm):
        if not SettingsForm.objectName():
            SettingsForm.setObjectName(u"SettingsForm")
        SettingsForm.resize(640, 520)
        self.outerLayout = QVBoxLayout(SettingsForm)
        self.outerLayout.setSpacing(14)
        self.outerLayout.setObjectName(u"outerLayout")
        self.outerLayout.setContentsMargins(24, 20, 24, 20)
        self.storageGroup = QGroupBox(SettingsForm)
        self.storageGroup.setObjectName(u"storageGroup")
        self.storageLayout = QFormLayout(self.storageGroup)
        self.storageLayout.setObjectName(u"storageLayout")
        self.storageLayout.setFieldGrowthPolicy(QFormLayout.ExpandingFieldsGrow)
        self.dataDirLabel = QLabel(self.storageGroup)
        self.dataDirLabel.setObjectName(u"dataDirLabel")

        self.storageLayout.setWidget(0, QFormLayout.ItemRole.LabelRole, self.dataDirLabel)

        self.dataDirRow = QHBoxLayout()
        self.dataDirRow.setObjectName(u"dataDirRow")
        self.dataDir = QLineEdit(self.storageGroup)
        self.dataDir.setObjectName(u"dataDir")
        self.dataDir.setReadOnly(True)

        self.dataDirRow.addWidget(self.dataDir)

        self.openDataDir = QPushButton(self.storageGroup)
        self.openDataDir.setObjectName(u"openDataDir")

        self.dataDirRow.addWidget(self.openDataDir)


        self.storageLayout.setLayout(0, QFormLayout.ItemRole.FieldRole, self.dataDirRow)

        self.databaseLabel = QLabel(self.storageGroup)
        self.databaseLabel.setObjectName(u"databaseLabel")

        self.storageLayout.setWidget(1, QFormLayout.ItemRole.LabelRole, self.databaseLabel)

        self.database = QLineEdit(self.storageGroup)
        self.database.setObjectName(u"database")
        self.database.setReadOnly(True)

        self.storageLayout.setWidget(1, QFormLayout.ItemRole.FieldRole, self.database)

        self.storageHint = QLabel(self.storageGroup)
        self.storageHint.setObjectName(u"storageHint")
        self.storageHint.setWordWrap(True)

        self.storageLayout.setWidget(2, QFormLayout.ItemRole.FieldRole, self.storageHint)


        self.outerLayout.addWidget(self.storageGroup)

        self.extractorGroup = QGroupBox(SettingsForm)
        self.extractorGroup.setObjectName(u"extractorGroup")
        self.extractorLayout = QFormLayout(self.extractorGroup)
        self.extractorLayout.setObjectName(u"extractorLayout")
        self.extractorLayout.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.extractorLabel = QLabel(self.extractorGroup)
        self.extractorLabel.setObjectName(u"extractorLabel")

        self.extractorLayout.setWidget(0, QFormLayout.ItemRole.LabelRole, self.extractorLabel)

        self.extractorChoice = QComboBox(self.extractorGroup)
        self.extractorChoice.setObjectName(u"extractorChoice")

        self.extractorLayout.setWidget(0, QFormLayout.ItemRole.FieldRole, self.extractorChoice)

        self.apiKeyLabel = QLabel(self.extractorGroup)
        self.apiKeyLabel.setObjectName(u"apiKeyLabel")

        self.extractorLayout.setWidget(1, QFormLayout.ItemRole.LabelRole, self.apiKeyLabel)

        self.apiKeyRow = QHBoxLayout()
        self.apiKeyRow.setObjectName(u"apiKeyRow")
        self.apiKey = QLineEdit(self.extractorGroup)
        self.apiKey.setObjectName(u"apiKey")
        self.apiKey.setEchoMode(QLineEdit.Password)

        self.apiKeyRow.addWidget(self.apiKey)

        self.saveKey = QPushButton(self.extractorGroup)
        self.saveKey.setObjectName(u"saveKey")

        self.apiKeyRow.addWidget(self.saveKey)


        self.extractorLayout.setLayout(1, QFormLayout.ItemRole.FieldRole, self.apiKeyRow)

        self.keySource = QLabel(self.extractorGroup)
        self.keySource.setObjectName(u"keySource")
        self.keySource.setWordWrap(True)

        self.extractorLayout.setWidget(2, QFormLayout.ItemRole.FieldRole, self.keySource)

        self.modelLabel = QLabel(self.extractorGroup)
        self.modelLabel.setObjectName(u"modelLabel")

        self.extractorLayout.setWidget(3, QFormLayout.ItemRole.LabelRole, self.modelLabel)

        self.model = QLineEdit(self.extractorGroup)
        self.model.setObjectName(u"model")

        self.extractorLayout.setWidget(3, QFormLayout.ItemRole.FieldRole, self.model)

        self.connectionRow = QHBoxLayout()
        self.connectionRow.setObjectName(u"connectionRow")
        self.testConnection = QPushButton(self.extractorGroup)
        self.testConnection.setObjectName(u"testConnection")

        self.connectionRow.addWidget(self.testConnection)

        self.connectionResult = QLabel(self.extractorGroup)
        self.connectionResult.setObjectName(u"connectionResult")
        self.connectionResult.setWordWrap(True)

        self.connectionRow.addWidget(self.connectionResult)

        self.connectionSpacer = QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        self.connectionRow.addItem(self.connectionSpacer)


        self.extractorLayout.setLayout(4, QFormLayout.ItemRole.FieldRole, self.connectionRow)

        self.thresholdLabel = QLabel(self.extractorGroup)
        self.thresholdLabel.setObjectName(u"thresholdLabel")

        self.extractorLayout.setWidget(5, QFormLayout.ItemRole.LabelRole, self.thresholdLabel)

        self.threshold = QLabel(self.extractorGroup)
        self.threshold.setObjectName(u"threshold")

        self.extractorLayout.setWidget(5, QFormLayout.ItemRole.FieldRole, self.threshold)

        self.extractorHint = QLabel(self.extractorGroup)
        self.extractorHint.setObjectName(u"extractorHint")
        self.extractorHint.setWordWrap(True)

        self.extractorLayout.setWidget(6, QFormLayout.ItemRole.FieldRole, self.extractorHint)


        self.outerLayout.addWidget(self.extractorGroup)

        self.conflictsGroup = QGroupBox(SettingsForm)
        self.conflictsGroup.setObjectName(u"conflictsGroup")
        self.conflictsLayout = QVBoxLayout(self.conflictsGroup)
        self.conflictsLayout.setObjectName(u"conflictsLayout")
        self.autoResolve = QCheckBox(self.conflictsGroup)
        self.autoResolve.setObjectName(u"autoResolve")

        self.conflictsLayout.addWidget(self.autoResolve)

        self.judgeHint = QLabel(self.conflictsGroup)
        self.judgeHint.setObjectName(u"judgeHint")
        self.judgeHint.setWordWrap(True)

        self.conflictsLayout.addWidget(self.judgeHint)


        self.outerLayout.addWidget(self.conflictsGroup)

        self.categoriesGroup = QGroupBox(SettingsForm)
        self.categoriesGroup.setObjectName(u"categoriesGroup")
        self.categoriesLayout = QVBoxLayout(self.categoriesGroup)
        self.categoriesLayout.setObjectName(u"categoriesLayout")
        self.categories = QTreeWidget(self.categoriesGroup)
        self.categories.setObjectName(u"categories")
        self.categories.setRootIsDecorated(False)
        self.categories.setAlternatingRowColors(True)

        self.categoriesLayout.addWidget(self.categories)


        self.outerLayout.addWidget(self.categoriesGroup)

#if QT_CONFIG(shortcut)
        self.extractorLabel.setBuddy(self.extractorChoice)
        self.apiKeyLabel.setBuddy(self.apiKey)
        self.modelLabel.setBuddy(self.model)
#endif // QT_CONFIG(shortcut)

        self.retranslateUi(SettingsForm)

        QMetaObject.connectSlotsByName(SettingsForm)
    # setupUi

    def retranslateUi(self, SettingsForm):
        self.storageGroup.setTitle(QCoreApplication.translate("SettingsForm", u"Storage", None))
        self.dataDirLabel.setText(QCoreApplication.translate("SettingsForm", u"Data folder:", None))
        self.openDataDir.setText(QCoreApplication.translate("SettingsForm", u"Open Folder", None))
        self.databaseLabel.setText(QCoreApplication.translate("SettingsForm", u"Database:", None))
        self.storageHint.setText(QCoreApplication.translate("SettingsForm", u"Change it with --data-dir, the MEMORY_APP_DATA_DIR environment variable or --db-url. The file is backed up before every schema upgrade.", None))
        self.extractorGroup.setTitle(QCoreApplication.translate("SettingsForm", u"Extractor", None))
        self.extractorLabel.setText(QCoreApplication.translate("SettingsForm", u"E&xtractor:", None))
        self.apiKeyLabel.setText(QCoreApplication.translate("SettingsForm", u"API &key:", None))
        self.apiKey.setPlaceholderText(QCoreApplication.translate("SettingsForm", u"sk-ant-\u2026", None))
        self.saveKey.setText(QCoreApplication.translate("SettingsForm", u"Save in Keyring", None))
        self.modelLabel.setText(QCoreApplication.translate("SettingsForm", u"&Model:", None))
        self.testConnection.setText(QCoreApplication.translate("SettingsForm", u"&Test Connection", None))
        self.thresholdLabel.setText(QCoreApplication.translate("SettingsForm", u"Confidence threshold:", None))
        self.threshold.setText(QCoreApplication.translate("SettingsForm", u"0.75", None))
        self.extractorHint.setText(QCoreApplication.translate("SettingsForm", u"The offline extractor learns explicit preferences, decisions, conventions and bug fixes stated in prose, with no network. Claude reads conversations more deeply and merges new memories into each category's summary; it needs an Anthropic API key, which is kept in the system keyring or the ANTHROPIC_API_KEY variable, never in the database. Memories below the confidence threshold are never stored.", None))
        self.conflictsGroup.setTitle(QCoreApplication.translate("SettingsForm", u"Contradictions", None))
        self.autoResolve.setText(QCoreApplication.translate("SettingsForm", u"Resolve &automatically: the newer memory wins when it is at least as confident", None))
#if QT_CONFIG(tooltip)
        self.autoResolve.setToolTip(QCoreApplication.translate("SettingsForm", u"Recorded as resolved automatically; undo from the Conflicts view. Off: every contradiction waits for you.", None))
#endif // QT_CONFIG(tooltip)
        self.judgeHint.setText(QCoreApplication.translate("SettingsForm", u"Contradictions are found by rules (opposite wording, \"switched from \u2026 to \u2026\", different values for one setting); with the Claude extractor chosen, Claude judges the candidates too, and each pair is judged only once.", None))
        self.categoriesGroup.setTitle(QCoreApplication.translate("SettingsForm", u"Categories", None))
        ___qtreewidgetitem = self.categories.headerItem()
        ___qtreewidgetitem.setText(2, QCoreApplication.translate("SettingsForm", u"Description", None))
        ___qtreewidgetitem.setText(1, QCoreApplication.translate("SettingsForm", u"Memories", None))
        ___qtreewidgetitem.setText(0, QCoreApplication.translate("SettingsForm", u"Category", None))
        pass
    # retranslateUi

