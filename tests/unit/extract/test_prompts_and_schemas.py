"""Prompt templates (seed 000 §2.1–2.3), answer schemas (§2.4), chunking and merging."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib import resources

import anthropic
import pytest
from pydantic import ValidationError

from memory_app.domain.categories import DEFAULT_CATEGORIES, Category
from memory_app.domain.records import MemoryRecord
from memory_app.domain.summary import EvolvedSummary, SummaryFact, render_evolved_summary
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.extract.chunking import (
    chunk_transcript,
    merge_items,
    render_turn,
    restrict_turns,
    split_chunk,
)
from memory_app.extract.prompts import (
    evolution_prompt,
    extraction_prompt,
    system_prompt,
    template,
)
from memory_app.extract.schemas import EvolutionResponse, extraction_model_for

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
CUSTOM = Category("ui-notes", "UI notes", "How the user wants screens to look.", "fact", 5)


def test_the_templates_ship_inside_the_package() -> None:
    folder = resources.files("memory_app.extract").joinpath("prompts")
    names = {p.name for p in folder.iterdir()}
    assert {
        "extraction.txt",
        "extraction_categories.txt",
        "evolution.txt",
        "edge_empty.txt",
        "edge_unclear.txt",
        "retry.txt",
        "known_memories.txt",
    } <= names


def test_the_extraction_prompt_is_the_seeds_with_everything_filled_in() -> None:
    prompt = extraction_prompt("[0] User: We use tabs.", (*DEFAULT_CATEGORIES, CUSTOM))
    assert "$" not in prompt  # no placeholder left behind
    assert prompt.startswith(
        "You are a memory extraction specialist. Analyze the following development "
        "conversation and extract key decisions, preferences, and insights."
    )
    assert "[0] User: We use tabs." in prompt
    for heading in ("Coding Preferences", "Architectural Decisions", "Project Conventions"):
        assert f"### {heading}" in prompt
    assert '- "User prefers async/await over Promise.then()"' in prompt
    assert "### UI notes\nHow the user wants screens to look." in prompt
    assert "1. **Confidence Scoring**: Only include items with confidence >= 0.75" in prompt
    shape = json.loads(prompt.split("```json\n")[1].split("\n```")[0])
    # Seed 004's workflows and code patterns come after the categories (schemas.py).
    assert list(shape) == [c.key for c in (*DEFAULT_CATEGORIES, CUSTOM)] + [
        "workflows",
        "code_patterns",
    ]
    assert set(shape["bug_patterns"][0]) == {"pattern", "fix", "occurrences", "confidence"}
    assert set(shape["ui-notes"][0]) == {"content", "confidence", "context"}
    assert "part 2 of 3" in extraction_prompt("x", DEFAULT_CATEGORIES, part=2, parts=3)
    assert "part 1 of 1" not in extraction_prompt("x", DEFAULT_CATEGORIES)


def test_the_edge_case_prompts_are_the_system_prompt() -> None:
    text = system_prompt()
    assert template("edge_empty.txt").strip() in text
    assert template("edge_unclear.txt").strip() in text
    assert '{"no_content_to_extract": true}' in text


def record(item_id: int, content: str) -> MemoryRecord:
    return MemoryRecord(
        id=item_id,
        category="coding_preferences",
        type="preference",
        content=content,
        confidence=0.9,
        importance=0.6,
        scope="global",
        status="active",
        pinned=False,
        tags=("python",),
        extracted_at=NOW,
        updated_at=NOW,
    )


def test_the_evolution_prompt_carries_the_summary_and_the_new_items() -> None:
    category = DEFAULT_CATEGORIES[0]
    prompt = evolution_prompt(category, "# Coding preferences\n\n…", [record(7, "Use uv.")], 50)
    assert "$" not in prompt
    assert prompt.startswith("You are a knowledge synthesis specialist.")
    assert "## Existing Category Summary\n\n# Coding preferences" in prompt
    items = json.loads(prompt.split("```json\n")[1].split("\n```")[0])
    assert items == [
        {
            "id": 7,
            "content": "Use uv.",
            "confidence": 0.9,
            "type": "preference",
            "seen": 1,
            "extracted_at": "2026-06-01",
            "tags": ["python"],
        }
    ]
    assert "- Do NOT delete any facts, even outdated ones" in prompt
    assert "Keep at most 50 key facts" in prompt


# -- answer schemas -----------------------------------------------------------------------


def test_the_schema_sent_is_built_from_the_models_and_forbids_extra_fields() -> None:
    model = extraction_model_for((*DEFAULT_CATEGORIES, CUSTOM))
    schema = anthropic.transform_schema(model)
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {
        *(c.key for c in DEFAULT_CATEGORIES),
        "ui-notes",
        "no_content_to_extract",
        "workflows",
        "code_patterns",
    }
    assert schema["$defs"]["BugPattern"]["additionalProperties"] is False
    assert extraction_model_for(DEFAULT_CATEGORIES) is extraction_model_for(DEFAULT_CATEGORIES)


def test_answers_become_items_in_each_seed_shape() -> None:
    model = extraction_model_for((*DEFAULT_CATEGORIES, CUSTOM))
    answer = model.model_validate_json(
        json.dumps(
            {
                "architectural_decisions": [
                    {
                        "content": "Sessions live in Redis, not JWT.",
                        "rationale": "they can be revoked",
                        "trade_offs": "one more service",
                        "confidence": 0.9,
                    }
                ],
                "project_conventions": [
                    {"content": "kebab-case CLI flags.", "scope": "CLI", "confidence": 0.8}
                ],
                "implementation_notes": [
                    {
                        "topic": "Validation",
                        "approach": "use pydantic models at the edges",
                        "lessons_learned": "hand-written checks drifted",
                        "confidence": 0.85,
                        "source_turns": [4, 2, 4],
                        "tags": ["Python", "python"],
                    }
                ],
                "ui-notes": [{"content": "Dark mode first.", "confidence": 0.8, "context": ""}],
            }
        )
    )
    items = {i.category: i for i in answer.items()}
    decision = items["architectural_decisions"]
    assert decision.context == "Rationale: they can be revoked; Trade-offs: one more service"
    assert items["project_conventions"].context == "Scope: CLI"
    note = items["implementation_notes"]
    assert note.content == "Validation: use pydantic models at the edges"
    assert note.context == "hand-written checks drifted"
    assert (note.turn_start, note.turn_end, note.tags) == (2, 4, ("python",))
    assert items["ui-notes"].content == "Dark mode first." and items["ui-notes"].context is None


@pytest.mark.parametrize(
    "answer",
    [
        {"coding_preferences": [{"content": "x", "confidence": -0.1, "context": ""}]},
        {"coding_preferences": [{"content": "x", "confidence": 0.9}]},  # context missing
        {"bug_patterns": [{"pattern": "p", "fix": "f", "occurrences": 0, "confidence": 0.9}]},
        {"coding_preferences": [{"content": "x", "confidence": 0.9, "context": "", "why": 1}]},
        {"unknown_category": []},
        {
            "no_content_to_extract": True,
            "coding_preferences": [{"content": "x", "confidence": 0.9, "context": ""}],
        },
    ],
    ids=["confidence", "missing field", "occurrences", "extra item field", "extra key", "mixed"],
)
def test_answers_breaking_the_seed_rules_are_rejected(answer: dict[str, object]) -> None:
    model = extraction_model_for(DEFAULT_CATEGORIES)
    with pytest.raises(ValidationError):
        model.model_validate_json(json.dumps(answer))


def evolution(**changes: object) -> EvolutionResponse:
    data: dict[str, object] = {
        "summary": "Narrative.",
        "key_facts": [
            {"title": "T", "statement": "S.", "confidence": 0.9, "source_item_ids": [1, 2]}
        ],
        "contradictions": [""],
        "usage_notes": "",
        "changes": [{"action": "kept", "statement": "S.", "item_id": 2, "reason": "valid"}],
    }
    data.update(changes)
    return EvolutionResponse.model_validate_json(json.dumps(data))


def test_an_evolution_cites_only_items_that_exist() -> None:
    summary = evolution().to_summary({1})
    assert summary.facts[0].source_item_ids == (1,)  # 2 is unknown: dropped
    assert summary.changes[0].item_id is None
    assert summary.contradictions == ()
    with pytest.raises(ValueError, match="cites no existing item"):
        evolution().to_summary({5})
    with pytest.raises(ValueError, match="no key facts"):
        evolution(key_facts=[]).to_summary({1})
    with pytest.raises(ValidationError):
        evolution(changes=[{"action": "merged", "statement": "S", "item_id": 1, "reason": "r"}])


def test_an_evolved_summary_renders_in_the_seed_template() -> None:
    evolved = EvolvedSummary(
        narrative="Two facts.",
        facts=(SummaryFact("Tabs", "Use tabs.", 0.9, (3, 4)),),
        contradictions=("Spaces (item #2) vs tabs (item #3).",),
        usage_notes="",
    )
    text = render_evolved_summary(
        DEFAULT_CATEGORIES[2], evolved, NOW, item_count=4, confidence_range=(0.8, 0.9)
    )
    for line in (
        "# Project conventions",
        "**Item Count:** 4  ",
        "**Confidence Range:** 0.80-0.90  ",
        "## Summary\n\nTwo facts.",
        "### Fact 1: Tabs",
        "**Statement:** Use tabs.",
        "**Evidence:** 2 items  ",
        "**Source:** item #3, item #4",
        "- Spaces (item #2) vs tabs (item #3).",
        "## Usage Notes\n\n" + DEFAULT_CATEGORIES[2].description,
    ):
        assert line in text


# -- chunking -----------------------------------------------------------------------------


def test_turns_are_rendered_with_their_numbers_and_injected_text_left_out() -> None:
    assert render_turn(Turn(3, "user", "Use tabs.")) == "[3] User: Use tabs."
    reminder = "Use tabs.<system-reminder>memory we injected</system-reminder>"
    assert render_turn(Turn(3, "user", reminder)) == "[3] User: Use tabs."
    compaction = "This session is being continued from a previous conversation..."
    assert render_turn(Turn(4, "user", compaction)) is None
    tool = render_turn(Turn(5, "tool", "x" * 1000, kind="tool_result"))
    assert tool is not None and tool.startswith("[5] Tool result: xxx") and len(tool) < 450
    assert render_turn(Turn(6, "assistant", "   ")) is None


def test_chunks_hold_whole_turns_and_split_in_halves() -> None:
    turns = tuple(Turn(i, "user", f"turn {i} " + "z" * 90) for i in range(10))
    chunks = chunk_transcript(Transcript(source_kind="text", turns=turns), max_chars=350)
    assert [c.positions for c in chunks] == [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9,)]
    assert all(len(c.text) <= 350 for c in chunks)
    assert chunks[0].text.startswith("[0] User: turn 0")
    halves = split_chunk(chunks[0])
    assert [h.positions for h in halves] == [(0,), (1, 2)]
    assert split_chunk(chunks[3]) == [chunks[3]]
    # A turn longer than a chunk still gets a chunk of its own.
    big = Transcript(source_kind="text", turns=(Turn(0, "user", "w" * 500),))
    assert [c.positions for c in chunk_transcript(big, 100)] == [(0,)]


def test_merging_keeps_each_statement_once_with_its_highest_confidence() -> None:
    a = ExtractedItem("project_conventions", "Run ruff before commits.", 0.8, turn_start=1)
    b = ExtractedItem("project_conventions", "run ruff before  commits", 0.95, turn_start=9)
    c = ExtractedItem("coding_preferences", "Prefer pathlib.", 0.9)
    merged = merge_items([[a, c], [b]])
    assert merged == [b, c]


def test_cited_turns_outside_the_chunk_are_dropped() -> None:
    item = ExtractedItem("bug_patterns", "x", 0.9, turn_start=2, turn_end=40)
    assert restrict_turns(item, (1, 2, 3)).turn_end == 3
    outside = restrict_turns(ExtractedItem("bug_patterns", "x", 0.9, turn_start=50), (1, 2))
    assert outside.turn_start is None and outside.turn_end is None
