"""The Claude extractor: seed 000 §2 and seed 001 §2, §5, §8 on the Anthropic Messages API.

Synchronous on purpose: it implements the same `Extractor` protocol as the offline rules
and runs on the app's job thread (or the CLI's main thread), never on the GUI loop.

One conversation is rendered with numbered turns, cut into chunks that fit a request,
and each chunk is sent with the seed's extraction prompt and a JSON schema built from the
pydantic models of §2.4 as the structured-output format. Answers are validated against
the same models; an invalid one is asked again with the reason (two retries, seed 001 §8),
then the whole conversation fails; the service keeps it "pending" and extracts it later.
Chunks run a few at a time; their items are merged (same statement once, highest
confidence) and those under 0.75 dropped. Each chunk after the first carries the rolling
summary of the conversation before it (memory_app/chunks), within the request's
characters, so a chunk saying "do it the other way" is read with what "it" was.

Existing memories (`known`) are listed with each chunk, the ones sharing the most words
with it first, so an answer can mark a new value of a stored rule as `updates` of that
memory's id (seed 000 §2.4 evolution) and leave out mere repeats; an id the chunk's
prompt did not list is dropped from the item.

Transport failures (429, 529, other 5xx, timeouts, network) are retried by the SDK with
backoff (`max_retries`); after that the call fails with a message that says what
happened. Messages never contain the API key. After a timeout or connection failure the
API counts as unreachable: the rest of the import is skipped at once instead of waiting
on it again (claude_settings states the bound).

An HTTP 200 whose body is not a Messages response (broken JSON, a proxy's or another
endpoint's JSON) fails the call as such: the SDK builds its models without validating,
so such a body would otherwise pass as an empty answer with no model and no usage.

Compression (seed 000 §6.3's `compressItems`) sends a category's older memories, the
strongest first and as many as fit, and renders the topics of the answer as the digest
the deterministic `memory_app.domain.digest.compress` would write.

`ModelExtractor` holds all of this but the transport; `ClaudeExtractor` asks the Messages
API, `memory_app.extract.claude_cli.ClaudeCliExtractor` the Claude Code CLI.

Why `messages.create` with `output_config.format` rather than `messages.parse`: parse
validates inside the SDK and raises before we can read the response's token usage, and
tokens spent on an invalid answer still cost money. The request is the same one parse
sends (the schema comes from the SDK's own `transform_schema`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

import anthropic
import pydantic

from memory_app.domain.categories import Category
from memory_app.domain.digest import MAX_TOPICS
from memory_app.domain.records import MemoryRecord
from memory_app.domain.summary import MAX_FACTS, EvolvedSummary
from memory_app.domain.transcripts import Transcript
from memory_app.domain.usage import CallUsage, TokenMeter
from memory_app.extract.base import (
    CONFIDENCE_THRESHOLD,
    ExtractedItem,
    ExtractorError,
    KnownMemory,
)
from memory_app.extract.chunking import (
    Chunk,
    earlier_contexts,
    earlier_room,
    merge_items,
    request_chunks,
    restrict_turns,
    split_chunk,
)
from memory_app.extract.claude_settings import ENV_NAMES, ClaudeSettings
from memory_app.extract.credentials import NO_KEY_MESSAGE, ApiKey
from memory_app.extract.prompts import (
    compression_item_chars,
    compression_prompt,
    evolution_prompt,
    extraction_prompt,
    retry_note,
    select_known,
    system_prompt,
)
from memory_app.extract.schemas import (
    CompressionResponse,
    EvolutionResponse,
    ExtractionResponseBase,
    extraction_model_for,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R", bound=pydantic.BaseModel)

MAX_SPLITS = 3  # a chunk whose answer overflows max_tokens is halved at most this often
MAX_COMPRESS_ITEMS = 300  # the strongest older memories of a category sent to compress
_DETAIL_CHARS = 200
_EARLIER_BREAK = "\n\n---\n\n"  # between the summary of what came before and the chunk


class _Truncated(Exception):
    """The answer stopped at max_tokens: asking again would stop there again."""


@cache
def _output_format(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    return {"type": "json_schema", "schema": anthropic.transform_schema(model)}


@dataclass(frozen=True)
class ConnectionCheck:
    """The answer to "does my key and model work?" (Settings' Test connection)."""

    ok: bool
    model: str
    latency_ms: int | None
    message: str


class ModelExtractor(ABC):
    """What the Claude extractors share, whatever carries the question (the Messages API
    here, the Claude Code CLI in claude_cli.py): chunking, the prompts, validation and the
    retries of invalid answers, evolution, compression, usage and the circuit breaker.
    A subclass says how one prompt is answered (`_reply`) and how a skipped call reads."""

    name = "claude"
    # The service lists existing memories for `extract` only to extractors that read them.
    reads_known_memories = True

    def __init__(self, settings: ClaudeSettings | None = None) -> None:
        self.settings = settings or ClaudeSettings()
        self._local = threading.local()
        self._auth_failure: str | None = None
        # The circuit breaker: why the model was unreachable, and when it last mattered.
        self._breaker = threading.Lock()
        self._unreachable: str | None = None
        self._unreachable_seen = 0.0

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def max_input_chars(self) -> int:
        """How much of a conversation the service may hand over (it is chunked here)."""
        return self.settings.max_conversation_chars

    def begin_import(self) -> None:
        """Ask the model again: a new import may follow a fixed network or a fixed
        installation (the service calls this when an import starts)."""
        with self._breaker:
            self._unreachable = None

    # -- the Extractor protocol --------------------------------------------------------

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]:
        """Memory items from one conversation; raises ExtractorError when Claude cannot
        give a valid answer for every chunk (then nothing of it should be stored).

        `known`: existing memories an item may say it `updates` (strongest first)."""
        self._refuse_when_broken()
        chunks = request_chunks(transcript, self.settings.chunk_chars)
        if not chunks or not categories:
            return []
        # Each chunk after the first is sent with a summary of the conversation before it.
        room = earlier_room(self.settings.chunk_chars) - len(_EARLIER_BREAK)
        earlier = ["", *earlier_contexts(transcript, [c.positions[0] for c in chunks[1:]], room)]
        meter = TokenMeter()
        error: str | None = None
        try:
            response_type = extraction_model_for(categories)
            batches = self._run_chunks(chunks, earlier, categories, known, response_type, meter)
        except Exception as exc:  # any failure makes the recorded run a failed one
            error = self._scrub(str(exc) or type(exc).__name__)
            raise
        finally:
            self._remember(meter.usage("extract", self.model, error))
        wanted = {c.key for c in categories}
        return [
            item
            for item in merge_items(batches)
            if item.confidence >= CONFIDENCE_THRESHOLD and item.category in wanted
        ]

    def _run_chunks(
        self,
        chunks: list[Chunk],
        earlier: list[str],
        categories: Sequence[Category],
        known: Sequence[KnownMemory],
        response_type: type[ExtractionResponseBase],
        meter: TokenMeter,
    ) -> list[list[ExtractedItem]]:
        parts = len(chunks)

        def one(index: int) -> list[ExtractedItem]:
            part = (index + 1, parts, earlier[index])
            return self._extract_chunk(
                chunks[index], part, categories, known, response_type, meter, 0
            )

        workers = min(self.settings.concurrency, parts)
        if workers <= 1:
            return [one(i) for i in range(parts)]
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="claude-extract")
        try:
            futures = [pool.submit(one, i) for i in range(parts)]
            return [f.result() for f in futures]
        finally:
            # After the first failure the other chunks are pointless: drop the queued ones.
            pool.shutdown(wait=True, cancel_futures=True)

    def _extract_chunk(
        self,
        chunk: Chunk,
        part: tuple[int, int, str],
        categories: Sequence[Category],
        known: Sequence[KnownMemory],
        response_type: type[ExtractionResponseBase],
        meter: TokenMeter,
        depth: int,
    ) -> list[ExtractedItem]:
        """`part`: the chunk's number, how many there are, and the summary of the
        conversation before it (empty for the first), sent ahead of its turns."""
        number, parts, earlier = part
        shown = select_known(known, chunk.text)
        conversation = f"{earlier}{_EARLIER_BREAK}{chunk.text}" if earlier else chunk.text
        prompt = extraction_prompt(
            conversation,
            categories,
            part=number,
            parts=parts,
            known=shown,
            known_total=len(known),
        )
        # Only an id this prompt listed can be meant: any other is a misremembered number.
        shown_ids = frozenset(m.id for m in shown)
        try:
            items = self._ask(
                system_prompt(), prompt, response_type, lambda r: r.items(shown_ids), meter
            )
        except _Truncated:
            halves = split_chunk(chunk)
            if len(halves) == 1 or depth >= MAX_SPLITS:
                raise ExtractorError(
                    f"Claude's answer was cut off at max_tokens={self.settings.max_tokens}; "
                    f"raise {ENV_NAMES['max_tokens']}"
                ) from None
            log.info("answer cut off at max_tokens: asking again in two halves")
            return [
                item
                for half in halves
                for item in self._extract_chunk(
                    half, part, categories, known, response_type, meter, depth + 1
                )
            ]
        return [restrict_turns(item, chunk.positions) for item in items]

    # -- evolution (seed 001 §5) ---------------------------------------------------------

    def evolve_summary(
        self,
        category: Category,
        current_markdown: str,
        new_items: Sequence[MemoryRecord],
        known_item_ids: Collection[int],
    ) -> EvolvedSummary:
        """Merge new items into a category's summary; returns its sections and change log."""
        self._refuse_when_broken()
        meter = TokenMeter()
        error: str | None = None
        prompt = evolution_prompt(category, current_markdown, new_items, MAX_FACTS)
        try:
            return self._ask(
                None, prompt, EvolutionResponse, lambda r: r.to_summary(known_item_ids), meter
            )
        except _Truncated:
            error = f"Claude's answer was cut off at max_tokens={self.settings.max_tokens}"
            raise ExtractorError(error) from None
        except Exception as exc:
            error = self._scrub(str(exc) or type(exc).__name__)
            raise
        finally:
            self._remember(meter.usage("evolve", self.model, error, category.key))

    # -- compression (seed 000 §6.3) -------------------------------------------------------

    def compress_memories(self, category: Category, items: Sequence[MemoryRecord]) -> str:
        """A markdown digest of a category's older memories, one bullet per topic; empty
        when there are none. Raises ExtractorError when Claude gives no valid answer.

        Only the strongest `MAX_COMPRESS_ITEMS` (by confidence × importance) that fit in
        `max_input_chars` are sent; the digest counts all of `items` and says how many
        were left out of the prompt."""
        self._refuse_when_broken()
        if not items:
            return ""
        ranked = sorted(items, key=lambda i: (-(i.confidence * i.importance), i.id))
        sent = self._compression_batch(category, ranked)
        left_out = ranked[len(sent) :]
        prompt = compression_prompt(category, sent, MAX_TOPICS, total=len(ranked))
        meter = TokenMeter()
        error: str | None = None
        try:
            return self._ask(
                None, prompt, CompressionResponse, lambda r: r.to_digest(sent, left_out), meter
            )
        except _Truncated:
            error = (
                f"Claude's answer was cut off at max_tokens={self.settings.max_tokens}; "
                f"raise {ENV_NAMES['max_tokens']}"
            )
            raise ExtractorError(error) from None
        except Exception as exc:
            error = self._scrub(str(exc) or type(exc).__name__)
            raise
        finally:
            self._remember(meter.usage("compress", self.model, error, category.key))

    def _compression_batch(
        self, category: Category, ranked: Sequence[MemoryRecord]
    ) -> list[MemoryRecord]:
        """The leading items of `ranked` that fit in one prompt (at least one)."""
        # The prompt without items, with room for the note on how many were sent.
        empty = compression_prompt(category, [], MAX_TOPICS, total=len(ranked))
        room = self.max_input_chars - len(empty) - 20
        batch: list[MemoryRecord] = []
        for item in ranked[:MAX_COMPRESS_ITEMS]:
            room -= compression_item_chars(item)
            if room < 0 and batch:
                break
            batch.append(item)
        return batch

    # -- usage ---------------------------------------------------------------------------

    def take_usage(self) -> list[CallUsage]:
        pending: list[CallUsage] = getattr(self._local, "pending", [])
        self._local.pending = []
        return pending

    def _remember(self, usage: CallUsage) -> None:
        if usage.requests == 0:
            return
        if not hasattr(self._local, "pending"):
            self._local.pending = []
        self._local.pending.append(usage)

    # -- one question, validated -----------------------------------------------------------

    def _ask(
        self,
        system: str | None,
        prompt: str,
        response_type: type[R],
        convert: Callable[[R], T],
        meter: TokenMeter,
    ) -> T:
        attempts = self.settings.invalid_retries + 1
        problem: str | None = None
        for attempt in range(1, attempts + 1):
            text_prompt = prompt if problem is None else prompt + retry_note(problem)
            text, stop_reason = self._reply(system, text_prompt, response_type, meter)
            if stop_reason == "max_tokens":
                raise _Truncated
            if stop_reason == "refusal":
                problem = "the model declined to answer"
            else:
                try:
                    return convert(response_type.model_validate_json(text))
                except ValueError as exc:  # pydantic's ValidationError is a ValueError
                    problem = _describe_invalid(exc)
            log.warning(
                "invalid answer from Claude (attempt %d of %d): %s", attempt, attempts, problem
            )
        raise ExtractorError(
            self._scrub(f"Claude's answer was not valid after {attempts} attempts: {problem}")
        )

    @abstractmethod
    def _reply(
        self,
        system: str | None,
        prompt: str,
        response_type: type[pydantic.BaseModel],
        meter: TokenMeter,
    ) -> tuple[str, str | None]:
        """The model's answer text to one prompt and why it stopped (None: unknown);
        raises ExtractorError when there is no answer. Counts the request in `meter`."""

    # -- errors people can act on ---------------------------------------------------------

    def _refuse_when_broken(self) -> None:
        # A rejected key stays rejected: fail the rest of an import at once instead of
        # sending every remaining conversation to be refused again.
        if self._auth_failure is not None:
            raise ExtractorError(self._auth_failure)
        # An unreachable API likewise, until a new import or a quiet pause: every
        # conversation would otherwise wait the full timeouts and retries again.
        with self._breaker:
            if self._unreachable is None:
                return
            now = time.monotonic()
            if now - self._unreachable_seen >= self.settings.unreachable_pause:
                self._unreachable = None
                return
            why = self._unreachable  # a refusal sends nothing: the pause is not renewed
        raise ExtractorError(self._skipped(why))

    @abstractmethod
    def _skipped(self, why: str) -> str:
        """Why a call was not even tried: the model was found unreachable `why`."""

    def _trip(self, why: str) -> None:
        if self.settings.unreachable_pause > 0:
            with self._breaker:
                self._unreachable = why
                self._unreachable_seen = time.monotonic()

    def _scrub(self, text: str) -> str:
        """`text` without any credential (the API extractor removes its key)."""
        return text


