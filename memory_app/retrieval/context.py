"""Which memories go into which tier of a task's context (seed 004 "Context Assembly").

- critical: unresolved contradictions first (seed 000 §4.4: conflicts before memories),
  then pinned memories, then decisions and bug patterns that match the task well;
- relevant: the rest of what the task retrieves, best first;
- background: the project's conventions and coding preferences, by standing;
- index: what else is stored, by category, and how to ask for more.

A memory that does not fit its tier in full comes in shorter (domain/compression.py):
summary, compressed or a one-line index naming its id, each marked as such. A memory
placed brings a strongly linked one along in what is left (links/pull.py). With a
conversation named, its chunk summaries fill what remains (chunks/context.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import Connection, text

from memory_app.chunks.context import add_conversation
from memory_app.domain.branches import BranchScope
from memory_app.domain.budget import ContextEntry, ContextPlan, allocate
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.compression import LEVELS, forms
from memory_app.domain.retrieval import RetrievalFilters, RetrievalQuery
from memory_app.domain.scoring import TEAM_WEIGHT, RankingWeights, ScoreBreakdown
from memory_app.domain.sharing import TEAM
from memory_app.links.pull import pull_in
from memory_app.retrieval.ranker import rank
from memory_app.store import retrieval as store

CRITICAL_CATEGORIES = ("architectural_decisions", "bug_patterns")
BACKGROUND_CATEGORIES = ("project_conventions", "coding_preferences")
CRITICAL_RELEVANCE = 0.5  # a decision must match the task this well to be critical
RETRIEVE_LIMIT = 60  # more than any budget up to ~4,000 tokens can hold
_NAMES = {c.key: c.name for c in DEFAULT_CATEGORIES}


@dataclass(frozen=True)
class ContextRequest:
    task: str = ""
    project: str | None = None
    budget: int = 2000
    exclude: frozenset[int] = frozenset()
    weights: RankingWeights = field(default_factory=RankingWeights)
    branch: BranchScope | None = None  # None: every branch's memories
    # A conversation (its session id or number): its summaries fill what memories leave.
    conversation: str | None = None
    team_weight: float = TEAM_WEIGHT  # the team tier's weight (domain/scoring.py)


def category_name(key: str) -> str:
    return _NAMES.get(key, key.replace("_", " ").capitalize())


def build(conn: Connection, request: ContextRequest, now: datetime) -> ContextPlan:
    excluded = store.excluded_ids(conn, request.project) | request.exclude
    filters = RetrievalFilters(project=request.project, exclude_ids=excluded, branch=request.branch)
    contents = _Contents(conn)
    critical: list[ContextEntry] = list(
        _conflict_entries(conn, request.project, excluded, request.branch)
    )
    taken: set[int] = set()

    def entries(hits: Iterable[tuple[int, ScoreBreakdown]]) -> list[ContextEntry]:
        fresh = [(i, b) for i, b in hits if i not in taken]
        taken.update(i for i, _ in fresh)
        return [contents.entry(i, b) for i, b in fresh]

    pinned = rank(conn, _query("", replace(filters, pinned_only=True), request), now)
    critical += entries(pinned)
    if request.task.strip():
        found = rank(conn, _query(request.task, filters, request), now)
        contents.load(i for i, _ in found)
        urgent = [
            (i, b)
            for i, b in found
            if contents.category(i) in CRITICAL_CATEGORIES and b.relevance >= CRITICAL_RELEVANCE
        ]
        critical += entries(urgent)
        relevant = entries(found)
    else:
        others = tuple(c.key for c in DEFAULT_CATEGORIES if c.key not in BACKGROUND_CATEGORIES)
        relevant = entries(
            rank(conn, _query("", replace(filters, categories=others), request), now)
        )
    background_filters = replace(filters, categories=BACKGROUND_CATEGORIES)
    background = entries(rank(conn, _query("", background_filters, request), now))
    index = _index_entries(conn, filters, now)
    plan = allocate(
        {"critical": critical, "relevant": relevant, "background": background, "index": index},
        request.budget,
    )
    # What the chosen memories depend on or relate to comes along, in what is left over.
    plan = pull_in(
        conn,
        plan,
        lambda item_id: contents.entry(item_id, None),
        excluded=excluded,
        project=request.project,
        branch=request.branch,
    )
    if request.conversation:  # then the conversation itself, in what is left after that
        add_conversation(conn, plan, request.conversation)
    return plan


def _query(task: str, filters: RetrievalFilters, request: ContextRequest) -> RetrievalQuery:
    return RetrievalQuery(
        text=task,
        filters=filters,
        limit=RETRIEVE_LIMIT,
        weights=request.weights,
        team_weight=request.team_weight,
    )


class _Contents:
    """Loads what an entry shows (content, category, pinned) for ranked ids, in batches."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.rows: dict[int, tuple[str, str, bool, float, str, bool]] = {}

    def load(self, ids: Iterable[int]) -> None:
        wanted = sorted({int(i) for i in ids} - self.rows.keys())
        if not wanted:
            return
        sql = (
            "SELECT id, content, category, pinned, confidence, type, sharing FROM memory_item "
            f"WHERE id IN ({', '.join(map(str, wanted))})"
        )
        for row in self.conn.execute(text(sql)):
            self.rows[row[0]] = (row[1], row[2], bool(row[3]), row[4], row[5], row[6] == TEAM)

    def category(self, item_id: int) -> str:
        self.load([item_id])
        return self.rows[item_id][1]

    def entry(self, item_id: int, breakdown: ScoreBreakdown | None) -> ContextEntry:
        self.load([item_id])
        content, category, pinned, confidence, memory_type, team = self.rows[item_id]
        return memory_entry(
            item_id, category, content, confidence, pinned, breakdown, memory_type, team=team
        )


