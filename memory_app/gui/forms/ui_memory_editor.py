# -*- coding: utf-8 -*-

################################################################################
## Form generated from reading UI file 'memory_editor.ui'
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
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDateTimeEdit,
    QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel,
    QLineEdit, QListWidget, QListWidgetItem, QPlainTextEdit,
    QPushButton, QSizePolicy, QSpacerItem, QVBoxLayout,
    QWidget)

class Ui_MemoryEditorForm(object):
    def setupUi(self, MemoryEditorForm):
        if not MemoryEditorForm.objectName():
            MemoryEditorForm.setObjectName(u"MemoryEditorForm")
        MemoryEditorForm.resize(340, 640)
        self.outerLayout = QVBoxLayout(MemoryEditorForm)
        self.outerLayout.setSpacing(8)
        self.outerLayout.setObjectName(u"outerLayout")
        self.outerLayout.setContentsMargins(12, 8, 12, 8)
        self.heading = QLabel(MemoryEditorForm)
        self.heading.setObjectName(u"heading")

        self.outerLayout.addWidget(self.heading)

        self.content = QPlainTextEdit(MemoryEditorForm)
        self.content.setObjectName(u"content")
        self.content.setTabChangesFocus(True)
        self.content.setMinimumSize(QSize(0, 90))

        self.outerLayout.addWidget(self.content)

        self.contentError = QLabel(MemoryEditorForm)
        self.contentError.setObjectName(u"contentError")
        self.contentError.setWordWrap(True)

        self.outerLayout.addWidget(self.contentError)

        self.fields = QFormLayout()
        self.fields.setObjectName(u"fields")
        self.fields.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.categoryLabel = QLabel(MemoryEditorForm)
        self.categoryLabel.setObjectName(u"categoryLabel")

        self.fields.setWidget(0, QFormLayout.ItemRole.LabelRole, self.categoryLabel)

        self.category = QComboBox(MemoryEditorForm)
        self.category.setObjectName(u"category")

        self.fields.setWidget(0, QFormLayout.ItemRole.FieldRole, self.category)

        self.categoryError = QLabel(MemoryEditorForm)
        self.categoryError.setObjectName(u"categoryError")
        self.categoryError.setWordWrap(True)

        self.fields.setWidget(1, QFormLayout.ItemRole.FieldRole, self.categoryError)

        self.confidenceLabel = QLabel(MemoryEditorForm)
        self.confidenceLabel.setObjectName(u"confidenceLabel")

        self.fields.setWidget(2, QFormLayout.ItemRole.LabelRole, self.confidenceLabel)

        self.confidence = QDoubleSpinBox(MemoryEditorForm)
        self.confidence.setObjectName(u"confidence")
        self.confidence.setDecimals(2)
        self.confidence.setMinimum(0.000000000000000)
        self.confidence.setMaximum(1.000000000000000)
        self.confidence.setSingleStep(0.050000000000000)

        self.fields.setWidget(2, QFormLayout.ItemRole.FieldRole, self.confidence)

        self.confidenceError = QLabel(MemoryEditorForm)
        self.confidenceError.setObjectName(u"confidenceError")
        self.confidenceError.setWordWrap(True)

        self.fields.setWidget(3, QFormLayout.ItemRole.FieldRole, self.confidenceError)

        self.typeLabel = QLabel(MemoryEditorForm)
        self.typeLabel.setObjectName(u"typeLabel")

        self.fields.setWidget(4, QFormLayout.ItemRole.LabelRole, self.typeLabel)

        self.type = QComboBox(MemoryEditorForm)
        self.type.setObjectName(u"type")

        self.fields.setWidget(4, QFormLayout.ItemRole.FieldRole, self.type)

        self.typeError = QLabel(MemoryEditorForm)
        self.typeError.setObjectName(u"typeError")
        self.typeError.setWordWrap(True)

        self.fields.setWidget(5, QFormLayout.ItemRole.FieldRole, self.typeError)

        self.importanceLabel = QLabel(MemoryEditorForm)
        self.importanceLabel.setObjectName(u"importanceLabel")

        self.fields.setWidget(6, QFormLayout.ItemRole.LabelRole, self.importanceLabel)

        self.importance = QDoubleSpinBox(MemoryEditorForm)
        self.importance.setObjectName(u"importance")
        self.importance.setDecimals(2)
        self.importance.setMinimum(0.000000000000000)
        self.importance.setMaximum(1.000000000000000)
        self.importance.setSingleStep(0.050000000000000)

        self.fields.setWidget(6, QFormLayout.ItemRole.FieldRole, self.importance)

        self.importanceError = QLabel(MemoryEditorForm)
        self.importanceError.setObjectName(u"importanceError")
        self.importanceError.setWordWrap(True)

        self.fields.setWidget(7, QFormLayout.ItemRole.FieldRole, self.importanceError)

        self.scopeLabel = QLabel(MemoryEditorForm)
        self.scopeLabel.setObjectName(u"scopeLabel")

        self.fields.setWidget(8, QFormLayout.ItemRole.LabelRole, self.scopeLabel)

        self.scope = QComboBox(MemoryEditorForm)
        self.scope.setObjectName(u"scope")

        self.fields.setWidget(8, QFormLayout.ItemRole.FieldRole, self.scope)

        self.scopeError = QLabel(MemoryEditorForm)
        self.scopeError.setObjectName(u"scopeError")
        self.scopeError.setWordWrap(True)

        self.fields.setWidget(9, QFormLayout.ItemRole.FieldRole, self.scopeError)

        self.tagsLabel = QLabel(MemoryEditorForm)
        self.tagsLabel.setObjectName(u"tagsLabel")

        self.fields.setWidget(10, QFormLayout.ItemRole.LabelRole, self.tagsLabel)

        self.tags = QLineEdit(MemoryEditorForm)
        self.tags.setObjectName(u"tags")

        self.fields.setWidget(10, QFormLayout.ItemRole.FieldRole, self.tags)

        self.tagsError = QLabel(MemoryEditorForm)
        self.tagsError.setObjectName(u"tagsError")
        self.tagsError.setWordWrap(True)

        self.fields.setWidget(11, QFormLayout.ItemRole.FieldRole, self.tagsError)

        self.pinned = QCheckBox(MemoryEditorForm)
        self.pinned.setObjectName(u"pinned")

        self.fields.setWidget(12, QFormLayout.ItemRole.FieldRole, self.pinned)

        self.validFromLabel = QLabel(MemoryEditorForm)
        self.validFromLabel.setObjectName(u"validFromLabel")

        self.fields.setWidget(13, QFormLayout.ItemRole.LabelRole, self.validFromLabel)

        self.validFromRow = QHBoxLayout()
        self.validFromRow.setObjectName(u"validFromRow")
        self.hasValidFrom = QCheckBox(MemoryEditorForm)
        self.hasValidFrom.setObjectName(u"hasValidFrom")

        self.validFromRow.addWidget(self.hasValidFrom)

        self.validFrom = QDateTimeEdit(MemoryEditorForm)
        self.validFrom.setObjectName(u"validFrom")
        self.validFrom.setCalendarPopup(True)

        self.validFromRow.addWidget(self.validFrom)


        self.fields.setLayout(13, QFormLayout.ItemRole.FieldRole, self.validFromRow)

        self.validUntilLabel = QLabel(MemoryEditorForm)
        self.validUntilLabel.setObjectName(u"validUntilLabel")

        self.fields.setWidget(14, QFormLayout.ItemRole.LabelRole, self.validUntilLabel)

        self.validUntilRow = QHBoxLayout()
        self.validUntilRow.setObjectName(u"validUntilRow")
        self.hasValidUntil = QCheckBox(MemoryEditorForm)
        self.hasValidUntil.setObjectName(u"hasValidUntil")

        self.validUntilRow.addWidget(self.hasValidUntil)

        self.validUntil = QDateTimeEdit(MemoryEditorForm)
        self.validUntil.setObjectName(u"validUntil")
        self.validUntil.setCalendarPopup(True)

        self.validUntilRow.addWidget(self.validUntil)


        self.fields.setLayout(14, QFormLayout.ItemRole.FieldRole, self.validUntilRow)

        self.validityError = QLabel(MemoryEditorForm)
        self.validityError.setObjectName(u"validityError")
        self.validityError.setWordWrap(True)

        self.fields.setWidget(15, QFormLayout.ItemRole.FieldRole, self.validityError)


        self.outerLayout.addLayout(self.fields)

        self.buttons = QHBoxLayout()
        self.buttons.setObjectName(u"buttons")
        self.archive = QPushButton(MemoryEditorForm)
        self.archive.setObjectName(u"archive")

        self.buttons.addWidget(self.archive)

        self.buttonSpacer = QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        self.buttons.addItem(self.buttonSpacer)

        self.revert = QPushButton(MemoryEditorForm)
        self.revert.setObjectName(u"revert")

        self.buttons.addWidget(self.revert)

        self.save = QPushButton(MemoryEditorForm)
        self.save.setObjectName(u"save")

        self.buttons.addWidget(self.save)


        self.outerLayout.addLayout(self.buttons)

        self.sourceHeading = QLabel(MemoryEditorForm)
        self.sourceHeading.setObjectName(u"sourceHeading")

        self.outerLayout.addWidget(self.sourceHeading)

        self.source = QLabel(MemoryEditorForm)
        self.source.setObjectName(u"source")
        self.source.setWordWrap(True)
        self.source.setOpenExternalLinks(False)

        self.outerLayout.addWidget(self.source)

        self.usage = QLabel(MemoryEditorForm)
        self.usage.setObjectName(u"usage")
        self.usage.setWordWrap(True)

        self.outerLayout.addWidget(self.usage)

        self.historyHeading = QLabel(MemoryEditorForm)
        self.historyHeading.setObjectName(u"historyHeading")

        self.outerLayout.addWidget(self.historyHeading)

        self.history = QListWidget(MemoryEditorForm)
        self.history.setObjectName(u"history")
        self.history.setMinimumSize(QSize(0, 80))

        self.outerLayout.addWidget(self.history)

