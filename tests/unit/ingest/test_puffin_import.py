"""Puffin: its `history.json` (one conversation per branch, as the memory plugin's
`getBranchPrompts` reads it) and its branch memory markdown, whose items become memories as
they are, each in its section's category, learnt on the file's branch."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from memory_app.domain.categories import Category
from memory_app.domain.transcripts import Transcript
from memory_app.extract.base import ExtractedItem, KnownMemory
from memory_app.extract.offline import OfflineExtractor
from memory_app.ingest import UnreadableFile, detect_format, parse_source
from memory_app.service import MemoryService
from memory_app.store.tables import MemoryItemRow

PROMPT = "Add a retry wrapper around the payment client; we always use exponential backoff here."
RESPONSE = "Added `with_retry()` using exponential backoff (base 0.5s, max 8s) ..."
FACT = "The API gateway terminates TLS; services speak plain HTTP internally"
DECISION = "Sessions are stored in Redis, not JWT, so they can be revoked"
CONVENTION = "Use snake_case for Python modules and kebab-case for CLI flags"


class CountingExtractor(OfflineExtractor):
    """The offline rules, counting which conversations they were asked to read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def extract(
        self,
        transcript: Transcript,
        categories: Sequence[Category],
        known: Sequence[KnownMemory] = (),
    ) -> list[ExtractedItem]:
        self.read.append(transcript.source_kind)
        return super().extract(transcript, categories, known)


def _memories(service: MemoryService) -> list[MemoryItemRow]:
    with service.db.reading() as session:
        return list(session.exec(select(MemoryItemRow).order_by(MemoryItemRow.id)).all())


def _in_project(tmp_path: Path, source: Path, *inside: str) -> Path:
    target = tmp_path.joinpath("shop", ".puffin", *inside)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


# --- history.json --------------------------------------------------------------------------


def test_the_history_sample_is_one_conversation_per_branch(samples_dir: Path) -> None:
    path = samples_dir / "puffin" / "history.json"
    assert detect_format(path) == "puffin-history"
    parsed = parse_source(path)
    assert parsed.problems == ()
    (transcript,) = parsed.transcripts
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", PROMPT),
        ("assistant", "message", RESPONSE),
    ]
    assert transcript.branch == "backend"
    assert transcript.title == "Puffin: Backend"
    assert transcript.source_kind == "puffin-history"
    assert transcript.started_at == datetime(2026, 3, 20, 10, 1, tzinfo=UTC)
    assert transcript.ended_at == datetime(2026, 3, 20, 10, 5, 12, tzinfo=UTC)
    assert transcript.project is None  # not inside a project's .puffin folder


def test_branches_in_order_and_the_project_from_the_puffin_folder(tmp_path: Path) -> None:
    history: dict[str, Any] = {
        "activeBranch": "ui",
        "branches": {
            "specifications": {"id": "specifications", "name": "Specifications", "prompts": []},
            "ui": {
                "id": "ui",
                "name": "UI",
                "prompts": [
                    {
                        "id": "1",
                        "content": "Buttons use the primary colour token.",
                        "response": {"content": "Done: every button reads --color-primary."},
                    },
                    "a damaged prompt",
                    {"id": "3", "content": "And links use the accent token."},  # no answer yet
                ],
            },
        },
    }
    path = tmp_path / "shop" / ".puffin" / "history.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(history), encoding="utf-8")
    parsed = parse_source(path)
    (transcript,) = parsed.transcripts  # the branch without prompts has nothing to import
    assert [(t.speaker, t.text) for t in transcript.turns] == [
        ("user", "Buttons use the primary colour token."),
        ("assistant", "Done: every button reads --color-primary."),
        ("user", "And links use the accent token."),
    ]
    assert transcript.branch == "ui" and transcript.project == str(tmp_path / "shop")
    assert [str(p) for p in parsed.problems] == [
        f"{path}: branch 'ui', prompt 2 is not an object; skipped"
    ]


def test_a_history_without_branches_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text('{"activeBranch": "ui"}', encoding="utf-8")
    with pytest.raises(UnreadableFile, match=r"history\.json: not a Puffin history"):
        parse_source(path, "puffin-history")


def test_a_history_over_200_mb_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "shop" / ".puffin" / "history.json"
    path.parent.mkdir(parents=True)
    with path.open("wb") as stream:
        stream.truncate(250 * 1024 * 1024)  # sparse: nothing is written
    parsed = parse_source(path, "puffin-history")
    assert parsed.transcripts == ()
    assert [str(p) for p in parsed.problems] == [f"{path}: file too large (250 MB, limit 200 MB)"]


