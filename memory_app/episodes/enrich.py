"""Claude's reading of an episode (seed 003's narrative arc), optional.

The offline episode says what the turns show; Claude is asked once per episode (a run of
sessions included) for what a person would write about it: a better title, a paragraph
telling the arc, the lessons learnt, and its own verdict on the outcome with a reason.
The request carries the offline episode and the conversation's prompts and last turns,
cut to `MAX_INPUT_CHARS`, so its cost is bounded. The answer is stored beside the offline
fields, marked as Claude's, and never replaces them. It fails open: no key, an API
error, a timeout or an unusable answer leave the offline episode as it is, and say why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anthropic
import pydantic
from sqlalchemy import Connection, update

from memory_app.domain.transcripts import Transcript
from memory_app.domain.usage import CallUsage, billed_input_tokens
from memory_app.episodes.model import Enrichment
from memory_app.episodes.store import EPISODE, EpisodeRun, stored_transcript
from memory_app.extract.claude import message_problem
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import NO_KEY_MESSAGE, find_api_key
from memory_app.store.database import Database
from memory_app.store.errors import NotFoundError
from memory_app.store.tables import utc_now

log = logging.getLogger(__name__)

USAGE_KIND = "episode"  # extraction_run.kind of these requests
MAX_INPUT_CHARS = 24_000  # about 6k input tokens: well under a cent with Haiku
MAX_OUTPUT_TOKENS = 1_024
PROMPT_CHARS = 600  # of each user prompt
FINAL_TURNS = 4  # the last turns of the last session, where it shows how it ended
FINAL_TURN_CHARS = 1_500

_PROMPT = """Below is an episode from a developer's work with an AI coding assistant: what
an offline reader found in the session transcript(s) (goal, milestones, problems, outcome,
files), then the user's prompts and the last turns of the conversation.

Tell the episode as a person would. Answer with:
- `title`: what was done, at most 10 words (no "Episode:" prefix).
- `narrative`: one paragraph (3-6 sentences): the goal, the obstacles met, how they were
  handled, and how it ended. Only what the material supports.
- `lessons`: 0-3 short lessons worth remembering for future work on this project
  (a pitfall, a fix that worked, a convention learnt); none if nothing was learnt.
- `outcome`: "succeeded", "abandoned" or "unknown", judged from the material.
- `outcome_reason`: at most 20 words, why.

{episode}"""

Outcome = Literal["succeeded", "abandoned", "unknown"]


class EpisodeAnswer(pydantic.BaseModel):
    title: str = pydantic.Field(min_length=1, max_length=120)
    narrative: str = pydantic.Field(min_length=1, max_length=2_000)
    lessons: list[pydantic.constr(max_length=300)] = pydantic.Field(  # type: ignore[valid-type]
        default_factory=list, max_length=5
    )
    outcome: Outcome
    outcome_reason: str = pydantic.Field(max_length=300)


@dataclass(frozen=True)
class EnrichResult:
    """What asking about one episode did: Claude's reading, or why there is none."""

    episode_id: int
    enrichment: Enrichment | None
    error: str | None
    usage: CallUsage | None

    def to_json(self) -> dict[str, Any]:
        return {
            "episode": self.episode_id,
            "enriched": self.enrichment is not None,
            "error": self.error,
            "claude": self.enrichment.to_json() if self.enrichment else None,
            "input_tokens": self.usage.input_tokens if self.usage else 0,
            "output_tokens": self.usage.output_tokens if self.usage else 0,
            "cost_usd": self.usage.cost_usd if self.usage else None,
        }