class ClaudeExtractor(ModelExtractor):
    """Extracts memories, evolves category summaries and compresses older memories with
    Claude, through the Anthropic Messages API."""

    def __init__(
        self,
        api_key: ApiKey | str | None = None,
        settings: ClaudeSettings | None = None,
        *,
        client: anthropic.Anthropic | None = None,
    ) -> None:
        """Give a key (the client is built from the settings) or a ready client (tests,
        or a caller with its own transport); the key is then read from the client."""
        super().__init__(settings)
        key: ApiKey | None
        if client is None:
            if api_key is None:
                raise ExtractorError(NO_KEY_MESSAGE)
            key = api_key if isinstance(api_key, ApiKey) else ApiKey(api_key)
            client = anthropic.Anthropic(
                api_key=key.reveal(),
                base_url=self.settings.base_url,
                timeout=_timeout(self.settings.timeout, self.settings.connect_timeout),
                max_retries=self.settings.max_retries,
            )
        else:
            given = api_key.reveal() if isinstance(api_key, ApiKey) else api_key
            given = given or client.api_key
            key = ApiKey(given) if given else None
        self._key = key
        self._client = client

    def __repr__(self) -> str:
        return f"ClaudeExtractor(model={self.settings.model!r})"

    @property
    def client(self) -> anthropic.Anthropic:
        """The API client, shared with the contradiction judge (same key and transport)."""
        return self._client

    def close(self) -> None:
        self._client.close()

    # -- connection check ----------------------------------------------------------------

    def test_connection(self) -> ConnectionCheck:
        """One tiny request, no retries: does the key work, does the model answer, how
        fast. Never raises for API problems: the message says what went wrong."""
        timeout = _timeout(min(self.settings.timeout, 30), self.settings.connect_timeout)
        client = self._client.with_options(max_retries=0, timeout=timeout)
        started = time.monotonic()
        try:
            answer = client.messages.create(
                model=self.model,
                max_tokens=16,
                messages=[{"role": "user", "content": "Reply with the single word: ok"}],
            )
        except anthropic.AnthropicError as exc:
            return ConnectionCheck(False, self.model, None, str(self._failure(exc, trip=False)))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            reason = self._not_a_message(_not_json(exc))
            return ConnectionCheck(False, self.model, None, reason)
        problem = message_problem(answer)
        if problem is None and not (isinstance(answer.model, str) and answer.model):
            problem = "it names no `model`"
        if problem is not None:
            text = self._not_a_message(problem)
            return ConnectionCheck(False, self.model, None, text)
        latency = int((time.monotonic() - started) * 1000)
        return ConnectionCheck(
            True, answer.model, latency, f"{answer.model} answered in {latency} ms"
        )

    def _reply(
        self,
        system: str | None,
        prompt: str,
        response_type: type[pydantic.BaseModel],
        meter: TokenMeter,
    ) -> tuple[str, str | None]:
        message = self._call(system, prompt, response_type, meter)
        text = "".join(b.text for b in message.content if b.type == "text")
        return text, message.stop_reason

    def _skipped(self, why: str) -> str:
        return (
            f"Anthropic API unreachable, skipped: an earlier request {why}; the next "
            f"import or retry (or a request after {self.settings.unreachable_pause:g} s "
            "without any) asks again"
        )

    def _call(
        self,
        system: str | None,
        prompt: str,
        response_type: type[pydantic.BaseModel],
        meter: TokenMeter,
    ) -> anthropic.types.Message:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.settings.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
            "output_config": {"format": _output_format(response_type)},
        }
        if system:
            kwargs["system"] = system
        if self.settings.temperature is not None:
            kwargs["extra_body"] = {"temperature": self.settings.temperature}
        # Checked again per request: a chunk queued behind one that found the API down
        # must not wait on it too.
        self._refuse_when_broken()
        meter.request()
        try:
            message = self._client.messages.create(**kwargs)
        except anthropic.AnthropicError as exc:
            raise self._failure(exc) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ExtractorError(self._not_a_message(_not_json(exc))) from None
        problem = message_problem(message)
        if problem is not None:
            raise ExtractorError(self._not_a_message(problem))
        meter.add(message.usage)
        return message

    def _not_a_message(self, problem: str) -> str:
        # Such a body usually means the base URL leads to something else (a proxy, a
        # captive portal): name it, without any user:password in it.
        url = self._client.base_url
        where = f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}{url.path}"
        prefix = "the API answered with a body that is not a Messages response"
        return self._scrub(f"{prefix}: {problem}, from {where}")

    def _failure(self, exc: anthropic.AnthropicError, *, trip: bool = True) -> ExtractorError:
        retries = self._client.max_retries
        after = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
        status = getattr(exc, "status_code", None)
        if isinstance(exc, anthropic.APITimeoutError):
            text = f"the request to Claude timed out{after}"
            if trip:
                self._trip(f"timed out{after}")
        elif isinstance(exc, anthropic.APIConnectionError):
            text = f"could not reach the Anthropic API (network error){after}"
            if trip:
                self._trip(f"could not reach it{after}")
        elif isinstance(exc, anthropic.AuthenticationError):
            text = (
                "invalid API key: Anthropic rejected it (HTTP 401); check ANTHROPIC_API_KEY "
                "or the key saved in Settings"
            )
            self._auth_failure = text
        elif isinstance(exc, anthropic.PermissionDeniedError):
            text = f"the API key may not use this (HTTP 403): {_detail(exc)}"
        elif isinstance(exc, anthropic.NotFoundError):
            text = (
                f"model {self.model!r} was not found (HTTP 404); "
                f"check {ENV_NAMES['model']}: {_detail(exc)}"
            )
        elif isinstance(exc, anthropic.RateLimitError):
            text = f"rate limited by the Anthropic API (HTTP 429){after}"
        elif status == 529:
            text = f"the Anthropic API is overloaded (HTTP 529){after}"
        elif isinstance(exc, anthropic.APIStatusError) and status is not None and status >= 500:
            text = f"the Anthropic API failed (HTTP {status}){after}"
        elif isinstance(exc, anthropic.APIStatusError):
            text = f"the Anthropic API refused the request (HTTP {status}): {_detail(exc)}"
        else:
            text = f"the Anthropic client failed: {type(exc).__name__}"
        return ExtractorError(self._scrub(text))

    def _scrub(self, text: str) -> str:
        return self._key.scrub(text) if self._key is not None else text


