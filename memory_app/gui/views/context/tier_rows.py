"""The rows of the Context preview's tier tree, and the score breakdown on their tooltips.

One function per kind of row (a tier, a memory or conflict, what did not fit, a note, an
excluded memory), each row carrying what it shows under ROW_ROLE. They are plain
functions of the plan and of the fonts, colours and icons they are given, so the panel
owning the tree only decides what to keep across a rebuild (selection, expansion, scroll).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont, QIcon, QPixmap
from PySide6.QtWidgets import QTreeWidgetItem

from memory_app.assets import icon_path
from memory_app.domain.budget import ContextEntry, TierPlan
from memory_app.domain.scoring import ScoreBreakdown
from memory_app.gui.views.context.preview_data import ExcludedMemory
from memory_app.retrieval.context import ContextRequest

TEXT, TOKENS, SCORE = range(3)
ROW_ROLE = Qt.ItemDataRole.UserRole  # the ContextEntry / ExcludedMemory, or a tier key
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
EXCLUDED_KEY = "excluded"


def row_icons() -> dict[str, QIcon]:
    """The pin and conflict icons, and a blank one for the other rows."""
    icons = {name: QIcon(str(icon_path(name))) for name in ("pin", "conflicts")}
    # Rows without a pin or warning get an empty icon so every row's text lines up.
    blank = QPixmap(16, 16)
    blank.fill(Qt.GlobalColor.transparent)
    icons["blank"] = QIcon(blank)
    return icons


def breakdown_tooltip(entry: ContextEntry, breakdown: ScoreBreakdown) -> str:
    """The entry's text and how its score is made up, one component a row."""
    rows = "".join(
        f"<tr><td>{name}</td><td align='right'>&nbsp;&nbsp;{value:.2f}</td></tr>"
        for name, value in breakdown.components().items()
    )
    pinned = "<br><i>Pinned: always in Critical.</i>" if entry.pinned else ""
    return (
        f"<p>{html.escape(entry.text)}</p>"
        f"<b>score {breakdown.total:.3f}</b>{pinned}<table>{rows}</table>"
        f"<p>{entry.tokens} tokens</p>"
    )


def tier_head(tier: TierPlan, font: QFont) -> QTreeWidgetItem:
    """A tier's row: its title and its tokens used of its allowance, in bold."""
    head = QTreeWidgetItem([tier.title, f"{tier.used:,} / {tier.allowance:,}", ""])
    head.setData(0, ROW_ROLE, tier.key)
    head.setFlags(Qt.ItemFlag.ItemIsEnabled)
    head.setToolTip(
        TOKENS,
        f"{tier.used:,} tokens used of this tier's {tier.share * 100:g}% share "
        f"({tier.allowance:,}); a tier that leaves some of its share unused passes it on",
    )
    bold = QFont(font)
    bold.setBold(True)
    for column in (TEXT, TOKENS):
        head.setFont(column, bold)
    head.setTextAlignment(TOKENS, RIGHT)
    return head


def empty_tier_note(tier: TierPlan, request: ContextRequest) -> str:
    if tier.key == "relevant" and request.task:
        return f"Nothing stored matches “{request.task}”"
    return "Nothing for this tier"


def entry_row(entry: ContextEntry, icons: dict[str, QIcon]) -> QTreeWidgetItem:
    """A memory (with its score breakdown) or an open conflict of a tier."""
    score = f"{entry.breakdown.total:.2f}" if entry.breakdown is not None else "—"
    row = QTreeWidgetItem([entry.text, f"{entry.tokens:,}", score])
    row.setData(0, ROW_ROLE, entry)
    for column in (TOKENS, SCORE):
        row.setTextAlignment(column, RIGHT)
    if entry.conflict_id is not None:
        row.setIcon(TEXT, icons["conflicts"])
        row.setToolTip(
            TEXT,
            f"<p>{html.escape(entry.text)}</p><p><b>Unresolved conflict "
            f"#{entry.conflict_id}</b>: the assistant is told to ask. Double-click to "
            "resolve it in Conflicts.</p>",
        )
    elif entry.breakdown is not None:
        row.setIcon(TEXT, icons["pin" if entry.pinned else "blank"])
        row.setToolTip(TEXT, breakdown_tooltip(entry, entry.breakdown))
        row.setToolTip(SCORE, entry.breakdown.describe())
    else:
        row.setIcon(TEXT, icons["blank"])
        row.setToolTip(TEXT, html.escape(entry.text))
    return row


def note_row(text: str, muted: QBrush, font: QFont) -> QTreeWidgetItem:
    """A row that only says something, in muted italics."""
    row = QTreeWidgetItem([text, "", ""])
    row.setFlags(Qt.ItemFlag.ItemIsEnabled)
    italic = QFont(font)
    italic.setItalic(True)
    for column in range(3):
        row.setForeground(column, muted)
        row.setFont(column, italic)
    return row


def left_out_row(left_out: list[ContextEntry], muted: QBrush, font: QFont) -> QTreeWidgetItem:
    """How many more did not fit the budget, and a few of them on the tooltip."""
    row = note_row(f"{len(left_out):,} more did not fit the budget", muted, font)
    shown = "".join(f"<li>{html.escape(e.text[:120])}</li>" for e in left_out[:5])
    more = f"<li>…and {len(left_out) - 5:,} more</li>" if len(left_out) > 5 else ""
    row.setToolTip(TEXT, f"A larger budget would also include:<ul>{shown}{more}</ul>")
    row.setText(TOKENS, f"{sum(e.tokens for e in left_out):,}")
    row.setTextAlignment(TOKENS, RIGHT)
    return row


def excluded_head(count: int, muted: QBrush, font: QFont) -> QTreeWidgetItem:
    head = note_row(f"Excluded ({count:,})", muted, font)
    head.setData(0, ROW_ROLE, EXCLUDED_KEY)
    head.setText(TOKENS, "not injected")
    head.setToolTip(
        TEXT,
        "Memories kept out of this context and out of the CLAUDE.md export. "
        "Select one and choose Let back in (Ctrl+E).",
    )
    return head


def excluded_row(
    item: ExcludedMemory, scope: str, muted: QBrush, icons: dict[str, QIcon]
) -> QTreeWidgetItem:
    """A memory kept out; `scope` names the context it is kept out of."""
    row = QTreeWidgetItem([f"#{item.item_id} {item.content}", "", ""])
    row.setData(0, ROW_ROLE, item)
    row.setIcon(TEXT, icons["blank"])
    row.setForeground(TEXT, muted)
    where = "every project's context" if item.everywhere else scope
    row.setToolTip(TEXT, f"<p>{html.escape(item.content)}</p><p>Excluded from {where}.</p>")
    return row


def row_key(item: QTreeWidgetItem | None) -> tuple[str, int] | None:
    """What a row stands for, stable across rebuilds: ("memory", id), ("conflict", id)
    or ("excluded", id); None for tiers and notes."""
    data = item.data(0, ROW_ROLE) if item is not None else None
    if isinstance(data, ExcludedMemory):
        return ("excluded", data.item_id)
    if isinstance(data, ContextEntry) and data.item_id is not None:
        return ("memory", data.item_id)
    if isinstance(data, ContextEntry) and data.conflict_id is not None:
        return ("conflict", data.conflict_id)
    return None
