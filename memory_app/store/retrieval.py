"""The SQL of retrieval: candidates with the facts ranking needs, access, exclusions.

Candidates come back as plain tuples, not ORM rows: ranking reads a few columns of a
few dozen rows per query, and building full rows measured several times slower.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, text

from memory_app.domain.branches import BranchScope
from memory_app.domain.retrieval import RetrievalFilters
from memory_app.domain.sharing import TEAM
from memory_app.store.dialects import dialect_of
from memory_app.store.project_match import folder_in_project
from memory_app.store.types import from_db_time, to_db_time

_FACTS = (
    "m.id, m.confidence, m.importance, m.access_count, "
    "COALESCE(m.last_accessed_at, m.last_seen_at, m.valid_from, m.extracted_at), "
    "m.cited_count, m.ignored_count, m.sharing"
)
_FACT_COLUMNS = 8  # the columns of _FACTS: a query's own columns come after them
_SAID = "COALESCE(m.valid_from, m.extracted_at)"


@dataclass(frozen=True)
class Candidate:
    id: int
    relevance: float  # bm25, flipped so that higher is better; 0 without a query
    confidence: float
    importance: float
    access_count: int
    last_used: datetime
    cited: int = 0
    ignored: int = 0
    team: bool = False  # a team memory (domain/sharing.py): ranked with the team weight


def _where(
    conn: Connection, filters: RetrievalFilters, at: datetime, params: dict[str, Any]
) -> str:
    """SQL conditions on `m` (memory_item) for the filters, validity at `at` included."""
    clauses = []

    def listed(column: str, values: tuple[str, ...], prefix: str) -> None:
        names = []
        for i, value in enumerate(values):
            params[f"{prefix}{i}"] = value
            names.append(f":{prefix}{i}")
        clauses.append(f"{column} IN ({', '.join(names)})")

    listed("m.status", filters.effective_statuses, "st")
    if filters.categories:
        listed("m.category", filters.categories, "cat")
    if filters.types:
        listed("m.type", filters.types, "ty")
    if filters.tags:
        names = []
        for i, tag in enumerate(filters.tags):
            params[f"tag{i}"] = tag
            names.append(f":tag{i}")
        clauses.append(dialect_of(conn).json_list_has_any("m.tags", names))
    if filters.project is not None:
        params["project"] = filters.project
        clauses.append(f"({folder_in_project('m.project')} OR m.scope = 'global')")
    if filters.branch is not None:
        clauses.append(branch_clause(filters.branch, params))
    if filters.min_importance is not None:
        params["min_importance"] = filters.min_importance
        clauses.append("m.importance >= :min_importance")
    # Times are bound as UTC text that sorts chronologically (see store/types.py); on
    # PostgreSQL it is cast to the timestamp it is compared with.
    if filters.since is not None:
        params["since"] = to_db_time(filters.since)
        clauses.append(f"{_SAID} >= :since")
    if filters.until is not None:
        params["until"] = to_db_time(filters.until)
        clauses.append(f"{_SAID} <= :until")
    params["at"] = to_db_time(at)
    clauses.append(f"{_SAID} <= :at AND (m.valid_until IS NULL OR m.valid_until > :at)")
    if filters.pinned_only:
        clauses.append("m.pinned = TRUE")
    if filters.exclude_ids:
        ids = ", ".join(str(int(i)) for i in sorted(filters.exclude_ids))
        clauses.append(f"m.id NOT IN ({ids})")
    return " AND ".join(clauses)


def branch_clause(scope: BranchScope, params: dict[str, Any], column: str = "m.branch") -> str:
    """SQL true for a memory the branch scope sees (BranchScope.sees)."""
    names = []
    for i, branch in enumerate(scope.branches):
        params[f"br{i}"] = branch
        names.append(f":br{i}")
    parts = [f"{column} IN ({', '.join(names)})"] if names else []
    if scope.branchless:
        parts.append(f"{column} IS NULL")
    return f"({' OR '.join(parts)})" if parts else "1 = 0"


def _candidates(rows: Any, relevance_at: int | None) -> list[Candidate]:
    return [
        Candidate(
            id=row[0],
            relevance=-row[relevance_at] if relevance_at is not None else 0.0,
            confidence=row[1],
            importance=row[2],
            access_count=row[3],
            last_used=from_db_time(row[4]),
            cited=row[5],
            ignored=row[6],
            team=row[7] == TEAM,
        )
        for row in rows
    ]


def matching(
    conn: Connection,
    match: str,
    filters: RetrievalFilters,
    at: datetime,
    pool: int,
) -> list[Candidate]:
    """The `pool` best full-text matches passing the filters, by the index's relevance
    (bm25 on SQLite, ts_rank_cd on PostgreSQL: dialects/).

    Ranks inside the index alone first (twice as fast as ranking through the join) with
    a generous head; only when the filters thin that head out does the exact query rank
    every match.
    """
    hits = dialect_of(conn).memory_hits(match)
    params: dict[str, Any] = {**hits.params, "pool": pool, "head": min(max(4 * pool, 200), 2000)}
    where = _where(conn, filters, at, params)
    fast = (
        f"WITH f AS MATERIALIZED (SELECT {hits.id} AS hit, {hits.rank} AS rank "
        f"FROM {hits.table} WHERE {hits.condition} ORDER BY rank LIMIT :head) "
        f"SELECT {_FACTS}, f.rank, (SELECT count(*) FROM f) FROM f "
        f"JOIN memory_item AS m ON m.id = f.hit WHERE {where} "
        "ORDER BY f.rank LIMIT :pool"
    )
    selective = any(
        (
            filters.categories,
            filters.types,
            filters.tags,
            filters.project is not None,
            filters.min_importance is not None,
            filters.since,
            filters.until,
        )
    )
    # Selective filters would thin the head out: rank only the rows that pass them.
    rows = [] if selective else conn.execute(text(fast), params).all()
    head_was_full = not rows or rows[0][_FACT_COLUMNS + 1] == params["head"]
    if len(rows) < pool and head_was_full:
        exact = (
            f"SELECT {_FACTS}, {hits.rank} AS rank FROM {hits.table} "
            f"JOIN memory_item AS m ON m.id = {hits.id} "
            f"WHERE {hits.condition} AND {where} ORDER BY rank LIMIT :pool"
        )
        rows = conn.execute(text(exact), params).all()
    return _candidates(rows, relevance_at=_FACT_COLUMNS)


def standing(
    conn: Connection, filters: RetrievalFilters, at: datetime, pool: int
) -> list[Candidate]:
    """Without a task text: the `pool` memories that stand highest on what is known of
    them (pinned, then confidence and importance, then recent use)."""
    params: dict[str, Any] = {"pool": pool}
    where = _where(conn, filters, at, params)
    sql = (
        f"SELECT {_FACTS} FROM memory_item AS m WHERE {where} "
        "ORDER BY m.pinned DESC, m.confidence + m.importance DESC, 5 DESC LIMIT :pool"
    )
    return _candidates(conn.execute(text(sql), params).all(), relevance_at=None)


def generation(conn: Connection) -> int:
    """A number that changes whenever memories, conflicts or exclusions change, in any
    process (kept by triggers)."""
    return int(conn.execute(text("SELECT value FROM store_generation WHERE id = 1")).scalar_one())


def record_access(conn: Connection, uses: Mapping[int, int], at: datetime) -> int:
    """Add `uses` to each memory's access count; returns how many memories changed."""
    if not uses:
        return 0
    stamp = to_db_time(at)
    result = conn.execute(
        text(
            "UPDATE memory_item SET access_count = access_count + :n, last_accessed_at = :at "
            "WHERE id = :id"
        ),
        [{"id": item_id, "n": n, "at": stamp} for item_id, n in uses.items()],
    )
    return int(result.rowcount or 0)


