"""Property: whatever a Codex rollout, a ChatGPT export or a Puffin file holds, its importer
returns transcripts and named problems, or refuses the file with UnsupportedFormat (its
UnreadableFile), and never crashes; what it returns can be stored."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.unit.ingest.test_importers_property import SETTINGS, _check

KEYS = st.sampled_from(
    ["type", "payload", "role", "content", "text", "id", "cwd", "git", "branch", "source",
     "subagent", "summary", "name", "arguments", "input", "output", "call_id", "message",
     "action", "command", "mapping", "current_node", "parent", "children", "author",
     "parts", "content_type", "recipient", "metadata", "create_time", "title", "branches",
     "prompts", "response", "timestamp", "is_visually_hidden_from_conversation"]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(
        ["session_meta", "response_item", "event_msg", "turn_context", "compacted", "message",
         "reasoning", "function_call", "function_call_output", "custom_tool_call",
         "local_shell_call", "web_search_call", "user", "assistant", "tool", "system",
         "input_text", "output_text", "summary_text", "user_message", "agent_message",
         "text", "code", "thoughts", "all", "python", "n1", "n2", "\ud800",
         "2026-01-01T00:00:00Z", "<environment_context>x</environment_context>"]
    )
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=8)


def _write(name: str, text: str, fmt: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _check(path, fmt)


@SETTINGS
@given(st.lists(OBJECTS, max_size=8))
def test_any_codex_lines_import_or_are_refused_cleanly(records: list[dict[str, Any]]) -> None:
    _write("rollout.jsonl", "".join(json.dumps(r) + "\n" for r in records), "codex")


@SETTINGS
@given(st.lists(OBJECTS, max_size=3) | OBJECTS, st.sampled_from(["chatgpt", "puffin-history"]))
def test_any_json_document_imports_or_is_refused_cleanly(data: Any, fmt: str) -> None:
    _write("conversations.json", json.dumps(data), fmt)


@SETTINGS
@given(st.dictionaries(st.text(max_size=5), OBJECTS, max_size=4))
def test_any_mapping_of_a_conversation_imports(mapping: dict[str, Any]) -> None:
    conversation = {"title": "t", "current_node": next(iter(mapping), None), "mapping": mapping}
    _write("conversations.json", json.dumps([conversation]), "chatgpt")


@SETTINGS
@given(st.lists(st.text(max_size=40), max_size=12))
def test_any_branch_memory_lines_import(lines: list[str]) -> None:
    _write("memory.md", "# Branch Memory: b\n" + "\n".join(lines), "puffin-memory")
