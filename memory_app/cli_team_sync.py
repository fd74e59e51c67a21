"""`memory-app team sync` (issue 20): pull the team's changes, push this store's.

    memory-app team sync [--json]

Exits 1 with the reason when the team store cannot be reached (the reason is kept for
`team status`); the local store is unchanged and the next sync catches up. The work is
in memory_app/team/sync.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_app.service import MemoryService
    from memory_app.team.sync import SyncReport

Output = tuple[Any, str]


def _sync_parser(inner: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "bring the team's changes here and send this store's waiting team changes "
        "(publishing, edits, withdrawals, conflicts and their resolutions); offline, it "
        "fails with the reason and changes nothing"
    )
    inner.add_parser("sync", help=text, description=text, parents=[common])


PARSERS: list[Callable[[Any, argparse.ArgumentParser], None]] = [_sync_parser]


def sync_text(report: SyncReport) -> str:
    pulled, pushed = report.pull, report.push
    lines = [
        f"Pulled {pulled.changes} change(s): {pulled.added} new, {pulled.updated} updated, "
        f"{pulled.removed} withdrawn by the team.",
        f"Pushed: {pushed.published} published, {pushed.updated} edited, "
        f"{pushed.withdrawn} withdrawn"
        + (f", {pushed.matched} already there" * bool(pushed.matched))
        + ".",
    ]
    opened = len(pulled.conflicts)
    if opened:
        lines.append(
            f"{opened} conflict(s) opened: edited here and on the team since the last sync; "
            "both versions are kept, choose in `memory-app conflicts`."
        )
    if pulled.conflicts_pulled:
        lines.append(f"{pulled.conflicts_pulled} team conflict(s) or resolution(s) brought here.")
    for item_id, why in sorted(pushed.not_sent.items()):
        lines.append(f"#{item_id} not sent: {why}")
    if pushed.stale:
        waiting = ", ".join(f"#{i}" for i in pushed.stale)
        lines.append(f"Changed on the team while syncing, sent next time: {waiting}")
    lines += pulled.notes
    return "\n".join(lines)


def sync(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.team.sync import sync as run_sync

    report = run_sync(service.db)
    return report.to_json(), sync_text(report)


ACTIONS: dict[str, Callable[[MemoryService, argparse.Namespace], Output]] = {"sync": sync}