def _cut(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def episode_material(run: EpisodeRun, transcripts: Iterable[Transcript | None]) -> str:
    """The request's material: the offline episode, then prompts and final turns, cut so
    the whole stays within MAX_INPUT_CHARS (the earliest prompts go first when long)."""
    head: list[str] = [f"Goal: {run.goal}", f"Project: {run.project or 'unknown'}"]
    if len(run.sessions) > 1:
        head.append(f"Sessions: {len(run.sessions)} (one task, resumed)")
    head.append(f"Offline outcome: {run.outcome}: {run.outcome_reason}")
    head.append("Milestones:")
    head += [f"- {m.text}" for m in run.milestones[:40]] or ["- none"]
    head.append("Problems:")
    head += [f"- {p.text} ({'fixed' if p.fixed else 'not fixed'})" for p in run.problems[:20]] or [
        "- none"
    ]
    head.append("Files: " + (", ".join(f.path for f in run.files[:30]) or "none"))
    prompts: list[str] = []
    last: Transcript | None = None
    for number, transcript in enumerate(transcripts, start=1):
        if transcript is None:
            continue
        last = transcript
        own = run.sessions[number - 1].run_from_turn or 0
        prompts += [
            f"[session {number}] {_cut(t.text, PROMPT_CHARS)}"
            for t in transcript.turns
            if t.speaker == "user" and t.kind == "message" and t.position >= own
        ]
    ending = []
    if last is not None:
        spoken = [t for t in last.turns if t.kind == "message" and t.text.strip()]
        ending = [f"{t.speaker}: {_cut(t.text, FINAL_TURN_CHARS)}" for t in spoken[-FINAL_TURNS:]]
    fixed = "\n".join([*head, "", "Final turns:", *ending, "", "User prompts:"])
    room = MAX_INPUT_CHARS - len(_PROMPT) - len(fixed)
    kept: list[str] = []
    for prompt in reversed(prompts):  # the latest prompts say most about the end
        if room - len(prompt) - 1 < 0:
            break
        kept.insert(0, prompt)
        room -= len(prompt) + 1
    if len(kept) < len(prompts):
        kept.insert(0, f"({len(prompts) - len(kept)} earlier prompts left out)")
    return (fixed + "\n" + "\n".join(kept))[: MAX_INPUT_CHARS - len(_PROMPT)]


class EpisodeEnricher:
    """One request per episode with a small structured answer."""

    def __init__(self, client: anthropic.Anthropic, settings: ClaudeSettings | None = None):
        self._client = client
        self.settings = settings or ClaudeSettings()

    def enrich(self, run: EpisodeRun, material: str) -> EnrichResult:
        started = time.monotonic()
        model = self.settings.model
        kwargs: dict[str, Any] = {
            "model": model,
            "max_tokens": min(MAX_OUTPUT_TOKENS, self.settings.max_tokens),
            "messages": [{"role": "user", "content": _PROMPT.format(episode=material)}],
            "output_config": {
                "format": {
                    "type": "json_schema",
                    "schema": anthropic.transform_schema(EpisodeAnswer),
                }
            },
        }
        tokens = (0, 0)
        try:
            message = self._client.messages.create(**kwargs)
            problem = message_problem(message)
            if problem is not None:
                raise ValueError(f"the answer is not a Messages response: {problem}")
            usage = message.usage
            tokens = (billed_input_tokens(usage), usage.output_tokens or 0)
            if message.stop_reason == "max_tokens":
                raise ValueError("the answer was cut off at the token limit")
            text = "".join(b.text for b in message.content if b.type == "text")
            try:
                answer = EpisodeAnswer.model_validate_json(text)
            except pydantic.ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ())) or "answer"
                raise ValueError(f"the answer is not usable ({where}: {first['msg']})") from None
        except (anthropic.AnthropicError, ValueError) as exc:
            error = _describe(exc)
            log.warning("Claude could not read episode %s: %s", run.id, error)
            return EnrichResult(run.id, None, error, self._usage(started, tokens, error))
        enrichment = Enrichment(
            title=" ".join(answer.title.split()),
            narrative=answer.narrative.strip(),
            lessons=tuple(" ".join(x.split()) for x in answer.lessons if x.strip()),
            outcome=answer.outcome,
            outcome_reason=answer.outcome_reason.strip(),
            model=message.model or model,
            enriched_at=utc_now().isoformat(),
            fingerprint=run.fingerprint,
        )
        return EnrichResult(run.id, enrichment, None, self._usage(started, tokens, None))

    def _usage(self, started: float, tokens: tuple[int, int], error: str | None) -> CallUsage:
        return CallUsage(
            kind=USAGE_KIND,
            model=self.settings.model,
            requests=1,
            input_tokens=tokens[0],
            output_tokens=tokens[1],
            duration_ms=int((time.monotonic() - started) * 1000),
            status="error" if error else "success",
            error=error,
        )


