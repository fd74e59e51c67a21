"""ChatGPT exports: the sample `conversations.json` (one conversation with a branch: msg-3
has two children and `current_node` picks msg-6), and constructed conversations for what
it lacks (hidden messages, tools, several conversations, damage)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_app.ingest import UnreadableFile, parse_source
from memory_app.ingest.chatgpt import parse_chatgpt
from memory_app.service import MemoryService

SAMPLE = "mitkury_example-conversation.json"
SHOWN = [
    ("user", "Hello! Can you help me with a programming question?"),
    (
        "assistant",
        "Of course! I'd be happy to help with your programming question. What would you like "
        "to know?",
    ),
    ("user", "How do I write a function in JavaScript?"),
]
NOT_SELECTED = "Actually, can you help me with Python instead?"


@pytest.fixture
def export(samples_dir: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(
        (samples_dir / "chatgpt" / SAMPLE).read_text(encoding="utf-8")
    )
    return data


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _node(
    ident: str, parent: str | None, role: str, parts: list[Any], **extra: Any
) -> dict[str, Any]:
    message = {
        "id": ident,
        "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
        "create_time": 1704067200 + len(ident),
        "content": extra.pop("content", {"content_type": "text", "parts": parts}),
        "metadata": extra.pop("metadata", {}),
        "recipient": extra.pop("recipient", "all"),
    }
    return {"id": ident, "parent": parent, "children": [], "message": message}


def _conversation(ident: str, nodes: list[dict[str, Any]], title: str = "T") -> dict[str, Any]:
    for node in nodes:
        if node["parent"] is not None:
            next(n for n in nodes if n["id"] == node["parent"])["children"].append(node["id"])
    return {
        "id": ident,
        "title": title,
        "create_time": 1704067200,
        "update_time": 1704067300,
        "current_node": nodes[-1]["id"],
        "mapping": {n["id"]: n for n in nodes},
    }


def test_the_sample_follows_the_branch_current_node_selects(samples_dir: Path) -> None:
    parsed = parse_source(samples_dir / "chatgpt" / SAMPLE)
    assert parsed.problems == ()
    (transcript,) = parsed.transcripts
    turns = [(t.speaker, t.text) for t in transcript.turns]
    assert turns[:3] == SHOWN
    assert turns[3][0] == "assistant"
    assert turns[3][1].startswith("Here's how to write a function in JavaScript:\n\n```javascript")
    assert len(turns) == 4  # the empty system message msg-1 is dropped
    assert all(NOT_SELECTED not in t.text for t in transcript.turns)  # msg-5: not selected
    assert {t.kind for t in transcript.turns} == {"message"}
    assert transcript.source_kind == "chatgpt"
    assert transcript.session_id == "conv-123"
    assert transcript.title == "Sample conversation with branch"
    assert transcript.started_at == datetime(2024, 1, 1, tzinfo=UTC)
    assert transcript.ended_at == datetime(2024, 1, 1, 0, 5, tzinfo=UTC)
    assert transcript.turns[0].timestamp == datetime(2024, 1, 1, 0, 1, 40, tzinfo=UTC)


def test_the_other_branch_when_current_node_selects_it(
    tmp_path: Path, export: list[dict[str, Any]]
) -> None:
    export[0]["current_node"] = "msg-5"
    (transcript,) = parse_chatgpt(_write(tmp_path / "c.json", export)).transcripts
    assert [(t.speaker, t.text) for t in transcript.turns] == [*SHOWN[:2], ("user", NOT_SELECTED)]


def test_without_current_node_the_newest_leaf_is_shown(
    tmp_path: Path, export: list[dict[str, Any]]
) -> None:
    del export[0]["current_node"]
    (transcript,) = parse_chatgpt(_write(tmp_path / "c.json", export)).transcripts
    assert len(transcript.turns) == 4 and NOT_SELECTED not in transcript.turns[2].text


def test_one_conversation_object_and_several_in_a_list(
    tmp_path: Path, export: list[dict[str, Any]]
) -> None:
    (one,) = parse_source(_write(tmp_path / "one.json", export[0])).transcripts
    assert len(one.turns) == 4
    second = copy.deepcopy(export[0])
    second.update(id="conv-456", title="Another")
    both = parse_source(_write(tmp_path / "both.json", [export[0], second])).transcripts
    assert [(t.session_id, t.title, len(t.turns)) for t in both] == [
        ("conv-123", "Sample conversation with branch", 4),
        ("conv-456", "Another", 4),
    ]


def test_hidden_context_reasoning_and_tools(tmp_path: Path) -> None:
    hidden = {"is_visually_hidden_from_conversation": True}
    nodes = [
        _node("root", None, "system", [""]),
        _node("ctx", "root", "user", [], content={"content_type": "user_editable_context"}),
        _node("sys", "ctx", "system", ["You are ChatGPT."], metadata=hidden),
        _node(
            "ask",
            "sys",
            "user",
            [
                "Plot the sales, we always use matplotlib here.",
                {"content_type": "image_asset_pointer"},
            ],
        ),
        _node(
            "think", "ask", "assistant", [], content={"content_type": "thoughts", "thoughts": []}
        ),
        _node(
            "code",
            "think",
            "assistant",
            [],
            content={"content_type": "code", "text": "import matplotlib"},
            recipient="python",
        ),
        _node(
            "out",
            "code",
            "tool",
            [],
            content={"content_type": "execution_output", "text": "<Figure>"},
            name="python",
        ),
        _node("empty", "out", "assistant", [""]),
        _node("answer", "empty", "assistant", ["Here is the plot."]),
    ]
    path = _write(tmp_path / "conversations.json", [_conversation("c1", nodes, title="")])
    (transcript,) = parse_chatgpt(path).transcripts
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", "Plot the sales, we always use matplotlib here.\n\n[image]"),
        ("assistant", "tool_use", "[python] import matplotlib"),
        ("tool", "tool_result", "<Figure>"),
        ("assistant", "message", "Here is the plot."),
    ]
    assert transcript.title == "Plot the sales, we always use matplotlib here. [image]"


def test_a_cycle_in_the_parent_links_ends(tmp_path: Path) -> None:
    nodes = [_node("a", "b", "user", ["ping"]), _node("b", "a", "assistant", ["pong"])]
    conversation = {"id": "loop", "title": "x", "current_node": "b", "mapping": {}}
    conversation["mapping"] = {n["id"]: n for n in nodes}
    (transcript,) = parse_chatgpt(_write(tmp_path / "c.json", [conversation])).transcripts
    assert [t.text for t in transcript.turns] == ["ping", "pong"]


def test_a_cut_off_export_is_an_error_naming_the_file_and_place(
    tmp_path: Path, samples_dir: Path
) -> None:
    text = (samples_dir / "chatgpt" / SAMPLE).read_text(encoding="utf-8")
    path = tmp_path / "conversations.json"
    path.write_text(text[:2000], encoding="utf-8")  # still looks like one: detected
    with pytest.raises(
        UnreadableFile, match=r"conversations\.json: not valid JSON, so not a "
    ) as e:
        parse_source(path)
    assert "line " in str(e.value) and "column" in str(e.value)


def test_other_json_given_as_chatgpt_is_refused_or_skipped_by_name(tmp_path: Path) -> None:
    settings = _write(tmp_path / "settings.json", {"theme": "dark"})
    with pytest.raises(UnreadableFile, match=r"settings\.json: not a ChatGPT export"):
        parse_source(settings, "chatgpt")
    odd = _write(tmp_path / "odd.json", [{"title": "no mapping"}, 7])
    parsed = parse_source(odd, "chatgpt")
    assert parsed.transcripts == ()
    assert [str(p) for p in parsed.problems] == [
        f"{odd}: conversation 1 has no messages; skipped",
        f"{odd}: conversation 2 has no messages; skipped",
    ]


def test_a_chatgpt_export_is_stored_one_conversation_each(
    service: MemoryService, samples_dir: Path
) -> None:
    report = service.import_paths([samples_dir / "chatgpt" / SAMPLE])
    assert report.errors == [] and report.resources_added == 1
    (resource,) = service.resources()
    assert resource.source_kind == "chatgpt" and resource.turn_count == 4
    assert resource.session_id == "conv-123"
    _, text = service.get_resource(resource.id)
    assert NOT_SELECTED not in text
    assert text.startswith("User: Hello! Can you help me with a programming question?")