def excluded_ids(conn: Connection, project: str | None) -> frozenset[int]:
    """Memories excluded from this project's context, and from every context."""
    rows = conn.execute(
        text("SELECT item_id FROM context_exclusion WHERE project IN ('', :project)"),
        {"project": project or ""},
    )
    return frozenset(row[0] for row in rows)


def set_excluded(
    conn: Connection, item_id: int, project: str | None, excluded: bool, at: datetime
) -> None:
    params = {"item": item_id, "project": project or ""}
    if excluded:
        conn.execute(
            text(
                "INSERT INTO context_exclusion (item_id, project, created_at) "
                "VALUES (:item, :project, :at) ON CONFLICT DO NOTHING"
            ),
            {**params, "at": to_db_time(at)},
        )
    else:
        conn.execute(
            text("DELETE FROM context_exclusion WHERE item_id = :item AND project = :project"),
            params,
        )


def projects(conn: Connection) -> list[tuple[str, int]]:
    """Projects with active memories, most memories first."""
    rows = conn.execute(
        text(
            "SELECT project, count(*) FROM memory_item WHERE status = 'active' "
            "AND project IS NOT NULL GROUP BY project ORDER BY count(*) DESC, project"
        )
    )
    return [(row[0], row[1]) for row in rows]


def branches(
    conn: Connection, project: str | None = None, statuses: Sequence[str] | None = ("active",)
) -> list[tuple[str, int]]:
    """Git branches with memories of these statuses (None: any but deleted) of the
    project's folder (or any project's, global ones included), with how many, by name."""
    params: dict[str, Any] = {}
    scope = ""
    if project is not None:
        params["project"] = project
        scope += f"AND ({folder_in_project('project')} OR scope = 'global') "
    if statuses is None:
        scope += "AND status <> 'deleted' "
    else:
        names = []
        for i, status in enumerate(statuses):
            params[f"st{i}"] = status
            names.append(f":st{i}")
        scope += f"AND status IN ({', '.join(names) or 'NULL'}) "
    rows = conn.execute(
        text(
            "SELECT branch, count(*) FROM memory_item WHERE branch IS NOT NULL "
            f"{scope}GROUP BY branch ORDER BY branch"
        ),
        params,
    )
    return [(row[0], row[1]) for row in rows]


