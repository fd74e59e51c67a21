"""LoCoMo retrieval benchmark (issue: retrieval), following shared/bench/README.md.

One store per conversation; every turn is one memory, stored as
"<speaker>: <text> [<blip_caption>]"; the query is the question; gold is the normalised
evidence ids. Recall@5 / @10 averaged over questions, with and without category 5
(adversarial), per-category recall, and per-query latency of MemoryService.retrieve.

Two runs over the same stores:
- "with context": each turn's memory carries the turns around it (previous and next in
  the same session) as its `context`, the way extracted memories carry the circumstances
  they were said in; retrieval searches context at half weight.
- "content only": the protocol's bare memories (context empty), for a like-for-like
  comparison with the reference figures.

The data (CC BY-NC 4.0) is read from shared/bench next to the repository, or from the
path in --locomo / LOCOMO_PATH; it is never copied into the product.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.stats import summarize_ms
from memory_app.config import resolve_settings
from memory_app.domain.budget import estimate_tokens
from memory_app.domain.retrieval import RetrievalQuery
from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

REFERENCE = {
    "fts5_bm25_porter_speaker": {"r5": 54.7, "r10": 63.1},
    "dragon_dense": {"r5": 56.7, "r10": 66.2},
}
TOKEN_BUDGETS = (500, 1000)
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_EVIDENCE = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


def default_path() -> Path:
    configured = os.environ.get("LOCOMO_PATH")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo10.json"


def normalise_evidence(evidence: list[str]) -> list[str]:
    """Evidence ids as "D<session>:<turn>", leading zeros dropped; the README's noise
    ("D8:6; D9:17", "D30:05", several ids in one string) handled alike."""
    found: dict[str, None] = {}
    for entry in evidence:
        for session, turn in _EVIDENCE.findall(entry):
            found.setdefault(f"D{int(session)}:{int(turn)}", None)
    return list(found)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    text: str
    session: int


def turns_of(conversation: dict[str, Any]) -> list[Turn]:
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conversation
        if (m := _SESSION.fullmatch(key)) and isinstance(conversation[key], list)
    )
    turns = []
    for number, key in sessions:
        for turn in conversation[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [{turn['blip_caption']}]"
            dia = normalise_evidence([turn["dia_id"]])
            turns.append(Turn(dia[0] if dia else turn["dia_id"], text, number))
    return turns


def _context(turns: list[Turn], n: int) -> str:
    same = [
        turns[j].text
        for j in (n - 1, n + 1)
        if 0 <= j < len(turns) and turns[j].session == turns[n].session
    ]
    return " ".join(same)


def _store(folder: Path, turns: list[Turn], with_context: bool) -> tuple[MemoryService, dict]:
    service = MemoryService.open(resolve_settings(folder, env={}), OfflineExtractor())
    now = datetime.now(UTC)
    rows = [
        MemoryItemRow(
            category="implementation_notes",
            type="fact",
            content=turn.text,
            content_key="",
            context=_context(turns, n) if with_context else None,
            confidence=1.0,
            importance=0.5,
            extracted_at=now,
            updated_at=now,
            valid_from=now,
        )
        for n, turn in enumerate(turns)
    ]
    with service.db.writing() as session:
        ids = repo.bulk_add_items(session, service.db.dialect, rows, actor="system", group_id="b")
    return service, {item_id: turn.dia_id for item_id, turn in zip(ids, turns, strict=True)}


def _evaluate(data: list[dict[str, Any]], with_context: bool) -> dict[str, Any]:
    per_question: list[tuple[int, float, float, dict[int, float]]] = []
    samples: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memory-locomo-") as root:
        for number, sample in enumerate(data):
            turns = turns_of(sample["conversation"])
            service, dia_of = _store(Path(root) / str(number), turns, with_context)
            text_of = {t.dia_id: t.text for t in turns}
            try:
                for qa in sample["qa"]:
                    gold = set(normalise_evidence(qa.get("evidence", [])))
                    if not gold:
                        continue
                    service.retrieval_cache.clear()  # time the real work, not the cache
                    query = RetrievalQuery(text=qa["question"], limit=60)
                    t0 = time.perf_counter()
                    results = service.retrieve(query)
                    samples.append(time.perf_counter() - t0)
                    ranked = [dia_of[r.record.id] for r in results]
                    budget_recall = {
                        b: _recall(gold, _packed(ranked, text_of, b)) for b in TOKEN_BUDGETS
                    }
                    per_question.append(
                        (
                            int(qa["category"]),
                            _recall(gold, ranked[:5]),
                            _recall(gold, ranked[:10]),
                            budget_recall,
                        )
                    )
            finally:
                service.close()
    return _summary(per_question, samples)


def _packed(ranked: list[str], text_of: dict[str, str], budget: int) -> list[str]:
    """Ranked turns packed greedily into a token budget (the README's budget figure)."""
    kept, used = [], 0
    for dia in ranked:
        cost = estimate_tokens(f"- {text_of[dia]}\n")
        if used + cost <= budget:
            kept.append(dia)
            used += cost
    return kept


def _recall(gold: set[str], found: list[str]) -> float:
    return len(gold & set(found)) / len(gold)


def _pct(values: list[float]) -> float:
    return round(100 * statistics.fmean(values), 1) if values else 0.0


def _summary(rows: list[tuple[int, float, float, dict[int, float]]], samples: list[float]) -> dict:
    no_adv = [r for r in rows if r[0] != 5]
    return {
        "questions": len(rows),
        "r5": _pct([r[1] for r in rows]),
        "r10": _pct([r[2] for r in rows]),
        "r5_without_cat5": _pct([r[1] for r in no_adv]),
        "r10_without_cat5": _pct([r[2] for r in no_adv]),
        "by_category": {
            CATEGORY_NAMES[c]: {
                "questions": sum(1 for r in rows if r[0] == c),
                "r5": _pct([r[1] for r in rows if r[0] == c]),
                "r10": _pct([r[2] for r in rows if r[0] == c]),
            }
            for c in sorted(CATEGORY_NAMES)
        },
        "evidence_within_budget": {str(b): _pct([r[3][b] for r in rows]) for b in TOKEN_BUDGETS},
        "latency": summarize_ms(samples),
    }


def run(path: Path | None = None) -> dict[str, Any]:
    path = path or default_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"LoCoMo data not found at {path}: set LOCOMO_PATH to locomo10.json"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    with_context = _evaluate(data, with_context=True)
    content_only = _evaluate(data, with_context=False)
    bm25 = REFERENCE["fts5_bm25_porter_speaker"]
    dragon = REFERENCE["dragon_dense"]
    return {
        "benchmark": "locomo",
        "with_context": with_context,
        "content_only": content_only,
        "reference": REFERENCE,
        "beats_bm25_reference": with_context["r5"] >= bm25["r5"]
        and with_context["r10"] >= bm25["r10"],
        "beats_dragon": with_context["r5"] > dragon["r5"] and with_context["r10"] > dragon["r10"],
        "passed": with_context["r5"] >= bm25["r5"] and with_context["r10"] >= bm25["r10"],
    }


def report(result: dict[str, Any]) -> str:
    lines = [f"locomo: {result['with_context']['questions']} questions over 10 conversations"]
    for key, label in (("with_context", "with context"), ("content_only", "content only")):
        r = result[key]
        lat = r["latency"]
        budget = ", ".join(f"{b} tokens {v}%" for b, v in r["evidence_within_budget"].items())
        lines.append(
            f"  {label:<13} R@5 {r['r5']}  R@10 {r['r10']}  "
            f"(without cat 5: {r['r5_without_cat5']} / {r['r10_without_cat5']})  "
            f"retrieve p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms"
        )
        lines.append(
            "                "
            + ", ".join(f"{n} {c['r5']}/{c['r10']}" for n, c in r["by_category"].items())
        )
        lines.append(f"                gold evidence within budget: {budget}")
    ref = result["reference"]
    lines.append(
        "  reference R@5/R@10: FTS5 bm25 "
        f"{ref['fts5_bm25_porter_speaker']['r5']}/{ref['fts5_bm25_porter_speaker']['r10']}, "
        f"DRAGON {ref['dragon_dense']['r5']}/{ref['dragon_dense']['r10']}"
    )
    verdict = "PASS" if result["passed"] else "FAIL"
    beyond = "beats DRAGON" if result["beats_dragon"] else "below DRAGON"
    lines.append(f"  at or above the bm25 reference: {verdict} ({beyond})")
    return "\n".join(lines)
