"""Property: whatever bytes a session or text file holds, an importer returns a result
(transcripts and named problems) and never raises, and what it returns can be stored:
every string encodes as UTF-8."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_app.domain.redaction import redact_transcript
from memory_app.domain.rendering import render_transcript
from memory_app.ingest import UnsupportedFormat, parse_source

# JSON values of every shape, with keys an importer looks for so real paths are taken.
KEYS = st.sampled_from(
    ["type", "message", "content", "role", "text", "sessionId", "cwd", "gitBranch",
     "timestamp", "summary", "isMeta", "isSidechain", "name", "input", "id", "subtype",
     "tool_use_id", "model", "isApiErrorMessage", "isCompactSummary", "agentId"]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.sampled_from(["user", "assistant", "system", "summary", "tool_use", "tool_result",
                       "text", "image", "local_command", "\ud800", "2026-01-01T00:00:00Z"])
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(), inner, max_size=5)
    ),
    max_leaves=25,
)
RECORDS = st.dictionaries(KEYS, VALUES, max_size=8)


def _encodable(value: Any) -> None:
    if isinstance(value, str):
        value.encode("utf-8")  # raises on a lone surrogate
    elif isinstance(value, tuple | list):
        for item in value:
            _encodable(item)


def _check(path: Path, fmt: str | None = None) -> None:
    try:
        parsed = parse_source(path, fmt)
    except UnsupportedFormat as exc:
        assert str(exc)  # refused with a reason, never a crash
        return
    for problem in parsed.problems:
        str(problem).encode("utf-8")
    for transcript in parsed.transcripts:
        clean, _ = redact_transcript(transcript)
        text, _ = render_transcript(clean)
        text.encode("utf-8")
        _encodable([clean.title, clean.project, clean.branch, clean.session_id])
        _encodable([clean.source_path])


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(RECORDS, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_any_json_lines_import_or_are_refused_cleanly(records: list[dict], newline: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        lines = [json.dumps(record) for record in records]
        path.write_text(newline.join(lines) + newline, encoding="utf-8", errors="surrogatepass")
        _check(path)


@SETTINGS
@given(st.binary(max_size=2000), st.sampled_from(["session.jsonl", "notes.md", "chat.txt"]))
def test_any_bytes_import_or_are_refused_cleanly(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        _check(path)