def category_counts(conn: Connection, filters: RetrievalFilters, at: datetime) -> dict[str, int]:
    params: dict[str, Any] = {}
    where = _where(conn, filters, at, params)
    rows = conn.execute(
        text(f"SELECT m.category, count(*) FROM memory_item AS m WHERE {where} GROUP BY 1"),
        params,
    )
    return {row[0]: row[1] for row in rows}


def open_conflicts(
    conn: Connection, project: str | None, branch: BranchScope | None = None
) -> list[tuple[int, str, list[tuple[int, str, datetime]]]]:
    """Unresolved conflicts among active memories of the project (or any project) that
    the branch scope sees (or any branch's): (conflict id, category, [(item id, content,
    when said)] oldest first). A memory of another branch is no side of a conflict here:
    that a feature branch changed a decision is what branches are for."""
    params: dict[str, Any] = {}
    scope = ""
    if project is not None:
        params["project"] = project
        scope = "AND (m.project = :project OR m.scope = 'global')"
    if branch is not None:
        scope += f" AND {branch_clause(branch, params)}"
    sql = (
        f"SELECT c.id, c.category, m.id, m.content, {_SAID} FROM conflict AS c "
        "JOIN conflict_member AS cm ON cm.conflict_id = c.id "
        "JOIN memory_item AS m ON m.id = cm.item_id "
        f"WHERE c.status IN ('unresolved', 'pending_user_review') AND m.status = 'active' {scope} "
        f"ORDER BY c.created_at, c.id, {_SAID}, m.id"
    )
    found: dict[int, tuple[str, list[tuple[int, str, datetime]]]] = {}
    for row in conn.execute(text(sql), params):
        found.setdefault(row[0], (row[1], []))[1].append((row[2], row[3], from_db_time(row[4])))
    return [(cid, cat, members) for cid, (cat, members) in found.items() if len(members) > 1]
