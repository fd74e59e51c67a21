"""What each endpoint does: the same MemoryService calls, with the same JSON, as the
command line (`search`/`list`, `context --json`, `maintenance run --json`, `conflicts
resolve --json`). Routing, auth and validation are elsewhere (routes.py, server.py);
each function gets checked arguments and returns the response's JSON.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memory_app import __version__
from memory_app.domain.branches import DEFAULT_BASE_BRANCHES, BranchScope, learnt_branch
from memory_app.domain.maintenance import DECISIONS
from memory_app.domain.records import MemoryRecord

if TYPE_CHECKING:
    from memory_app.retrieval.assisted import Assistance, RetrievalAssistant
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

# `conflicts resolve --keep WORD`: the decision each word stands for (cli.KEEP_CHOICES).
KEEP_CHOICES = {
    "newer": "keep_newer",
    "older": "keep_older",
    "both": "keep_both",
    "higher-confidence": "higher_confidence",
    "outdated": "mark_outdated",
}
SEARCH_PAGE = 200  # memories read per step when a filter the search lacks thins them
ASSISTED_OFF = (
    "MEMORY_APP_ASSISTED_RETRIEVAL is not on where this server runs (set it to 1, with an "
    "Anthropic API key, before `memory-app serve` or the app starts)"
)


@dataclass(frozen=True)
class Call:
    """What a handler knows of a request besides its arguments: whether the caller sent
    the right token, and the server's retrieval assistant (None: assisted retrieval is
    off for this server, retrieval/assisted/configured.py)."""

    authenticated: bool
    assistant: RetrievalAssistant | None = None
    # Held around store work by a handler that asks Claude (the server does not hold
    # its lock for such a request); a no-op otherwise.
    guard: AbstractContextManager[Any] = field(default_factory=nullcontext)


def health(service: MemoryService, args: dict[str, Any], call: Call) -> Any:
    """Without a token: a bare "the server answers". With it: version and counts."""
    if not call.authenticated:
        return {"status": "ok"}
    stats = service.get_stats()
    return {
        "status": "ok" if service.db.damage is None else "damaged",
        "version": __version__,
        "schema_version": service.db.dialect.schema_version,
        "counts": {
            "memories": stats.items,
            "pinned": stats.pinned,
            "conversations": stats.resources,
            "categories": stats.categories,
            "open_conflicts": stats.conflicts_open,
        },
        "damage": service.db.damage,
    }


def memories(service: MemoryService, args: dict[str, Any], call: Call) -> Any:
    """`memory-app search` when `q` is given (best first), else `memory-app list`
    (newest first); `project` (its memories and global ones, as `retrieve --project`)
    and, for a search, `branch` thin the results before the page is cut. With
    `assisted`, a search is `memory-app retrieve --assisted`'s ranking, and the answer
    says under "assisted" what Claude did, or why the plain search came back instead."""
    if args["assisted"]:
        return _assisted_memories(service, args, call)
    return _memories(service, args)


def _memories(service: MemoryService, args: dict[str, Any]) -> dict[str, Any]:
    q, project, branch = args["q"] or "", args["project"], args["branch"]
    limit, offset = args["limit"], args["offset"]
    status, category = args["status"], args["category"]

    def keep(r: MemoryRecord) -> bool:
        if project is not None and not (r.scope == "global" or _in_project(r.project, project)):
            return False
        return not (q.strip() and branch is not None and r.branch != branch)

    def page(start: int, count: int) -> list[MemoryRecord]:
        if q.strip():  # the search has no offset: ask for everything up to the page's end
            found = service.search(q, limit=start + count, category=category, statuses=(status,))
            return found[start:]
        return service.list_items(
            category=category, status=status, branch=branch, limit=count, offset=start
        )

    if project is None and not (q.strip() and branch is not None):
        found = page(offset, limit)
    else:
        found = _filtered(page, keep, offset, limit)
    return {
        "memories": [_memory_json(r) for r in found],
        "offset": offset,
        "limit": limit,
        "mode": "search" if q.strip() else "list",
    }


def _assisted_memories(service: MemoryService, args: dict[str, Any], call: Call) -> dict[str, Any]:
    """The search with Claude's help; the plain search (the answer without `assisted`)
    whenever Claude cannot help, with the reason."""
    from memory_app.domain.retrieval import MAX_LIMIT, RetrievalFilters, RetrievalQuery
    from memory_app.retrieval import assisted

    q, offset, limit = (args["q"] or "").strip(), args["offset"], args["limit"]
    assistant = call.assistant
    if not q:
        report = _off(assisted.NO_TASK)
    elif assistant is None:
        report = _off(ASSISTED_OFF)
    elif offset + limit > MAX_LIMIT:
        raise ValueError(f"with assisted, offset + limit may be at most {MAX_LIMIT}")
    else:
        category = args["category"]
        filters = RetrievalFilters(
            categories=(category,) if category else (),
            project=args["project"],
            statuses=(args["status"],),
        )
        query = RetrievalQuery(text=q, filters=filters, limit=offset + limit)
        # Uses are noted only of what is answered: a fallback answers the plain search.
        found = assisted.retrieve(service, query, assistant, record_access=False, guard=call.guard)
        report = found.assistance
        if report.used:
            branch = args["branch"]
            kept = [r for r in found.results if branch is None or r.record.branch == branch]
            kept = kept[offset : offset + limit]
            with call.guard:
                service.access_log.note(r.record.id for r in kept)
                _flush(service)
            return {
                "memories": [{**_memory_json(r.record), "score": round(r.score, 4)} for r in kept],
                "offset": offset,
                "limit": limit,
                "mode": "search",
                "assisted": report.to_json(),
            }
    with call.guard:
        plain = _memories(service, args)
    return {**plain, "assisted": report.to_json()}


def _off(reason: str) -> Assistance:
    """The report of a request that asked for assisted retrieval and got the plain one."""
    from memory_app.retrieval.assisted import Assistance

    return Assistance(used=False, fallback=reason)


def _filtered(page: Any, keep: Any, offset: int, limit: int) -> list[MemoryRecord]:
    """The page [offset, offset + limit) of the memories `keep` lets through."""
    kept: list[MemoryRecord] = []
    start = 0
    while len(kept) < offset + limit:
        batch = page(start, SEARCH_PAGE)
        kept += [r for r in batch if keep(r)]
        if len(batch) < SEARCH_PAGE:
            break
        start += SEARCH_PAGE
    return kept[offset : offset + limit]


def _in_project(memory_project: str | None, folder: str) -> bool:
    """The folder is the memory's project or inside it (store/project_match.py)."""
    if not memory_project:
        return False
    return folder == memory_project or folder.startswith(memory_project.rstrip("/") + "/")


