"""LLM-assisted retrieval (seed 000 §3.3 "Read Path"): Claude rewrites the task into
keyword queries and picks categories; a second, small request asks whether those
categories' summaries already answer it. The offline ranking always runs first and is
the answer whenever anything about Claude fails.

Why: the full-text ranker only finds a memory that shares a word with the task, so
"which database do we use?" misses "We store everything in PostgreSQL". The model
supplies the words (synonyms, the tools and identifiers the task implies); the offline
ranker still does the finding, restricted to the categories the model chose.

What the model can and cannot do:
- it can only add: the synthesized queries' rankings are fused with the task's own
  offline ranking (reciprocal rank fusion), and the task's best offline matches (the top
  half of the limit) are always kept;
- a category key it names that the store does not have (or the caller's filter does not
  allow) is dropped, never searched;
- sufficient summaries lead the answer, they never replace the memories' ranking.

Caps (the figures in `AssistLimits`): each request's prompt is at most 8,000 characters
(about 2,000 tokens: the task is cut to 2,000 characters, category descriptions to 120,
and each summary to 1,500 with the summaries together cut to what is left), answers are
capped by `max_tokens` (400 for the queries, 120 for the check), and the whole assisted
call waits at most `timeout` seconds (20 by default) however the SDK's retries go: each
request runs in a daemon thread the caller stops waiting for at the deadline. The tokens
of a request abandoned that way are not known, so not recorded.

Fallback (the offline ranking exactly as without --assisted, with a reason to show): no
API key, network error, timeout, any HTTP error after the SDK's retries, an answer that
is not a Messages response or not valid for the schema. Nothing here raises for those.

Usage: the tokens of the requests are recorded as a "retrieve" run in the same table as
the extractor's (store/usage.py), so the dashboard's spend includes them.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import anthropic
import pydantic

from memory_app.domain.budget import MIN_BUDGET, estimate_tokens
from memory_app.domain.records import CategoryInfo
from memory_app.domain.retrieval import RetrievalQuery, RetrievedMemory
from memory_app.domain.usage import CallUsage
from memory_app.extract.claude import message_problem
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import NO_KEY_MESSAGE, ApiKey, find_api_key

if TYPE_CHECKING:
    from memory_app.domain.budget import ContextPlan
    from memory_app.retrieval.context import ContextRequest
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=pydantic.BaseModel)

UNAVAILABLE = "assisted retrieval unavailable"
NO_TASK = "there is no task to search for"
USAGE_KIND = "retrieve"
RRF_K = 60  # reciprocal rank fusion's usual constant: rank 1 scores 1/61
MAX_QUERIES = 4
QUERY_WORD_CHARS = 200  # one synthesized query, at most


@dataclass(frozen=True)
class AssistLimits:
    """The caps of one assisted retrieval (see the module docstring for the figures)."""

    input_chars: int = 8_000  # one request's prompt, at most (about 2,000 tokens)
    task_chars: int = 2_000  # the task as sent
    description_chars: int = 120  # one category's description as sent
    summary_chars: int = 1_500  # one category summary as sent to the check
    plan_max_tokens: int = 400  # the queries-and-categories answer
    check_max_tokens: int = 120  # the sufficiency answer
    timeout: float = 20.0  # seconds for the whole assisted call
    max_retries: int = 1  # the SDK's retries of 429/5xx/timeouts, inside `timeout`
    check_sufficiency: bool = True

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError("the assisted retrieval timeout must be positive")


class SearchPlan(pydantic.BaseModel):
    """The first answer: how to search for what the task needs."""

    queries: list[str] = pydantic.Field(
        description="2 to 4 short keyword queries (words only, no sentences)"
    )
    categories: list[str] = pydantic.Field(description="keys of the categories listed")


class Sufficiency(pydantic.BaseModel):
    """The second answer: do the summaries alone answer the task?"""

    sufficient: bool
    reason: str = pydantic.Field(max_length=200, description="At most ten words")


@dataclass(frozen=True)
class CategorySummary:
    key: str
    name: str
    text: str

    def render(self) -> str:
        return f"## {self.name} (summary)\n{self.text.strip()}\n"


@dataclass(frozen=True)
class Assistance:
    """What the model contributed to one retrieval, or why it did not."""

    used: bool
    queries: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    ignored_categories: tuple[str, ...] = ()  # named by the model, unknown to the store
    sufficient: bool | None = None  # None: not asked
    fallback: str | None = None  # why the offline ranking alone was returned
    summaries: tuple[CategorySummary, ...] = ()  # lead the answer when sufficient
    added: tuple[int, ...] = ()  # memories only the synthesized queries found
    usage: CallUsage | None = None

    @property
    def note(self) -> str | None:
        """The line a caller shows when the model was not used."""
        return f"{UNAVAILABLE}: {self.fallback}" if self.fallback else None

    def to_json(self) -> dict[str, Any]:
        usage = self.usage
        return {
            "used": self.used,
            "queries": list(self.queries),
            "categories": list(self.categories),
            "ignored_categories": list(self.ignored_categories),
            "sufficient": self.sufficient,
            "fallback": self.note,
            "summaries": [{"key": s.key, "name": s.name, "text": s.text} for s in self.summaries],
            "added": list(self.added),
            "tokens": {
                "requests": usage.requests if usage else 0,
                "input": usage.input_tokens if usage else 0,
                "output": usage.output_tokens if usage else 0,
                "cost_usd": usage.cost_usd if usage else None,
            },
        }


@dataclass(frozen=True)
class AssistedRetrieval:
    results: list[RetrievedMemory]
    assistance: Assistance


@dataclass(frozen=True)
class AssistedContext:
    plan: ContextPlan
    assistance: Assistance
    lead: str = ""  # the sufficient summaries, rendered before the plan

    @property
    def used(self) -> int:
        return self.plan.used + (estimate_tokens(self.lead) if self.lead else 0)

    def render(self) -> str:
        return self.lead + self.plan.render()


class Unavailable(Exception):
    """Claude could not help; the message is the reason shown to the person."""


@dataclass
class _Meter:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, usage: Any) -> None:
        tokens_in = (
            (usage.input_tokens or 0)
            + (getattr(usage, "cache_creation_input_tokens", None) or 0)
            + (getattr(usage, "cache_read_input_tokens", None) or 0)
        )
        with self.lock:
            self.input_tokens += tokens_in
            self.output_tokens += usage.output_tokens or 0

    def usage(self, model: str, error: str | None) -> CallUsage | None:
        if self.requests == 0:
            return None
        return CallUsage(
            kind=USAGE_KIND,
            model=model,
            requests=self.requests,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            status="error" if error else "success",
            error=error,
        )


class RetrievalAssistant:
    """Asks Claude the two questions of the read path; `Unavailable` when it cannot."""

    def __init__(
        self,
        client: anthropic.Anthropic | None,
        settings: ClaudeSettings | None = None,
        limits: AssistLimits | None = None,
        *,
        missing: str = NO_KEY_MESSAGE,
        key: ApiKey | None = None,
    ) -> None:
        """`client` None: not configured (every call falls back with `missing`)."""
        self._client = client
        self.settings = settings or ClaudeSettings()
        self.limits = limits or AssistLimits()
        self._missing = missing
        self._key = key

    @property
    def configured(self) -> bool:
        return self._client is not None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    # -- the two questions -----------------------------------------------------------

    def plan_prompt(self, task: str, categories: Sequence[CategoryInfo]) -> str:
        limits = self.limits
        lines = [
            f"- {c.key}: {c.name}, {_cut(c.description, limits.description_chars)} "
            f"({c.item_count} memories)"
            for c in categories
        ]
        head = (
            "An AI coding assistant keeps memories about its user and projects. They are "
            "found by full-text search (a memory is found only by the words it contains), "
            "so a question worded differently from a memory misses it.\n\n"
            f"Task or question: {_cut(task, limits.task_chars)}\n\nCategories (key: name, "
            "what it holds, how many memories):\n"
        )
        tail = (
            "\n\nAnswer with:\n"
            f"- `queries`: 2 to {MAX_QUERIES} short keyword queries that would find the "
            "memories this needs: synonyms and the concrete names it implies (tools, "
            'libraries, services, files, identifiers); e.g. "which database" -> '
            '"database PostgreSQL MySQL SQLite". Words only, no sentences.\n'
            "- `categories`: the keys of the categories above that may hold the answer "
            "(an empty list if unsure)."
        )
        return head + _fit(lines, limits.input_chars - len(head) - len(tail)) + tail

    def check_prompt(self, task: str, summaries: Sequence[CategorySummary]) -> str:
        limits = self.limits
        head = (
            "An AI coding assistant keeps memories about its user and projects, with a "
            f"summary per category.\n\nTask or question: {_cut(task, limits.task_chars)}\n\n"
            "Summaries of the categories that may answer it:\n"
        )
        tail = (
            "\n\nDo these summaries alone answer the task well enough that the individual "
            "memories are not needed? `sufficient`: true or false; `reason`: at most ten words."
        )
        blocks = [
            f"### {s.name} ({s.key})\n{_cut(s.text, limits.summary_chars)}" for s in summaries
        ]
        return head + _fit(blocks, limits.input_chars - len(head) - len(tail)) + tail

    def plan(
        self, task: str, categories: Sequence[CategoryInfo], meter: _Meter, deadline: float
    ) -> SearchPlan:
        answer = self._ask(
            self.plan_prompt(task, categories),
            SearchPlan,
            self.limits.plan_max_tokens,
            meter,
            deadline,
        )
        return answer

    def check(
        self, task: str, summaries: Sequence[CategorySummary], meter: _Meter, deadline: float
    ) -> Sufficiency:
        return self._ask(
            self.check_prompt(task, summaries),
            Sufficiency,
            self.limits.check_max_tokens,
            meter,
            deadline,
        )

    # -- one bounded request ---------------------------------------------------------

    def _ask(
        self, prompt: str, answer: type[M], max_tokens: int, meter: _Meter, deadline: float
    ) -> M:
        if self._client is None:
            raise Unavailable(self._missing)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Unavailable(f"no answer within {self.limits.timeout:g} s")
        client = self._client.with_options(
            timeout=anthropic.Timeout(
                remaining, connect=min(remaining, self.settings.connect_timeout)
            ),
            max_retries=self.limits.max_retries,
        )
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": prompt}],
            "output_config": {
                "format": {"type": "json_schema", "schema": anthropic.transform_schema(answer)}
            },
        }
        with meter.lock:
            meter.requests += 1

        def call() -> anthropic.types.Message:
            message = client.messages.create(**kwargs)
            if message_problem(message) is None:
                meter.add(message.usage)
            return message

        message = _within(call, deadline, self.limits.timeout, self._reason)
        problem = message_problem(message)
        if problem is not None:
            raise Unavailable(
                f"the API answered with a body that is not a Messages response: {problem}"
            )
        if message.stop_reason == "max_tokens":
            raise Unavailable(f"the answer was cut off at max_tokens={max_tokens}")
        text = "".join(b.text for b in message.content if b.type == "text")
        try:
            return answer.model_validate_json(text)
        except ValueError:
            raise Unavailable(f"the answer is not a valid {answer.__name__}") from None

    def _reason(self, exc: BaseException) -> str:
        retries = self.limits.max_retries
        after = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
        status = getattr(exc, "status_code", None)
        if isinstance(exc, anthropic.APITimeoutError):
            text = f"the request to Claude timed out{after}"
        elif isinstance(exc, anthropic.APIConnectionError):
            text = f"could not reach the Anthropic API (network error){after}"
        elif isinstance(exc, anthropic.AuthenticationError):
            text = "invalid API key: Anthropic rejected it (HTTP 401)"
        elif isinstance(exc, anthropic.APIStatusError) and status is not None and status >= 500:
            text = f"the Anthropic API failed (HTTP {status}){after}"
        elif isinstance(exc, anthropic.APIStatusError):
            text = f"the Anthropic API refused the request (HTTP {status})"
        elif isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
            text = "the API answered with a body that is not JSON"
        else:
            text = f"the Anthropic client failed: {type(exc).__name__}"
        return self._key.scrub(text) if self._key is not None else text


def assistant_from_env(
    env: Mapping[str, str] | None = None,
    limits: AssistLimits | None = None,
    *,
    use_keyring: bool = True,
) -> RetrievalAssistant:
    """An assistant with the configured key and MEMORY_APP_CLAUDE_* settings; without a
    key (or with invalid settings), one that always falls back and says why."""
    try:
        settings = ClaudeSettings.from_env(env)
    except ValueError as exc:
        return RetrievalAssistant(None, limits=limits, missing=str(exc))
    key = find_api_key(env, use_keyring=use_keyring)
    if key is None:
        return RetrievalAssistant(None, settings, limits)
    client = anthropic.Anthropic(
        api_key=key.reveal(),
        base_url=settings.base_url,
        timeout=anthropic.Timeout(settings.timeout, connect=settings.connect_timeout),
        max_retries=0,
    )
    return RetrievalAssistant(client, settings, limits, key=key)


# -- the read path ------------------------------------------------------------------------


def retrieve(
    service: MemoryService,
    query: RetrievalQuery,
    assistant: RetrievalAssistant,
    *,
    record_access: bool = False,
) -> AssistedRetrieval:
    """The memories for a task with Claude's help; the offline ranking when it fails."""
    offline = service.retrieve(query)
    meter = _Meter()
    if not query.text.strip():
        return _offline(service, offline, NO_TASK, meter, assistant, record_access)
    try:
        plan, summaries, sufficient, ignored = _consult(service, query, assistant, meter)
    except Unavailable as exc:
        _record(service, meter.usage(assistant.settings.model, str(exc)))
        return _offline(service, offline, str(exc), meter, assistant, record_access)
    _record(service, meter.usage(assistant.settings.model, None))
    added: tuple[int, ...] = ()
    if sufficient:
        results = offline
    else:
        results, added = _fused(service, query, plan, offline)
    if record_access:
        service.access_log.note(r.record.id for r in results)
    assistance = Assistance(
        used=True,
        queries=tuple(plan.queries),
        categories=tuple(plan.categories),
        ignored_categories=ignored,
        sufficient=sufficient,
        summaries=summaries if sufficient else (),
        added=added,
        usage=meter.usage(assistant.settings.model, None),
    )
    return AssistedRetrieval(results, assistance)