#if QT_CONFIG(shortcut)
        self.categoryLabel.setBuddy(self.category)
        self.confidenceLabel.setBuddy(self.confidence)
        self.typeLabel.setBuddy(self.type)
        self.importanceLabel.setBuddy(self.importance)
        self.scopeLabel.setBuddy(self.scope)
        self.tagsLabel.setBuddy(self.tags)
        self.validFromLabel.setBuddy(self.validFrom)
        self.validUntilLabel.setBuddy(self.validUntil)
#endif // QT_CONFIG(shortcut)
        QWidget.setTabOrder(self.content, self.category)
        QWidget.setTabOrder(self.category, self.confidence)
        QWidget.setTabOrder(self.confidence, self.type)
        QWidget.setTabOrder(self.type, self.importance)
        QWidget.setTabOrder(self.importance, self.scope)
        QWidget.setTabOrder(self.scope, self.tags)
        QWidget.setTabOrder(self.tags, self.pinned)
        QWidget.setTabOrder(self.pinned, self.hasValidFrom)
        QWidget.setTabOrder(self.hasValidFrom, self.validFrom)
        QWidget.setTabOrder(self.validFrom, self.hasValidUntil)
        QWidget.setTabOrder(self.hasValidUntil, self.validUntil)
        QWidget.setTabOrder(self.validUntil, self.archive)
        QWidget.setTabOrder(self.archive, self.revert)
        QWidget.setTabOrder(self.revert, self.save)

        self.retranslateUi(MemoryEditorForm)

        self.save.setDefault(True)


        QMetaObject.connectSlotsByName(MemoryEditorForm)
    # setupUi

    def retranslateUi(self, MemoryEditorForm):
        self.heading.setText(QCoreApplication.translate("MemoryEditorForm", u"Memory", None))
        self.content.setPlaceholderText(QCoreApplication.translate("MemoryEditorForm", u"What should the assistant remember?", None))
        self.categoryLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"&Category:", None))
        self.confidenceLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"C&onfidence:", None))
        self.typeLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"T&ype:", None))
