"""Updates of a rule through the Claude extractor (seed 000 §2.4 evolution): existing
memories are listed in each chunk's prompt, and an answer may say which one a new item
`updates`. The real SDK over a mocked HTTP transport, with recorded fake answers.

What is proven here: the known memories reach the request body (most relevant first,
capped), the item schema offers `updates`, an id the prompt listed becomes
`ExtractedItem.updates`, any other id is dropped without failing the answer, an answer
without `updates` still validates, and chunk merging keeps the update.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memory_app.config import Settings
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem, KnownMemory
from memory_app.extract.chunking import chunk_transcript, merge_items
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.prompts import (
    MAX_KNOWN_CHARS,
    MAX_KNOWN_ITEMS,
    extraction_prompt,
    select_known,
)
from memory_app.service import MemoryService
from tests.helpers import conversation
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, make_claude

SUFFIX_CHAT = conversation(
    (
        "From now on test files end in _test.py instead of _spec.py.",
        "Renamed the test files to the _test.py suffix.",
    ),
)
SPEC_CHAT = conversation(
    (
        "In this repository test files always end in _spec.py, please keep it that way.",
        "Understood: every new test file gets the _spec.py suffix.",
    ),
    session="s0",
)
SPEC = KnownMemory(7, "project_conventions", "Test files end in _spec.py.")
PNPM = KnownMemory(12, "coding_preferences", "Use pnpm, never npm, for installs.")
TABS = KnownMemory(15, "coding_preferences", "Indent with tabs.")


def suffix_answer(updates: int | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "content": "Test files end in _test.py.",
        "scope": "tests",
        "confidence": 0.93,
        "source_turns": [0],
    }
    if updates is not None:
        item["updates"] = updates
    return {"project_conventions": [item]}


def listed_ids(prompt: str) -> list[int]:
    """The ids of the existing memories a prompt lists, in order."""
    return [int(i) for i in re.findall(r"^\[(\d+)\] \(", prompt, re.MULTILINE)]


def test_known_memories_are_listed_and_an_update_names_one_of_them() -> None:
    api = FakeMessagesAPI(suffix_answer(updates=7))
    claude = make_claude(api)

    items = claude.extract(SUFFIX_CHAT, DEFAULT_CATEGORIES, known=[PNPM, TABS, SPEC])

    (item,) = items
    assert item.content == "Test files end in _test.py." and item.updates == 7
    assert api.calls == 1
    prompt = api.prompts()[0]
    assert "## Existing Memories" in prompt
    assert "[7] (project_conventions) Test files end in _spec.py." in prompt
    assert "[12] (coding_preferences) Use pnpm, never npm, for installs." in prompt
    assert 'return it with "updates" set to that memory\'s id' in prompt
    assert "merely repeats an existing memory" in prompt
    # The memory sharing words with the conversation comes first; ties keep their order.
    assert listed_ids(prompt) == [7, 12, 15]
    # The section sits before the answer format, and the conversation stays first.
    assert prompt.index("[0] User:") < prompt.index("## Existing Memories")
    assert prompt.index("## Existing Memories") < prompt.index("## Response Format")
    # The structured-output schema offers the optional integer field on every item.
    schema = api.requests[0]["output_config"]["format"]["schema"]
    items_schemas = [
        d for d in schema.get("$defs", {}).values() if "confidence" in d.get("properties", {})
    ]
    assert len(items_schemas) == 7  # five categories, workflows and code patterns
    for item_schema in items_schemas:
        assert item_schema["properties"]["updates"]["anyOf"] == [
            {"type": "integer"},
            {"type": "null"},
        ]
        assert "updates" not in item_schema.get("required", [])


def test_an_update_of_an_unknown_id_is_dropped_not_an_error() -> None:
    api = FakeMessagesAPI(suffix_answer(updates=999))
    (item,) = make_claude(api).extract(SUFFIX_CHAT, DEFAULT_CATEGORIES, known=[SPEC, PNPM])
    assert item.content == "Test files end in _test.py." and item.updates is None
    assert api.calls == 1  # valid as it is: not asked again


def test_an_answer_without_updates_still_validates() -> None:
    api = FakeMessagesAPI(suffix_answer())
    (item,) = make_claude(api).extract(SUFFIX_CHAT, DEFAULT_CATEGORIES, known=[SPEC])
    assert item.updates is None and item.confidence == 0.93
    assert api.calls == 1


def test_without_known_memories_the_prompt_is_unchanged_and_no_id_is_taken() -> None:
    api = FakeMessagesAPI(suffix_answer(updates=7))
    (item,) = make_claude(api).extract(SUFFIX_CHAT, DEFAULT_CATEGORIES)
    assert item.updates is None  # nothing was listed, so 7 cannot be meant
    prompt = api.prompts()[0]
    assert "Existing Memories" not in prompt and '"updates"' not in prompt
    assert prompt == extraction_prompt(
        next(iter(chunk_transcript(SUFFIX_CHAT, 10_000))).text, DEFAULT_CATEGORIES
    )


def test_the_list_is_capped_and_only_listed_ids_are_taken() -> None:
    # 100 stored memories: the one about test files is the last the service passes.
    known = [
        KnownMemory(100 + n, "implementation_notes", f"Module alpha_{n} caches lookups.")
        for n in range(99)
    ]
    known.append(SPEC)
    api = FakeMessagesAPI(
        {
            "project_conventions": [suffix_answer(updates=7)["project_conventions"][0]],
            "implementation_notes": [
                {
                    "topic": "alpha_98",
                    "approach": "Cache lookups in memory, not on disk.",
                    "lessons_learned": "",
                    "confidence": 0.9,
                    "updates": 198,  # stored, but not listed in this prompt
                }
            ],
        }
    )

    items = make_claude(api).extract(SUFFIX_CHAT, DEFAULT_CATEGORIES, known=known)

    prompt = api.prompts()[0]
    ids = listed_ids(prompt)
    assert len(ids) == MAX_KNOWN_ITEMS and ids[0] == 7 and 198 not in ids
    assert f"These are {MAX_KNOWN_ITEMS} of the 100 stored memories: those sharing" in prompt
    by_content = {i.content: i for i in items}
    assert by_content["Test files end in _test.py."].updates == 7
    assert by_content["alpha_98: Cache lookups in memory, not on disk."].updates is None


def test_select_known_respects_the_character_cap_and_cuts_long_memories() -> None:
    long = KnownMemory(1, "implementation_notes", "word " * 400)
    many = [KnownMemory(10 + n, "coding_preferences", "x" * 150) for n in range(80)]
    chosen = select_known([long, *many], "nothing in common")
    lines = extraction_prompt("[0] User: hi", DEFAULT_CATEGORIES, known=chosen)
    listed = [line for line in lines.splitlines() if re.match(r"^\[\d+\] \(", line)]
    assert sum(len(line) + 1 for line in listed) <= MAX_KNOWN_CHARS
    assert listed[0].startswith("[1] (implementation_notes) word") and listed[0].endswith("…")
    assert len(listed[0]) < 340
    assert select_known([], "anything") == []
    assert select_known([SPEC, SPEC], "test files") == [SPEC]  # an id is listed once


def test_each_chunk_lists_the_memories_and_merging_keeps_the_update() -> None:
    turns = []
    for n in range(8):
        turns.append(Turn(2 * n, "user", f"Step {n}: rename the test files of module_{n}. " * 4))
        turns.append(Turn(2 * n + 1, "assistant", f"Renamed the tests of module_{n}. " * 3))
    chat = Transcript(source_kind="text", turns=tuple(turns), session_id="long")
    settings = ClaudeSettings(chunk_chars=700, concurrency=1)
    chunks = chunk_transcript(chat, settings.chunk_chars)
    assert len(chunks) >= 3

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        # The first chunk is surer of the statement but does not tie it to memory 7.
        first = "[0] User:" in body["messages"][0]["content"]
        item = suffix_answer(None if first else 7)["project_conventions"][0]
        item["confidence"] = 0.95 if first else 0.8
        return {"project_conventions": [item]}

    api = FakeMessagesAPI(answer)
    items = make_claude(api, settings=settings).extract(
        chat, DEFAULT_CATEGORIES, known=[PNPM, SPEC]
    )

    assert api.calls == len(chunks)
    assert all(listed_ids(p) == [7, 12] for p in api.prompts())
    (item,) = items
    assert (item.confidence, item.updates) == (0.95, 7)


def test_merge_items_keeps_the_first_update_any_chunk_named() -> None:
    def item(confidence: float, updates: int | None) -> ExtractedItem:
        return ExtractedItem(
            "project_conventions", "Suffix is _test.py.", confidence, updates=updates
        )

    assert merge_items([[item(0.8, 7)], [item(0.9, None)]]) == [item(0.9, 7)]
    assert merge_items([[item(0.9, None)], [item(0.8, 7)]]) == [item(0.9, 7)]
    assert merge_items([[item(0.8, 7)], [item(0.9, 8)]]) == [item(0.9, 7)]
    assert merge_items([[item(0.8, None)], [item(0.9, None)]]) == [item(0.9, None)]


def test_the_service_lists_its_stored_memories_to_claude(settings: Settings) -> None:
    stored = {"project_conventions": [suffix_answer()["project_conventions"][0]]}
    stored["project_conventions"][0]["content"] = "Test files end in _spec.py."

    def reply(body: dict[str, Any]) -> Any:
        if body["output_config"]["format"]["schema"].get("title") != "ExtractionResponse":
            return "{}"  # an evolution: fails, the deterministic summary is written
        return suffix_answer(updates=1) if "Existing Memories" in json.dumps(body) else stored

    api = FakeMessagesAPI(reply)
    service = MemoryService.open(settings, make_claude(api))
    try:
        first = service.memorize(SPEC_CHAT)
        assert first.items_added == (1,), first.reason
        assert "Existing Memories" not in api.prompts()[0]  # nothing was stored yet

        result = service.memorize(SUFFIX_CHAT)

        assert result.status == "success", result.reason
        prompt = api.prompts()[1]
        assert "[1] (project_conventions) Test files end in _spec.py." in prompt
    finally:
        service.close()
