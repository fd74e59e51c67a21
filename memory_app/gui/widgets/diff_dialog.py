"""The exact change an export makes to CLAUDE.md, shown before anything is written.

CLAUDE.md is the person's file: the app only asks to replace its own block, and shows the
unified diff first so nothing surprising lands in a file an assistant reads every session.
The dialog is opened with `open()` (not `exec()`), so callers react to `accepted`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from memory_app.gui.colours import muted_style
from memory_app.retrieval.claude_md_export import ClaudeMdExport

# Translucent tints read on light and dark palettes alike (text keeps the palette colour).
ADDED = QColor(46, 160, 67, 70)
REMOVED = QColor(248, 81, 73, 70)
HUNK = QColor(84, 174, 255, 45)


def plural(count: int, one: str, many: str | None = None) -> str:
    """Kept for callers elsewhere; the dialog's own counts are Qt plural forms."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def line_tint(line: str) -> QColor | None:
    """The background of a unified-diff line: added, removed, hunk header, or none."""
    if line.startswith(("+++", "---")):
        return None
    if line.startswith("+"):
        return ADDED
    if line.startswith("-"):
        return REMOVED
    if line.startswith("@@"):
        return HUNK
    return None


class DiffView(QPlainTextEdit):
    """A read-only unified diff in a monospace font, added lines green, removed red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("claudeMdDiff")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))

    def show_diff(self, diff: str) -> None:
        self.setPlainText(diff)
        # Full-width selections colour the whole line, not just the characters on it.
        selections = []
        block = self.document().firstBlock()
        while block.isValid():
            tint = line_tint(block.text())
            if tint is not None:
                selection = QTextEdit.ExtraSelection()
                char_format = QTextCharFormat()
                char_format.setBackground(tint)
                char_format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                selection.format = char_format
                cursor = self.textCursor()
                cursor.setPosition(block.position())
                selection.cursor = cursor
                selections.append(selection)
            block = block.next()
        self.setExtraSelections(selections)


class DiffDialog(QDialog):
    """Asks to write a planned CLAUDE.md export, showing its diff and what it leaves out."""

    def __init__(self, export: ClaudeMdExport, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("claudeMdDiffDialog")
        self.setWindowTitle(self.tr("Export to {file}").format(file=path.name))
        self.export = export
        self.summary = QLabel(self.export_summary(export, path), self)
        self.summary.setObjectName("exportSummary")
        self.summary.setWordWrap(True)
        self.note = QLabel(
            self.tr(
                "Only the text between the memory-curator markers is replaced; the rest of "
                "the file stays exactly as it is."
            ),
            self,
        )
        self.note.setWordWrap(True)
        self.note.setStyleSheet(muted_style(self.palette()))
        self.diff_view = DiffView(self)
        self.diff_view.show_diff(export.diff())
        self.buttons = QDialogButtonBox(self)
        self.write_button = self.buttons.addButton(
            self.tr("&Write"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.write_button.setToolTip(
            self.tr("Write the managed block into {path}").format(path=path)
        )
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.note)
        layout.addWidget(self.diff_view, 1)
        layout.addWidget(self.buttons)
        self.resize(820, 560)

    def export_summary(self, export: ClaudeMdExport, path: Path) -> str:
        """One line on what the export writes and what it leaves out, and why."""
        return self.tr(
            "Writes %Ln memories to {path}; {dropped} left out by the size cap; "
            "{conflicted} in unresolved conflicts left out.",
            "",
            len(export.included),
        ).format(
            path=path,
            dropped=f"{len(export.dropped):,}",
            conflicted=f"{len(export.conflicted):,}",
        )