def context(
    service: MemoryService,
    request: ContextRequest,
    assistant: RetrievalAssistant,
    *,
    record_access: bool = False,
) -> AssistedContext:
    """The tiered context for a task with Claude's help, within the same budget.

    Sufficient summaries lead the context and the tiers get what is left of the budget;
    otherwise the synthesized queries' words join the task's, so the context builder's
    ranking (an OR of the words) finds what they name too."""
    if not request.task.strip():
        plan = service.build_context(request, record_access=record_access)
        return AssistedContext(plan, Assistance(False, fallback=NO_TASK))
    meter = _Meter()
    query = RetrievalQuery(text=request.task)
    try:
        plan_, summaries, sufficient, ignored = _consult(service, query, assistant, meter)
    except Unavailable as exc:
        _record(service, meter.usage(assistant.settings.model, str(exc)))
        plan = service.build_context(request, record_access=record_access)
        return AssistedContext(plan, _fallback(str(exc), meter, assistant))
    _record(service, meter.usage(assistant.settings.model, None))
    lead = ""
    if sufficient:
        lead, summaries = _lead(summaries, request.budget)
        plan = service.build_context(
            replace(request, budget=request.budget - estimate_tokens(lead)),
            record_access=record_access,
        )
    else:
        summaries = ()
        task = " ".join([request.task, *plan_.queries])
        plan = service.build_context(replace(request, task=task), record_access=record_access)
    assistance = Assistance(
        used=True,
        queries=tuple(plan_.queries),
        categories=tuple(plan_.categories),
        ignored_categories=ignored,
        sufficient=sufficient,
        summaries=summaries,
        usage=meter.usage(assistant.settings.model, None),
    )
    return AssistedContext(plan, assistance, lead)


