"""What the Context preview shows for one request, loaded in one trip to the database
worker: the plan, tier by tier, and the memories kept out of it.

No Qt here: these functions run on the worker and hand the view plain frozen data. The
preview is a preview, not a use: loading it never counts as access to its memories.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_app.domain.budget import ContextPlan
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.errors import NotFoundError


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


def load_preview(service: MemoryService, request: ContextRequest) -> ContextPreview:
    """The plan and the memories kept out of it (runs on the database worker)."""
    plan = service.build_context(request)  # record_access stays off: a preview is not a use
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
    return ContextPreview(request, plan, tuple(excluded))


def let_back_in(service: MemoryService, item: ExcludedMemory, project: str | None) -> None:
    """Undo an exclusion wherever it was made, so the memory really comes back."""
    service.set_context_exclusion(item.item_id, project, False)
    if item.everywhere and project is not None:
        service.set_context_exclusion(item.item_id, None, False)
