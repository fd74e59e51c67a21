"""What the recall hooks inject: plain sqlite3 over the store, ranked by the pure domain code.

The app's retrieval (memory_app/store/retrieval.py) goes through SQLAlchemy, whose import
alone costs more than the hook's whole budget; these queries repeat its filters (active,
the project's or global, valid now, not excluded from the project) with the stdlib driver.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from memory_app.domain.budget import CHARS_PER_TOKEN
from memory_app.domain.scoring import (
    RankingWeights,
    ScoringFacts,
    normalised_relevance,
    score,
)
from memory_app.store.fts_query import MEMORY_RANK, STOP_WORDS, query_terms, terms_expression
from memory_app.store.project_match import folder_in_project

OPEN = "<memory-curator>"
CLOSE = "</memory-curator>"
POOL = 30  # full-text candidates ranked per prompt
STANDING_LIMIT = 50  # pinned memories and conventions read at session start
# A match below this share of the best match's bm25 is noise of a common word.
MIN_RELEVANCE = 0.25
MAX_LINE_CHARS = 400
CONVENTIONS = "project_conventions"

_SAID = "COALESCE(m.valid_from, m.extracted_at)"


# Active, the project's or global, valid at :at, not excluded from the project's context.
_VISIBLE = (
    f"m.status = 'active' AND ({folder_in_project('m.project')} OR m.scope = 'global') "
    f"AND {_SAID} <= :at AND (m.valid_until IS NULL OR m.valid_until > :at) "
    "AND m.id NOT IN (SELECT item_id FROM context_exclusion "
    f"WHERE project = '' OR {folder_in_project('project')})"
)
# Schema version 4 added usage feedback (seed 004); an older store ranks without it.
FEEDBACK_VERSION = 4


Line = tuple[str, tuple[int, ...]]  # a context line and the memories it shows


@dataclass(frozen=True)
class Recalled:
    id: int
    content: str
    pinned: bool
    score: float


def db_time(value: datetime) -> str:
    """store/types.py's to_db_time: sortable UTC text, for comparisons in SQL."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def search_terms(prompt: str) -> list[str]:
    """The prompt's searchable words; none when it holds only stop words ("do it now")."""
    return [t for t in query_terms(prompt) if t not in STOP_WORDS]


def relevant(conn: sqlite3.Connection, prompt: str, project: str, now: datetime) -> list[Recalled]:
    """The memories matching any word of the prompt, pinned first, then by the app's
    ranking score (bm25 relative to the best match, confidence, importance, use)."""
    terms = search_terms(prompt)
    if not terms:
        return []
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    feedback = "m.cited_count, m.ignored_count" if version >= FEEDBACK_VERSION else "0, 0"
    sql = (
        f"SELECT m.id, m.content, m.pinned, m.confidence, m.importance, m.access_count, "
        f"COALESCE(m.last_accessed_at, m.last_seen_at, {_SAID}), {MEMORY_RANK} AS rank, "
        f"{feedback} "
        "FROM memory_fts JOIN memory_item AS m ON m.id = memory_fts.rowid "
        f"WHERE memory_fts MATCH :q AND {_VISIBLE} ORDER BY rank LIMIT :pool"
    )
    params = {
        "q": terms_expression(terms, match_any=True),
        "project": project,
        "at": db_time(now),
        "pool": POOL,
    }
    rows = conn.execute(sql, params).fetchall()
    if not rows:
        return []
    best = -rows[0][7]  # bm25 is negative, lower is better
    weights = RankingWeights()
    found = []
    for item_id, content, pinned, confidence, importance, uses, last_used, rank, *seen in rows:
        share = normalised_relevance(-rank, best)
        if share < MIN_RELEVANCE:
            continue
        last = datetime.fromisoformat(last_used)
        facts = ScoringFacts(share, confidence, importance, uses, last, *seen)
        total = score(facts, weights, now).total
        found.append(Recalled(item_id, content, bool(pinned), total))
    found.sort(key=lambda r: (not r.pinned, -r.score, r.id))
    return found


