"""Episodes: each conversation told as a short story (seeds 003 and 004), newest first and
grouped by day, with a detail pane that links every milestone and problem back to its
turn in Sources and lists the memories learnt from it.

The episodes are built by memory_app/episodes when a conversation is imported; this view
only reads them, off the GUI thread.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QEvent, QLocale, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedLayout,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_app.episodes import store as episode_store
from memory_app.episodes.model import OUTCOMES
from memory_app.episodes.store import EpisodeMemory, EpisodeRun
from memory_app.gui.colours import ERROR, SUCCESS, muted_colour, text_colour
from memory_app.gui.context import AppContext
from memory_app.gui.times import full_time
from memory_app.gui.views.base import View
from memory_app.gui.views.episode_enrich import ClaudeReading, EnrichAction
from memory_app.gui.widgets.empty_state import EmptyState
from memory_app.service import MemoryService

LIMIT = 500  # the newest episodes listed; the footer says when there are more
ID_ROLE = Qt.ItemDataRole.UserRole
TITLE, PROJECT, OUTCOME, DURATION, STARTED = range(5)


@dataclass(frozen=True)
class EpisodeList:
    episodes: list[EpisodeRun]  # a run of sessions on one task is one entry
    total: int  # every episode stored (with the filter: more may exist than listed)


def load_episodes(service: MemoryService, outcome: str | None) -> EpisodeList:
    """The newest episodes (of one outcome when given), and how many are stored."""
    with service.db.reading() as session:
        conn = session.connection()
        found = episode_store.list_episodes(conn, limit=LIMIT, outcome=outcome)
        return EpisodeList(found, episode_store.count_episodes(conn))


def load_episode(service: MemoryService, episode_id: int) -> tuple[EpisodeRun, list[EpisodeMemory]]:
    """One episode (with every session of its run) and the memories learnt from its
    conversations."""
    with service.db.reading() as session:
        conn = session.connection()
        run = episode_store.get_run(conn, episode_id)
        return run, [m for _, m in episode_store.run_memories(conn, run)]


class EpisodesView(View):
    """The timeline (left) and the chosen episode (right).

    Navigation argument of `activate`: an episode id, to select it.
    """

    key = "episodes"
    icon = "episodes"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.title = self.tr("Episodes")
        self.episodes: list[EpisodeRun] = []
        self.shown: tuple[EpisodeRun, list[EpisodeMemory]] | None = None
        self._wanted: int | None = None  # an episode to select once the list is loaded
        self._serial = 0

        self.outcome = QComboBox(self)
        self.outcome.setObjectName("episodeOutcome")
        self.outcome.addItem(self.tr("Any outcome"), None)
        for outcome in OUTCOMES:
            self.outcome.addItem(self.outcome_words(outcome), outcome)
        self.outcome.setToolTip(self.tr("Show only the episodes that ended so"))
        self.outcome.currentIndexChanged.connect(lambda _i: self.context.spawn(self.reload()))
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("episodeTimeline")
        self.tree.setHeaderLabels(
            [
                self.tr("Episode"),
                self.tr("Project"),
                self.tr("Outcome"),
                self.tr("Duration"),
                self.tr("Started"),
            ]
        )
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Stretch)
        for column in (PROJECT, OUTCOME, DURATION, STARTED):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(lambda *_: self._selected())
        self.tree.itemActivated.connect(lambda *_: self.open_conversation())
        self.count = QLabel(self)
        self.count.setObjectName("episodeCount")
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 8, 4, 8)
        filter_row = QHBoxLayout()
        outcome_label = QLabel(self.tr("&Outcome"), left)
        outcome_label.setBuddy(self.outcome)
        filter_row.addWidget(outcome_label)
        filter_row.addWidget(self.outcome)
        filter_row.addStretch(1)
        left_layout.addLayout(filter_row)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.count)

        self.detail = QTextBrowser(self)
        self.detail.setObjectName("episodeDetail")
        self.detail.setOpenLinks(False)  # the links go to other views: open_link
        self.detail.anchorClicked.connect(lambda url: self.open_link(url.toString()))
        self._reading = ClaudeReading(self)
        self.enrich = EnrichAction(context, self)
        self.enrich.enriched.connect(self._enriched)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 8, 8, 8)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(self.enrich)

        self.main = QSplitter(self)
        self.main.addWidget(left)
        self.main.addWidget(right)
        self.main.setStretchFactor(0, 3)
        self.main.setStretchFactor(1, 2)
        self.main.setSizes([640, 460])
        self.main.setChildrenCollapsible(False)
        self.empty = EmptyState(
            icon="episodes",
            title=self.tr("No episodes yet"),
            text=self.tr(
                "Each imported conversation becomes an episode: what it set out to do, the "
                "milestones and problems on the way, how it ended and the files it touched, "
                "each linked to its turn."
            ),
            action=self.tr("Import Conversations…"),
            parent=self,
        )
        assert self.empty.button is not None
        self.empty.button.clicked.connect(
            lambda: self.context.events.navigate.emit("sources", "import")
        )
        self.pages = QStackedLayout(self)
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.main)
        context.events.sources_changed.connect(self._store_changed)
        context.events.memories_changed.connect(self._store_changed)
        self._clear_detail()

    # -- words ------------------------------------------------------------------------

    def outcome_words(self, outcome: str) -> str:
        words = {
            "succeeded": self.tr("Succeeded"),
            "abandoned": self.tr("Abandoned"),
            "unknown": self.tr("Unknown"),
        }
        return words.get(outcome, outcome)

    def kind_words(self, kind: str) -> str:
        """A milestone's kind (episodes/model.py MILESTONE_KINDS) as a short label."""
        words = {
            "explored": self.tr("explored"),
            "answered": self.tr("answered"),
            "approved": self.tr("approved"),
            "delegated": self.tr("delegated"),
            "wrote": self.tr("wrote"),
            "tests_passed": self.tr("tests passed"),
            "committed": self.tr("committed"),
            "made": self.tr("made"),
            "request": self.tr("request"),
            "confirmed": self.tr("confirmed"),
        }
        return words.get(kind, kind.replace("_", " "))

    def action_words(self, action: str) -> str:
        words = {
            "read": self.tr("read"),
            "edited": self.tr("edited"),
            "written": self.tr("written"),
        }
        return words.get(action, action)

    def duration_words(self, seconds: int | None) -> str:
        if seconds is None:
            return "—"
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        if hours:
            return self.tr("{hours} h {minutes} min").format(hours=hours, minutes=f"{minutes:02d}")
        if minutes:
            return self.tr("{minutes} min {seconds} s").format(
                minutes=minutes, seconds=f"{secs:02d}"
            )
        return self.tr("{seconds} s").format(seconds=secs)

    def day_words(self, day: date | None) -> str:
        if day is None:
            return self.tr("Date unknown")
        locale = QLocale()
        return self.tr("{weekday} {day} {month} {year}").format(
            weekday=locale.dayName(day.isoweekday()),
            day=day.day,
            month=locale.monthName(day.month),
            year=day.year,
        )

    # -- loading ----------------------------------------------------------------------

    def activate(self, argument: Any = None) -> None:
        if isinstance(argument, int) and not isinstance(argument, bool):
            self._wanted = argument
        super().activate(argument)

    async def reload(self) -> None:
        self._serial += 1
        serial = self._serial
        found = await self.context.call(
            load_episodes, self.context.service, self.outcome.currentData()
        )
        if serial == self._serial:  # a newer reload is under way: its answer wins
            self.show_episodes(found)
        await self.enrich.check_ready()  # Claude chosen or a key saved meanwhile counts

    def _store_changed(self) -> None:
        if self.isVisible():  # hidden, it loads again when shown (activate)
            self.loaded = True
            self.schedule_reload()

    def show_episodes(self, found: EpisodeList) -> None:
        wanted, self._wanted = self._wanted, None
        current = wanted if wanted is not None else self.current_id()
        self.episodes = found.episodes
        self.tree.blockSignals(True)
        self.tree.clear()
        day_item: QTreeWidgetItem | None = None
        last_day: date | None = None  # the day of the group being filled
        items: dict[int, QTreeWidgetItem] = {}
        for episode in found.episodes:
            local = episode.started_at.astimezone() if episode.started_at else None
            day = local.date() if local is not None else None
            if day_item is None or day != last_day:
                day_item = QTreeWidgetItem([self.day_words(day)])
                day_item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not selectable
                font = day_item.font(TITLE)
                font.setBold(True)
                day_item.setFont(TITLE, font)
                self.tree.addTopLevelItem(day_item)
                day_item.setFirstColumnSpanned(True)
                last_day = day
            item = QTreeWidgetItem(day_item, self._columns(episode, local))
            item.setData(TITLE, ID_ROLE, episode.id)
            item.setToolTip(TITLE, episode.goal or episode.title)
            item.setToolTip(PROJECT, episode.project or "")
            if episode.started_at is not None:
                item.setToolTip(STARTED, full_time(episode.started_at))
            colour = self._outcome_colour(episode.outcome)
            if colour is not None:
                item.setForeground(OUTCOME, colour)
            items[episode.id] = item
        self.tree.expandAll()
        self.tree.blockSignals(False)
        filtered = self.outcome.currentIndex() != 0
        self.pages.setCurrentWidget(self.main if found.total or filtered else self.empty)
        listed = len(found.episodes)
        if listed < found.total and not filtered:
            self.count.setText(
                self.tr("The newest %Ln episodes of {total}", "", listed).format(total=found.total)
            )
        else:
            self.count.setText(self.tr("%Ln episodes", "", listed))
        chosen = items.get(current) if current is not None else None
        if chosen is None and found.episodes:
            chosen = items[found.episodes[0].id]
        if chosen is not None:
            self.tree.setCurrentItem(chosen)
            self.tree.scrollToItem(chosen)
            self._selected()
        else:
            self._clear_detail()

    def _columns(self, episode: EpisodeRun, local: datetime | None) -> list[str]:
        project = PurePath(episode.project).name if episode.project else "—"
        title = episode.title
        if len(episode.sessions) > 1:
            title += " · " + self.tr("%Ln sessions", "", len(episode.sessions))
        return [
            title,
            project,
            self.outcome_words(episode.outcome),
            self.duration_words(episode.duration_seconds),
            f"{local:%H:%M}" if local is not None else "—",
        ]

    def _outcome_colour(self, outcome: str) -> Any:
        if outcome == "succeeded":
            return text_colour(SUCCESS, self.palette())
        if outcome == "abandoned":
            return text_colour(ERROR, self.palette())
        return None

    def current_id(self) -> int | None:
        item = self.tree.currentItem()
        value = item.data(TITLE, ID_ROLE) if item is not None else None
        return value if isinstance(value, int) else None

    def _selected(self) -> None:
        ident = self.current_id()
        if ident is not None:
            self.context.spawn(self._load(ident))

    async def _load(self, ident: int) -> None:
        loaded = await self.context.call(load_episode, self.context.service, ident)
        if self.current_id() == ident:
            self.show_detail(*loaded)

    # -- the detail pane --------------------------------------------------------------

    def _enriched(self, episode_id: int) -> None:
        """Claude's reading was stored: show it in place (if the episode is still shown)."""
        if self.shown is not None and self.shown[0].id == episode_id:
            self.context.spawn(self._load(episode_id))

    def _clear_detail(self) -> None:
        self.shown = None
        self.enrich.show_for(None)
        self.detail.setHtml("<p><i>{}</i></p>".format(html.escape(self.tr("Select an episode."))))

    def show_detail(self, episode: EpisodeRun, memories: list[EpisodeMemory]) -> None:
        self.shown = (episode, memories)
        self.detail.setHtml(self.detail_html(episode, memories))
        self.enrich.show_for(episode)

    def _turn_link(self, turn: int | None, conversation: int | None = None) -> str:
        """A link to a turn in Sources: `turn:N` of the run's first conversation, or
        `turn:N:ID` of another session's conversation."""
        if turn is None:
            return ""
        text = self.tr("turn {number}").format(number=turn)
        first = self.shown[0].resource_id if self.shown is not None else None
        target = f"{turn}" if conversation in (None, first) else f"{turn}:{conversation}"
        return f'<a href="turn:{target}">{html.escape(text)}</a>'

    def detail_html(self, episode: EpisodeRun, memories: list[EpisodeMemory]) -> str:
        esc = html.escape
        muted = muted_colour(self.palette()).name()
        success = text_colour(SUCCESS, self.palette()).name()
        error = text_colour(ERROR, self.palette()).name()
        outcome_colour = {"succeeded": success, "abandoned": error}.get(episode.outcome, muted)
        parts = [f"<h3>{esc(episode.title)}</h3>"]
        where = [PurePath(episode.project).name if episode.project else None, episode.branch]
        started = full_time(episode.started_at) if episode.started_at else None
        meta = " · ".join(esc(w) for w in (*where, started) if w)
        if meta:
            parts.append(f'<p style="color:{muted}">{meta}</p>')
        first = episode.goal_turn if episode.goal_turn is not None else 0
        opener = self.tr("Open conversation #{number} ↗").format(number=episode.resource_id)
        parts.append(f'<p><a href="turn:{first}">{esc(opener)}</a></p>')

        rows = [
            (
                self.tr("Goal"),
                esc(episode.goal or episode.title),
                self._turn_link(episode.goal_turn),
            ),
            (
                self.tr("Outcome"),
                f'<b style="color:{outcome_colour}">{esc(self.outcome_words(episode.outcome))}'
                f"</b>" + (f" · {esc(episode.outcome_reason)}" if episode.outcome_reason else ""),
                self._turn_link(episode.outcome_turn, episode.last.resource_id),
            ),
            (
                self.tr("Duration"),
                esc(self.duration_words(episode.duration_seconds))
                + " · "
                + esc(self.tr("%Ln turns", "", episode.turn_count)),
                "",
            ),
        ]
        table = "".join(
            f'<tr><td style="color:{muted}; padding-right:12px">{esc(label)}</td>'
            f"<td>{value}{' · ' + link if link else ''}</td></tr>"
            for label, value, link in rows
        )
        parts.append(f'<table cellspacing="0" cellpadding="2">{table}</table>')

        parts += self._reading.html(episode, self.palette(), self.outcome_words)
        many = len(episode.sessions) > 1
        if many:
            heading = self.tr("%Ln sessions", "", len(episode.sessions))
            parts.append(f"<h4>{esc(heading)}</h4>")
            lines = []
            for number, part in enumerate(episode.sessions, start=1):
                when = full_time(part.started_at) if part.started_at else "—"
                link = self._turn_link(part.goal_turn or 0, part.resource_id)
                why = f" · <i>{esc(part.run_reason)}</i>" if part.run_reason else ""
                lines.append(
                    f"<li>{number}. {esc(when)} · "
                    f"{esc(self.duration_words(part.duration_seconds))} · "
                    f"{esc(self.outcome_words(part.outcome))} · {link}{why}</li>"
                )
            parts.append(f"<ul>{''.join(lines)}</ul>")

        heading = self.tr("%Ln milestones", "", len(episode.milestones))
        parts.append(f"<h4>{esc(heading)}</h4>")
        items = []
        for number, part in enumerate(episode.sessions, start=1):
            milestones = episode.session_milestones(part)
            if many and milestones:
                label = self.tr("Session {number}").format(number=number)
                items.append(f"<li><i>{esc(label)}</i></li>")
            items += [
                f"<li>{self._turn_link(m.turn, part.resource_id)} · "
                f"<b>{esc(self.kind_words(m.kind))}</b>: {esc(m.text)}</li>"
                for m in milestones
            ]
        if items:
            parts.append(f"<ul>{''.join(items)}</ul>")

        fixed = episode.problems_fixed
        heading = self.tr("%Ln problems", "", len(episode.problems))
        if episode.problems:
            heading += " · " + self.tr("{fixed} fixed").format(fixed=fixed)
        parts.append(f"<h4>{esc(heading)}</h4>")
        if episode.problems:
            lines = []
            fixed_word, not_fixed_word = esc(self.tr("fixed")), esc(self.tr("not fixed"))
            for part in episode.sessions:
                for p in part.own_problems:
                    if p.fixed_at is not None:
                        state = (
                            f'<span style="color:{success}">{fixed_word}</span> '
                            f"({self._turn_link(p.fixed_at, part.resource_id)})"
                        )
                    else:
                        state = f'<span style="color:{error}">{not_fixed_word}</span>'
                    link = self._turn_link(p.turn, part.resource_id)
                    lines.append(f"<li>{link} · {esc(p.text)} · {state}</li>")
            parts.append(f"<ul>{''.join(lines)}</ul>")

        heading = self.tr("%Ln files touched", "", len(episode.files))
        parts.append(f"<h4>{esc(heading)}</h4>")
        if episode.files:
            lines = [
                f"<li><code>{esc(f.path)}</code> · "
                f"{esc(', '.join(self.action_words(a) for a in f.actions))} · "
                f"{self._turn_link(f.first_turn)}</li>"
                for f in episode.files
            ]
            parts.append(f"<ul>{''.join(lines)}</ul>")

        heading = self.tr("%Ln memories learnt", "", len(memories))
        parts.append(f"<h4>{esc(heading)}</h4>")
        if memories:
            lines = []
            for m in memories:
                category = m.category.replace("_", " ")
                state = "" if m.status == "active" else f" · <i>{esc(m.status)}</i>"
                lines.append(
                    f'<li><a href="memory:{m.id}">#{m.id}</a> '
                    f'<span style="color:{muted}">{esc(category)}</span> · '
                    f"{esc(m.content)}{state}</li>"
                )
            parts.append(f"<ul>{''.join(lines)}</ul>")
        return "".join(parts)

    # -- links ------------------------------------------------------------------------

    def open_link(self, href: str) -> None:
        """`turn:N` (or `turn:N:ID` for another session of a run): the conversation in
        Sources at that turn; `memory:ID`: the memory."""
        kind, _, value = href.partition(":")
        turn_text, _, conversation = value.partition(":")  # `turn:N:ID`: another session's
        if self.shown is None or not turn_text.isdigit():
            return
        if kind == "turn":
            turn = int(turn_text)
            resource = int(conversation) if conversation.isdigit() else self.shown[0].resource_id
            self.context.events.navigate.emit("sources", (resource, turn, turn))
        elif kind == "memory":
            self.context.events.navigate.emit("memories", int(value))

    def open_conversation(self) -> None:
        """The chosen episode's conversation, at its goal (Enter or a double click)."""
        if self.shown is not None:
            turn = self.shown[0].goal_turn if self.shown[0].goal_turn is not None else 0
            self.open_link(f"turn:{turn}")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.shown is not None:
            self.show_detail(*self.shown)
