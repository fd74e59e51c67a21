"""The rows of the Context preview's tier tree, and the score breakdown on their tooltips.

One function per kind of row (a tier, a memory or conflict, what did not fit, a note, an
excluded memory), each row carrying what it shows under ROW_ROLE. A memory shortened to
fit the budget (summary, compressed, index) says its level after its tokens. They are plain
functions of the plan and of the fonts, colours and icons they are given, so the panel
owning the tree only decides what to keep across a rebuild (selection, expansion, scroll).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QBrush, QFont, QIcon, QPixmap
from PySide6.QtWidgets import QTreeWidgetItem

from memory_app.assets import icon_path
from memory_app.domain.budget import ContextEntry, TierPlan
from memory_app.domain.scoring import ScoreBreakdown
from memory_app.gui.translations import translate
from memory_app.gui.views.context.preview_data import ExcludedMemory
from memory_app.retrieval.context import ContextRequest

TEXT, TOKENS, SCORE = range(3)
ROW_ROLE = Qt.ItemDataRole.UserRole  # the ContextEntry / ExcludedMemory, or a tier key
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
EXCLUDED_KEY = "excluded"


class TierRows(QObject):
    """The rows' counted phrases. A QObject because lupdate collects a plural form only
    from `self.tr(text, "", n)` (see gui/times.py); the other words are
    `translate("TierRows", …)`, the same context."""

    def tokens(self, n: int) -> str:
        return self.tr("%Ln tokens", "", n)

    def tier_tokens(self, used: int, share: float, allowance: int) -> str:
        return self.tr(
            "%Ln tokens used of this tier's {share}% share ({allowance}); a tier that leaves "
            "some of its share unused passes it on",
            "",
            used,
        ).format(share=f"{share * 100:g}", allowance=f"{allowance:,}")


_WORDS = TierRows()


def row_icons() -> dict[str, QIcon]:
    """The pin and conflict icons, and a blank one for the other rows."""
    icons = {name: QIcon(str(icon_path(name))) for name in ("pin", "conflicts")}
    # Rows without a pin or warning get an empty icon so every row's text lines up.
    blank = QPixmap(16, 16)
    blank.fill(Qt.GlobalColor.transparent)
    icons["blank"] = QIcon(blank)
    return icons


def component_name(key: str) -> str:
    """A part of a score (ScoreBreakdown.components), as the tooltips name it."""
    return {
        "relevance": translate("TierRows", "relevance"),
        "confidence": translate("TierRows", "confidence"),
        "importance": translate("TierRows", "importance"),
        "frequency": translate("TierRows", "frequency"),
        "recency": translate("TierRows", "recency"),
    }.get(key, key)


def tier_title(tier: TierPlan) -> str:
    """A tier's title as the tree shows it (the text handed to the assistant keeps the
    plan's own)."""
    return {
        "critical": translate("TierRows", "Critical"),
        "relevant": translate("TierRows", "Relevant to the task"),
        "background": translate("TierRows", "Background"),
        "index": translate("TierRows", "Index"),
        "conversation": translate("TierRows", "This conversation so far"),
    }.get(tier.key, tier.title)


def describe_score(breakdown: ScoreBreakdown) -> str:
    """One line on how a score is made up ("score 0.512 = relevance 0.80, …"), the words
    of ScoreBreakdown.describe said for the window."""
    parts = ", ".join(
        f"{component_name(name)} {value:.2f}" for name, value in breakdown.components().items()
    )
    total = f"{breakdown.total:.3f}"
    if breakdown.feedback != 1.0:
        return translate("TierRows", "score {total} = {parts}, use feedback x{feedback}").format(
            total=total, parts=parts, feedback=f"{breakdown.feedback:.2f}"
        )
    return translate("TierRows", "score {total} = {parts}").format(total=total, parts=parts)


def breakdown_tooltip(entry: ContextEntry, breakdown: ScoreBreakdown) -> str:
    """The entry's text and how its score is made up, one component a row."""
    rows = "".join(
        f"<tr><td>{html.escape(component_name(name))}</td>"
        f"<td align='right'>&nbsp;&nbsp;{value:.2f}</td></tr>"
        for name, value in breakdown.components().items()
    )
    score = translate("TierRows", "score {total}").format(total=f"{breakdown.total:.3f}")
    pinned = (
        "<br><i>{}</i>".format(html.escape(translate("TierRows", "Pinned: always in Critical.")))
        if entry.pinned
        else ""
    )
    tokens = _WORDS.tokens(entry.tokens)
    return (
        f"<p>{html.escape(entry.text)}</p>"
        f"<b>{html.escape(score)}</b>{pinned}<table>{rows}</table>"
        f"<p>{html.escape(tokens)}</p>"
    )


def tier_head(tier: TierPlan, font: QFont) -> QTreeWidgetItem:
    """A tier's row: its title and its tokens used of its allowance, in bold."""
    head = QTreeWidgetItem([tier_title(tier), f"{tier.used:,} / {tier.allowance:,}", ""])
    head.setData(0, ROW_ROLE, tier.key)
    head.setFlags(Qt.ItemFlag.ItemIsEnabled)
    head.setToolTip(
        TOKENS,
        _WORDS.tier_tokens(tier.used, tier.share, tier.allowance),
    )
    bold = QFont(font)
    bold.setBold(True)
    for column in (TEXT, TOKENS):
        head.setFont(column, bold)
    head.setTextAlignment(TOKENS, RIGHT)
    return head


