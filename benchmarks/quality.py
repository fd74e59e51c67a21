"""Memory quality on hand-labelled conversations nobody tuned for (issue 14).

Two sets in benchmarks/quality_sets/ (format: FORMAT.md there): a development set the
engine may be tuned on and a frozen test set it never is. Both go through the real
pipeline, a fresh SQLite store each time, the offline extractor, write-time
deduplication and contradiction detection, then the nightly job:

- dialogues: every session imported in order as its own conversation. Extraction
  recall (labelled memories found), precision (memories that match a labelled memory or
  an optional one), and updates handled end to end (the older memory superseded or in
  an open conflict, the newest active);
- pairs: the two statements stored as extracted memories a month apart. Updates and
  contradictions handled, false conflicts among compatible and paraphrase pairs,
  paraphrase merge recall, false merges among pairs that differ in a value, and seed
  004's false forgetting (a memory that should stay active superseded or merged away).

python -m benchmarks quality            # both sets; the test set's figures are the ones to quote
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import select

from memory_app.config import resolve_settings
from memory_app.domain.categories import Category
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem, Extractor, KnownMemory
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store.tables import ConflictMemberRow, MemoryItemRow

SETS_DIR = Path(__file__).resolve().parent / "quality_sets"
SETS = ("dev", "test")
# Targets of the issue, on the test set.
TARGETS = {
    "extraction_recall": (">=", 0.85),
    "extraction_precision": (">=", 0.85),
    "updates_handled": (">=", 0.9),
    "false_conflict_rate": ("<=", 0.05),
    "paraphrase_recall": (">=", 0.8),
    "false_merges": ("<=", 0),
}
_GAP = timedelta(days=30)


@dataclass
class QualitySet:
    name: str
    dialogues: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def load_set(name: str, folder: Path = SETS_DIR) -> QualitySet:
    """Every `{name}_*.json` file of the folder, merged."""
    found = QualitySet(name)
    for path in sorted(folder.glob(f"{name}_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found.dialogues += data.get("dialogues", [])
        found.pairs += data.get("pairs", [])
        found.files.append(path.name)
    return found


def matches(content: str, must: Sequence[str]) -> bool:
    """A memory states a labelled one when it contains every one of its terms."""
    low = content.lower()
    return all(term.lower() in low for term in must)


@contextmanager
def _store(extractor: Extractor) -> Iterator[MemoryService]:
    with tempfile.TemporaryDirectory(prefix="memory-quality-") as folder:
        service = MemoryService.open(resolve_settings(Path(folder), env={}), extractor)
        try:
            yield service
        finally:
            service.close()


def _all_items(service: MemoryService) -> list[MemoryItemRow]:
    with service.db.reading() as session:
        return repo.list_items(session, statuses=(), limit=100_000)


def _open_partners(service: MemoryService, item_id: int) -> set[int]:
    with service.db.reading() as session:
        return conflict_store.open_partners(session, item_id)


def _date(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def session_transcript(dialogue: dict[str, Any], index: int) -> Transcript:
    session = dialogue["sessions"][index]
    start = _date(session["date"])
    turns = tuple(
        Turn(
            position=n,
            speaker=t["speaker"],
            text=t["text"],
            timestamp=start + timedelta(minutes=n),
        )
        for n, t in enumerate(session["turns"])
    )
    return Transcript(
        source_kind="text",
        turns=turns,
        session_id=f"{dialogue['id']}-s{index}",
        project=dialogue.get("project"),
        title=f"{dialogue['id']} session {index + 1}",
        started_at=start,
        ended_at=turns[-1].timestamp if turns else start,
    )


def _handled(service: MemoryService, old: list[MemoryItemRow], new: list[MemoryItemRow]) -> bool:
    """The newest statement is active and every older one is superseded or waits in an
    open conflict with it.

    A memory that names both values ("we moved the deploy from Cloud Run to GKE") states
    the change: it counts as the newer statement, never as the older rule left active.
    The older rule must still have been remembered on its own."""
    new_ids = {r.id for r in new}
    active_new = {r.id for r in new if r.status == "active"}
    old = [r for r in old if r.id not in new_ids]
    if not old or not active_new:
        return False
    for row in old:
        if row.status in ("superseded", "deleted", "archived"):
            continue
        if not (_open_partners(service, row.id or 0) & active_new):
            return False
    return True


def evaluate_dialogues(dialogues: Sequence[dict[str, Any]]) -> dict[str, Any]:
    labelled = found = extracted = correct = 0
    updates = handled = both_extracted = handled_of_both = 0
    misses: list[str] = []
    wrong: list[str] = []
    unhandled: list[str] = []
    for dialogue in dialogues:
        with _store(OfflineExtractor()) as service:
            for index in range(len(dialogue["sessions"])):
                service.memorize(session_transcript(dialogue, index))
            service.run_maintenance("nightly")
            rows = _all_items(service)
            memories = dialogue.get("memories", [])
            optional = dialogue.get("optional", [])
            for memory in memories:
                labelled += 1
                if any(matches(r.content, memory["must"]) for r in rows):
                    found += 1
                else:
                    misses.append(f"{dialogue['id']}/{memory['id']}: {memory['statement']}")
            for row in rows:
                extracted += 1
                if any(matches(row.content, m["must"]) for m in [*memories, *optional]):
                    correct += 1
                else:
                    wrong.append(f"{dialogue['id']}: {row.content}")
            by_id = {m["id"]: m for m in memories}
            for memory in memories:
                if not memory.get("updates"):
                    continue
                updates += 1
                old_memory = by_id[memory["updates"]]
                new = [r for r in rows if matches(r.content, memory["must"])]
                old = [r for r in rows if matches(r.content, old_memory["must"]) and r not in new]
                ok = _handled(service, old, new)
                handled += ok
                if old and new:
                    both_extracted += 1
                    handled_of_both += ok
                if not ok:
                    unhandled.append(
                        f"{dialogue['id']}/{memory['id']}: {old_memory['statement']} -> "
                        f"{memory['statement']}"
                    )
    return {
        "dialogues": len(dialogues),
        "labelled_memories": labelled,
        "extracted_memories": extracted,
        "extraction_recall": _ratio(found, labelled),
        "extraction_precision": _ratio(correct, extracted),
        "updates": updates,
        "updates_handled_end_to_end": _ratio(handled, updates),
        "updates_with_both_extracted": both_extracted,
        "updates_handled_when_both_extracted": _ratio(handled_of_both, both_extracted),
        "examples_missed": misses,
        "examples_wrong": wrong,
        "examples_unhandled_updates": unhandled,
    }


class _Verbatim:
    """Stands in for extraction in the pair check: the statement itself is the memory,
    so the figures measure deduplication and contradiction handling alone."""

    name = "offline"

    def __init__(self) -> None:
        self.next: ExtractedItem | None = None

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]:
        return [self.next] if self.next is not None else []


@dataclass(frozen=True)
class PairOutcome:
    merged: bool
    conflicted: bool  # an open conflict between the two, or one superseded by the other
    superseded_older: bool
    newer_active: bool
    forgotten: bool  # a memory that was neither merged nor lost to the other is gone


def run_pair(pair: dict[str, Any]) -> PairOutcome:
    extractor = _Verbatim()
    start = datetime(2026, 1, 5, 9, 0)
    ids: list[int | None] = []
    with _store(extractor) as service:
        for n, side in enumerate((pair["older"], pair["newer"])):
            when = (start + n * _GAP).astimezone()
            extractor.next = ExtractedItem(
                category=side.get("category", "project_conventions"),
                content=side["text"],
                confidence=0.85,
            )
            result = service.memorize(
                Transcript(
                    source_kind="text",
                    turns=(
                        Turn(0, "user", side["text"], timestamp=when),
                        # A reply, so the conversation passes the "trivial" gate.
                        Turn(
                            1, "assistant", "Understood, I will keep that in mind.", timestamp=when
                        ),
                    ),
                    project="quality",
                    session_id=f"{pair['id']}-{n}",
                    started_at=when,
                )
            )
            added = [*result.items_added, *result.items_reinforced]
            ids.append(added[0] if added else None)
        service.run_maintenance("nightly")
        rows = {r.id: r for r in _all_items(service)}
        older_id, newer_id = ids
        if older_id is None or newer_id is None:
            return PairOutcome(False, False, False, False, True)
        if older_id == newer_id:  # reinforced at write time
            return PairOutcome(True, False, False, rows[older_id].status == "active", False)
        older, newer = rows[older_id], rows[newer_id]
        in_conflict = _ever_in_conflict(service, older_id, newer_id)
        gone = {r.id for r in (older, newer) if r.status != "active"}
        merged = (
            bool(gone) and not in_conflict and all(rows[i].superseded_by is not None for i in gone)
        )
        superseded_older = older.status == "superseded" and older.superseded_by == newer_id
        conflicted = in_conflict and (
            superseded_older or newer_id in _open_partners(service, older_id)
        )
        forgotten = not merged and (
            (older.status != "active" and not superseded_older) or newer.status != "active"
        )
        return PairOutcome(
            merged, conflicted, superseded_older, newer.status == "active", forgotten
        )


def _ever_in_conflict(service: MemoryService, a: int, b: int) -> bool:
    """Were the two ever put in one conflict (open, or resolved by a person or by the
    update rule)? A merge of duplicates never opens one."""
    with service.db.reading() as session:
        ids = session.exec(
            select(ConflictMemberRow.conflict_id).where(ConflictMemberRow.item_id == a)
        ).all()
        return any(b in conflict_store.member_ids(session, cid) for cid in ids)


def evaluate_pairs(pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    hits: dict[str, int] = {}
    false_conflicts = compatible = 0
    paraphrases = merged_paraphrases = 0
    value_pairs = false_merges = 0
    forgetting = 0
    cue_updates = auto_superseded = 0
    failures: list[str] = []
    for pair in pairs:
        relation = pair["relation"]
        outcome = run_pair(pair)
        counts[relation] = counts.get(relation, 0) + 1
        ok: bool
        if relation in ("update", "contradiction"):
            ok = outcome.conflicted and outcome.newer_active
            if relation == "update" and pair.get("cue"):
                cue_updates += 1
                auto_superseded += outcome.superseded_older
        elif relation == "paraphrase":
            paraphrases += 1
            merged_paraphrases += outcome.merged
            ok = outcome.merged and not outcome.conflicted
        else:
            ok = not outcome.conflicted and (not outcome.merged or bool(pair.get("merge_ok")))
        if relation in ("paraphrase", "compatible"):
            compatible += 1
            false_conflicts += outcome.conflicted
        if pair.get("differs_in_value"):
            value_pairs += 1
            false_merges += outcome.merged
        if relation in ("paraphrase", "compatible"):
            forgetting += outcome.forgotten or (
                outcome.merged and relation == "compatible" and not pair.get("merge_ok")
            )
        else:
            forgetting += outcome.forgotten
        hits[relation] = hits.get(relation, 0) + ok
        if not ok:
            failures.append(
                f"{pair['id']} [{relation}] {pair['older']['text']} || {pair['newer']['text']}"
                f" -> merged={outcome.merged} conflicted={outcome.conflicted}"
            )
    conflicting = counts.get("update", 0) + counts.get("contradiction", 0)
    return {
        "pairs": len(pairs),
        "by_relation": counts,
        "correct_by_relation": {k: _ratio(hits.get(k, 0), v) for k, v in counts.items()},
        "updates_handled": _ratio(hits.get("update", 0), counts.get("update", 0)),
        "updates_with_cue_superseded": _ratio(auto_superseded, cue_updates),
        "contradiction_recall": _ratio(
            hits.get("update", 0) + hits.get("contradiction", 0), conflicting
        ),
        "false_conflict_rate": _ratio(false_conflicts, compatible),
        "paraphrase_recall": _ratio(merged_paraphrases, paraphrases),
        "false_merges": false_merges,
        "pairs_differing_in_value": value_pairs,
        "false_forgetting": _ratio(forgetting, len(pairs)),
        "examples_failed": failures,
    }


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def evaluate(quality_set: QualitySet) -> dict[str, Any]:
    dialogues = evaluate_dialogues(quality_set.dialogues)
    pairs = evaluate_pairs(quality_set.pairs)
    headline = {
        "extraction_recall": dialogues["extraction_recall"],
        "extraction_precision": dialogues["extraction_precision"],
        "updates_handled": pairs["updates_handled"],
        "updates_handled_end_to_end": dialogues["updates_handled_end_to_end"],
        "false_conflict_rate": pairs["false_conflict_rate"],
        "paraphrase_recall": pairs["paraphrase_recall"],
        "false_merges": pairs["false_merges"],
        "contradiction_recall": pairs["contradiction_recall"],
        "false_forgetting": pairs["false_forgetting"],
    }
    return {
        "files": quality_set.files,
        "headline": headline,
        "dialogues": dialogues,
        "pairs": pairs,
    }


def _meets(headline: dict[str, Any]) -> dict[str, bool]:
    out = {}
    for key, (op, target) in TARGETS.items():
        value = headline.get(key)
        out[key] = value is not None and (value >= target if op == ">=" else value <= target)
    return out


def run(sets: Sequence[str] = SETS) -> dict[str, Any]:
    results = {name: evaluate(load_set(name)) for name in sets}
    test = results.get("test")
    met = _meets(test["headline"]) if test else {}
    return {
        "benchmark": "quality",
        "sets": results,
        "targets": {k: f"{op} {v}" for k, (op, v) in TARGETS.items()},
        "test_meets": met,
        "passed": bool(met) and all(met.values()),
    }


def report(result: dict[str, Any]) -> str:
    lines = ["Memory quality (offline engine; tune on dev, quote test)"]
    keys = list(next(iter(result["sets"].values()))["headline"]) if result["sets"] else []
    names = list(result["sets"])
    lines.append(f"  {'':34}" + "".join(f"{n:>10}" for n in names))
    for key in keys:
        cells = []
        for name in names:
            value = result["sets"][name]["headline"][key]
            cells.append(f"{'-' if value is None else value:>10}")
        target = result["targets"].get(key, "")
        lines.append(f"  {key:34}" + "".join(cells) + f"   {target}")
    for name in names:
        d = result["sets"][name]["dialogues"]
        p = result["sets"][name]["pairs"]
        lines.append(
            f"  {name}: {d['dialogues']} dialogues, {d['labelled_memories']} labelled memories, "
            f"{d['extracted_memories']} extracted, {d['updates']} updates; {p['pairs']} pairs "
            f"{p['by_relation']}"
        )
    lines.append(f"  test set meets every target: {result['passed']}")
    return "\n".join(lines)
