"""The memories for a task with Claude's help (`memory-app retrieve --assisted`, the MCP
`retrieve` tool, the API's `GET /memories?assisted=true`): the offline ranking first,
then the model's plan, its categories checked against the store, and the sufficiency
check; the offline ranking alone, with the reason, when the model cannot help.

A server that serializes its store work with a lock passes it as `guard`: it is held
around each step that reads or writes the store and never while Claude is asked, so other
calls are answered while a request waits (up to the timeout) for the model."""

from __future__ import annotations

import logging
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_app.domain.retrieval import RetrievalQuery, RetrievedMemory
from memory_app.retrieval.assisted.fusion import clean_queries, fused
from memory_app.retrieval.assisted.questions import RetrievalAssistant, SearchPlan
from memory_app.retrieval.assisted.report import (
    NO_TASK,
    Assistance,
    CategorySummary,
    Meter,
    Unavailable,
    fallback,
    record_usage,
)

if TYPE_CHECKING:
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

Guard = AbstractContextManager[Any]  # held around store work, released while Claude answers


@dataclass(frozen=True)
class AssistedRetrieval:
    results: list[RetrievedMemory]
    assistance: Assistance


@dataclass(frozen=True)
class Consultation:
    """What the model said: its plan (queries cleaned, categories validated), the chosen
    categories' summaries, the verdict on them (None: not asked, or the check failed, and
    then `check_failed` says why) and the category keys it named that the store lacks."""

    plan: SearchPlan
    summaries: tuple[CategorySummary, ...] = ()
    sufficient: bool | None = None
    ignored: tuple[str, ...] = ()
    check_failed: str | None = None

    def assistance(self, meter: Meter, model: str, **shown: Any) -> Assistance:
        """The report of a call the model helped; `shown`: what the caller kept of it."""
        return Assistance(
            used=True,
            queries=tuple(self.plan.queries),
            categories=tuple(self.plan.categories),
            ignored_categories=self.ignored,
            sufficient=self.sufficient,
            check_failed=self.check_failed,
            usage=meter.call_usage(model, None),
            **shown,
        )


def retrieve(
    service: MemoryService,
    query: RetrievalQuery,
    assistant: RetrievalAssistant,
    *,
    record_access: bool = False,
    guard: Guard | None = None,
) -> AssistedRetrieval:
    """The memories for a task with Claude's help; the offline ranking when it fails."""
    guard = guard if guard is not None else nullcontext()
    with guard:
        offline = service.retrieve(query)
    meter = Meter()
    model = assistant.settings.model
    if not query.text.strip():
        with guard:
            return _offline(service, offline, fallback(NO_TASK, meter, model), record_access)
    try:
        said = consult(service, query, assistant, meter, guard)
    except Unavailable as exc:
        with guard:
            record_usage(service, meter.call_usage(model, str(exc)))
            return _offline(service, offline, fallback(str(exc), meter, model), record_access)
    with guard:
        record_usage(service, meter.call_usage(model, None))
        added: tuple[int, ...] = ()
        if said.sufficient:
            results = offline
        else:
            results, added = fused(service, query, said.plan, offline)
        if record_access:
            service.access_log.note(r.record.id for r in results)
    summaries = said.summaries if said.sufficient else ()
    return AssistedRetrieval(
        results, said.assistance(meter, model, summaries=summaries, added=added)
    )


def consult(
    service: MemoryService,
    query: RetrievalQuery,
    assistant: RetrievalAssistant,
    meter: Meter,
    guard: Guard | None = None,
) -> Consultation:
    """The model's plan and, when it chose categories with summaries, its verdict on
    them. Unavailable when there is no usable plan; a failed check leaves the plan
    standing (its tokens are spent) with the verdict unknown and the reason kept."""
    guard = guard if guard is not None else nullcontext()
    deadline = time.monotonic() + assistant.limits.timeout
    with guard:
        allowed = [
            c
            for c in service.categories()
            if not query.filters.categories or c.key in query.filters.categories
        ]
    raw = assistant.plan(query.text, allowed, meter, deadline)
    known = {c.key for c in allowed}
    chosen = list(dict.fromkeys(k.strip() for k in raw.categories if k.strip() in known))
    ignored = tuple(dict.fromkeys(k for k in raw.categories if k.strip() not in known))
    queries = clean_queries(raw.queries, query.text)
    if not queries and not chosen:
        raise Unavailable("the answer named no usable query or category")
    plan = SearchPlan(queries=queries, categories=chosen)
    if not (assistant.limits.check_sufficiency and chosen):
        return Consultation(plan, ignored=ignored)
    names = {c.key: c.name for c in allowed}
    with guard:
        summaries = tuple(
            CategorySummary(key, names[key], text)
            for key in chosen
            if (text := service.get_category(key, limit=1).summary_markdown.strip())
        )
    if not summaries:
        return Consultation(plan, ignored=ignored)
    try:
        verdict = assistant.check(query.text, summaries, meter, deadline)
    except Unavailable as exc:
        log.info("assisted retrieval: summaries not checked: %s", exc)
        return Consultation(plan, summaries, None, ignored, str(exc))
    return Consultation(plan, summaries, verdict.sufficient, ignored)


def _offline(
    service: MemoryService,
    offline: list[RetrievedMemory],
    assistance: Assistance,
    record_access: bool,
) -> AssistedRetrieval:
    if record_access:
        service.access_log.note(r.record.id for r in offline)
    return AssistedRetrieval(offline, assistance)