# --- branch memory markdown -----------------------------------------------------------------


def test_the_branch_memory_sample_lists_its_items(samples_dir: Path) -> None:
    path = samples_dir / "puffin" / "feature_auth.md"
    assert detect_format(path) == "puffin-memory"
    parsed = parse_source(path)
    assert parsed.problems == ()
    (transcript,) = parsed.transcripts
    assert [(t.text, t.source_line) for t in transcript.turns] == [
        (f"Facts: {FACT}", 7),
        (f"Architectural Decisions: {DECISION}", 11),
        (f"Conventions: {CONVENTION}", 15),
    ]  # Bug Patterns has "_No entries yet._"
    assert transcript.branch == "feature/auth"
    assert transcript.title == "Branch Memory: feature/auth"
    assert transcript.started_at == datetime(2026, 11, 22, 1, 55, 41, 521000, tzinfo=UTC)


def test_its_items_become_memories_in_their_categories_without_an_extractor(
    open_service: Any, tmp_path: Path, samples_dir: Path
) -> None:
    extractor = CountingExtractor()
    service: MemoryService = open_service(extractor)
    path = _in_project(
        tmp_path,
        samples_dir / "puffin" / "feature_auth.md",
        "memory",
        "branches",
        "feature_auth.md",
    )
    report = service.import_paths([path])
    assert report.errors == [] and report.items_added == 3
    assert extractor.read == []  # no extractor read them
    (resource,) = service.resources()
    assert resource.source_kind == "puffin-memory"
    assert resource.branch == "feature/auth"  # the branch helper copies it onto memories
    assert resource.project == str(tmp_path / "shop")
    memories = _memories(service)
    assert [(m.category, m.content) for m in memories] == [
        ("implementation_notes", FACT),
        ("architectural_decisions", DECISION),
        ("project_conventions", CONVENTION),
    ]
    assert [(m.turn_start, m.line_start) for m in memories] == [(0, 7), (1, 11), (2, 15)]
    assert {m.source_resource_id for m in memories} == {resource.id}
    assert {m.extractor for m in memories} == {"listed"}
    assert {m.project for m in memories} == {str(tmp_path / "shop")}
    assert memories[0].valid_from == datetime(2026, 11, 22, 1, 55, 41, 521000, tzinfo=UTC)
    assert memories[2].type == "convention" and memories[1].type == "decision"
    assert memories[0].context == "From Puffin's branch memory of feature/auth (Facts)"

    # Imported again: nothing new; extracted again (Sources' Retry): still no model or rules.
    assert service.import_paths([path]).items_added == 0
    again = service.reextract(resource.id)
    assert again.items_added == () and len(again.items_reinforced) == 3
    assert extractor.read == []


def test_a_conversation_beside_it_is_still_read_by_the_extractor(
    open_service: Any, samples_dir: Path
) -> None:
    extractor = CountingExtractor()
    service: MemoryService = open_service(extractor)
    service.import_paths([samples_dir / "puffin" / "history.json"])
    assert extractor.read == ["puffin-history"]


def test_a_short_single_item_is_a_memory_and_odd_lines_are_named(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "bug-fixes.txt"  # the wrong extension: read by its title line
    path.write_text(
        "# Branch Memory: bug-fixes\n\n"
        "## Bug Patterns\n\n"
        "- Flaky tests come from the shared\n"
        "  tmp folder\n"
        "- Use uv.\n\n"
        "## Open Questions\n\n"
        "- Is Redis needed?\n",
        encoding="utf-8",
    )
    assert detect_format(path) == "puffin-memory"
    parsed = parse_source(path)
    assert [t.text for t in parsed.transcripts[0].turns] == [
        "Bug Patterns: Flaky tests come from the shared tmp folder",
        "Bug Patterns: Use uv.",
    ]
    (problem,) = parsed.problems
    assert problem.line == 9 and "'Open Questions' is not one of Puffin's" in problem.message
    report = service.import_paths([path])
    assert report.skipped == [] and report.items_added == 2  # short, but not "trivial"
    assert [m.category for m in _memories(service)] == ["bug_patterns", "bug_patterns"]


def test_markdown_without_the_title_given_as_branch_memory_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n## Facts\n\n- one\n", encoding="utf-8")
    assert detect_format(path) == "markdown"
    with pytest.raises(UnreadableFile, match=r"notes\.md: not a Puffin branch memory file"):
        parse_source(path, "puffin-memory")
