"""Choosing what goes into the managed CLAUDE.md block (seed 001 §4) and planning the
write, so a person (or the CLI's --dry-run) sees the exact diff before anything changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection
from sqlmodel import Session

from memory_app.domain.branches import DEFAULT_BASE_BRANCHES, BranchScope
from memory_app.domain.claude_md import (
    DEFAULT_TITLE,
    SECTIONS,
    BlockLine,
    BlockPart,
    branch_title,
    render_block,
    render_parts,
)
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
    session: Session,
    project: str | None,
    now: datetime,
    weights: RankingWeights,
    branch: BranchScope | None = None,
    excluded: frozenset[int] | None = None,
) -> list[BlockLine]:
    """Each section's memories (those the branch scope sees, or every branch's), best
    standing first (pinned before the rest). `excluded`: left out, by default the
    project's exclusions and the memories in open conflicts the scope sees."""
    conn: Connection = session.connection()
    if excluded is None:
        excluded = store.excluded_ids(conn, project) | conflicted_ids(conn, project, branch)
    lines: list[BlockLine] = []
    for category, _title in SECTIONS:
        filters = RetrievalFilters(
            categories=(category,), project=project, exclude_ids=excluded, branch=branch
        )
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


def conflicted_ids(
    conn: Connection, project: str | None, branch: BranchScope | None = None
) -> frozenset[int]:
    return frozenset(
        item_id
        for _cid, _category, members in store.open_conflicts(conn, project, branch)
        for item_id, _content, _said in members
    )


def branch_parts(
    session: Session,
    project: str | None,
    now: datetime,
    weights: RankingWeights,
    *,
    branch: str | None,
    base: tuple[str, ...],
) -> tuple[list[BlockPart], frozenset[int]]:
    """What a branch's CLAUDE.md block holds (seed 001 activateBranch): the base memories
    and, after them, the branch's own (None, or a base branch: the base alone). The
    branch's own are filled first: they are why the block changed with the branch.
    Returns the parts and the memories left out as conflicted."""
    conn: Connection = session.connection()
    working = BranchScope.base(base) if branch is None else BranchScope.working_on(branch, base)
    conflicted = conflicted_ids(conn, project, working)
    excluded = store.excluded_ids(conn, project) | conflicted

    def lines(scope: BranchScope) -> tuple[BlockLine, ...]:
        return tuple(block_lines(session, project, now, weights, scope, excluded))

    parts = [BlockPart(DEFAULT_TITLE, lines(BranchScope.base(base)))]
    if branch is not None and branch not in base:
        parts.append(BlockPart(branch_title(branch), lines(BranchScope.only(branch)), -1))
    return parts, conflicted


def plan(
    session: Session,
    target: Path,
    *,
    project: str | None,
    max_chars: int,
    via: Path | None,
    now: datetime,
    weights: RankingWeights,
    branch: str | None = None,
    base: tuple[str, ...] = DEFAULT_BASE_BRANCHES,
) -> ClaudeMdExport:
    """The block for `target`: every branch's memories, or with `branch` that branch's
    and the base ones (`base`: the default branch's names)."""
    if branch is None:
        rendered = render_block(block_lines(session, project, now, weights), max_chars=max_chars)
        conflicted = conflicted_ids(session.connection(), project)
    else:
        parts, conflicted = branch_parts(session, project, now, weights, branch=branch, base=base)
        rendered = render_parts(parts, max_chars=max_chars)
    files = plan_export(target, rendered.text, via=via)
    return ClaudeMdExport(files, rendered.included, rendered.dropped, tuple(sorted(conflicted)))
