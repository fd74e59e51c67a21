"""The dashboard's charts: small read-only pyqtgraph plots in palette colours.

Each chart is a titled panel that shows its plot, or a centred note when there is
nothing to plot. Data goes in as plain Python values through `set_data(...)` and can be
read back from `data`. A dashboard is not an analysis tool, so panning, zooming, the
context menu and pyqtgraph's auto-range button are all switched off; hovering a bar or
a point tells its exact value instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QLocale, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QCursor,
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QLabel,
    QSizePolicy,
    QStackedLayout,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from memory_app.gui.translations import translate

NO_DATA = "No data yet"  # in English; shown translated by ChartPanel.no_data()


def paint_panel(widget: QWidget, highlighted: bool = False) -> None:
    """Fill a widget with Base inside a rounded, subtle (Mid) border."""
    palette = widget.palette()
    painter = QPainter(widget)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    role = QPalette.ColorRole.Highlight if highlighted else QPalette.ColorRole.Mid
    painter.setPen(QPen(palette.color(role), 1.0))
    painter.setBrush(palette.color(QPalette.ColorRole.Base))
    painter.drawRoundedRect(QRectF(widget.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6.0, 6.0)


def count_ticks(maximum: float, target: int = 4) -> tuple[list[int], int]:
    """Whole-number ticks from 0 past `maximum` in steps of 1, 2 or 5 × 10ⁿ: (ticks, top)."""
    maximum = max(1, math.ceil(maximum))
    raw = maximum / target
    magnitude = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = magnitude
    for multiple in (1, 2, 5, 10):
        step = max(1, int(multiple * magnitude))
        if step >= raw:
            break
    top = step * math.ceil(maximum / step)
    return list(range(0, top + 1, step)), top


def week_label(day: date) -> str:
    """ "Jun 8": a week start the way calendars say it (the month's short name in the
    locale's language)."""
    #: A week's first day under the weekly chart: "Jun 8".
    return translate("ChartPanel", "{month} {day}").format(
        month=QLocale().monthName(day.month, QLocale.FormatType.ShortFormat), day=day.day
    )


def fit_labels(names: Sequence[str], room: float, metrics: QFontMetrics) -> tuple[list[str], int]:
    """The most complete form of category names that fits `room` pixels each.

    Tries the names on one line, then wrapped on two, then each name's first word
    or, where that is too long, abbreviated ("Architectural decisions" → "Arch."), so
    neighbours never overlap (the full name is in the bar's tooltip).
    Returns the labels and how many lines they take.
    """

    def fits(label: str) -> bool:
        return all(metrics.horizontalAdvance(line) <= room for line in label.split("\n"))

    if all(fits(name) for name in names):
        return list(names), 1
    wrapped = [_wrap_in_two(name, metrics) for name in names]
    if all(fits(label) for label in wrapped):
        return wrapped, max(label.count("\n") + 1 for label in wrapped)
    return [_shorten(name, fits) for name in names], 1


def abbreviate(word: str) -> str:
    """A word cut after its first syllable: "Architectural" → "Arch.", "Bug" → "Bug"."""
    match = re.match(r"[^aeiouy]*[aeiouy]+[^aeiouy]+", word, re.IGNORECASE)
    if match is None or len(match.group()) >= len(word):
        return word
    return match.group() + "."


def _shorten(name: str, fits: Callable[[str], bool]) -> str:
    word = (name.split() or [name])[0]
    for candidate in (word, abbreviate(word)):
        if fits(candidate):
            return candidate
    for length in range(len(word) - 1, 1, -1):
        if fits(word[:length] + "."):
            return word[:length] + "."
    return word[:1]


def _wrap_in_two(name: str, metrics: QFontMetrics) -> str:
    words = name.split()
    if len(words) < 2:
        return name
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    first, second = min(
        splits, key=lambda s: max(metrics.horizontalAdvance(s[0]), metrics.horizontalAdvance(s[1]))
    )
    return f"{first}\n{second}"


class StaticPlot(pg.PlotWidget):
    """A plot that leaves the mouse wheel to the page, which scrolls instead of zooming."""

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()


class ChartPanel(QWidget):
    """A titled panel holding one read-only plot, or a note when there is no data.

    Subclasses draw in `_render()` and describe the point under the mouse in `_describe()`.
    """

    MIN_HEIGHT = 230

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(self.MIN_HEIGHT)
        self.setMinimumWidth(180)
        self.title = QLabel(title, self)
        self.title.setObjectName("chartTitle")
        title_font = QFont(self.font())
        title_font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(title_font)
        self.title.setForegroundRole(QPalette.ColorRole.Text)
        self.title.setWordWrap(True)
        self.setAccessibleName(title)

        self.plot = StaticPlot(self)
        self.plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.plot.setFrameShape(pg.PlotWidget.Shape.NoFrame)
        self.plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.plot.setMinimumSize(0, 0)
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        item.layout.setContentsMargins(0, 4, 8, 0)
        self.view_box = item.getViewBox()
        self.view_box.setMenuEnabled(False)
        self.view_box.setMouseEnabled(x=False, y=False)
        self.view_box.disableAutoRange()
        self.view_box.setDefaultPadding(0)
        self.left_axis = item.getAxis("left")
        self.bottom_axis = item.getAxis("bottom")
        self.left_axis.setStyle(tickLength=0, tickTextOffset=6, hideOverlappingLabels=False)
        self.bottom_axis.setStyle(tickLength=0, tickTextOffset=4, hideOverlappingLabels=False)
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.view_box.sigResized.connect(self._layout_ticks)

        self.note = QLabel(self.no_data(), self)
        self.note.setObjectName("chartNote")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        self.pages = QStackedLayout()
        self.pages.addWidget(self.plot)
        self.pages.addWidget(self.note)
        layout.addLayout(self.pages, 1)
        self._hovered_index: int | None = None
        self._apply_palette()
        self._show_note(self.no_data())

    # -- state ------------------------------------------------------------------------

    def no_data(self) -> str:
        """What the panel says when there is nothing to plot."""
        return self.tr("No data yet")

    def has_data(self) -> bool:
        """Whether the plot is shown (rather than the "No data yet" note)."""
        return self.pages.currentWidget() is self.plot

    def note_text(self) -> str:
        return self.note.text()

    def _show_note(self, text: str) -> None:
        self.note.setText(text)
        self.pages.setCurrentWidget(self.note)

    def _show_plot(self) -> None:
        self.pages.setCurrentWidget(self.plot)

    # -- drawing ----------------------------------------------------------------------

    def _colour(self, role: QPalette.ColorRole, alpha: int = 255) -> QColor:
        colour = QColor(self.palette().color(role))
        colour.setAlpha(alpha)
        return colour

    def _tick_font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 0.9)
        return font

    def _apply_palette(self) -> None:
        self.plot.setBackground(self._colour(QPalette.ColorRole.Base))
        text = self._colour(QPalette.ColorRole.Text)
        line = self._colour(QPalette.ColorRole.Mid)
        font = self._tick_font()
        for axis in (self.left_axis, self.bottom_axis):
            axis.setTextPen(text)
            axis.setTickFont(font)
        # The left axis draws no line of its own; `_set_count_axis` draws faint grid lines
        # (not the axis's own grid, which would drop the "0" label at the bottom edge).
        self.left_axis.setPen(self._colour(QPalette.ColorRole.Mid, 0))
        self.bottom_axis.setPen(line)

    def _render(self) -> None:
        """Draw the data (subclasses)."""

    def _layout_ticks(self) -> None:
        """Choose tick labels for the plot's current width (subclasses)."""

    def _describe(self, x: float, y: float) -> str:
        """A tooltip for the data under (x, y) in data coordinates, or "" (subclasses)."""
        return ""

    def _set_count_axis(self, maximum: float, headroom: float = 1.0, below: float = 0.0) -> None:
        """Whole-number ticks with grid lines; `headroom` and `below` pad the range."""
        ticks, top = count_ticks(maximum)
        self.left_axis.setTicks([[(v, f"{v:,}") for v in ticks]])
        grid = pg.mkPen(self._colour(QPalette.ColorRole.Mid, 110), width=1)
        for value in ticks[1:]:
            line = pg.InfiniteLine(value, angle=0, pen=grid, movable=False)
            line.setZValue(-10)  # behind the data
            self.plot.addItem(line)
        self.view_box.setYRange(-top * below, top * headroom, padding=0)

    def _hover(self, scene_pos: QPointF) -> None:
        if not self.has_data() or not self.view_box.sceneBoundingRect().contains(scene_pos):
            self._hovered_index = None
            QToolTip.hideText()
            return
        point = self.view_box.mapSceneToView(scene_pos)
        text = self._describe(point.x(), point.y())
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot)
        else:
            QToolTip.hideText()

    # -- Qt ---------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._apply_palette()
            self._render()
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        paint_panel(self)


