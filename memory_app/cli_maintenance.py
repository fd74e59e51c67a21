"""The maintenance commands of `memory-app`, for people and for cron or systemd timers.

    memory-app maintenance run nightly|weekly|monthly|full|due [--dry-run] [--review]
    memory-app maintenance status
    memory-app maintenance changes
    memory-app maintenance apply [ID ...]
    memory-app maintenance undo [GROUP]

Argument parsing and printing only; the work is in MemoryService.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

from memory_app.domain.jobs import JobState
from memory_app.domain.maintenance import JOB_TITLES, RUN_KINDS
from memory_app.domain.records import MaintenanceRunRecord

if TYPE_CHECKING:
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

Output = tuple[Any, str]


class MaintenanceFailed(RuntimeError):
    """A run ended in an error or was cancelled: the command exits non-zero."""


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = "maintenance: merge duplicates, summarize, archive, re-index (see `run --help`)"
    p = sub.add_parser("maintenance", help=text, description=text, parents=[common])
    inner = p.add_subparsers(dest="maintenance_command", metavar="ACTION", required=True)
    text = "run a job now; 'due' runs every job whose schedule says it is due"
    q = inner.add_parser("run", help=text, description=text, parents=[common])
    q.add_argument("kind", choices=(*RUN_KINDS, "due"))
    q.add_argument("--dry-run", action="store_true", help="only report; change nothing")
    q.add_argument(
        "--review",
        action="store_true",
        help="leave the proposed changes for review (the app's Maintenance view) "
        "instead of applying them",
    )
    q.add_argument("--quiet", action="store_true", help="no progress on stderr")
    text = "each job's schedule, last run and whether it is due"
    inner.add_parser("status", help=text, description=text, parents=[common])
    text = "the proposed changes waiting for review"
    inner.add_parser("changes", help=text, description=text, parents=[common])
    text = "apply proposed changes (given ids, else every accepted one) as one undoable step"
    q = inner.add_parser("apply", help=text, description=text, parents=[common])
    q.add_argument("ids", nargs="*", type=int, help="change ids (see `maintenance changes`)")
    q.add_argument("--all", action="store_true", help="every change waiting for review")
    text = "undo the changes one apply (or run) made; the latest when no group is given"
    q = inner.add_parser("undo", help=text, description=text, parents=[common])
    q.add_argument("group", nargs="?", help="the group id shown by `maintenance status`")


def maintenance(service: MemoryService, args: argparse.Namespace) -> Output:
    command = args.maintenance_command
    if command == "run":
        return _run(service, args)
    if command == "status":
        return _status(service)
    if command == "changes":
        changes = service.maintenance_changes()
        lines = [f"{c.id:>6}  {c.decision:<8}  {c.title}\n        {c.reason}" for c in changes]
        text = "\n".join(lines) or "No changes are waiting for review."
        return [c.to_json() for c in changes], text
    if command == "apply":
        ids = list(args.ids)
        if args.all:
            ids = [c.id for c in service.maintenance_changes(decisions=("pending", "accepted"))]
        result = service.apply_changes(ids or None)
        payload = {
            "applied": result.applied,
            "stale": result.stale,
            "group_id": result.group_id,
        }
        text = f"Applied {result.applied} changes"
        text += f" ({result.stale} skipped: the memories changed since)" if result.stale else ""
        text += (
            f". Undo with: memory-app maintenance undo {result.group_id}"
            if result.group_id
            else "."
        )
        return payload, text
    return _undo(service, args.group)


def _run(service: MemoryService, args: argparse.Namespace) -> Output:
    kinds = [s.kind for s in service.due_jobs()] if args.kind == "due" else [args.kind]
    silent = args.quiet or getattr(args, "json", False)  # --json is absent unless given
    if not args.dry_run:
        _daily_backup(service, silent)
    job = JobState(on_progress=None if silent else _progress)
    records = [
        service.run_maintenance(k, dry_run=args.dry_run, apply=not args.review, job=job)
        for k in kinds
    ]
    if not silent:
        print(file=sys.stderr)
    failed = [r for r in records if r.status != "success"]
    if failed:
        raise MaintenanceFailed(
            "; ".join(f"{r.kind} maintenance {r.status}: {r.error}" for r in failed)
        )
    payload = [run_json(r) for r in records]
    if not records:
        return payload, "Nothing is due."
    return payload, "\n\n".join(describe_run(r) for r in records)


def _daily_backup(service: MemoryService, silent: bool) -> None:
    """The automatic backup, when the newest is a day old (MEMORY_APP_BACKUP_KEEP: how
    many are kept, 0 none). A failure is said on stderr; the maintenance still runs."""
    from memory_app.operations.backups import keep_from_env, take_daily_backup
    from memory_app.store.errors import StoreError

    try:
        made = take_daily_backup(service, keep_from_env())
    except (ValueError, StoreError) as exc:
        log.warning("the daily backup was not taken: %s", exc)
        print(f"memory-app: warning: the daily backup was not taken: {exc}", file=sys.stderr)
        return
    if made is not None and not silent:
        print(f"Daily backup: {made.path}", file=sys.stderr)


def _progress(done: int, total: int, message: str) -> None:
    figure = f" {done}/{total}" if total else ""
    print(f"\r\033[K{message}{figure}", end="", file=sys.stderr, flush=True)


def _status(service: MemoryService) -> Output:
    jobs = service.maintenance_schedule()
    runs = service.maintenance_runs(limit=10)
    pending = service.maintenance_changes()
    payload = {
        "jobs": [
            {
                "kind": j.schedule.kind,
                "enabled": j.schedule.enabled,
                "every_days": j.schedule.every_days,
                "auto_apply": j.schedule.auto_apply,
                "last_run": j.last_run.isoformat() if j.last_run else None,
                "next_run": j.next_run.isoformat() if j.next_run else None,
                "due": j.due,
            }
            for j in jobs
        ],
        "pending_changes": len(pending),
        "runs": [run_json(r) for r in runs],
    }
    lines = []
    for j in jobs:
        when = j.last_run.strftime("%Y-%m-%d %H:%M") if j.last_run else "never"
        state = "off" if not j.schedule.enabled else ("due now" if j.due else "")
        if j.next_run and not j.due:
            state = f"next {j.next_run:%Y-%m-%d %H:%M}"
        lines.append(
            f"{JOB_TITLES[j.schedule.kind]:<24} every {j.schedule.every_days:>2} days  "
            f"last {when:<16}  {state}"
        )
    lines.append(f"\n{len(pending)} proposed changes waiting for review.")
    if runs:
        lines.append("\nRecent runs:")
        lines += [f"  #{r.id} {describe_run(r).splitlines()[0]}" for r in runs]
    return payload, "\n".join(lines)


def _undo(service: MemoryService, group: str | None) -> Output:
    if group is None:
        group = next((r.group_id for r in service.maintenance_runs() if r.group_id), None)
        if group is None:
            return {"undone": []}, "No maintenance changes to undo."
    touched = service.undo_maintenance(group)
    return {"group_id": group, "undone": touched}, f"Undid {group}: {len(touched)} memories."


def run_json(run: MaintenanceRunRecord) -> dict[str, Any]:
    return {
        "id": run.id,
        "kind": run.kind,
        "status": run.status,
        "dry_run": run.dry_run,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "result": run.result,
        "error": run.error,
        "group_id": run.group_id,
    }


def describe_run(run: MaintenanceRunRecord) -> str:
    title = JOB_TITLES.get(run.kind, run.kind.capitalize())
    head = f"{title}{' (dry run)' if run.dry_run else ''}: {run.status}"
    figures = [f"  {k.replace('_', ' ')}: {_figure(v)}" for k, v in run.result.items()]
    tail = [f"  undo with: memory-app maintenance undo {run.group_id}"] if run.group_id else []
    return "\n".join([head, *figures, *tail])


def _figure(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(str(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,}" if isinstance(value, int) else str(value)


HANDLERS = {"maintenance": maintenance}
