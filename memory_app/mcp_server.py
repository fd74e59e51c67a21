"""`memory-app mcp`: the memory as MCP tools over stdio, for an assistant to search and
curate mid-session (issue 16).

Each tool is a thin call into MemoryService, so a memory remembered here passes the
same gates, redaction and dedupe as an imported one. An anticipated failure (unknown
id, empty content, a paused project) comes back as a tool error with the reason; the
server keeps serving. The `mcp` package is imported only by this command.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memory_app import __version__
from memory_app.domain.records import MemoryRecord
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.domain.validation import ValidationError
from memory_app.retrieval import assisted
from memory_app.retrieval.assisted import RetrievalAssistant
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from memory_app.store.errors import StoreError

log = logging.getLogger(__name__)

TOOL_NAMES = ("search", "retrieve", "context", "remember", "forget", "pin", "list_conflicts")
DEFAULT_BUDGET = 2000
OPEN_CONFLICTS = ("unresolved", "pending_user_review")

INSTRUCTIONS = (
    "Long-term memory of this user's coding sessions (preferences, decisions, "
    "conventions, bug patterns). Use `retrieve` or `context` before a task, `remember` "
    "for a durable fact the user states, `forget` or `pin` when the user asks."
)

T = TypeVar("T")


def _brief(r: MemoryRecord) -> dict[str, Any]:
    """The fields an assistant needs; the full record is `memory-app show ID`."""
    data: dict[str, Any] = {
        "id": r.id,
        "category": r.category,
        "content": r.content,
        "confidence": round(r.confidence, 3),
        "status": r.status,
        "pinned": r.pinned,
        "project": r.project,
    }
    if r.score is not None:
        data["score"] = round(r.score, 4)
    if r.conflict_ids:
        data["conflict_ids"] = list(r.conflict_ids)
    return data


def build_server(service: MemoryService, assistant: RetrievalAssistant | None = None) -> MCPServer:
    """An MCP server whose tools call `service`. Tool functions run in worker threads,
    so one lock keeps the service's caches and write transactions one at a time.
    `assistant`: `retrieve` and `context` ask Claude too (the package
    retrieval/assisted/) and their answers carry an "assisted" report; the lock is held
    only around their store work, never while Claude answers (up to its timeout), so
    the other tools are not kept waiting."""
    server: MCPServer = MCPServer(
        name="memory-curator", instructions=INSTRUCTIONS, version=__version__
    )
    lock = threading.Lock()

    def answered(work: Callable[[], T]) -> T:
        """`work()`, an anticipated failure of it a tool error with the reason."""
        try:
            return work()
        except (ValidationError, StoreError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    def call(work: Callable[[], T]) -> T:
        with lock:
            return answered(work)

    def flushed(work: Callable[[], T]) -> T:
        """Retrievals count as uses; write the counts now, not only at exit (a server
        killed by its client never reaches close)."""
        result = work()
        with lock:
            try:
                service.flush_access()
            except Exception:
                log.exception("could not record memory accesses; kept for the next try")
        return result

    @server.tool()
    def search(query: str, limit: int = 10) -> dict[str, Any]:
        """Full-text search over active memories, best first."""
        found = call(lambda: service.search(query, limit=limit))
        return {"results": [_brief(r) for r in found]}

    @server.tool()
    def retrieve(task: str, limit: int = 10, project: str | None = None) -> dict[str, Any]:
        """The memories that best fit a task, each with why it ranked where it did."""

        def work() -> list[dict[str, Any]]:
            query = RetrievalQuery(
                text=task, filters=RetrievalFilters(project=project), limit=limit
            )
            if assistant is not None:
                found = assisted.retrieve(service, query, assistant, record_access=True, guard=lock)
                results, report["assisted"] = found.results, found.assistance.to_json()
            else:
                with lock:
                    results = service.retrieve(query, record_access=True)
            return [
                {**_brief(r.record), "score": round(r.score, 4), "why": r.breakdown.describe()}
                for r in results
            ]

        report: dict[str, Any] = {}
        return {"results": answered(lambda: flushed(work)), **report}

    @server.tool()
    def context(
        task: str = "", budget: int = DEFAULT_BUDGET, project: str | None = None
    ) -> dict[str, Any]:
        """The tiered context for a task (conflicts, pinned, conventions, relevant
        memories) within a token budget, as text ready to read."""

        def work() -> dict[str, Any]:
            request = ContextRequest(task=task, project=project, budget=budget)
            if assistant is not None:
                built = assisted.context(
                    service, request, assistant, record_access=True, guard=lock
                )
                return {
                    "context": built.render(),
                    "used_tokens": built.used,
                    "budget": budget,
                    "item_ids": built.plan.item_ids,
                    "assisted": built.assistance.to_json(),
                }
            with lock:
                plan = service.build_context(request, record_access=True)
            return {
                "context": plan.render(),
                "used_tokens": plan.used,
                "budget": plan.budget,
                "item_ids": plan.item_ids,
            }

        return answered(lambda: flushed(work))

    @server.tool()
    def remember(
        content: str, category: str | None = None, project: str | None = None
    ) -> dict[str, Any]:
        """Add a memory (a durable fact, preference or decision). Secrets are redacted,
        <private> spans dropped, and a repeat reinforces the existing memory."""
        outcome, record = call(
            lambda: service.remember(content, category=category, project=project)
        )
        return {"outcome": outcome, "memory": _brief(record)}

    @server.tool()
    def forget(id: int) -> dict[str, Any]:
        """Forget a memory by id (a person can restore it in the app)."""
        return {"forgotten": _brief(call(lambda: service.forget(id)))}

    @server.tool()
    def pin(id: int, pinned: bool = True) -> dict[str, Any]:
        """Pin a memory (always in context) or unpin it."""
        return {"memory": _brief(call(lambda: service.set_pinned(id, pinned)))}

    @server.tool()
    def list_conflicts() -> dict[str, Any]:
        """Open conflicts: memories that contradict each other, for a person to decide."""

        def work() -> list[dict[str, Any]]:
            return [
                {
                    "id": c.id,
                    "category": c.category,
                    "status": c.status,
                    "reason": c.reason,
                    "memories": [
                        {"id": i, "content": service.get_item(i).content} for i in c.item_ids
                    ],
                }
                for c in service.conflicts(OPEN_CONFLICTS)
            ]

        return {"conflicts": call(work)}

    return server


def serve(service: MemoryService) -> None:
    """Serve until the client closes stdin. Only the protocol goes to stdout: the
    stdio transport points fd 1 at stderr while it runs, and logs go to the log file
    and stderr."""
    assistant = assisted.configured_assistant()  # MEMORY_APP_ASSISTED_RETRIEVAL
    log.info("MCP server started%s", " (assisted retrieval on)" if assistant else "")
    try:
        build_server(service, assistant).run("stdio")
    finally:
        if assistant is not None:
            assistant.close()
    log.info("MCP server stopped")