class CategoryBarChart(ChartPanel):
    """Memories per category: one bar each, its count above it, names below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Memories per category"), parent)
        self.title.setToolTip(self.tr("Active memories in each category"))
        self._counts: dict[str, int] = {}
        self._names: dict[str, str] = {}
        self.labels: list[str] = []

    @property
    def data(self) -> dict[str, int]:
        """Category key → count, in the order shown."""
        return dict(self._counts)

    def set_data(self, counts: Mapping[str, int], names: Mapping[str, str] | None = None) -> None:
        """Show `counts` (category key → memories) in order; `names` are the display names."""
        self._counts = {key: int(n) for key, n in counts.items()}
        names = names or {}
        self._names = {key: names.get(key) or humanize_key(key) for key in self._counts}
        self._render()

    def _render(self) -> None:
        self.plot.clear()
        if not self._counts or not any(self._counts.values()):
            self._show_note(self.no_data())
            return
        self._show_plot()
        values = list(self._counts.values())
        highlight = self._colour(QPalette.ColorRole.Highlight)
        bars = pg.BarGraphItem(
            x=list(range(len(values))), height=values, width=0.62, brush=highlight, pen=None
        )
        self.plot.addItem(bars)
        font = self._tick_font()
        text = self._colour(QPalette.ColorRole.Text)
        for index, value in enumerate(values):
            label = pg.TextItem(f"{value:,}", color=text, anchor=(0.5, 1.0))
            label.setFont(font)
            label.setPos(index, value)
            self.plot.addItem(label, ignoreBounds=True)
        self.view_box.setXRange(-0.5, len(values) - 0.5, padding=0)
        # Room above the tallest bar for its count.
        self._set_count_axis(max(values), headroom=1.15)
        self._layout_ticks()

    def _layout_ticks(self) -> None:
        if not self._counts:
            return
        room = self.view_box.width() / len(self._counts) - 6
        metrics = QFontMetrics(self._tick_font())
        labels, lines = fit_labels(list(self._names.values()), room, metrics)
        self.labels = labels
        offset = self.bottom_axis.style["tickTextOffset"][1]
        self.bottom_axis.setHeight(offset + lines * metrics.lineSpacing() + 4)
        self.bottom_axis.setTicks([list(enumerate(labels))])

    def _describe(self, x: float, y: float) -> str:
        index = round(x)
        if not 0 <= index < len(self._counts) or abs(x - index) > 0.31:
            return ""
        key = list(self._counts)[index]
        return self.tr("{category}: %Ln memories", "", self._counts[key]).format(
            category=self._names[key]
        )


class WeeklyAddedChart(ChartPanel):
    """Memories added per week: a line with a marker per week, week starts below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Added per week"), parent)
        self.title.setToolTip(self.tr("Memories extracted per week (weeks start on Monday)"))
        self._weeks: list[tuple[date, int]] = []
        self._empty_text: str | None = None
        self.labels: list[tuple[int, str]] = []

    @property
    def data(self) -> list[tuple[date, int]]:
        """(week start, memories added), oldest first."""
        return list(self._weeks)

    def set_data(self, weeks: Sequence[tuple[date, int]], empty_text: str | None = None) -> None:
        """Show (week start, count) pairs, oldest first; `empty_text` (by default "No data
        yet") when all are zero."""
        self._weeks = [
            (day.date() if hasattr(day, "date") else day, int(n))  # datetimes become dates
            for day, n in weeks
        ]
        self._empty_text = empty_text
        self.title.setToolTip(
            self.tr(
                "Memories extracted per week over the last %Ln weeks (weeks start on Monday)",
                "",
                len(self._weeks),
            )
        )
        self._render()

    def _render(self) -> None:
        self.plot.clear()
        if not self._weeks or not any(n for _, n in self._weeks):
            self._show_note(
                self._empty_text if self._weeks and self._empty_text else self.no_data()
            )
            return
        self._show_plot()
        counts = [n for _, n in self._weeks]
        highlight = self._colour(QPalette.ColorRole.Highlight)
        line = pg.PlotDataItem(
            list(range(len(counts))),
            counts,
            pen=pg.mkPen(highlight, width=2),
            symbol="o",
            symbolSize=7,
            symbolBrush=highlight,
            symbolPen=pg.mkPen(self._colour(QPalette.ColorRole.Base), width=1.5),
            fillLevel=0,
            fillBrush=self._colour(QPalette.ColorRole.Highlight, 40),
            antialias=True,
        )
        self.plot.addItem(line)
        self.view_box.setXRange(-0.5, len(counts) - 0.5, padding=0)
        # Room below zero too, so markers of empty weeks are not cut by the axis.
        self._set_count_axis(max(counts), headroom=1.08, below=0.05)
        self._layout_ticks()

    def _layout_ticks(self) -> None:
        if not self._weeks:
            return
        count = len(self._weeks)
        slot = self.view_box.width() / count
        metrics = QFontMetrics(self._tick_font())
        widest = max(metrics.horizontalAdvance(week_label(day)) for day, _ in self._weeks)
        step = max(1, math.ceil((widest + 12) / max(slot, 1)))
        # Label the current week and every `step`-th week before it.
        self.labels = [(i, week_label(self._weeks[i][0])) for i in range(count - 1, -1, -step)][
            ::-1
        ]
        self.bottom_axis.setTicks([self.labels, [(i, "") for i in range(count)]])
        # The current week's label is centred on the last point: leave room for its half.
        right = max(8, math.ceil(widest / 2 - slot / 2) + 4)
        layout = self.plot.getPlotItem().layout
        left, top, current, bottom = layout.getContentsMargins()
        if abs(current - right) > 1:
            layout.setContentsMargins(left, top, right, bottom)

    def _describe(self, x: float, y: float) -> str:
        index = round(x)
        if not 0 <= index < len(self._weeks):
            return ""
        day, count = self._weeks[index]
        return self.tr("Week of {week}: %Ln memories", "", count).format(week=week_label(day))