def level_name(level: str) -> str:
    """A compression level (domain/compression.py) as the tier rows name it."""
    return {
        "full": translate("TierRows", "full"),
        "summary": translate("TierRows", "summary"),
        "compressed": translate("TierRows", "compressed"),
        "index": translate("TierRows", "index"),
    }.get(level, level)


def level_tooltip(level: str) -> str:
    """Why a memory is shown shorter than its full text."""
    return translate(
        "TierRows",
        "Shown as its {level}: the budget had no room for the full text. The assistant "
        "sees the id and can ask for the memory.",
    ).format(level=level_name(level))


def empty_tier_note(tier: TierPlan, request: ContextRequest) -> str:
    if tier.key == "relevant" and request.task:
        return translate("TierRows", "Nothing stored matches “{task}”").format(task=request.task)
    return translate("TierRows", "Nothing for this tier")


def entry_row(entry: ContextEntry, icons: dict[str, QIcon]) -> QTreeWidgetItem:
    """A memory (with its score breakdown) or an open conflict of a tier."""
    score = f"{entry.breakdown.total:.2f}" if entry.breakdown is not None else "—"
    tokens = f"{entry.tokens:,}"
    if entry.level != "full":  # shortened to fit: say to what
        tokens = translate("TierRows", "{tokens} · {level}").format(
            tokens=tokens, level=level_name(entry.level)
        )
    # One line in the tree (a chunk's summary spans lines); the tooltip keeps its lines.
    row = QTreeWidgetItem([" ".join(entry.text.split()), tokens, score])
    row.setData(0, ROW_ROLE, entry)
    for column in (TOKENS, SCORE):
        row.setTextAlignment(column, RIGHT)
    if entry.level != "full":
        row.setToolTip(TOKENS, level_tooltip(entry.level))
    if entry.conflict_id is not None:
        row.setIcon(TEXT, icons["conflicts"])
        conflict = translate(
            "TierRows",
            "<b>Unresolved conflict #{id}</b>: the assistant is told to ask. Double-click to "
            "resolve it in Conflicts.",
        ).format(id=entry.conflict_id)
        row.setToolTip(TEXT, f"<p>{html.escape(entry.text)}</p><p>{conflict}</p>")
    elif entry.breakdown is not None:
        row.setIcon(TEXT, icons["pin" if entry.pinned else "blank"])
        row.setToolTip(TEXT, breakdown_tooltip(entry, entry.breakdown))
        row.setToolTip(SCORE, describe_score(entry.breakdown))
    else:
        row.setIcon(TEXT, icons["blank"])
        row.setToolTip(TEXT, html.escape(entry.text).replace("\n", "<br>"))
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
    # "more did not fit" reads the same for one and for many: the count is placed.
    row = note_row(
        translate("TierRows", "{count} more did not fit the budget").format(
            count=f"{len(left_out):,}"
        ),
        muted,
        font,
    )
    shown = "".join(f"<li>{html.escape(e.text[:120])}</li>" for e in left_out[:5])
    more = ""
    if len(left_out) > 5:
        rest = translate("TierRows", "…and {count} more").format(count=f"{len(left_out) - 5:,}")
        more = f"<li>{html.escape(rest)}</li>"
    larger = html.escape(translate("TierRows", "A larger budget would also include:"))
    tooltip = f"{larger}<ul>{shown}{more}</ul>"  # markup around translated words
    row.setToolTip(TEXT, tooltip)
    row.setText(TOKENS, f"{sum(e.tokens for e in left_out):,}")
    row.setTextAlignment(TOKENS, RIGHT)
    return row


def excluded_head(count: int, muted: QBrush, font: QFont) -> QTreeWidgetItem:
    head = note_row(
        translate("TierRows", "Excluded ({count})").format(count=f"{count:,}"), muted, font
    )
    head.setData(0, ROW_ROLE, EXCLUDED_KEY)
    head.setText(TOKENS, translate("TierRows", "not injected"))
    head.setToolTip(
        TEXT,
        translate(
            "TierRows",
            "Memories kept out of this context and out of the CLAUDE.md export. "
            "Select one and choose Let back in (Ctrl+E).",
        ),
    )
    return head


def excluded_row(
    item: ExcludedMemory, project: str | None, muted: QBrush, icons: dict[str, QIcon]
) -> QTreeWidgetItem:
    """A memory kept out; `project` names the project whose context it is kept out of
    (None: every project's)."""
    row = QTreeWidgetItem([f"#{item.item_id} {item.content}", "", ""])
    row.setData(0, ROW_ROLE, item)
    row.setIcon(TEXT, icons["blank"])
    row.setForeground(TEXT, muted)
    if item.everywhere or project is None:
        where = translate("TierRows", "Excluded from every project's context.")
    else:
        where = translate("TierRows", "Excluded from the context of {project}.").format(
            project=project
        )
    row.setToolTip(TEXT, f"<p>{html.escape(item.content)}</p><p>{html.escape(where)}</p>")
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
