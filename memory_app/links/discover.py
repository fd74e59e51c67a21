"""Links found offline, without a model (seeds 000, 003 and 004's relationships).

- related: memories of one project sharing rare words, identifiers and file names,
  weighted by how rare each is in that project (idf) and scored as a cosine of the two
  weighted word sets; at most MAX_RELATED per memory, strongest first;
- depends-on: a memory stating a requirement ("X requires Y", "before X, Y", "X depends
  on Y", "Y first") points at the memory of that project that best matches Y;
- contradicts: the members of every conflict, open or resolved (conflict inbox);
- supersedes: `superseded_by` (a merge, a resolved conflict or a change of mind);
- part-of: a memory to the episode of the conversation it was learnt from.

`rebuild_links` rewrites the discovered links (adding, updating, removing) and never
touches a person's links or the discovered links a person removed (origin "rejected"),
so running it twice changes nothing the second time.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from sqlalchemy import Connection, delete, insert, select, update

from memory_app.links.model import link_key
from memory_app.store.tables import (
    ConflictMemberRow,
    EpisodeRow,
    MemoryItemRow,
    MemoryLinkRow,
    table_of,
    utc_now,
)

LINK = table_of(MemoryLinkRow)
ITEM = table_of(MemoryItemRow)
MEMBER = table_of(ConflictMemberRow)
EPISODE = table_of(EpisodeRow)

MAX_RELATED = 5  # related links per memory
MIN_RELATED = 0.1  # weakest related strength kept (cosine of idf-weighted words)
MIN_DEPENDS = 0.3  # share of the requirement's weight the target must hold
RARE_SHARE = 0.35  # a word in more than this share of a project's memories is too common
MAX_POSTINGS = 40  # and one in more memories than this pairs too many to say anything
LIVE = ("active",)
KEPT = ("active", "archived", "superseded", "held")

_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]|[A-Za-z0-9_]")
_FILE = re.compile(r"\.[a-z0-9]{1,5}$|/")
_CAMEL = re.compile(r"[a-z][A-Z]")
_STOP = frozenset(
    """about above after again against also always because been before being below between
    both cannot could does doing down during each every from further have having here
    into itself just more most must never only other ours over same should some such than
    that their theirs them then there these they this those through under until very want
    were what when where which while will with would your yours please okay sure thing
    things like make made using used uses need needs instead keep kept""".split()
)
_DEPENDS = (
    re.compile(r"\b(?:requires?|needs?|depends on|relies on)\b(?P<need>.+)", re.I),
    re.compile(r"^\s*before\b[^,]+,(?P<need>.+)", re.I),
    re.compile(r"(?P<need>.+?)\b(?:first|beforehand)\b", re.I),
)


@dataclass(frozen=True)
class _Memory:
    id: int
    project: str
    status: str
    terms: frozenset[str]
    content: str


def terms_of(text: str) -> frozenset[str]:
    """The words worth sharing: identifiers and file names whole, other words of four
    letters or more, lower-cased, a plural's s dropped; common English left out."""
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group().strip("./-")
        if not word:
            continue
        special = "_" in word or bool(_FILE.search(word)) or bool(_CAMEL.search(word))
        lower = word.lower()
        if special:
            found.add(lower)
            continue
        for part in re.split(r"[./-]", lower):
            if len(part) < 4 or part in _STOP or part.isdigit():
                continue
            if part.endswith("s") and not part.endswith("ss") and len(part) > 4:
                part = part[:-1]
            found.add(part)
    return frozenset(found)


def _memories(conn: Connection) -> list[_Memory]:
    rows = conn.execute(
        select(ITEM.c.id, ITEM.c.project, ITEM.c.status, ITEM.c.content, ITEM.c.tags).where(
            ITEM.c.status.in_(KEPT)
        )
    ).all()
    return [
        _Memory(
            r.id,
            r.project or "",
            r.status,
            terms_of(" ".join([r.content, *(r.tags or [])])),
            r.content,
        )
        for r in rows
    ]


def _weights(memories: list[_Memory]) -> dict[str, float]:
    """Each rare-enough word's idf within the project."""
    frequency: dict[str, int] = defaultdict(int)
    for m in memories:
        for term in m.terms:
            frequency[term] += 1
    n = len(memories)
    limit = min(MAX_POSTINGS, max(2, int(n * RARE_SHARE)))
    return {t: math.log(1 + n / df) for t, df in frequency.items() if df <= limit}


def related_links(memories: list[_Memory]) -> dict[tuple[int, int, str], float]:
    """related links of one project's live memories."""
    live = [m for m in memories if m.status in LIVE]
    weights = _weights(live)
    norms = {m.id: math.sqrt(sum(weights.get(t, 0.0) ** 2 for t in m.terms)) for m in live}
    postings: dict[str, list[int]] = defaultdict(list)
    for m in live:
        for term in m.terms:
            if term in weights:
                postings[term].append(m.id)
    shared: dict[tuple[int, int], float] = defaultdict(float)
    for term, ids in postings.items():
        if len(ids) < 2:
            continue
        w = weights[term] ** 2
        for a, b in combinations(sorted(ids), 2):
            shared[(a, b)] += w
    scored = sorted(
        (
            (s / (norms[a] * norms[b]), a, b)
            for (a, b), s in shared.items()
            if norms[a] and norms[b]
        ),
        reverse=True,
    )
    count: dict[int, int] = defaultdict(int)
    out: dict[tuple[int, int, str], float] = {}
    for strength, a, b in scored:
        if strength < MIN_RELATED:
            break
        if count[a] >= MAX_RELATED or count[b] >= MAX_RELATED:
            continue
        count[a] += 1
        count[b] += 1
        out[(a, b, "related")] = round(min(strength, 1.0), 3)
    return out


