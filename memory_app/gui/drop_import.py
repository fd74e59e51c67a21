"""Importing what is dropped on the window: which dropped things can be imported, what to
say about the rest, and the highlight shown while something is dragged over the window.

Only files and folders on this computer are imported (a file manager drags them as
`text/uri-list` with `file:` URLs), the files only of the kinds File > Import reads; a
web address, a file of another kind, or text is refused with a sentence saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QMimeData, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QWidget

from memory_app.ingest import DISCOVERED_SUFFIXES

KINDS = "Claude Code sessions (.jsonl), markdown (.md), text (.txt) or folders"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


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
        folders = sum(1 for p in self.paths if p.is_dir())
        files = len(self.paths) - folders
        parts = []
        if files:
            parts.append(_plural(files, "file", "files"))
        if folders:
            parts.append(_plural(folders, "folder", "folders"))
        return f"Drop to import {' and '.join(parts)}"

    def refusal(self) -> str:
        """Why (part of) the drop is not imported; empty when all of it is."""
        if self.no_files:
            return f"Only files and folders can be dropped here: {KINDS}."
        reasons = []
        if self.not_local:
            reasons.append(
                f"{_shown(self.not_local)} is not a file on this computer"
                if len(self.not_local) == 1
                else f"{_shown(self.not_local)} are not files on this computer"
            )
        if self.unsupported:
            reasons.append(f"{_shown(self.unsupported)}: not a kind that can be imported")
        if self.missing:
            reasons.append(f"{_shown(self.missing)}: not found")
        if not reasons:
            return ""
        start = "Skipped" if self.paths else "Cannot import"
        hint = "" if self.paths or not self.unsupported else f" Drop {KINDS}."
        return f"{start} {'; '.join(reasons)}.{hint}"


def _shown(names: tuple[str, ...], limit: int = 2) -> str:
    shown = ", ".join(names[:limit])
    more = len(names) - limit
    return f"{shown} and {more} more" if more > 0 else shown


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
