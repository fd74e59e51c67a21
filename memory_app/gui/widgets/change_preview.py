"""What a proposed maintenance change would do, as rich text: before → after.

A merge shows the memory that is kept and each duplicate (with the words it says
differently), and the fields that change; an archive or mark-invalid shows the memory and
its status change with the reason; a compression shows the category digest as a diff.
Colours come from the palette so light and dark both read well.
"""

from __future__ import annotations

import difflib
import html
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QFontDatabase, QPalette

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.maintenance import ProposedChange
from memory_app.domain.textdiff import word_differences
from memory_app.gui.colours import muted_colour
from memory_app.gui.translations import translate
from memory_app.gui.widgets.diff_dialog import ADDED, REMOVED

CATEGORY_NAMES = {c.key: c.name for c in DEFAULT_CATEGORIES}
# The fields a change can touch, in the order they are shown (their names: field_name).
FIELDS = (
    "status",
    "superseded_by",
    "confidence",
    "importance",
    "reinforcement_count",
    "tags",
    "last_seen_at",
    "pinned",
)


def decision_word(decision: str) -> str:
    """ "Pending", "Accepted"…: a change's decision as the window shows it."""
    words = {
        "pending": translate("ChangePreview", "Pending"),
        "accepted": translate("ChangePreview", "Accepted"),
        "rejected": translate("ChangePreview", "Rejected"),
        "applied": translate("ChangePreview", "Applied"),
        "stale": translate("ChangePreview", "Stale"),
        "undone": translate("ChangePreview", "Undone"),
    }
    return words.get(decision, decision)


def field_name(name: str) -> str:
    """A field's name as the preview shows it."""
    names = {
        "status": translate("ChangePreview", "Status"),
        "superseded_by": translate("ChangePreview", "Superseded by"),
        "confidence": translate("ChangePreview", "Confidence"),
        "importance": translate("ChangePreview", "Importance"),
        "reinforcement_count": translate("ChangePreview", "Times reinforced"),
        "tags": translate("ChangePreview", "Tags"),
        "last_seen_at": translate("ChangePreview", "Last seen"),
        "pinned": translate("ChangePreview", "Pinned"),
    }
    return names.get(name) or name.replace("_", " ").capitalize()


class ChangePreview(QObject):
    """The preview's counted phrases (a QObject: lupdate gives a phrase its plural forms
    only through `self.tr`)."""

    def digest_note(self, category: str, count: int) -> str:
        return self.tr(
            "The digest beside the summary of {category}; the %Ln memories it covers stay as "
            "they are.",
            "",
            count,
        ).format(category=category)


def _mix(base: QColor, tint: QColor) -> str:
    """`tint` (with its alpha) laid over `base`, as an opaque hex colour for rich text."""
    amount = tint.alphaF()
    return QColor(
        round(base.red() + (tint.red() - base.red()) * amount),
        round(base.green() + (tint.green() - base.green()) * amount),
        round(base.blue() + (tint.blue() - base.blue()) * amount),
    ).name()


@dataclass(frozen=True)
class PreviewColours:
    text: str
    muted: str
    added: str
    removed: str
    differs: str
    box: str
    monospace: str

    @classmethod
    def from_palette(cls, palette: QPalette) -> PreviewColours:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        highlight = QColor(palette.color(QPalette.ColorRole.Highlight))
        highlight.setAlphaF(0.3)
        box = QColor(text)
        box.setAlphaF(0.05)
        return cls(
            text=text.name(),
            muted=muted_colour(palette).name(),
            added=_mix(base, ADDED),
            removed=_mix(base, REMOVED),
            differs=_mix(base, highlight),
            box=_mix(base, box),
            monospace=QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family(),
        )


def category_name(key: str | None) -> str:
    if not key:
        return translate("ChangePreview", "No category")
    return CATEGORY_NAMES.get(key, key.replace("_", " ").capitalize())


def format_value(name: str, value: Any) -> str:
    """A field's value the way a person reads it."""
    if value is None:
        return "—"
    if name == "superseded_by":
        return translate("ChangePreview", "memory #{id}").format(id=value)
    if isinstance(value, bool):
        return translate("ChangePreview", "yes") if value else translate("ChangePreview", "no")
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or translate("ChangePreview", "none")
    if name.endswith("_at") and isinstance(value, str):
        try:
            return datetime.fromisoformat(value).astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            return value
    return str(value)


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, before, after) for each field the change visibly sets to a new value (a
    confidence going from 0.998 to 1.0 reads "1.00 → 1.00" and is left out)."""
    names = [n for n in FIELDS if n in after] + [n for n in after if n not in FIELDS]
    return [
        (n, before.get(n), after[n])
        for n in names
        if before.get(n) != after[n] and format_value(n, before.get(n)) != format_value(n, after[n])
    ]


def _content(text: str, colours: PreviewColours, runs: list[tuple[str, bool]] | None) -> str:
    """A memory's text in a tinted box; `runs` marks the words that differ."""
    if runs is None:
        body = html.escape(text)
    else:
        body = "".join(
            f'<span style="background-color:{colours.differs}">{html.escape(piece)}</span>'
            if differs
            else html.escape(piece)
            for piece, differs in runs
        )
    return (
        f'<table width="100%" cellpadding="8" cellspacing="0" style="margin: 4px 0 6px 0">'
        f'<tr><td style="background-color:{colours.box}">{body}</td></tr></table>'
    )


