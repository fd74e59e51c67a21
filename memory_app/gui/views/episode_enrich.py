"""Claude's reading of an episode in the Episodes view: the "Enrich with Claude" action
(memory_app/episodes/enrich.py, as `memory-app episodes enrich ID` does it) and the
section that shows the reading, marked as Claude's.

One request per episode, on the long-job thread (it may take seconds; the window and
the database worker stay free). It fails open: the offline episode is never touched,
and the row under the detail says why Claude gave nothing.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from memory_app.domain.jobs import JobState
from memory_app.episodes.enrich import EnrichResult, EpisodeEnricher, enrich_episodes
from memory_app.episodes.store import EpisodeRun
from memory_app.gui.claude_access import claude_ready, episode_enricher
from memory_app.gui.colours import ERROR, WARNING, muted_colour, text_colour, text_style
from memory_app.gui.context import AppContext

log = logging.getLogger(__name__)

JOB = "enrich-episode"


class ClaudeReading(QObject):
    """The section showing Claude's reading (a QObject: lupdate collects `self.tr`)."""

    def html(
        self, episode: EpisodeRun, palette: QPalette, outcome_words: Callable[[str], str]
    ) -> list[str]:
        """Claude's reading of the episode, shown as Claude's; [] when it has none."""
        reading = episode.enrichment
        if reading is None:
            return []
        esc = html.escape
        muted = muted_colour(palette).name()
        note = self.tr("{model}, not read from the turns").format(model=reading.model)
        heading = self.tr("Claude's reading")
        parts = [
            f'<h4>{esc(heading)} <span style="color:{muted}">({esc(note)})</span></h4>',
        ]
        if reading.outdated:
            stale = self.tr(
                "Outdated: the episode changed since Claude read it. Enrich with Claude "
                "reads it again."
            )
            warning = text_colour(WARNING, palette).name()
            parts.append(f'<p style="color:{warning}">{esc(stale)}</p>')
        parts += [
            f"<p><b>{esc(reading.title)}</b></p>",
            f"<p>{esc(reading.narrative)}</p>",
        ]
        if reading.lessons:
            lessons = "".join(f"<li>{esc(lesson)}</li>" for lesson in reading.lessons)
            label = self.tr("Lessons")
            parts.append(f"<p>{esc(label)}:</p><ul>{lessons}</ul>")
        verdict = self.tr("Claude's verdict: {outcome} · {reason}").format(
            outcome=outcome_words(reading.outcome), reason=reading.outcome_reason
        )
        parts.append(f"<p>{esc(verdict)}</p>")
        return parts


class EnrichAction(QWidget):
    """The button, a busy bar while Claude reads, and what came of it.

    Signals:
        enriched(int): Claude's reading of this episode was stored (show it again).
    """

    enriched = Signal(int)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.ready = False  # Claude can be asked (looked up on the worker: check_ready)
        self.episode: EpisodeRun | None = None
        self.running: int | None = None  # the episode Claude is reading
        self.button = QPushButton(self.tr("Enrich with C&laude"), self)
        self.button.setObjectName("enrichEpisode")
        self.button.clicked.connect(self.enrich)
        self.busy = QProgressBar(self)
        self.busy.setObjectName("enrichProgress")
        self.busy.setRange(0, 0)  # one request: no steps to count
        self.busy.setFixedWidth(120)
        self.busy.setMaximumHeight(12)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.status = QLabel(self)
        self.status.setObjectName("enrichStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.busy, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.status, 1)
        self.update_button()

    async def check_ready(self) -> None:
        """Ask (on the worker: the keyring may be slow) whether Claude can be asked."""
        self.ready = await self.context.call(claude_ready, self.context.service)
        self.update_button()

    def show_for(self, episode: EpisodeRun | None) -> None:
        """The episode the action applies to (the one shown)."""
        other = episode is None or self.episode is None or episode.id != self.episode.id
        if other and self.running is None:
            self._say("")
        self.episode = episode
        self.update_button()

    def update_button(self) -> None:
        """Enabled for a shown episode when Claude can be asked and is not reading one;
        the tooltip says what it does, or what it needs first."""
        self.button.setEnabled(self.ready and self.episode is not None and self.running is None)
        if not self.ready:
            tip = self.tr(
                "Needs Claude: choose Claude as the extractor in Settings, or set "
                "ANTHROPIC_API_KEY (or save a key in Settings > Extractor)"
            )
        elif self.running is not None:
            tip = self.tr("Claude is reading episode #{id}…").format(id=self.running)
        elif self.episode is None:
            tip = self.tr("Select an episode first")
        else:
            tip = self.tr(
                "Ask Claude for a title, the story and the lessons of this episode, kept "
                "beside what was read offline (one request, about a cent at most)"
            )
        self.button.setToolTip(tip)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet(text_style(ERROR, self.palette()) if error else "")

    def enrich(self) -> Any:
        """Ask Claude about the shown episode (a task; None when it cannot start)."""
        if self.episode is None or self.running is not None or not self.ready:
            return None
        episode_id = self.episode.id
        self.running = episode_id  # at once: a second click must not ask twice
        self.busy.show()
        self.update_button()
        doing = self.tr("Claude is reading episode #{id}…").format(id=episode_id)
        self._say(doing)
        self.context.status.begin(doing)
        return self.context.spawn(self._enrich(episode_id))

    async def _enrich(self, episode_id: int) -> None:
        try:
            enricher = await self.context.call(episode_enricher, self.context.service)
            if isinstance(enricher, str):  # no key after all: removed meanwhile
                result = EnrichResult(episode_id, None, enricher, None)
            else:
                result = await self.context.jobs.run(
                    JOB, self._work(enricher, episode_id), JobState()
                )
        except Exception as exc:  # a store error must leave the window working
            log.warning("enriching episode %s failed", episode_id, exc_info=exc)
            result = EnrichResult(episode_id, None, str(exc) or type(exc).__name__, None)
        finally:
            self.running = None
            self.busy.hide()
            self.update_button()
        self._show_result(result)

    def _work(self, enricher: EpisodeEnricher, episode_id: int) -> Callable[[JobState], Any]:
        db = self.context.service.db

        def work(_state: JobState) -> EnrichResult:
            return enrich_episodes(db, enricher, [episode_id])[0]

        return work

    def _show_result(self, result: EnrichResult) -> None:
        if result.enrichment is None:
            text = self.tr(
                "Claude could not read episode #{id}: {error}. The offline episode is unchanged."
            ).format(id=result.episode_id, error=result.error or self.tr("no answer"))
            self._say(text, error=True)
            self.context.status.fail(text)
            return
        tokens = result.usage.input_tokens + result.usage.output_tokens if result.usage else 0
        text = self.tr("Claude read episode #{id} (%Ln tokens).", "", tokens).format(
            id=result.episode_id
        )
        self._say(text)
        self.context.status.finish(text)
        self.enriched.emit(result.episode_id)
