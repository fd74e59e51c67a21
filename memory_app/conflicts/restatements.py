"""A new memory that restates an existing one: the same rule, other words.

Exact and near-exact repeats are caught by `repository.find_duplicate` on word sets;
paraphrases ("Python formatting: always black, line length 100." after "We always use
black with line length 100 for Python formatting.") are not. Here the existing memories
that share the statement's rarer words (the contradiction candidates, so related
categories count: a convention restated as a decision is the same rule) are read with
the judge, which calls them a restatement only when their values agree and their
stances do not oppose; a semantic similarity vouches for wording the words miss.
"""

from __future__ import annotations

from sqlmodel import Session

from memory_app.conflicts import semantic
from memory_app.conflicts.candidates import related
from memory_app.conflicts.judge import Verdict, judge
from memory_app.retrieval.ranker import affordable_terms
from memory_app.store import repository as repo
from memory_app.store.dialects import Dialect
from memory_app.store.errors import EmptyQueryError
from memory_app.store.fts_query import query_terms
from memory_app.store.tables import MemoryItemRow

MAX_LOOKED_AT = 12


def find_restated(
    session: Session,
    dialect: Dialect,
    category: str,
    project: str | None,
    content: str,
) -> MemoryItemRow | None:
    """The active memory of the same scope that `content` restates, if any."""
    words = affordable_terms(query_terms(content), session.connection())
    if not words:
        return None
    hits: list[tuple[float, int]] = []
    for key in related(category):
        try:
            found = dialect.search_item_ids(
                session.connection(),
                " ".join(words),
                limit=MAX_LOOKED_AT,
                category=key,
                statuses=("active",),
                match_any=True,
            )
        except EmptyQueryError:
            return None
        hits += [(score, item_id) for item_id, score in found]
    hits.sort(key=lambda h: -h[0])
    rows = repo.items_by_ids(session, [i for _, i in hits[:MAX_LOOKED_AT]])
    for _, item_id in hits[:MAX_LOOKED_AT]:
        row = rows.get(item_id)
        if row is None or not (row.project is None or project is None or row.project == project):
            continue
        if restates(row.content, content):
            return row
    return None


def restates(older: str, newer: str) -> bool:
    """Does `newer` say the same rule as `older`? Words first; the embedding only when
    the words leave it open."""
    verdict = judge(older, newer)
    if verdict.relation == "restatement":
        return True
    if verdict.relation != "compatible":
        return False
    close = semantic.similarity(older, newer)
    if close is None:
        return False
    return judge(older, newer, same_topic=close).relation == "restatement"


def judge_with_meaning(older: str, newer: str) -> Verdict:
    """The rules judge, helped by the semantic similarity where the model is present: it
    can tell a slot is the same when the wording differs ("the session timeout is 30
    minutes" / "sessions now expire after 15 minutes")."""
    verdict = judge(older, newer)
    if verdict.relation != "compatible":
        return verdict
    close = semantic.similarity(older, newer)
    return verdict if close is None else judge(older, newer, same_topic=close)