def _consult(
    service: MemoryService, query: RetrievalQuery, assistant: RetrievalAssistant, meter: _Meter
) -> tuple[SearchPlan, tuple[CategorySummary, ...], bool | None, tuple[str, ...]]:
    """The model's plan (queries cleaned, categories validated), the selected categories'
    summaries and the sufficiency verdict (None when not asked)."""
    deadline = time.monotonic() + assistant.limits.timeout
    allowed = [
        c
        for c in service.categories()
        if not query.filters.categories or c.key in query.filters.categories
    ]
    raw = assistant.plan(query.text, allowed, meter, deadline)
    known = {c.key for c in allowed}
    chosen = list(dict.fromkeys(k.strip() for k in raw.categories if k.strip() in known))
    ignored = tuple(dict.fromkeys(k for k in raw.categories if k.strip() not in known))
    queries = _clean_queries(raw.queries, query.text)
    if not queries and not chosen:
        raise Unavailable("the answer named no usable query or category")
    plan = SearchPlan(queries=queries, categories=chosen)
    if not (assistant.limits.check_sufficiency and chosen):
        return plan, (), None, ignored
    names = {c.key: c.name for c in allowed}
    summaries = tuple(
        CategorySummary(key, names[key], text)
        for key in chosen
        if (text := service.get_category(key, limit=1).summary_markdown.strip())
    )
    if not summaries:
        return plan, (), None, ignored
    verdict = assistant.check(query.text, summaries, meter, deadline)
    return plan, summaries, verdict.sufficient, ignored


