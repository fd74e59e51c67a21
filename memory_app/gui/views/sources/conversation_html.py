"""The reader's HTML: one conversation, turn by turn, as rich text for a QTextBrowser.

Rendering is kept apart from the reader widget so it stays plain functions of plain data:
the widget loads a conversation and shows the result, these functions decide how it
reads (tool traffic in a muted monospace block, cut after a few lines; redactions marked;
the turns that produced memories tinted and linked to those memories).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QFontDatabase, QPalette

from memory_app.chunks.builder import ConversationChunk
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.records import MemoryRecord, ResourceRecord, TurnRecord
from memory_app.gui.colours import mix
from memory_app.gui.models.resource_table_model import format_date, resource_title
from memory_app.gui.translations import translate
from memory_app.gui.views.sources.conversation_summary import summary_html

# Tool output longer than this many lines (or characters) is cut, with a link to expand it.
TOOL_PREVIEW_LINES = 20
TOOL_PREVIEW_CHARS = 2000
_REDACTION = re.compile(r"\[REDACTED:[^\]\s]{1,64}\]")
_CATEGORY_NAMES = {c.key: c.name for c in DEFAULT_CATEGORIES}
# The placeholders redaction leaves in a stored text (the kind is the `x` of `[REDACTED:x]`).
_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z-]{1,40})\]")


class ConversationHtml(QObject):
    """The reader's counted phrases ("12 more lines", "2 AWS keys"). A QObject because
    lupdate collects a plural form only from `self.tr(text, "", n)` (see gui/times.py);
    the other words are `translate("ConversationHtml", …)`, the same context."""

    def more_lines(self, n: int) -> str:
        return self.tr("… %Ln more lines", "", n)

    def more_characters(self, n: int) -> str:
        return self.tr("… %Ln more characters", "", n)

    def turns(self, n: int) -> str:
        return self.tr("%Ln turns", "", n)

    def memories(self, n: int) -> str:
        return self.tr("%Ln memories", "", n)

    def secrets_removed(self, n: int, kinds: str) -> str:
        """ "3 secrets removed: 2 AWS keys, 1 password"."""
        return self.tr("%Ln secrets removed: {kinds}", "", n).format(kinds=kinds)

    def secret_kind(self, kind: str, n: int) -> str:
        """How many secrets of a kind (redaction.KINDS) were removed: "2 AWS keys"."""
        known = {
            "private-key": self.tr("%Ln private keys", "", n),
            "jwt": self.tr("%Ln JSON web tokens", "", n),
            "anthropic-key": self.tr("%Ln anthropic keys", "", n),
            "openai-key": self.tr("%Ln openai keys", "", n),
            "aws-access-key": self.tr("%Ln AWS keys", "", n),
            "aws-secret-key": self.tr("%Ln AWS secret keys", "", n),
            "github-token": self.tr("%Ln github tokens", "", n),
            "gitlab-token": self.tr("%Ln gitlab tokens", "", n),
            "slack-token": self.tr("%Ln slack tokens", "", n),
            "slack-webhook": self.tr("%Ln slack webhooks", "", n),
            "google-api-key": self.tr("%Ln google api keys", "", n),
            "stripe-key": self.tr("%Ln stripe keys", "", n),
            "npm-token": self.tr("%Ln npm tokens", "", n),
            "pypi-token": self.tr("%Ln pypi tokens", "", n),
            "huggingface-token": self.tr("%Ln huggingface tokens", "", n),
            "sendgrid-key": self.tr("%Ln sendgrid keys", "", n),
            "digitalocean-token": self.tr("%Ln digitalocean tokens", "", n),
            "twilio-key": self.tr("%Ln twilio keys", "", n),
            "azure-storage-key": self.tr("%Ln azure storage keys", "", n),
            "bearer-token": self.tr("%Ln bearer tokens", "", n),
            "basic-auth": self.tr("%Ln basic-auth credentials", "", n),
            "password": self.tr("%Ln passwords", "", n),
            "secret": self.tr("%Ln secrets", "", n),
            "token": self.tr("%Ln tokens", "", n),
            "api-key": self.tr("%Ln API keys", "", n),
        }
        if kind in known:
            return known[kind]
        # A kind this version does not know: its name as the placeholder spells it.
        return self.tr("{count} × {kind}").format(count=n, kind=kind.replace("-", " "))


_WORDS = ConversationHtml()


@dataclass(frozen=True)
class ReaderColours:
    """The reader's colours, derived from the palette so light and dark both read well.

    Rich text gets plain hex colours: the result is the same on every Qt version and with
    every style, light or dark.
    """

    text: str
    muted: str
    produced: str  # a turn that produced memories: Highlight at low alpha
    focused: str  # the turns navigated to: Highlight, stronger
    tool: str  # the background of tool calls and output
    redaction: str
    pending: str  # the note on a conversation whose extraction is pending
    monospace: str

    @classmethod
    def from_palette(cls, palette: QPalette) -> ReaderColours:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        highlight = palette.color(QPalette.ColorRole.Highlight)
        dark = base.lightness() < 128
        return cls(
            text=text.name(),
            muted=mix(base, text, 0.62).name(),
            produced=mix(base, highlight, 0.16 if not dark else 0.24).name(),
            focused=mix(base, highlight, 0.38 if not dark else 0.5).name(),
            tool=mix(base, text, 0.05 if not dark else 0.08).name(),
            redaction=mix(base, QColor("#f0a800"), 0.45).name(),
            pending=mix(base, QColor("#d98c00"), 0.16 if not dark else 0.26).name(),
            monospace=QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family(),
        )


@dataclass
class Conversation:
    """What the reader shows: one conversation, its turns and the memories it produced."""

    record: ResourceRecord
    text: str
    turns: list[TurnRecord]
    memories: list[MemoryRecord]
    chunks: list[ConversationChunk] = field(default_factory=list)  # with their summaries

    def memories_by_turn(self) -> tuple[dict[int, list[MemoryRecord]], set[int]]:
        """The memories to link at each turn (the first of their span), and every turn
        a memory came from."""
        linked: dict[int, list[MemoryRecord]] = {}
        produced: set[int] = set()
        for memory in self.memories:
            if memory.turn_start is None:
                continue
            end = memory.turn_end if memory.turn_end is not None else memory.turn_start
            produced.update(range(memory.turn_start, end + 1))
            linked.setdefault(memory.turn_start, []).append(memory)
        return linked, produced


@dataclass
class ReaderState:
    conversation: Conversation
    focus: tuple[int, int] | None = None
    expanded: set[int] = field(default_factory=set)
    summary_open: bool = False  # the chunk summaries unfolded above the turns


def _escape(text: str, colours: ReaderColours) -> str:
    """HTML of plain text: escaped, line breaks kept, redaction markers highlighted."""
    out: list[str] = []
    last = 0
    for match in _REDACTION.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(
            f'<span style="background-color:{colours.redaction}; font-weight:600">'
            f"{html.escape(match.group(0), quote=False)}</span>"
        )
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out).replace("\r\n", "\n").replace("\n", "<br>")


def removed_secrets(text: str) -> str:
    """What redaction removed from a stored text, said for a person: "3 secrets removed:
    2 AWS keys, 1 password" (most frequent first), or "" when nothing was."""
    kinds = Counter(_PLACEHOLDER.findall(text))
    total = sum(kinds.values())
    if not total:
        return ""
    ordered = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [_WORDS.secret_kind(kind, count) for kind, count in ordered]
    return _WORDS.secrets_removed(total, ", ".join(parts))


