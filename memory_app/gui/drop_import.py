"""Importing what is dropped on the window: which dropped things can be imported, what to
say about the rest, and the highlight shown while something is dragged over the window.

Only files and folders on this computer are imported (a file manager drags them as
`text/uri-list` with `file:` URLs), the files only of the kinds File > Import reads; a
web address, a file of another kind, or text is refused with a sentence saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QWidget

from memory_app.ingest import DISCOVERED_SUFFIXES


@dataclass(frozen=True)
class DropPlan:
    """What a drop would import, and what it cannot (with the reason, in words)."""

    paths: tuple[Path, ...] = ()
    not_local: tuple[str, ...] = ()  # web addresses and other non-file URLs
    unsupported: tuple[str, ...] = ()  # local files of a kind no importer reads
    missing: tuple[str, ...] = ()  # local paths that do not exist (any more)
    no_files: bool = False  # text or something else without URLs

    @property
    def accepted(self) -> bool:
        return bool(self.paths)

    def describe(self) -> str:
        """What the window shows while it is dragged over: what a drop would do."""
        return _WORDS.describe(self)

    def refusal(self) -> str:
        """Why (part of) the drop is not imported; empty when all of it is."""
        return _WORDS.refusal(self)


class DropWords(QObject):
    """What is said about a drop, in the person's language (a QObject: lupdate collects
    counted phrases from `self.tr` only, see gui/times.py)."""

    def kinds(self) -> str:
        return self.tr("Claude Code sessions (.jsonl), markdown (.md), text (.txt) or folders")

    def describe(self, plan: DropPlan) -> str:
        folders = sum(1 for p in plan.paths if p.is_dir())
        files = len(plan.paths) - folders
        if files and folders:
            return self.tr("Drop to import {files} and {folders}").format(
                files=self.tr("%Ln files", "", files), folders=self.tr("%Ln folders", "", folders)
            )
        if folders:
            return self.tr("Drop to import %Ln folders", "", folders)
        return self.tr("Drop to import %Ln files", "", files)

    def refusal(self, plan: DropPlan) -> str:
        if plan.no_files:
            return self.tr("Only files and folders can be dropped here: {kinds}.").format(
                kinds=self.kinds()
            )
        reasons = []
        if plan.not_local:
            # The count chooses "is not a file" or "are not files"; the names are shown.
            reasons.append(
                self.tr("{names} are not files on this computer", "", len(plan.not_local)).format(
                    names=self.shown(plan.not_local)
                )
            )
        if plan.unsupported:
            reasons.append(
                self.tr("{names}: not a kind that can be imported").format(
                    names=self.shown(plan.unsupported)
                )
            )
        if plan.missing:
            reasons.append(self.tr("{names}: not found").format(names=self.shown(plan.missing)))
        if not reasons:
            return ""
        listed = "; ".join(reasons)
        if plan.paths:
            return self.tr("Skipped {reasons}.").format(reasons=listed)
        refused = self.tr("Cannot import {reasons}.").format(reasons=listed)
        if not plan.unsupported:
            return refused
        return self.tr("{refused} Drop {kinds}.").format(refused=refused, kinds=self.kinds())

    def shown(self, names: tuple[str, ...], limit: int = 2) -> str:
        shown = ", ".join(names[:limit])
        more = len(names) - limit
        if more <= 0:
            return shown
        return self.tr("{names} and {count} more").format(names=shown, count=more)


_WORDS = DropWords()


def plan_drop(mime: QMimeData | None) -> DropPlan:
    """Sort dropped data into what can be imported and what cannot."""
    if mime is None or not mime.hasUrls():
        return DropPlan(no_files=True)
    paths: list[Path] = []
    not_local: list[str] = []
    unsupported: list[str] = []
    missing: list[str] = []
    for url in mime.urls():
        if not url.isLocalFile():
            not_local.append(url.toDisplayString())
            continue
        path = Path(url.toLocalFile())
        if path.is_dir() or (path.is_file() and path.suffix.lower() in DISCOVERED_SUFFIXES):
            if path not in paths:
                paths.append(path)
        elif path.exists():
            unsupported.append(path.name)
        else:
            missing.append(path.name or str(path))
    return DropPlan(tuple(paths), tuple(not_local), tuple(unsupported), tuple(missing))


class DropHighlight(QWidget):
    """Drawn over the window's content while files are dragged over it: a frame in the
    palette's highlight colour and a label saying what a drop would do."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("dropHighlight")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.text = ""
        self.hide()

    def show_over(self, target: QWidget, text: str) -> None:
        self.text = text
        self.setGeometry(target.geometry())
        self.raise_()
        self.show()
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        highlight = palette.color(QPalette.ColorRole.Highlight)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        wash = QColor(highlight)
        wash.setAlphaF(0.12)
        painter.fillRect(self.rect(), wash)
        painter.setPen(QPen(highlight, 3, Qt.PenStyle.DashLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(4, 4, -4, -4), 8, 8)
        if not self.text:
            return
        font = painter.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        width = metrics.horizontalAdvance(self.text) + 40
        height = metrics.height() + 24
        box = QRectF((self.width() - width) / 2, (self.height() - height) / 2, width, height)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(highlight)
        painter.drawRoundedRect(box, 8, 8)
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.text)
