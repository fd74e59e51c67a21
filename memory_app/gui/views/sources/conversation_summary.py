"""The reader's summary of a conversation, above its turns: "In short" (the rolling
summary of its chunks) and each chunk's summary with its turn range, each linking to its
first turn (memory_app/chunks, seed 003's progressive summaries).

Folded by default to one line, so a short conversation reads as before; the link that
unfolds it is in the text, so the keyboard reaches it as it reaches the other links.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from memory_app.chunks.builder import ConversationChunk, rolling_summary

if TYPE_CHECKING:
    from memory_app.gui.views.sources.conversation_html import ReaderColours

# The links of the summary (the reader follows them; see reader._link_clicked).
OPEN_LINK = "summary-open:1"
CLOSE_LINK = "summary-close:1"


class ConversationSummary(QObject):
    """The words of the summary section (a QObject: lupdate collects `self.tr`)."""

    def heading(self, chunks: int) -> str:
        return self.tr("Summary in %Ln chunks", "", chunks)

    def show(self) -> str:
        return self.tr("Show")

    def hide(self) -> str:
        return self.tr("Hide")

    def in_short(self) -> str:
        return self.tr("In short")

    def turns(self, start: int, end: int) -> str:
        return self.tr("Turns {start}–{end}").format(start=start, end=end)

    def topics(self, topics: str) -> str:
        return self.tr("Topics: {topics}").format(topics=topics)


_WORDS = ConversationSummary()


def _lines(text: str) -> str:
    """Plain text as HTML, one paragraph line a line (blank lines dropped)."""
    return "<br>".join(html.escape(line) for line in text.split("\n") if line.strip())


def summary_html(
    chunks: Sequence[ConversationChunk], unfolded: bool, colours: ReaderColours
) -> str:
    """The section, folded or not; "" for a conversation without chunks."""
    if not chunks:
        return ""
    link = (
        f'<a href="{CLOSE_LINK}">{html.escape(_WORDS.hide())}</a>'
        if unfolded
        else f'<a href="{OPEN_LINK}">{html.escape(_WORDS.show())}</a>'
    )
    head = (
        f'<p style="margin:0"><b>{html.escape(_WORDS.heading(len(chunks)))}</b>'
        f'<span style="color:{colours.muted}"> · </span>{link}</p>'
    )
    parts = [
        f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{colours.tool}"'
        f' style="margin-top:6px; margin-bottom:8px"><tr><td>',
        head,
    ]
    if unfolded:
        if len(chunks) > 1:  # one chunk's rolling summary is that chunk's summary again
            rolling = rolling_summary(chunks)
            parts.append(
                f'<p style="margin-top:8px; margin-bottom:0"><b>'
                f"{html.escape(_WORDS.in_short())}</b></p>"
            )
            parts += [  # "Earlier: …", then "Then: …" a paragraph each
                f'<p style="margin-top:2px; margin-bottom:4px">{_lines(part)}</p>'
                for part in rolling.text.split("\n\n")
                if part.strip()
            ]
        for chunk in chunks:
            turns = html.escape(_WORDS.turns(chunk.turn_start, chunk.turn_end))
            topics = (
                f'<br><span style="color:{colours.muted}">'
                f"{html.escape(_WORDS.topics(', '.join(chunk.key_topics)))}</span>"
                if chunk.key_topics
                else ""
            )
            parts.append(
                f'<p style="margin-top:8px; margin-bottom:0">'
                f'<a href="turn:{chunk.turn_start}"><b>{turns}</b></a></p>'
                f'<p style="margin-top:2px; margin-bottom:0">{_lines(chunk.summary)}{topics}</p>'
            )
    parts.append("</td></tr></table>")
    return "".join(parts)