class ConfidenceHistogram(ChartPanel):
    """How sure the extractor was: active memories in ten confidence bins from 0 to 1."""

    BINS = 10

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Confidence"), parent)
        self.title.setToolTip(
            self.tr("How sure the extractor was of each active memory, from 0 to 1")
        )
        self._bins: tuple[int, ...] = ()

    @property
    def data(self) -> tuple[int, ...]:
        """Counts per bin: [0.0, 0.1), [0.1, 0.2) … [0.9, 1.0]."""
        return self._bins

    def set_data(self, bins: Sequence[int]) -> None:
        self._bins = tuple(int(n) for n in bins)
        self._render()

    def _render(self) -> None:
        self.plot.clear()
        if not any(self._bins):
            self._show_note(self.no_data())
            return
        self._show_plot()
        width = 1.0 / len(self._bins)
        bars = pg.BarGraphItem(
            x0=[i * width for i in range(len(self._bins))],
            height=list(self._bins),
            width=width,
            brush=self._colour(QPalette.ColorRole.Highlight),
            # A Base-coloured outline keeps neighbouring bars apart.
            pen=pg.mkPen(self._colour(QPalette.ColorRole.Base), width=1),
        )
        self.plot.addItem(bars)
        self.view_box.setXRange(-0.02, 1.02, padding=0)
        self._set_count_axis(max(self._bins), headroom=1.05)
        self._layout_ticks()

    def _layout_ticks(self) -> None:
        metrics = QFontMetrics(self._tick_font())
        room = self.view_box.width() / 1.04
        step = 0.2 if room >= 6 * (metrics.horizontalAdvance("0.0") + 12) else 0.5
        values = [round(i * step, 1) for i in range(round(1 / step) + 1)]
        self.bottom_axis.setTicks([[(v, f"{v:.1f}") for v in values]])

    def _describe(self, x: float, y: float) -> str:
        if not self._bins or not 0 <= x <= 1:
            return ""
        index = min(int(x * len(self._bins)), len(self._bins) - 1)
        low = index / len(self._bins)
        return self.tr("Confidence {low}–{high}: %Ln memories", "", self._bins[index]).format(
            low=f"{low:.1f}", high=f"{low + 1 / len(self._bins):.1f}"
        )


def humanize_key(key: str) -> str:
    """ "coding_preferences" → "Coding preferences"."""
    words = key.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:]