def _speaker_name(label: str) -> str | None:
    """A speaker's label as the store renders it (domain/rendering.py), in the reader's
    words; None for a label the store does not write."""
    return {
        "User": translate("ConversationHtml", "User"),
        "Assistant": translate("ConversationHtml", "Assistant"),
        "Tool": translate("ConversationHtml", "Tool"),
        "System": translate("ConversationHtml", "System"),
        "Agent": translate("ConversationHtml", "Agent"),
    }.get(label)


def _speaker(label: str, turn: TurnRecord) -> str:
    """A turn's label in the reader's words: "Assistant (tool call)" as the store wrote it,
    translated; any other label as it is."""
    if not label:
        label = turn.speaker.title()
    name, call = label, ""
    for suffix in (" (tool call)", " (command)"):
        if label.endswith(suffix):
            name, call = label.removesuffix(suffix), suffix
    speaker = _speaker_name(name)
    if speaker is None:
        return label
    if call == " (tool call)":
        return translate("ConversationHtml", "{speaker} (tool call)").format(speaker=speaker)
    if call == " (command)":
        return translate("ConversationHtml", "{speaker} (command)").format(speaker=speaker)
    return speaker


def _split_turn(chunk: str) -> tuple[str, str]:
    """ "User: hello" → ("User", "hello"); the label is what the store rendered."""
    label, sep, body = chunk.partition(": ")
    if not sep or "\n" in label or len(label) > 60:
        label, _, body = chunk.partition(":")
        if "\n" in label or len(label) > 60:
            return "", chunk
    return label.strip(), body.strip("\n")


