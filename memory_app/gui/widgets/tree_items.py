"""A tree widget's items as lists: Qt types each lookup by index as possibly None (it is,
out of range), so the loops over a tree live here once instead of in every view."""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem


def top_level_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    found = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return [item for item in found if item is not None]


def child_items(parent: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    found = (parent.child(i) for i in range(parent.childCount()))
    return [item for item in found if item is not None]
