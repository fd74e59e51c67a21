"""Designer forms: the compiled Python matches ui/*.ui, and every form sets up."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

ROOT = Path(__file__).resolve().parents[2]
FORMS = sorted((ROOT / "ui").glob("*.ui"))


def _without_version(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("## Created by")]


def test_there_are_forms() -> None:
    assert len(FORMS) >= 2


@pytest.mark.parametrize("form", FORMS, ids=lambda p: p.name)
def test_compiled_form_is_up_to_date(form: Path, tmp_path: Path) -> None:
    uic = Path(sys.executable).with_name("pyside6-uic")
    out = tmp_path / "form.py"
    subprocess.run([str(uic), str(form), "-o", str(out)], check=True)
    committed = ROOT / "memory_app" / "gui" / "forms" / f"ui_{form.stem}.py"
    assert _without_version(committed.read_text()) == _without_version(out.read_text()), (
        f"{committed.name} is stale: run `make forms`"
    )


@pytest.mark.parametrize("form", FORMS, ids=lambda p: p.name)
def test_form_sets_up_on_a_widget(qtbot, form: Path) -> None:
    module = importlib.import_module(f"memory_app.gui.forms.ui_{form.stem}")
    ui_class = next(getattr(module, n) for n in dir(module) if n.startswith("Ui_"))
    widget = QWidget()
    qtbot.addWidget(widget)
    ui = ui_class()
    ui.setupUi(widget)
    assert widget.objectName()