def _preview(body: str, expanded: bool) -> tuple[str, str]:
    """The part of a tool block to show and the words of the link to the rest ("" if
    nothing is hidden)."""
    lines = body.splitlines()
    if expanded:
        return body, ""
    shown = "\n".join(lines[:TOOL_PREVIEW_LINES])
    hidden_lines = max(0, len(lines) - TOOL_PREVIEW_LINES)
    if len(shown) > TOOL_PREVIEW_CHARS:
        cut = shown[:TOOL_PREVIEW_CHARS]
        hidden_lines = len(lines) - cut.count("\n") - 1
        more = len(body) - len(cut)
        if hidden_lines:
            return cut, _WORDS.more_lines(hidden_lines)
        return cut, _WORDS.more_characters(more)
    if hidden_lines:
        return shown, _WORDS.more_lines(hidden_lines)
    return body, ""


def _time(turn: TurnRecord) -> str:
    if turn.timestamp is None:
        return ""
    when = turn.timestamp.astimezone() if turn.timestamp.tzinfo else turn.timestamp
    return when.strftime("%H:%M")


def _category_name(key: str) -> str:
    return _CATEGORY_NAMES.get(key, key.replace("_", " ").capitalize())


def _snippet(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _header_html(conversation: Conversation, colours: ReaderColours) -> str:
    record = conversation.record
    facts: list[str] = []
    if record.project:
        facts.append(html.escape(record.project))
    if record.branch:
        branch = translate("ConversationHtml", "branch {branch}").format(branch=record.branch)
        facts.append(html.escape(branch))
    if record.started_at is not None:
        when = format_date(record.started_at)
        if record.ended_at is not None and record.ended_at > record.started_at:
            end = format_date(record.ended_at)
            when += " – " + (end[11:] if end[:10] == when[:10] else end)
        facts.append(when)
    else:
        imported = translate("ConversationHtml", "imported {date}")
        facts.append(html.escape(imported.format(date=format_date(record.imported_at))))
    counts = [
        html.escape(_WORDS.turns(record.turn_count)),
        # A pending conversation has no memories yet: the note below says why.
        html.escape(
            translate("ConversationHtml", "extraction pending")
            if record.status == "pending"
            else _WORDS.memories(record.item_count)
        ),
    ]
    removed = removed_secrets(conversation.text)  # "3 secrets removed: 2 AWS keys, ..."
    if removed:
        counts.append(html.escape(removed))
    parts = [
        f'<h2 style="margin-bottom:4px">{html.escape(resource_title(record))}</h2>',
        f'<p style="color:{colours.muted}; margin-top:0; margin-bottom:0">{" · ".join(facts)}</p>',
        f'<p style="color:{colours.muted}; margin-top:2px">{" · ".join(counts)}</p>',
    ]
    if record.status == "pending":
        parts.append(_pending_html(record, colours))
    loose = [m for m in conversation.memories if m.turn_start is None]
    if loose:
        parts.append(f"<p>{_memory_links(loose, colours)}</p>")
    if not conversation.turns:
        none = html.escape(translate("ConversationHtml", "This conversation has no turns."))
        parts.append(f'<p style="color:{colours.muted}">{none}</p>')
    return "".join(parts)


def _pending_html(record: ResourceRecord, colours: ReaderColours) -> str:
    """Why a kept conversation has no memories yet, and a link to try again now."""
    reason = html.escape(
        record.status_reason or translate("ConversationHtml", "the extractor failed")
    )
    pending = html.escape(translate("ConversationHtml", "Extraction pending:"))
    kept = html.escape(
        translate(
            "ConversationHtml", "The conversation is kept; no memories were taken from it yet."
        )
    )
    retry = html.escape(translate("ConversationHtml", "Retry now"))
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{colours.pending}"'
        f' style="margin-top:6px; margin-bottom:4px"><tr><td>'
        f'<p style="margin:0"><b>{pending}</b> {reason}</p>'
        f'<p style="margin-top:4px; margin-bottom:0; color:{colours.muted}">'
        f'{kept} <a href="retry:{record.id}">{retry}</a></p>'
        "</td></tr></table>"
    )


