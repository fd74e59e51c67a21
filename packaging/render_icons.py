"""Render the application icon's PNG sizes from its SVG, into the hicolor theme layout.

    python packaging/render_icons.py          (after editing the SVG; the PNGs are committed)

Desktops pick the PNG nearest the size they draw, so small sizes are rendered from the
vector at that size rather than scaled down from 512 px (which would blur the edges).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_app.assets import APP_ICON_NAME, ICON_SIZES  # noqa: E402

THEME = ROOT / "resources" / "icons" / "hicolor"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    source = THEME / "scalable" / "apps" / f"{APP_ICON_NAME}.svg"
    renderer = QSvgRenderer(str(source))
    if not renderer.isValid():
        print(f"cannot read {source}", file=sys.stderr)
        return 1
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = THEME / f"{size}x{size}" / "apps" / f"{APP_ICON_NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        image.convertToFormat(QImage.Format.Format_ARGB32).save(str(target), "PNG")
        print(f"{target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