def _detail(exc: anthropic.AnthropicError) -> str:
    body = getattr(exc, "body", None)
    message = None
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else body.get("message")
    text = str(message or type(exc).__name__)
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def _timeout(read: float, connect: float) -> anthropic.Timeout:
    """Per socket operation: `read` for reads, writes and the pool, `connect` to connect."""
    return anthropic.Timeout(read, connect=connect)


def _not_json(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    return "not valid JSON (not UTF-8 text)"


def message_problem(message: object) -> str | None:
    """Why a 200 body is not a Messages response, or None: only what this module reads
    is checked (content blocks, text, usage), so fields the API adds later still pass."""
    if not isinstance(message, anthropic.types.Message):  # the SDK passes these through
        what = "text" if isinstance(message, str) else _kind(message)
        return f"it is {what}, not a message object{_glimpse(message)}"
    content = message.content
    if content is None:
        keys = sorted([*(message.model_extra or {}), *_known_keys(message)])
        shown = ", ".join(keys[:8]) + (", …" if len(keys) > 8 else "")
        return f"it has no `content` (keys: {shown or 'none'})"
    if not isinstance(content, list):
        return f"`content` is {_kind(content)}, not a list"
    for index, block in enumerate(content):
        kind = getattr(block, "type", None)
        if not isinstance(kind, str):
            return f"`content[{index}]` is {_kind(block)}, not a content block"
        if kind == "text" and not isinstance(getattr(block, "text", None), str):
            return f"`content[{index}]` is a text block without text"
    usage = message.usage
    tokens = (getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None))
    if not all(isinstance(t, int) for t in tokens):
        return "it has no token `usage`"
    return None


def _known_keys(message: anthropic.types.Message) -> list[str]:
    return [name for name in message.model_fields_set if getattr(message, name) is not None]


def _kind(value: object) -> str:
    """A JSON value's kind in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _glimpse(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    if not text:
        return ""
    return f": {text[:60]}…" if len(text) > 60 else f": {text}"


def _describe_invalid(exc: ValueError) -> str:
    """The first problem of a rejected answer, short enough for a retry note and a log."""
    if isinstance(exc, pydantic.ValidationError):
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "answer"
        text = f"{where}: {first.get('msg', 'invalid')}"
        if exc.error_count() > 1:
            text += f" (and {exc.error_count() - 1} more problems)"
    else:
        text = str(exc)
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def check_connection(
    api_key: str | ApiKey, settings: ClaudeSettings | None = None
) -> ConnectionCheck:
    """Test a key and model before saving them (Settings' "Test connection")."""
    extractor = ClaudeExtractor(api_key, settings)
    try:
        return extractor.test_connection()
    finally:
        extractor.close()
