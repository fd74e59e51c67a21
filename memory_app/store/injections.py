"""What the recall hooks gave the assistant, and whether it used it (seed 004).

The hook writes log lines (memory_app/hooks/injections.py); `add_lines` turns them into
rows and counts each injected memory; `set_verdicts` records, once the session's
transcript is in, which of them the answer cited or ignored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from memory_app.domain.citation import CITED, IGNORED, PENDING, REUSED
from memory_app.domain.records import InjectedMemory, InjectionRecord
from memory_app.store.tables import InjectionMemoryRow, InjectionRow, MemoryItemRow, table_of

EVENTS = ("UserPromptSubmit", "SessionStart")
OUTCOMES = ("injected", "reused", "no_match", "skipped")
MAX_MEMORIES = 100
MAX_ID = 2**63  # SQLite's integers


class BadLine(ValueError):
    """A log line that does not say what an injection needs."""


@dataclass(frozen=True)
class Parsed:
    row: InjectionRow
    memories: list[tuple[int, float | None]]


def parse_line(line: Mapping[str, Any]) -> Parsed:
    """A log line checked field by field; raises BadLine."""
    event, outcome = line.get("event"), line.get("outcome")
    if event not in EVENTS or outcome not in OUTCOMES:
        raise BadLine(f"unknown event or outcome: {event!r}, {outcome!r}")
    at = _time(line.get("at"))
    if at is None:
        raise BadLine("no time")
    memories: list[tuple[int, float | None]] = []
    for pair in line.get("memories") or ():
        if not isinstance(pair, list) or not pair or type(pair[0]) is not int:
            raise BadLine("a memory is not [id, score]")
        if not 0 < pair[0] < MAX_ID:
            raise BadLine(f"a memory id out of range: {pair[0]}")
        score = pair[1] if len(pair) > 1 and isinstance(pair[1], int | float) else None
        if score is not None and not math.isfinite(score):
            score = None
        memories.append((pair[0], None if score is None else float(score)))
    row = InjectionRow(
        at=at,
        event=str(event),
        session_id=_text(line.get("session_id")),
        project=_text(line.get("cwd")),
        outcome=str(outcome),
        transcript_path=_text(line.get("transcript_path")),
        budget=_budget(line.get("budget")),
        reused_from=_time(line.get("reused_from")),
    )
    return Parsed(row, memories[:MAX_MEMORIES])


def add_lines(session: Session, lines: Iterable[Parsed]) -> int:
    """Store the injections; memories deleted since are left out. Counts injections."""
    added = 0
    for parsed in lines:
        duplicate = session.exec(
            select(InjectionRow.id).where(
                InjectionRow.at == parsed.row.at,
                InjectionRow.event == parsed.row.event,
                InjectionRow.session_id == parsed.row.session_id,
            )
        ).first()
        if duplicate is not None:  # a log taken twice (a worker killed half-way)
            continue
        session.add(parsed.row)
        session.flush()
        present = set(
            session.exec(
                select(MemoryItemRow.id).where(
                    col(MemoryItemRow.id).in_([i for i, _ in parsed.memories])
                )
            ).all()
        )
        verdict = REUSED if parsed.row.outcome == "reused" else PENDING
        given = []
        for position, (item_id, score) in enumerate(parsed.memories):
            if item_id not in present or item_id in given:
                continue
            given.append(item_id)
            session.add(
                InjectionMemoryRow(
                    injection_id=parsed.row.id or 0,
                    item_id=item_id,
                    position=position,
                    score=score,
                    verdict=verdict,
                )
            )
        if verdict == PENDING and given:
            _count(session, given, "injected_count")
        added += 1
    return added


def pending_of_session(
    session: Session, session_id: str
) -> list[tuple[InjectionRow, list[tuple[int, str]]]]:
    """The session's injections with memories not judged yet, oldest first."""
    rows = session.exec(
        select(InjectionRow, InjectionMemoryRow.item_id, MemoryItemRow.content)
        .join(InjectionMemoryRow, col(InjectionMemoryRow.injection_id) == col(InjectionRow.id))
        .join(MemoryItemRow, col(MemoryItemRow.id) == col(InjectionMemoryRow.item_id))
        .where(InjectionRow.session_id == session_id, InjectionMemoryRow.verdict == PENDING)
        .order_by(col(InjectionRow.at), col(InjectionMemoryRow.position))
    ).all()
    found: dict[int, tuple[InjectionRow, list[tuple[int, str]]]] = {}
    for injection, item_id, content in rows:
        found.setdefault(injection.id or 0, (injection, []))[1].append((item_id, content))
    return list(found.values())


def set_verdicts(
    session: Session, injection: InjectionRow, verdicts: Mapping[int, str], prompt: str | None
) -> None:
    if prompt is not None and injection.prompt is None:
        injection.prompt = prompt
        session.add(injection)
    for verdict in (CITED, IGNORED):
        ids = [i for i, v in verdicts.items() if v == verdict]
        if not ids:
            continue
        session.execute(
            update(table_of(InjectionMemoryRow))
            .where(
                table_of(InjectionMemoryRow).c.injection_id == injection.id,
                table_of(InjectionMemoryRow).c.item_id.in_(ids),
                table_of(InjectionMemoryRow).c.verdict == PENDING,
            )
            .values(verdict=verdict)
        )
        _count(session, ids, "cited_count" if verdict == CITED else "ignored_count")


def recent(
    session: Session, limit: int, *, item_id: int | None = None, project: str | None = None
) -> list[InjectionRecord]:
    """The newest injections (of one memory, or one project), newest first."""
    query = select(InjectionRow)
    if item_id is not None:
        query = query.where(
            col(InjectionRow.id).in_(
                select(InjectionMemoryRow.injection_id).where(InjectionMemoryRow.item_id == item_id)
            )
        )
    if project is not None:
        query = query.where(InjectionRow.project == project)
    rows = session.exec(query.order_by(col(InjectionRow.at).desc()).limit(limit)).all()
    ids = [r.id for r in rows]
    given: dict[int, list[InjectedMemory]] = {}
    for link, content in session.exec(
        select(InjectionMemoryRow, MemoryItemRow.content)
        .join(MemoryItemRow, col(MemoryItemRow.id) == col(InjectionMemoryRow.item_id))
        .where(col(InjectionMemoryRow.injection_id).in_(ids))
        .order_by(col(InjectionMemoryRow.position))
    ).all():
        given.setdefault(link.injection_id, []).append(
            InjectedMemory(link.item_id, content, link.score, link.verdict)
        )
    return [_record(r, given.get(r.id or 0, ())) for r in rows]


def _record(row: InjectionRow, memories: Sequence[InjectedMemory]) -> InjectionRecord:
    return InjectionRecord(
        id=row.id or 0,
        at=row.at,
        event=row.event,
        session_id=row.session_id,
        project=row.project,
        outcome=row.outcome,
        prompt=row.prompt,
        memories=tuple(memories),
        reused_from=row.reused_from,
    )


def _count(session: Session, ids: Sequence[int], column: str) -> None:
    table = table_of(MemoryItemRow)
    session.execute(
        update(table).where(table.c.id.in_(list(ids))).values({column: table.c[column] + 1})
    )


def _budget(value: object) -> int | None:
    return value if type(value) is int and 0 < value < MAX_ID else None


def _text(value: object) -> str | None:
    return value[:4000] if isinstance(value, str) else None


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
