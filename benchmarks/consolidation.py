"""Nightly consolidation at scale (issue: maintenance).

A store of N memories (default 100,000) in which 5% are planted near-duplicates of
other memories, plus a planted set of similar-but-different memories (another version,
a negation, the other way round, another tool) that must never be merged. The whole
nightly job runs through MemoryService (duplicate search, contradiction scan, decay
refresh, the proposals saved and applied as one undoable group) and is timed end to end.

Targets: under 60 s on a 2-core machine; at least 95% of the planted duplicates merged;
no false merges (any merge that is not a planted duplicate pair counts).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.planted import planted_corpus
from memory_app.config import resolve_settings
from memory_app.domain.jobs import JobState
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

TARGET_S = 60.0
TARGET_RECALL = 0.95
CATEGORY_TYPES = {
    "coding_preferences": "preference",
    "architectural_decisions": "decision",
    "project_conventions": "convention",
    "bug_patterns": "bug_pattern",
    "implementation_notes": "fact",
}


def run(items: int = 100_000) -> dict[str, Any]:
    corpus = planted_corpus(total=items)
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder:
        service = MemoryService.open(resolve_settings(Path(folder), env={}), OfflineExtractor())
        try:
            rows = [
                MemoryItemRow(
                    category=p.category,
                    type=CATEGORY_TYPES.get(p.category, "fact"),
                    content=p.content,
                    content_key="",
                    confidence=p.confidence,
                    importance=p.importance,
                    project=p.project,
                )
                for p in corpus.items
            ]
            with service.db.writing() as session:
                ids = repo.bulk_add_items(
                    session, service.db.dialect, rows, actor="system", group_id="bench"
                )
            key_of = {item_id: p.key for item_id, p in zip(ids, corpus.items, strict=True)}
            phases: dict[str, float] = {}
            last = [time.perf_counter(), ""]

            def progress(_done: int, _total: int, message: str) -> None:
                phase = message.split(" (")[0]
                if phase != last[1]:
                    now = time.perf_counter()
                    if last[1]:
                        phases[str(last[1])] = phases.get(str(last[1]), 0.0) + now - float(last[0])
                    last[0], last[1] = now, phase

            t0 = time.perf_counter()
            record = service.run_maintenance("nightly", job=JobState(on_progress=progress))
            elapsed = time.perf_counter() - t0
            if last[1]:
                phases[str(last[1])] = time.perf_counter() - float(last[0])
            merged = service.maintenance_changes(decisions=("applied",))
        finally:
            service.close()
    found_pairs = {
        tuple(sorted((key_of[c.item_ids[0]], key_of[d]))) for c in merged for d in c.item_ids[1:]
    }
    planted = {tuple(sorted(p)) for p in corpus.duplicate_pairs}
    different = {tuple(sorted(p)) for p in corpus.different_pairs}
    # A planted duplicate merged with its original, or both merged into one survivor.
    groups = [{key_of[i] for i in c.item_ids} for c in merged]
    recalled = sum(any(set(p) <= g for g in groups) for p in planted)
    # Planted duplicates of the same original are duplicates of each other too.
    original = {dup: orig for orig, dup in corpus.duplicate_pairs}
    original.update({orig: orig for orig, _ in corpus.duplicate_pairs})
    false_pairs = [
        (a, b)
        for g in groups
        for a, b in _pairs(g)
        if a not in original or original[a] != original.get(b)
    ]
    different_merged = sum(any(set(p) <= g for g in groups) for p in different)
    recall = recalled / len(planted) if planted else 1.0
    return {
        "benchmark": "consolidation",
        "items": items,
        "planted_duplicates": len(planted),
        "planted_different": len(different),
        "status": record.status,
        "error": record.error,
        "seconds": round(elapsed, 2),
        "phases_s": {k: round(v, 2) for k, v in phases.items()},
        "result": record.result,
        "merge_groups": len(merged),
        "merged_pairs": len(found_pairs),
        "recall": round(recall, 4),
        "false_merges": len(false_pairs),
        "different_merged": different_merged,
        "target_s": TARGET_S,
        "target_recall": TARGET_RECALL,
        "passed": record.status == "success"
        and elapsed < TARGET_S
        and recall >= TARGET_RECALL
        and not false_pairs
        and different_merged == 0,
    }


def _pairs(group: set[int]) -> list[tuple[int, int]]:
    members = sorted(group)
    return [(a, b) for n, a in enumerate(members) for b in members[n + 1 :]]


def report(result: dict[str, Any]) -> str:
    if result.get("error"):
        return f"consolidation: the nightly job failed: {result['error']}"
    verdict = "PASS" if result["passed"] else "FAIL"
    phases = ", ".join(f"{k.lower()} {v} s" for k, v in result["phases_s"].items())
    return (
        f"consolidation: nightly over {result['items']:,} memories with "
        f"{result['planted_duplicates']:,} planted near-duplicates and "
        f"{result['planted_different']:,} similar-but-different: {result['seconds']} s "
        f"({phases})\n"
        f"  merged {result['merged_pairs']:,} pairs in {result['merge_groups']:,} groups; "
        f"recall {result['recall'] * 100:.1f}%; false merges {result['false_merges']}; "
        f"similar-but-different merged {result['different_merged']}\n"
        f"  targets < {result['target_s']:.0f} s, recall >= {result['target_recall'] * 100:.0f}%, "
        f"no false merges: {verdict}"
    )