def _describe(exc: Exception) -> str:
    if isinstance(exc, anthropic.APITimeoutError):
        return "Claude did not answer in time"
    if isinstance(exc, anthropic.APIConnectionError):
        return "the Anthropic API could not be reached"
    if isinstance(exc, anthropic.APIStatusError):
        return f"the Anthropic API refused the request ({exc.status_code}): {exc.message}"
    return str(exc)


def make_enricher(
    extractor: object,
    env: Mapping[str, str] | None = None,
    *,
    use_keyring: bool = True,
) -> EpisodeEnricher | str:
    """The enricher when Claude is configured, else why not: the Claude extractor's
    client when it is the one in use (same key, transport and settings), else a client
    for the API key the extractor would find."""
    client = getattr(extractor, "client", None)
    if getattr(extractor, "name", "") == "claude" and isinstance(client, anthropic.Anthropic):
        return EpisodeEnricher(client, getattr(extractor, "settings", None))
    key = find_api_key(env, use_keyring=use_keyring)
    if key is None:
        return NO_KEY_MESSAGE
    settings = ClaudeSettings.from_env(env)
    return EpisodeEnricher(
        anthropic.Anthropic(
            api_key=key.reveal(),
            base_url=settings.base_url,
            timeout=anthropic.Timeout(settings.timeout, connect=settings.connect_timeout),
            max_retries=settings.max_retries,
        ),
        settings,
    )


def run_transcripts(conn: Connection, run: EpisodeRun) -> list[Transcript | None]:
    return [stored_transcript(conn, s.resource_id) for s in run.sessions]


def save_enrichment(conn: Connection, episode_id: int, enrichment: Enrichment) -> None:
    """Kept on the first episode of the run `episode_id` is in now (an import during the
    request may have joined an earlier session), beside (never over) the offline
    fields; its fingerprint says which run Claude read."""
    from memory_app.episodes import store

    try:
        head = store.get_run(conn, episode_id).id
    except NotFoundError:  # rebuilt without it meanwhile: nothing to keep it on
        log.warning("Episode %s is gone: Claude's reading of it is not kept", episode_id)
        return
    conn.execute(
        update(EPISODE).where(EPISODE.c.id == head).values(enrichment=enrichment.to_json())
    )


def runs_to_enrich(db: Database, episode_ids: Sequence[int] | None = None) -> list[EpisodeRun]:
    """The runs named (a run once, by any of its sessions' ids), or with no ids every
    listed episode Claude has not read yet or whose reading is outdated."""
    from memory_app.episodes import store

    with db.reading() as session:
        conn = session.connection()
        if episode_ids is None:
            runs = store.list_episodes(conn, limit=1 << 30)
            runs = [r for r in runs if r.enrichment is None or r.enrichment.outdated]
        else:
            runs = []
            for ident in episode_ids:
                run = store.get_run(conn, ident)  # NotFoundError names the id
                if all(r.id != run.id for r in runs):
                    runs.append(run)
    return runs


def enrich_episodes(
    db: Database, enricher: EpisodeEnricher, episode_ids: Sequence[int] | None = None
) -> list[EnrichResult]:
    """Ask Claude about each of `runs_to_enrich`. The store is read and written around
    each request, never held open during one; tokens are recorded as the extractor's are
    (extraction_run, kind "episode"), also when the answer was unusable."""
    from memory_app.store import usage as usage_store

    runs = runs_to_enrich(db, episode_ids)
    results = []
    for run in runs:
        with db.reading() as session:
            material = episode_material(run, run_transcripts(session.connection(), run))
        result = enricher.enrich(run, material)
        with db.writing() as session:
            if result.enrichment is not None:
                save_enrichment(session.connection(), run.id, result.enrichment)
            if result.usage is not None:
                usage_store.record_run(
                    session,
                    result.usage,
                    extractor="claude",
                    resource_id=run.resource_id,
                    source=f"episode {run.id}: {run.title}",
                )
        results.append(result)
    return results