def standing(
    conn: sqlite3.Connection, project: str, now: datetime
) -> tuple[list[Line], list[Line], list[Line]]:
    """The project's standing context as lines: unresolved conflicts (each a pair, or
    more), pinned memories, then the project's conventions not already pinned."""
    params = {"project": project, "at": db_time(now), "limit": STANDING_LIMIT}
    members: dict[int, list[tuple[int, str]]] = {}
    conflict_sql = (
        "SELECT c.id, m.id, m.content FROM conflict AS c "
        "JOIN conflict_member AS cm ON cm.conflict_id = c.id "
        "JOIN memory_item AS m ON m.id = cm.item_id "
        "WHERE c.status IN ('unresolved', 'pending_user_review') AND m.status = 'active' "
        f"AND ({folder_in_project('m.project')} OR m.scope = 'global') "
        "ORDER BY c.created_at, c.id, cm.position, m.id"
    )
    for conflict_id, item_id, content in conn.execute(conflict_sql, params):
        members.setdefault(conflict_id, []).append((item_id, content))
    conflicts = [
        (
            "- " + " vs ".join(f'#{item_id} "{_clip(content, 160)}"' for item_id, content in pair),
            tuple(item_id for item_id, _ in pair),
        )
        for pair in members.values()
        if len(pair) > 1
    ]
    order = "ORDER BY m.confidence + m.importance DESC, m.id LIMIT :limit"
    pinned = conn.execute(
        f"SELECT m.id, m.content FROM memory_item AS m WHERE m.pinned = 1 AND {_VISIBLE} {order}",
        params,
    ).fetchall()
    conventions = conn.execute(
        "SELECT m.id, m.content FROM memory_item AS m "
        f"WHERE m.category = '{CONVENTIONS}' AND m.pinned = 0 AND {_VISIBLE} {order}",
        params,
    ).fetchall()
    return conflicts, [line(*row) for row in pinned], [line(*row) for row in conventions]


def prompt_context(memories: Sequence[Recalled], budget: int) -> Packed | None:
    """The UserPromptSubmit context: as many of the memories as the budget holds."""
    lines = [line(m.id, m.content) for m in memories]
    return packed([("Memories relevant to this prompt (from Memory Curator):", lines)], budget)


def session_context(
    conflicts: list[Line],
    pinned: list[Line],
    conventions: list[Line],
    budget: int,
    predicted: Sequence[Line] = (),
    so_far: tuple[str, Sequence[str]] | None = None,
) -> Packed | None:
    """The SessionStart context: after a compaction or a resume, the conversation so far
    first (`so_far`: a heading and its lines, already within their share of the budget:
    the model has just lost those turns), then conflicts (a person must decide them),
    pinned memories, those predicted for the branch and files, and conventions."""
    predicted_ids = {i for _, ids in predicted for i in ids}
    sections: list[tuple[str, Sequence[str | Line]]] = [so_far] if so_far else []
    sections += [
        (
            f"Unresolved memory conflicts ({len(conflicts)}): these memories contradict each "
            "other; ask the user which holds (`memory-app conflicts list`).",
            conflicts,
        ),
        ("Pinned memories:", pinned),
        ("Predicted for this branch and these files:", predicted),
        ("Project conventions:", [c for c in conventions if not predicted_ids & set(c[1])]),
    ]
    return packed(sections, budget)


@dataclass(frozen=True)
class Packed:
    """The context text and the memories it holds, in order (for the injection log)."""

    text: str
    ids: tuple[int, ...]


def pack(sections: Sequence[tuple[str, Sequence[str | Line]]], budget: int) -> str | None:
    found = packed(sections, budget)
    return None if found is None else found.text


def packed(sections: Sequence[tuple[str, Sequence[str | Line]]], budget: int) -> Packed | None:
    """The sections' lines, in order, wrapped in the tags, within `budget` tokens as
    budget.py estimates them (four characters a token); a heading only with a line
    under it. A line that does not fit ends its section, and the shorter lines of later
    sections may still fit. None when not one line fits."""
    limit = budget * CHARS_PER_TOKEN
    parts = [OPEN]
    size = len(OPEN) + 1 + len(CLOSE)  # the parts joined by newlines, the close included
    ids: list[int] = []
    for heading, lines in sections:
        first = True
        for entry in lines:
            line, line_ids = (entry, ()) if isinstance(entry, str) else entry
            extra = [heading, line] if first else [line]
            grown = size + sum(len(p) + 1 for p in extra)
            if grown > limit:
                break
            parts.extend(extra)
            size, first = grown, False
            ids.extend(i for i in line_ids if i not in ids)
    if len(parts) == 1:
        return None
    parts.append(CLOSE)
    return Packed("\n".join(parts), tuple(ids))


def line(item_id: int, content: str, why: str = "") -> Line:
    """A memory as a context line; `why`: the reason it was predicted, after its id."""
    tail = f" ({why})" if why else ""
    return f"- {_clip(content, MAX_LINE_CHARS)} [#{item_id}]{tail}", (item_id,)


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