#if QT_CONFIG(tooltip)
        self.type.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"What kind of memory this is: a preference, a rule, a decision, a fact\u2026", None))
#endif // QT_CONFIG(tooltip)
        self.importanceLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"&Importance:", None))
#if QT_CONFIG(tooltip)
        self.importance.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"How much this memory matters when context is chosen (0 to 1)", None))
#endif // QT_CONFIG(tooltip)
        self.scopeLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"&Scope:", None))
#if QT_CONFIG(tooltip)
        self.scope.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"Where this memory applies: one session, its project, or everywhere", None))
#endif // QT_CONFIG(tooltip)
        self.tagsLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"&Tags:", None))
        self.tags.setPlaceholderText(QCoreApplication.translate("MemoryEditorForm", u"python, testing", None))
        self.pinned.setText(QCoreApplication.translate("MemoryEditorForm", u"&Pinned", None))
#if QT_CONFIG(tooltip)
        self.pinned.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"Pinned memories are never archived, merged or decayed by maintenance.", None))
#endif // QT_CONFIG(tooltip)
        self.validFromLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"Valid &from:", None))
        self.validFrom.setDisplayFormat(QCoreApplication.translate("MemoryEditorForm", u"yyyy-MM-dd HH:mm", None))
        self.validUntilLabel.setText(QCoreApplication.translate("MemoryEditorForm", u"Valid &until:", None))
        self.validUntil.setDisplayFormat(QCoreApplication.translate("MemoryEditorForm", u"yyyy-MM-dd HH:mm", None))
        self.archive.setText(QCoreApplication.translate("MemoryEditorForm", u"&Archive", None))
#if QT_CONFIG(tooltip)
        self.archive.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"Put this memory away: kept, but out of search, context and the counts (undo with Ctrl+Z)", None))
#endif // QT_CONFIG(tooltip)
        self.revert.setText(QCoreApplication.translate("MemoryEditorForm", u"&Revert", None))
        self.save.setText(QCoreApplication.translate("MemoryEditorForm", u"&Save", None))
        self.sourceHeading.setText(QCoreApplication.translate("MemoryEditorForm", u"<b>Source</b>", None))
#if QT_CONFIG(tooltip)
        self.usage.setToolTip(QCoreApplication.translate("MemoryEditorForm", u"How often Claude Code's recall hooks gave this memory to the assistant, and whether the answer that followed used it.", None))
#endif // QT_CONFIG(tooltip)
        self.historyHeading.setText(QCoreApplication.translate("MemoryEditorForm", u"<b>History</b>", None))
        pass
    # retranslateUi

