"""What the Context preview shows for one request, loaded in one trip to the database
worker: the plan, tier by tier, and the memories kept out of it.

No Qt here: these functions run on the worker and hand the view plain frozen data. The
preview is a preview, not a use: loading it never counts as access to its memories.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory_app.domain.budget import ContextPlan, estimate_tokens
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError

if TYPE_CHECKING:
    from memory_app.retrieval.assisted import Assistance


@dataclass(frozen=True)
class ExcludedMemory:
    """A memory kept out of this context; `everywhere`: out of every project's context."""

    item_id: int
    content: str
    everywhere: bool


@dataclass(frozen=True)
class ContextPreview:
    """What the view shows for one request, loaded in one trip to the worker."""

    request: ContextRequest
    plan: ContextPlan
    excluded: tuple[ExcludedMemory, ...]
    lead: str = ""  # Claude found these category summaries enough: they lead the text
    assistance: Assistance | None = None  # what Claude did ("Ask Claude"), or why not

    def render(self) -> str:
        """Exactly the text an assistant would be given."""
        return self.lead + self.plan.render()

    @property
    def used(self) -> int:
        return self.plan.used + (estimate_tokens(self.lead) if self.lead else 0)


def load_preview(service: MemoryService, request: ContextRequest) -> ContextPreview:
    """The plan and the memories kept out of it (runs on the database worker)."""
    plan = service.build_context(request)  # record_access stays off: a preview is not a use
    return ContextPreview(request, plan, excluded_memories(service, request))


def load_assisted_preview(service: MemoryService, request: ContextRequest) -> ContextPreview:
    """The plan Claude helped build ("Ask Claude"; runs on the long-job thread: it waits
    for Claude, up to the assisted timeout). Any failure of Claude's gives the offline
    plan with the reason (retrieval/assisted.py)."""
    from memory_app.gui.claude_access import retrieval_assistant
    from memory_app.retrieval.assisted import context

    lease = retrieval_assistant(service)
    try:
        built = context(service, request, lease.assistant)
    finally:
        lease.close()
    excluded = excluded_memories(service, request)
    return ContextPreview(request, built.plan, excluded, built.lead, built.assistance)


def excluded_memories(
    service: MemoryService, request: ContextRequest
) -> tuple[ExcludedMemory, ...]:
    """The memories kept out of this request's context, by hand."""
    everywhere = service.context_exclusions(None)
    excluded = []
    for item_id in sorted(service.context_exclusions(request.project)):
        try:
            record = service.get_item(item_id)
        except NotFoundError:
            continue
        if record.status != "deleted":
            content = " ".join(record.content.split())
            excluded.append(ExcludedMemory(item_id, content, item_id in everywhere))
    return tuple(excluded)


def let_back_in(service: MemoryService, item: ExcludedMemory, project: str | None) -> None:
    """Undo an exclusion wherever it was made, so the memory really comes back."""
    service.set_context_exclusion(item.item_id, project, False)
    if item.everywhere and project is not None:
        service.set_context_exclusion(item.item_id, None, False)