def _memory_json(r: MemoryRecord) -> dict[str, Any]:
    data = r.to_json()
    if r.score is not None:
        data["score"] = round(r.score, 4)
    return data


def _scope(branch: str | None, base: list[str] | None) -> BranchScope | None:
    if branch is None:
        return None
    named = learnt_branch(branch)
    if named is None:
        raise ValueError(f"branch {branch!r} names no branch")
    bases = tuple(dict.fromkeys(base or ())) or DEFAULT_BASE_BRANCHES
    return BranchScope.working_on(named, bases)


def assemble(service: MemoryService, args: dict[str, Any], call: Call) -> Any:
    """`memory-app context TASK --budget N --project P --branch B --session S --json`,
    and with `assisted` its `--assisted`: the answer says under "assisted" what Claude
    did, or why the context is the one built without it."""
    from memory_app.cli_retrieval import plan_json
    from memory_app.retrieval.context import ContextRequest

    request = ContextRequest(
        task=args["task"],
        project=args["project"],
        budget=args["budget"],
        exclude=frozenset(args["exclude"] or ()),
        branch=_scope(args["branch"], args["base_branches"]),
        conversation=args["conversation"],
    )
    if not args["assisted"]:
        plan = service.build_context(request, record_access=True)
        _flush(service)
        return plan_json(plan)
    from memory_app.retrieval import assisted

    if call.assistant is None:
        plan = service.build_context(request, record_access=True)
        built = assisted.AssistedContext(plan, _off(ASSISTED_OFF))
    else:
        built = assisted.context(
            service, request, call.assistant, record_access=True, guard=call.guard
        )
    with call.guard:
        _flush(service)
    return {
        **plan_json(built.plan),
        "used_tokens": built.used,
        "remaining_tokens": built.plan.budget - built.used,
        "context": built.render(),
        "assisted": built.assistance.to_json(),
    }


def predict(service: MemoryService, args: dict[str, Any], _call: Call) -> Any:
    """Memories for the signals of the moment (files, branch, last error, project, time),
    before any prompt: the predictive ranker of retrieval/predict.py, with its reasons."""
    from memory_app.retrieval.predict import predict as ranked
    from memory_app.retrieval.predict import signals_from

    at = _moment(args["time"]) if args["time"] is not None else None
    signals = signals_from(
        args["project"], args["branch"], args["files"] or [], args["last_error"], at
    )
    found = ranked(service, signals, limit=args["limit"], now=service.clock())
    return {"memories": [p.to_json() for p in found]}


def _moment(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"time {value!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def consolidate(service: MemoryService, args: dict[str, Any], _call: Call) -> Any:
    """`memory-app maintenance run KIND [--dry-run] [--review] --json`, a dry run unless
    `dry_run` is false; the proposed changes of the run come back with it."""
    from memory_app.cli_maintenance import run_json

    dry_run, review = args["dry_run"], args["review"]
    if not dry_run:
        _daily_backup(service)
    record = service.run_maintenance(args["kind"], dry_run=dry_run, apply=not review)
    changes = service.maintenance_changes(decisions=DECISIONS, run_id=record.id)
    return {"run": run_json(record), "changes": [c.to_json() for c in changes]}


def _daily_backup(service: MemoryService) -> None:
    """As `maintenance run` does before it changes anything: a failure is logged, the
    run goes on."""
    from memory_app.operations.backups import keep_from_env, take_daily_backup
    from memory_app.store.errors import StoreError

    try:
        take_daily_backup(service, keep_from_env())
    except (ValueError, StoreError) as exc:
        log.warning("the daily backup was not taken: %s", exc)


def resolve(service: MemoryService, args: dict[str, Any], _call: Call) -> Any:
    """`memory-app conflicts resolve ID --keep WHICH | --merge TEXT [--note TEXT]`."""
    keep, merge = args["keep"], args["merge"]
    if (keep is None) == (merge is None):
        raise ValueError("give exactly one of 'keep' and 'merge'")
    decision = "merge" if merge is not None else KEEP_CHOICES[keep]
    record = service.resolve_conflict(
        args["id"], decision, note=args["note"] or "", merged_content=merge
    )
    return record.to_json()


def _flush(service: MemoryService) -> None:
    """Retrievals count as uses: write the counts now, as the MCP server does (a server
    that is killed never reaches close)."""
    try:
        service.flush_access()
    except Exception:
        log.exception("could not record memory accesses; kept for the next try")
