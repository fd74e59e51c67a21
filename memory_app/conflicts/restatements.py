"""A new memory that restates an existing one: the same rule, other words.

Exact and near-exact repeats are caught by `repository.find_duplicate` on word sets;
paraphrases ("Python formatting: always black, line length 100." after "We always use
black with line length 100 for Python formatting.") are not. Here the existing memories
that share the statement's rarer words (the contradiction candidates, of any
category: a convention restated as a decision is the same rule) are read with
the judge, which calls them a restatement only when their values agree and their
stances do not oppose; a semantic similarity vouches for wording the words miss.
"""

from __future__ import annotations

from sqlmodel import Session

from memory_app.conflicts import pair_model, semantic
from memory_app.conflicts.candidates import in_scope, related_ids
from memory_app.conflicts.judge import Verdict, judge
from memory_app.domain.statements import frame
from memory_app.store import repository as repo
from memory_app.store.dialects import Dialect
from memory_app.store.tables import MemoryItemRow

MAX_LOOKED_AT = 12


def find_restated(
    session: Session,
    dialect: Dialect,
    project: str | None,
    content: str,
) -> MemoryItemRow | None:
    """The active memory of the same scope that `content` restates, if any."""
    ids = related_ids(session, dialect, content, limit=MAX_LOOKED_AT)[:MAX_LOOKED_AT]
    rows = repo.items_by_ids(session, ids)
    for item_id in ids:
        row = rows.get(item_id)
        if row is not None and in_scope(row.project, project) and restates(row.content, content):
            return row
    return None


def restates(older: str, newer: str) -> bool:
    """Does `newer` say the same rule as `older`?"""
    return judge_with_meaning(older, newer).relation == "restatement"


def judge_with_meaning(older: str, newer: str) -> Verdict:
    """The rules judge, weighed with the pair model (conflicts/pair_model.py) where its
    weights are present: it tells a slot is the same when the wording differs ("the
    session timeout is 30 minutes" / "sessions now expire after 15 minutes") and that
    parallel rules about different things are not one slot."""
    close = semantic.similarity(older, newer)
    verdict = judge(older, newer, same_topic=close)
    if verdict.reason == "the same statement":
        return verdict
    reading = pair_model.read_pair(older, newer, close, rules_conflict=verdict.contradicts)
    if reading is None:
        return verdict
    if reading.answer == "conflict":
        if verdict.contradicts:
            return verdict
        kind = "update" if frame(newer).change_cue else "contradiction"
        return Verdict(True, pair_model.reason(older, newer), relation=kind)
    if reading.answer == "same":
        return Verdict(False, "the same rule", relation="restatement")
    return Verdict(False, "no contradiction found", relation="compatible")
