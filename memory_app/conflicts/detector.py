"""Detection in three steps, so no write lock is held while a model thinks:

1. `plan` (read): for each new item, its candidates (candidates.py), as ordered pairs
   (older, newer) not judged before;
2. `judge_pairs` (no database): the model judge when configured, else or on its failure
   the rules;
3. `record` (write): every verdict is cached per unordered pair (a pair is never judged
   twice, whatever the verdict) and each contradiction becomes an unresolved conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from memory_app.conflicts.candidates import MAX_CANDIDATES, candidates
from memory_app.conflicts.judge import Verdict
from memory_app.conflicts.restatements import judge_with_meaning
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store.dialects import Dialect
from memory_app.store.tables import MemoryItemRow

Judge = Callable[[str, str], Verdict | None]


def said_at(row: MemoryItemRow) -> tuple[datetime, datetime, int]:
    """When a memory was stated (its validity start, else extraction): orders old → new."""
    return (row.valid_from or row.extracted_at, row.extracted_at, row.id or 0)


@dataclass(frozen=True)
class Pair:
    older: int
    newer: int
    older_text: str
    newer_text: str
    category: str


def plan(
    session: Session, dialect: Dialect, item_ids: Iterable[int], limit: int = MAX_CANDIDATES
) -> list[Pair]:
    pairs: dict[tuple[int, int], Pair] = {}
    rows = repo.items_by_ids(session, item_ids)
    for item_id in sorted(rows):
        row = rows[item_id]
        if row.status != "active":
            continue
        for other in candidates(session, dialect, row, limit):
            older, newer = sorted((row, other), key=said_at)
            key = conflict_store.pair_key(older.id or 0, newer.id or 0)
            if key not in pairs:
                pairs[key] = Pair(
                    older.id or 0, newer.id or 0, older.content, newer.content, older.category
                )
    return list(pairs.values())


def judge_pairs(
    pairs: Sequence[Pair], model: Judge | None = None, rules: Judge = judge_with_meaning
) -> list[tuple[Pair, Verdict]]:
    out = []
    for pair in pairs:
        verdict = model(pair.older_text, pair.newer_text) if model is not None else None
        if verdict is None:  # no model, or it failed: fail open to the rules
            verdict = rules(pair.older_text, pair.newer_text)
        if verdict is not None:
            out.append((pair, verdict))
    return out


def record(session: Session, judged: Sequence[tuple[Pair, Verdict]]) -> list[int]:
    """Cache the verdicts and open a conflict per contradiction; returns new conflict ids."""
    return [conflict_id for conflict_id, _ in record_verdicts(session, judged)]


def record_verdicts(
    session: Session, judged: Sequence[tuple[Pair, Verdict]]
) -> list[tuple[int, Verdict]]:
    """`record`, with the verdict that opened each new conflict (an update is then
    resolved by the caller: the newer statement supersedes the older)."""
    new: list[tuple[int, Verdict]] = []
    for pair, verdict in judged:
        stored = conflict_store.save_verdict(
            session,
            pair.older,
            pair.newer,
            contradicts=verdict.contradicts,
            reason=verdict.reason,
            judge=verdict.judge,
        )
        if not (stored and verdict.contradicts):
            continue
        rows = repo.items_by_ids(session, (pair.older, pair.newer))
        if len(rows) < 2 or any(r.status != "active" for r in rows.values()):
            continue  # one of them changed meanwhile
        if pair.newer in conflict_store.open_partners(session, pair.older):
            continue
        row = conflict_store.create_conflict(
            session,
            pair.category,
            (pair.older, pair.newer),
            reason=verdict.reason,
            detector=verdict.judge,
        )
        new.append((row.id or 0, verdict))
    return new