def _memory_links(memories: Sequence[MemoryRecord], colours: ReaderColours) -> str:
    lines = []
    for memory in memories:
        link = html.escape(translate("ConversationHtml", "memory #{id}").format(id=memory.id))
        lines.append(
            f'↳ <a href="memory:{memory.id}">{link}</a>'
            f'<span style="color:{colours.muted}"> · {html.escape(_category_name(memory.category))}'
            f" · “{html.escape(_snippet(memory.content))}”</span>"
        )
    return "<br>".join(lines)


def render_conversation(state: ReaderState, colours: ReaderColours, base_pt: float) -> str:
    """The reader's HTML for a conversation: a header, then each turn."""
    conversation = state.conversation
    linked, produced = conversation.memories_by_turn()
    small_pt = max(7.0, base_pt - 1)
    parts = [
        f'<html><body style="color:{colours.text}">',
        _header_html(conversation, colours),
        summary_html(conversation.chunks, state.summary_open, colours),
    ]
    text = conversation.text
    for turn in conversation.turns:
        label, body = _split_turn(text[turn.start : turn.end])
        label = _speaker(label, turn)
        is_tool = turn.kind in ("tool_use", "tool_result")
        focused = state.focus is not None and state.focus[0] <= turn.position <= state.focus[1]
        background = (
            colours.focused if focused else colours.produced if turn.position in produced else ""
        )
        bgcolor = f' bgcolor="{background}"' if background else ""
        meta = _time(turn)
        heading = f'<a name="turn-{turn.position}"></a><b>{html.escape(label)}</b>' + (
            f'<span style="color:{colours.muted}">&nbsp;&nbsp;{meta}</span>' if meta else ""
        )
        parts.append(
            f'<table width="100%" cellspacing="0" cellpadding="6"{bgcolor}'
            f' style="margin-top:2px; margin-bottom:2px"><tr><td>'
            f'<p style="margin:0">{heading}</p>'
        )
        if is_tool:
            shown, more = _preview(body, turn.position in state.expanded)
            tool_bg = "" if background else f' bgcolor="{colours.tool}"'
            block = (
                f'<table width="100%" cellspacing="0" cellpadding="5"{tool_bg}'
                f' style="margin-top:3px"><tr><td>'
                f"<p style=\"margin:0; font-family:'{colours.monospace}'; font-size:{small_pt}pt;"
                f' color:{colours.muted}; white-space:pre-wrap">{_escape(shown, colours)}</p>'
            )
            if more:
                block += (
                    f'<p style="margin-top:4px; margin-bottom:0; font-size:{small_pt}pt">'
                    f'<a href="expand:{turn.position}">{html.escape(more)}</a></p>'
                )
            elif turn.position in state.expanded:
                less = html.escape(translate("ConversationHtml", "Show less"))
                block += (
                    f'<p style="margin-top:4px; margin-bottom:0; font-size:{small_pt}pt">'
                    f'<a href="collapse:{turn.position}">{less}</a></p>'
                )
            parts.append(block + "</td></tr></table>")
        else:
            parts.append(
                f'<p style="margin-top:3px; margin-bottom:0; white-space:pre-wrap">'
                f"{_escape(body, colours)}</p>"
            )
        if turn.position in linked:
            parts.append(
                f'<p style="margin-top:6px; margin-bottom:0">'
                f"{_memory_links(linked[turn.position], colours)}</p>"
            )
        parts.append("</td></tr></table>")
    parts.append("</body></html>")
    return "".join(parts)