def memory_entry(
    item_id: int,
    category: str,
    content: str,
    confidence: float,
    pinned: bool = False,
    breakdown: ScoreBreakdown | None = None,
    memory_type: str | None = None,
    *,
    team: bool = False,
) -> ContextEntry:
    """The memory in full, carrying its shorter forms (each strictly cheaper than the one
    before) for a tight budget. A workflow's steps and a pattern's snippet keep their
    lines, indented under the entry's bullet."""
    name = category_name(category).lower()
    form = forms(item_id, name, content, memory_type)
    # A team memory says so: the assistant weighs a teammate's memory as such.
    label = f"#{item_id} {name}, {'team, ' if team else ''}{confidence:.0%} confident"
    first, *more = form.full.split("\n")
    texts = {
        "full": "\n".join([f"{first} [{label}]", *(f"  {line}" if line else "" for line in more)]),
        # Shortened forms say so, and name the id, so the assistant can ask for more.
        "summary": f"{form.summary} [{label}; summary]",
        "compressed": f"{form.compressed} [#{item_id} compressed]",
        "index": f"{form.index} [index]",
    }
    full, *rest = (
        ContextEntry(
            text=texts[level],
            item_id=item_id,
            category=category,
            breakdown=breakdown,
            pinned=pinned,
            level=level,
        )
        for level in LEVELS
    )
    shorter: list[ContextEntry] = []
    for entry in rest:
        if entry.tokens < (shorter[-1] if shorter else full).tokens:
            shorter.append(entry)  # a form no shorter than a richer one is never worth it
    return replace(full, shorter=tuple(shorter))


def _conflict_entries(
    conn: Connection, project: str | None, excluded: frozenset[int], branch: BranchScope | None
) -> Iterable[ContextEntry]:
    for conflict_id, category, members in store.open_conflicts(conn, project, branch):
        if any(item_id in excluded for item_id, _, _ in members):
            continue
        sides = " vs ".join(
            f'"{" ".join(content.split())}" (#{item_id}, {said:%Y-%m-%d})'
            for item_id, content, said in members
        )
        yield ContextEntry(
            text=(
                f"UNRESOLVED CONFLICT in {category_name(category).lower()}: {sides}. "
                "Ask the user which holds before relying on either."
            ),
            conflict_id=conflict_id,
            category=category,
        )


def _index_entries(
    conn: Connection, filters: RetrievalFilters, now: datetime
) -> list[ContextEntry]:
    counts = store.category_counts(conn, filters, now)
    if not counts:
        return []
    listed = ", ".join(
        f"{category_name(c.key).lower()} {counts[c.key]}"
        for c in DEFAULT_CATEGORIES
        if counts.get(c.key)
    )
    return [
        ContextEntry(text=f"Stored memories: {listed}."),
        ContextEntry(
            text='For more: `memory-app context "<topic>"`; details: `memory-app show <id>`.'
        ),
    ]
