"""Text colours keep WCAG's 4.5:1 on light and dark palettes; no view hard-codes one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from memory_app.gui import colours
from memory_app.gui.colours import (
    ERROR,
    MINIMUM_CONTRAST,
    SUCCESS,
    WARNING,
    contrast_ratio,
    muted_colour,
    relative_luminance,
    text_colour,
)

GUI = Path(colours.__file__).parent
OLD_RED = QColor("#c62828")  # the red the views used to hard-code


def palette(window: str, base: str, text: str) -> QPalette:
    result = QPalette(QApplication.palette())
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        result.setColor(group, QPalette.ColorRole.Window, QColor(window))
        result.setColor(group, QPalette.ColorRole.Base, QColor(base))
        for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
            result.setColor(group, role, QColor(text))
        placeholder = QColor(text)
        placeholder.setAlpha(128)
        result.setColor(group, QPalette.ColorRole.PlaceholderText, placeholder)
    return result


PALETTES = {
    "light (Fusion)": ("#efefef", "#ffffff", "#000000"),
    "light (Adwaita)": ("#f6f5f4", "#ffffff", "#2e3436"),
    "dark (Fusion)": ("#353535", "#2a2a2a", "#ffffff"),
    "dark (Breeze)": ("#202326", "#141618", "#fcfcfc"),
    "dark (Adwaita)": ("#242424", "#1e1e1e", "#ffffff"),
}


def test_luminance_and_contrast_follow_wcag() -> None:
    assert relative_luminance(QColor("#000000")) == 0
    assert relative_luminance(QColor("#ffffff")) == pytest.approx(1)
    assert contrast_ratio(QColor("#000000"), QColor("#ffffff")) == pytest.approx(21)
    assert contrast_ratio(QColor("#777777"), QColor("#ffffff")) == pytest.approx(4.48, abs=0.01)
    # The red that was hard-coded fails on a dark window, as the issue measured.
    assert contrast_ratio(OLD_RED, QColor("#353535")) < 3.0


@pytest.mark.parametrize("name", list(PALETTES))
@pytest.mark.parametrize("kind", [ERROR, WARNING, SUCCESS])
def test_status_text_has_enough_contrast(qapp, name: str, kind: str) -> None:
    colours_of = palette(*PALETTES[name])
    colour = text_colour(kind, colours_of)
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
        assert contrast_ratio(colour, colours_of.color(role)) >= MINIMUM_CONTRAST, (name, role)
    # Still the hue it names, only lighter or darker.
    assert abs(colour.hslHue() - colours.HUES[kind].hslHue()) <= 2


@pytest.mark.parametrize("name", list(PALETTES))
def test_muted_text_is_grey_and_readable(qapp, name: str) -> None:
    colours_of = palette(*PALETTES[name])
    muted = muted_colour(colours_of)
    text = colours_of.color(QPalette.ColorRole.Text)
    window = colours_of.color(QPalette.ColorRole.Window)
    assert muted.alpha() == 255  # opaque: style sheets and rich text drop the alpha
    assert muted.name() != text.name()  # visibly muted, not plain text colour
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
        assert contrast_ratio(muted, colours_of.color(role)) >= MINIMUM_CONTRAST
    assert contrast_ratio(muted, window) < contrast_ratio(text, window)


def test_dark_error_red_is_lighter_than_the_light_one(qapp) -> None:
    light = text_colour(ERROR, palette(*PALETTES["light (Fusion)"]))
    dark = text_colour(ERROR, palette(*PALETTES["dark (Fusion)"]))
    assert dark.lightness() > light.lightness()


def test_an_error_label_styled_on_a_dark_palette_reads_well(qtbot) -> None:
    label = QLabel("Import failed: disk full")
    qtbot.addWidget(label)
    label.setPalette(palette(*PALETTES["dark (Fusion)"]))
    label.setStyleSheet(colours.text_style(ERROR, label.palette()))
    label.ensurePolished()
    drawn = label.palette().color(QPalette.ColorRole.WindowText)
    assert drawn.name() == text_colour(ERROR, palette(*PALETTES["dark (Fusion)"])).name()
    assert contrast_ratio(drawn, QColor("#353535")) >= MINIMUM_CONTRAST


def test_no_view_hard_codes_a_text_colour() -> None:
    """Text colours come from the palette or colours.py, never a fixed hex value."""
    pattern = re.compile(r"color\s*:\s*#[0-9a-fA-F]{3,8}")
    offenders = [
        f"{path.relative_to(GUI)}:{number}"
        for path in sorted(GUI.rglob("*.py"))
        if "forms" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize("name", list(PALETTES))
def test_the_status_dot_stands_out_on_every_palette(qtbot, name: str) -> None:
    """WCAG 1.4.11: the Ready / Processing / Error dot needs 3:1 against the window (the
    fixed red measured 2.55:1 on a dark one)."""
    from memory_app.gui.context import StatusModel
    from memory_app.gui.widgets.status_indicator import KINDS, StatusDot

    dot = StatusDot()
    qtbot.addWidget(dot)
    dot.setPalette(palette(*PALETTES[name]))
    window = dot.palette().color(QPalette.ColorRole.Window)
    for state in (StatusModel.READY, StatusModel.PROCESSING, StatusModel.ERROR):
        dot.kind = KINDS[state]
        assert contrast_ratio(dot.colour, window) >= 3.0
