"""Text colours that stay readable on every palette, light or dark.

A fixed red such as ``#c62828`` reads well on white and measures 2.2-3.0:1 on a dark
window, below the 4.5:1 that WCAG 2 asks of text. So error, warning and success text takes
a hue from here, made lighter or darker until it has at least 4.5:1 against the palette's
Window and Base colours (labels sit on the first, tables and text fields on the second).
Muted text is the palette's Text laid over the background, opaque: style sheets and rich
text drop the alpha of ``PlaceholderText`` (``QColor.name()`` has none), which turned
the intended grey into plain black.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor, QGuiApplication, QPalette

ERROR, WARNING, SUCCESS = "error", "warning", "success"
# The hue each kind starts from; the lightness is what changes with the palette.
HUES = {
    ERROR: QColor("#d03b3b"),
    WARNING: QColor("#d98c00"),
    SUCCESS: QColor("#2e9d4f"),
}
MINIMUM_CONTRAST = 4.5  # WCAG 2, 1.4.3: normal-size text
# How far muted text may fade towards the background (the placeholder's usual alpha).
MUTED_FADE = 0.5


def relative_luminance(colour: QColor) -> float:
    """WCAG 2 relative luminance of an opaque colour: 0 for black, 1 for white."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * linear(colour.redF())
        + 0.7152 * linear(colour.greenF())
        + 0.0722 * linear(colour.blueF())
    )


def contrast_ratio(first: QColor, second: QColor) -> float:
    """WCAG 2 contrast ratio between two opaque colours, from 1 to 21."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)))[::-1]
    return (lighter + 0.05) / (darker + 0.05)


def mix(base: QColor, tint: QColor, amount: float) -> QColor:
    """`tint` laid over `base` at opacity `amount` (0 to 1), as an opaque colour."""
    return QColor(
        round(base.red() + (tint.red() - base.red()) * amount),
        round(base.green() + (tint.green() - base.green()) * amount),
        round(base.blue() + (tint.blue() - base.blue()) * amount),
    )


def backgrounds(palette: QPalette | None = None) -> tuple[QColor, QColor]:
    """The colours text is drawn on: the palette's Window and Base."""
    palette = palette if palette is not None else QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window), palette.color(QPalette.ColorRole.Base)


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether the palette is a dark one (light text on a dark window)."""
    window, _base = backgrounds(palette)
    return relative_luminance(window) < 0.18


def _worst(colour: QColor, behind: Sequence[QColor]) -> float:
    return min(contrast_ratio(colour, background) for background in behind)


def readable(colour: QColor, behind: Sequence[QColor], minimum: float = MINIMUM_CONTRAST) -> QColor:
    """`colour`'s hue, made darker (on light backgrounds) or lighter (on dark ones) until
    it has at least `minimum` contrast against every colour in `behind`.

    Keeps the colour when it already has it; when no lightness reaches `minimum` (a
    mid-grey background), gives the lightness with the best contrast.
    """
    if _worst(colour, behind) >= minimum:
        return QColor(colour)
    hue = max(colour.hslHueF(), 0.0)  # -1 for greys
    saturation, lightness = colour.hslSaturationF(), colour.lightnessF()
    average = sum(relative_luminance(c) for c in behind) / len(behind)
    step = -0.01 if average >= 0.18 else 0.01
    best, best_ratio = QColor(colour), _worst(colour, behind)
    while 0.0 <= lightness + step <= 1.0:
        lightness += step
        candidate = QColor.fromHslF(hue, saturation, lightness)
        ratio = _worst(candidate, behind)
        if ratio >= minimum:
            return candidate
        if ratio > best_ratio:
            best, best_ratio = candidate, ratio
    end = QColor.fromHslF(hue, saturation, 0.0 if step < 0 else 1.0)
    return end if _worst(end, behind) > best_ratio else best


def text_colour(kind: str, palette: QPalette | None = None) -> QColor:
    """The error, warning or success colour for text on this palette (the application's
    when None), with at least 4.5:1 contrast against its Window and Base."""
    return readable(HUES[kind], backgrounds(palette))


def muted_colour(palette: QPalette | None = None) -> QColor:
    """Secondary text: the palette's Text faded towards the background, opaque, and never
    below 4.5:1 against Window and Base."""
    palette = palette if palette is not None else QGuiApplication.palette()
    text = palette.color(QPalette.ColorRole.Text)
    behind = backgrounds(palette)
    fade = MUTED_FADE
    while fade > 0:
        candidate = mix(text, behind[1], fade)
        if _worst(candidate, behind) >= MINIMUM_CONTRAST:
            return candidate
        fade -= 0.02
    return QColor(text)


def text_style(kind: str, palette: QPalette | None = None) -> str:
    """A style sheet giving a label the error, warning or success colour."""
    return f"color: {text_colour(kind, palette).name()};"


def muted_style(palette: QPalette | None = None) -> str:
    """A style sheet giving a label the muted colour."""
    return f"color: {muted_colour(palette).name()};"
