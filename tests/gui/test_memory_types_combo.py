"""The memory editor's Type list offers seed 004's workflow and code pattern by name."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from memory_app.gui.widgets.memory_editor import MemoryEditor


def test_the_type_list_names_workflows_and_code_patterns(qtbot: QtBot) -> None:
    editor = MemoryEditor()
    qtbot.addWidget(editor)
    combo = editor.ui.type
    names = {combo.itemData(n): combo.itemText(n) for n in range(combo.count())}
    assert names["workflow"] == "Workflow"
    assert names["code_pattern"] == "Code pattern"