def _clean_queries(queries: Sequence[str], task: str) -> list[str]:
    """At most MAX_QUERIES distinct, non-empty, bounded queries, none the task itself."""
    seen = {" ".join(task.lower().split())}
    kept: list[str] = []
    for q in queries:
        text = " ".join(q.split())[:QUERY_WORD_CHARS]
        if text and text.lower() not in seen:
            seen.add(text.lower())
            kept.append(text)
    return kept[:MAX_QUERIES]


def _fused(
    service: MemoryService,
    query: RetrievalQuery,
    plan: SearchPlan,
    offline: list[RetrievedMemory],
) -> tuple[list[RetrievedMemory], tuple[int, ...]]:
    """Reciprocal rank fusion of the task's offline ranking with each synthesized query's
    (restricted to the chosen categories); the task's best offline matches always stay."""
    filters = query.filters
    if plan.categories:
        filters = replace(filters, categories=tuple(plan.categories))
    rankings = [offline] + [
        service.retrieve(replace(query, text=q, filters=filters)) for q in plan.queries
    ]
    fused: dict[int, float] = {}
    found: dict[int, RetrievedMemory] = {}
    for ranking in rankings:
        for position, result in enumerate(ranking, start=1):
            item = result.record.id
            fused[item] = fused.get(item, 0.0) + 1.0 / (RRF_K + position)
            found.setdefault(item, result)
    order = sorted(fused, key=lambda i: -fused[i])
    kept = {r.record.id for r in offline[: math.ceil(query.limit / 2)]}
    for item in order:
        if len(kept) >= query.limit:
            break
        kept.add(item)
    results = [found[i] for i in order if i in kept]
    before = {r.record.id for r in offline}
    return results, tuple(r.record.id for r in results if r.record.id not in before)