def requirement(content: str) -> str | None:
    """What a memory says something needs ("requires the schema migrated" → "the schema
    migrated"), or None when it states no requirement."""
    for pattern in _DEPENDS:
        found = pattern.search(content)
        if found and found.group("need").strip():
            return found.group("need")
    return None


def depends_links(memories: list[_Memory]) -> dict[tuple[int, int, str], float]:
    """depends-on links of one project's live memories: the memory holding most of a
    stated requirement's rare words."""
    live = [m for m in memories if m.status in LIVE]
    weights = _weights(live)
    out: dict[tuple[int, int, str], float] = {}
    for m in live:
        need = requirement(m.content)
        if need is None:
            continue
        wanted = {t for t in terms_of(need) if t in weights}
        total = sum(weights[t] for t in wanted)
        if not total:
            continue
        best: tuple[float, int] | None = None
        for other in live:
            if other.id == m.id:
                continue
            share = sum(weights[t] for t in wanted & other.terms) / total
            if share >= MIN_DEPENDS and (best is None or share > best[0]):
                best = (share, other.id)
        if best is not None:
            out[(m.id, best[1], "depends-on")] = round(best[0], 3)
    return out


def _by_project(memories: Iterable[_Memory]) -> dict[str, list[_Memory]]:
    groups: dict[str, list[_Memory]] = defaultdict(list)
    for m in memories:
        groups[m.project].append(m)
    return groups


def discover(conn: Connection) -> dict[tuple[int, int, str], float]:
    """Every link discovery finds now: (source, target, kind) → strength."""
    memories = _memories(conn)
    kept = {m.id for m in memories}
    found: dict[tuple[int, int, str], float] = {}
    for a, b in _conflict_pairs(conn):
        if a in kept and b in kept:
            found[link_key(a, b, "contradicts")] = 1.0
    rows = conn.execute(
        select(ITEM.c.id, ITEM.c.superseded_by).where(
            ITEM.c.superseded_by.is_not(None), ITEM.c.status.in_(KEPT)
        )
    ).all()
    for old, new in rows:
        if new in kept and new != old:
            found[(new, old, "supersedes")] = 1.0
    rows = conn.execute(
        select(ITEM.c.id, EPISODE.c.id)
        .join(EPISODE, EPISODE.c.resource_id == ITEM.c.source_resource_id)
        .where(ITEM.c.status.in_(KEPT))
    ).all()
    for item_id, episode_id in rows:
        found[(item_id, episode_id, "part-of")] = 1.0
    # A pair already linked by a conflict or a change of mind needs no "related" too.
    pairs = {frozenset((s, t)) for s, t, k in found if k != "part-of"}
    for group in _by_project(memories).values():
        for key, strength in {**related_links(group), **depends_links(group)}.items():
            if key[2] == "depends-on" or frozenset(key[:2]) not in pairs:
                found[key] = strength
    return found


def _conflict_pairs(conn: Connection) -> set[tuple[int, int]]:
    members: dict[int, list[int]] = defaultdict(list)
    for conflict_id, item_id in conn.execute(select(MEMBER.c.conflict_id, MEMBER.c.item_id)):
        members[conflict_id].append(item_id)
    return {(a, b) for ids in members.values() for a, b in combinations(sorted(set(ids)), 2)}


@dataclass(frozen=True)
class RebuildReport:
    added: int
    updated: int
    removed: int
    total: int  # discovered links stored now
    by_kind: dict[str, int]

    def to_json(self) -> dict[str, object]:
        return {
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "discovered": self.total,
            "by_kind": self.by_kind,
        }


def rebuild_links(conn: Connection) -> RebuildReport:
    """Bring the discovered links in line with the store; a person's links and the ones
    a person removed stay as they are. Runs in the caller's transaction."""
    found = discover(conn)
    stored = {
        (r.source_id, r.target_id, r.kind): (r.id, r.origin, r.strength)
        for r in conn.execute(
            select(
                LINK.c.id,
                LINK.c.source_id,
                LINK.c.target_id,
                LINK.c.kind,
                LINK.c.origin,
                LINK.c.strength,
            )
        )
    }
    gone = [
        row_id
        for key, (row_id, origin, _) in stored.items()
        if origin == "discovered" and key not in found
    ]
    for start in range(0, len(gone), 500):
        conn.execute(delete(LINK).where(LINK.c.id.in_(gone[start : start + 500])))
    added = updated = 0
    fresh = []
    now = utc_now()
    for key, strength in found.items():
        have = stored.get(key)
        if have is None:
            source, target, kind = key
            fresh.append(
                {
                    "source_id": source,
                    "target_id": target,
                    "kind": kind,
                    "origin": "discovered",
                    "strength": strength,
                    "created_at": now,
                }
            )
        elif have[1] == "discovered" and abs(have[2] - strength) > 1e-9:
            conn.execute(update(LINK).where(LINK.c.id == have[0]).values(strength=strength))
            updated += 1
    if fresh:
        conn.execute(insert(LINK), fresh)
        added = len(fresh)
    by_kind: dict[str, int] = defaultdict(int)
    total = 0
    for key in found:
        have = stored.get(key)
        if have is None or have[1] == "discovered":
            by_kind[key[2]] += 1
            total += 1
    return RebuildReport(added, updated, len(gone), total, dict(sorted(by_kind.items())))
