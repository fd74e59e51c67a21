"""The tiered context for a task with Claude's help (`memory-app context --assisted`, the
MCP `context` tool, the API's `POST /context/assemble` with `assisted`), within the same
budget: sufficient summaries lead it and the tiers get what they leave; otherwise the
synthesized queries' words join the task's, so the context builder's ranking (an OR of
the words) finds what they name too."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memory_app.domain.budget import MIN_BUDGET, ContextPlan, estimate_tokens
from memory_app.domain.retrieval import RetrievalQuery
from memory_app.retrieval.assisted.questions import RetrievalAssistant
from memory_app.retrieval.assisted.read_path import Guard, consult
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
    from memory_app.retrieval.context import ContextRequest
    from memory_app.service import MemoryService


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


def context(
    service: MemoryService,
    request: ContextRequest,
    assistant: RetrievalAssistant,
    *,
    record_access: bool = False,
    guard: Guard | None = None,
) -> AssistedContext:
    """The tiered context for a task with Claude's help, within the same budget; the
    offline context, with the reason, when the model cannot help. `guard`: as for
    `retrieve` (read_path.py), held around the store work only."""
    guard = guard if guard is not None else nullcontext()
    if not request.task.strip():
        with guard:
            plan = service.build_context(request, record_access=record_access)
        return AssistedContext(plan, Assistance(False, fallback=NO_TASK))
    meter = Meter()
    model = assistant.settings.model
    query = RetrievalQuery(text=request.task)
    try:
        said = consult(service, query, assistant, meter, guard)
    except Unavailable as exc:
        with guard:
            record_usage(service, meter.call_usage(model, str(exc)))
            plan = service.build_context(request, record_access=record_access)
        return AssistedContext(plan, fallback(str(exc), meter, model))
    lead = ""
    summaries: tuple[CategorySummary, ...] = ()
    with guard:
        record_usage(service, meter.call_usage(model, None))
        if said.sufficient:
            lead, summaries = _lead(said.summaries, request.budget)
            plan = service.build_context(
                replace(request, budget=request.budget - estimate_tokens(lead)),
                record_access=record_access,
            )
        else:
            task = " ".join([request.task, *said.plan.queries])
            plan = service.build_context(replace(request, task=task), record_access=record_access)
    return AssistedContext(plan, said.assistance(meter, model, summaries=summaries), lead)


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