def _field_row(name: str, old: Any, new: Any, colours: PreviewColours) -> str:
    label = field_name(name)
    # A field the memory had no value for is not "removed": no red behind the dash.
    before = f"background-color:{colours.removed}" if old is not None else f"color:{colours.muted}"
    return (
        f'<tr><td style="color:{colours.muted}; padding-right:12px">{html.escape(label)}</td>'
        f'<td style="{before}; padding: 0 6px">{html.escape(format_value(name, old))}</td>'
        '<td style="padding: 0 6px">→</td>'
        f'<td style="background-color:{colours.added}; padding: 0 6px">'
        f"{html.escape(format_value(name, new))}</td></tr>"
    )


def _field_table(rows: list[tuple[str, Any, Any]], colours: PreviewColours) -> str:
    if not rows:
        return ""
    cells = "".join(_field_row(name, old, new, colours) for name, old, new in rows)
    return f'<table cellspacing="2" cellpadding="1">{cells}</table>'


def _memory_section(
    heading: str,
    item_id: str,
    change: ProposedChange,
    colours: PreviewColours,
    runs: list[tuple[str, bool]] | None = None,
) -> str:
    before = change.before.get(item_id, {})
    after = change.after.get(item_id, {})
    content = str(before.get("content", "")) or translate("ChangePreview", "(no text)")
    title = translate("ChangePreview", "{heading} · memory #{id}").format(
        heading=heading, id=item_id
    )
    return (
        f"<h4>{html.escape(title)}</h4>"
        + _content(content, colours, runs)
        + _field_table(changed_fields(before, after), colours)
    )


def _merge_html(change: ProposedChange, colours: PreviewColours) -> str:
    survivor, *duplicates = (str(i) for i in change.item_ids)
    kept = str(change.before.get(survivor, {}).get("content", ""))
    kept_heading = translate("ChangePreview", "Kept and reinforced")
    parts = [_memory_section(kept_heading, survivor, change, colours)]
    for dup in duplicates:
        text = str(change.before.get(dup, {}).get("content", ""))
        _, runs = word_differences(kept, text)
        heading = translate("ChangePreview", "Superseded")
        parts.append(_memory_section(heading, dup, change, colours, runs))
    return "".join(parts)


def _status_html(change: ProposedChange, colours: PreviewColours) -> str:
    if change.kind == "archive":
        heading = translate("ChangePreview", "Archived")
    else:
        heading = translate("ChangePreview", "Marked invalid")
    return "".join(
        _memory_section(heading, str(item_id), change, colours) for item_id in change.item_ids
    )


def digest_diff(before: str, after: str) -> list[tuple[str, str]]:
    """The digest line by line as (mark, line): "+" added, "-" removed, " " kept."""
    lines: list[tuple[str, str]] = []
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            lines += [(" ", line) for line in old[a1:a2]]
            continue
        lines += [("-", line) for line in old[a1:a2]]
        lines += [("+", line) for line in new[b1:b2]]
    return lines


def _compress_html(change: ProposedChange, colours: PreviewColours) -> str:
    before = str(change.before.get("digest") or "")
    after = str(change.after.get("digest") or "")
    tints = {"+": colours.added, "-": colours.removed}
    rows = "".join(
        (f'<tr><td style="background-color:{tints[mark]}">' if mark in tints else "<tr><td>")
        + f"{html.escape(mark)} {html.escape(line) or '&nbsp;'}</td></tr>"
        for mark, line in digest_diff(before, after)
    )
    note = ChangePreview().digest_note(category_name(change.category), len(change.item_ids))
    heading = translate("ChangePreview", "Category digest")
    return (
        f"<h4>{html.escape(heading)}</h4>"
        f"<p style='color:{colours.muted}'>{html.escape(note)}</p>"
        f'<table width="100%" cellspacing="0" cellpadding="1" '
        f"style=\"font-family:'{colours.monospace}'; white-space:pre-wrap\">{rows}</table>"
    )


def change_html(change: ProposedChange, colours: PreviewColours, origin: str = "") -> str:
    """The whole preview of one change: what, why, and before → after."""
    meta = [category_name(change.category), decision_word(change.decision)]
    if origin:
        meta.append(origin)
    why = translate("ChangePreview", "Why:")
    head = (
        f"<h3>{html.escape(change.title)}</h3>"
        f"<p style='color:{colours.muted}'>{html.escape(' · '.join(meta))}</p>"
        f"<p><b>{html.escape(why)}</b> {html.escape(change.reason)}</p>"
    )
    if change.kind == "merge":
        body = _merge_html(change, colours)
    elif change.kind == "compress":
        body = _compress_html(change, colours)
    else:
        body = _status_html(change, colours)
    return head + body
