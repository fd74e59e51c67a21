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
from PySide6.QtWidgets import (QApplication, QFormLayout, QGroupBox, QHBoxLayout,
    QHeaderView, QLabel, QLineEdit, QPushButton,
    QSizePolicy, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
    QWidget)

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
        self.extractorLabel = QLabel(self.extractorGroup)
        self.extractorLabel.setObjectName(u"extractorLabel")

        self.extractorLayout.setWidget(0, QFormLayout.ItemRole.LabelRole, self.extractorLabel)

        self.extractorName = QLabel(self.extractorGroup)
        self.extractorName.setObjectName(u"extractorName")

        self.extractorLayout.setWidget(0, QFormLayout.ItemRole.FieldRole, self.extractorName)

        self.thresholdLabel = QLabel(self.extractorGroup)
        self.thresholdLabel.setObjectName(u"thresholdLabel")

        self.extractorLayout.setWidget(1, QFormLayout.ItemRole.LabelRole, self.thresholdLabel)

        self.threshold = QLabel(self.extractorGroup)
        self.threshold.setObjectName(u"threshold")

        self.extractorLayout.setWidget(1, QFormLayout.ItemRole.FieldRole, self.threshold)

        self.extractorHint = QLabel(self.extractorGroup)
        self.extractorHint.setObjectName(u"extractorHint")
        self.extractorHint.setWordWrap(True)

        self.extractorLayout.setWidget(2, QFormLayout.ItemRole.FieldRole, self.extractorHint)


        self.outerLayout.addWidget(self.extractorGroup)

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
        self.extractorLabel.setText(QCoreApplication.translate("SettingsForm", u"In use:", None))
        self.extractorName.setText(QCoreApplication.translate("SettingsForm", u"Offline (rule-based)", None))
        self.thresholdLabel.setText(QCoreApplication.translate("SettingsForm", u"Confidence threshold:", None))
        self.threshold.setText(QCoreApplication.translate("SettingsForm", u"0.75", None))
        self.extractorHint.setText(QCoreApplication.translate("SettingsForm", u"The offline extractor learns explicit preferences, decisions, conventions and bug fixes stated in prose. Memories below the confidence threshold are never stored.", None))
        self.categoriesGroup.setTitle(QCoreApplication.translate("SettingsForm", u"Categories", None))
        ___qtreewidgetitem = self.categories.headerItem()
        ___qtreewidgetitem.setText(2, QCoreApplication.translate("SettingsForm", u"Description", None))
        ___qtreewidgetitem.setText(1, QCoreApplication.translate("SettingsForm", u"Memories", None))
        ___qtreewidgetitem.setText(0, QCoreApplication.translate("SettingsForm", u"Category", None))
        pass
    # retranslateUi

