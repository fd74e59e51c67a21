"""Choosing what goes into the managed CLAUDE.md block (seed 001 §4) and planning the
write, so a person (or the CLI's --dry-run) sees the exact diff before anything changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection
from sqlmodel import Session

from memory_app.domain.claude_md import SECTIONS, BlockLine, render_block
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.domain.scoring import RankingWeights
from memory_app.retrieval.export_file import ExportPlan, plan_export
from memory_app.retrieval.ranker import rank
from memory_app.store import repository as repo
from memory_app.store import retrieval as store

PER_SECTION = 60  # more than a 4,000-character block can hold


@dataclass(frozen=True)
class ClaudeMdExport:
    """A planned export: the file change(s) and which memories made it in."""

    files: ExportPlan
    included: tuple[int, ...]
    dropped: tuple[int, ...]
    # Memories in unresolved conflicts are left out: stating either side as fact would
    # be a guess. They return once a person resolves the conflict.
    conflicted: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        return self.files.changed

    def diff(self) -> str:
        return self.files.diff()


def block_lines(
    session: Session, project: str | None, now: datetime, weights: RankingWeights
) -> list[BlockLine]:
    """Each section's memories, best standing first (pinned before the rest)."""
    conn: Connection = session.connection()
    excluded = store.excluded_ids(conn, project) | conflicted_ids(conn, project)
    lines: list[BlockLine] = []
    for category, _title in SECTIONS:
        filters = RetrievalFilters(categories=(category,), project=project, exclude_ids=excluded)
        query = RetrievalQuery(filters=filters, limit=PER_SECTION, weights=weights)
        ranked = rank(conn, query, now)
        records = repo.records_by_ids(session, [i for i, _ in ranked])
        pinned_first = sorted(
            (records[i] for i, _ in ranked if i in records), key=lambda r: not r.pinned
        )
        lines += [
            BlockLine(
                item_id=r.id,
                category=r.category,
                content=r.content,
                resource_id=r.source_resource_id,
                said=(r.valid_from or r.extracted_at).date(),
            )
            for r in pinned_first
        ]
    return lines


def conflicted_ids(conn: Connection, project: str | None) -> frozenset[int]:
    return frozenset(
        item_id
        for _cid, _category, members in store.open_conflicts(conn, project)
        for item_id, _content, _said in members
    )


def plan(
    session: Session,
    target: Path,
    *,
    project: str | None,
    max_chars: int,
    via: Path | None,
    now: datetime,
    weights: RankingWeights,
) -> ClaudeMdExport:
    rendered = render_block(block_lines(session, project, now, weights), max_chars=max_chars)
    files = plan_export(target, rendered.text, via=via)
    conflicted = tuple(sorted(conflicted_ids(session.connection(), project)))
    return ClaudeMdExport(files, rendered.included, rendered.dropped, conflicted)
