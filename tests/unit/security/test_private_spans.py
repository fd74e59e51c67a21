"""`<private>...</private>` (seed 002 gates): what a person marks private leaves no byte
in any file the app writes, whichever part of a session holds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.domain.private_spans import MARK, without_private

PRIVATE = "my salary is 123456 and my therapist is Dr Quimby"


@pytest.mark.parametrize(
    ("text", "expected", "count"),
    [
        ("Use uv. <private>x</private> Thanks", f"Use uv. {MARK} Thanks", 1),
        ("a <PRIVATE >one</Private> b <private>two</private>", f"a {MARK} b {MARK}", 2),
        ("line\n<private>\nmany\nlines\n</private>\nend", f"line\n{MARK}\nend", 1),
        ("cut <private>never closed, so the rest goes too", f"cut {MARK}", 1),
        ("no span here </private> stray", "no span here </private> stray", 0),
        ("nothing private", "nothing private", 0),
    ],
)
def test_private_spans_are_cut(text: str, expected: str, count: int) -> None:
    assert without_private(text) == (expected, count)


def test_no_byte_of_a_private_span_reaches_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(data))
    meta = {"sessionId": "private-session", "cwd": "/home/dev/app"}
    span = f"<private>{PRIVATE}</private>"
    lines = [
        {"type": "summary", "summary": f"Notes {span}", "leafUuid": "x"},
        {
            **meta,
            "type": "user",
            "message": {
                "role": "user",
                "content": f"Always use uv instead of pip in this repo. {span} Thanks.",
            },
        },
        {
            **meta,
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "text", "text": f"Understood, uv it is. {span}"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": span}},
                ],
            },
        },
        {
            **meta,
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": span}],
            },
        },
    ]
    session = tmp_path / "session.jsonl"
    session.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert main(["import", str(session), "--verbose"]) == 0
    assert main(["list", "--json"]) == 0

    files = [p for p in data.rglob("*") if p.is_file()]
    assert any(p.name == "memory.db" for p in files)
    for piece in ("123456", "Quimby", "therapist"):
        leaked = [str(p.relative_to(tmp_path)) for p in files if piece.encode() in p.read_bytes()]
        assert leaked == [], piece