def _offline(
    service: MemoryService,
    offline: list[RetrievedMemory],
    reason: str,
    meter: _Meter,
    assistant: RetrievalAssistant,
    record_access: bool,
) -> AssistedRetrieval:
    if record_access:
        service.access_log.note(r.record.id for r in offline)
    return AssistedRetrieval(offline, _fallback(reason, meter, assistant))


def _fallback(reason: str, meter: _Meter, assistant: RetrievalAssistant) -> Assistance:
    log.info("%s: %s", UNAVAILABLE, reason)
    return Assistance(
        used=False, fallback=reason, usage=meter.usage(assistant.settings.model, reason)
    )


def _lead(
    summaries: Sequence[CategorySummary], budget: int
) -> tuple[str, tuple[CategorySummary, ...]]:
    """The summaries that fit in front of the context, leaving the tiers MIN_BUDGET."""
    room = budget - MIN_BUDGET
    text = ""
    kept: list[CategorySummary] = []
    for summary in summaries:
        longer = text + summary.render()
        if estimate_tokens(longer) > room:
            break
        text, kept = longer, [*kept, summary]
    return text, tuple(kept)


def _record(service: MemoryService, usage: CallUsage | None) -> None:
    """The requests' tokens in the usage table, beside the extractor's runs."""
    if usage is None:
        return
    from memory_app.store import usage as usage_store

    try:
        with service.db.writing() as session:
            usage_store.record_run(session, usage, extractor="claude", source="retrieval")
    except Exception:  # a read-only store must not fail a retrieval
        log.exception("could not record the tokens of an assisted retrieval")


def _within(
    call: Callable[[], T], deadline: float, timeout: float, reason: Callable[[BaseException], str]
) -> T:
    """`call()` on a daemon thread, waited for until `deadline`; Unavailable otherwise."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="assisted-retrieval", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise Unavailable(f"no answer within {timeout:g} s")
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, anthropic.AnthropicError | ValueError):
            raise Unavailable(reason(error)) from None
        raise error
    value: T = outcome["value"]
    return value


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit(blocks: Sequence[str], room: int) -> str:
    """The blocks, one a line, as many as fit in `room` characters (the rest left out)."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        if used + len(block) + 1 > room:
            break
        kept.append(block)
        used += len(block) + 1
    return "\n".join(kept)


def configured_assistant(env: Mapping[str, str] | None = None) -> RetrievalAssistant | None:
    """The assistant for a long-running server (MCP, local API) when the setting
    MEMORY_APP_ASSISTED_RETRIEVAL is on (config.py), else None. On without a key, it
    falls back on every call and its answers say why."""
    from memory_app.config import ASSISTED_RETRIEVAL_ENV, assisted_retrieval_enabled

    if not assisted_retrieval_enabled(env):
        return None
    helper = assistant_from_env(env)
    if not helper.configured:
        log.warning(
            "%s is on but Claude is not configured: retrieval stays offline", ASSISTED_RETRIEVAL_ENV
        )
    return helper
