"""Codex CLI rollouts: the two sample files (a real Codex 0.77 session's head and a synthetic
one with every kind of tool call), and constructed lines for what the samples lack."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import SPEAKERS, TURN_KINDS, Transcript
from memory_app.ingest import parse_source
from memory_app.ingest.codex import parse_codex
from memory_app.service import MemoryService

SYNTHETIC = "daaain_synthetic_rollout.jsonl"
REAL = "simonw_sample_codex_session.jsonl"
REAL_PROMPT = (
    "can you analyse the MD files in this directory and determine if the info we have is "
    "clear enough to start planning the migration?"
)


def _only(path: Path) -> Transcript:
    parsed = parse_codex(path)
    assert parsed.problems == ()
    (transcript,) = parsed.transcripts
    for turn in transcript.turns:
        assert turn.speaker in SPEAKERS and turn.kind in TURN_KINDS
    return transcript


def _rollout(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _line(kind: str, payload: dict[str, Any], second: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2026-02-01T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


META = {"id": "aaaa-1", "cwd": "/home/dev/shop", "git": {"branch": "feature/cart"}}


def test_the_synthetic_rollout_has_every_tool_turn(samples_dir: Path) -> None:
    transcript = _only(samples_dir / "codex" / SYNTHETIC)
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", "List the synthetic files."),
        ("assistant", "tool_use", "[reasoning] I will inspect the synthetic directory."),
        ("assistant", "tool_use", "[exec_command] find . -maxdepth 1 -type f"),
        ("tool", "tool_result", "./alpha.txt\n./beta.txt"),
        (
            "assistant",
            "tool_use",
            "[apply_patch] *** Begin Patch *** Add File: gamma.txt +synthetic *** End Patch",
        ),
        ("tool", "tool_result", "Done!"),
        ("assistant", "tool_use", "[mcp__synthetic__lookup] fixture"),
        ("tool", "tool_result", '{"status":"ok"}'),
        ("assistant", "message", "The synthetic files are alpha.txt and beta.txt."),
    ]
    # The event_msg mirrors of the prompt and the answer (lines 3 and 12) are not turns.
    assert [t.source_line for t in transcript.turns] == [4, 5, 6, 7, 8, 9, 10, 11, 13]
    assert transcript.message_count == 2
    assert transcript.source_kind == "codex"
    assert transcript.session_id == "11111111-1111-4111-8111-111111111111"
    assert transcript.project == "/workspace/synthetic-project"
    assert transcript.branch is None  # no `git` in its session_meta
    assert transcript.title == "List the synthetic files."
    assert transcript.started_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert transcript.ended_at == datetime(2026, 1, 2, 3, 4, 16, tzinfo=UTC)
    text = "\n".join(t.text for t in transcript.turns)
    assert "SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER" not in text
    assert "future_synthetic_record" not in text and "ignored" not in text


def test_the_real_session_keeps_the_prompt_and_drops_agents_md_and_the_environment(
    samples_dir: Path,
) -> None:
    transcript = _only(samples_dir / "codex" / REAL)
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", REAL_PROMPT)
    ]
    assert transcript.turns[0].source_line == 4  # lines 2 and 3 are AGENTS.md, environment
    assert transcript.session_id == "019b64e5-57fa-7463-b644-fba7e456f905"
    assert transcript.project == "/Users/macmini/Code/homelab-migration"
    assert transcript.title == (
        "can you analyse the MD files in this directory and determine if the info we…"
    )
    assert transcript.started_at == datetime(2025, 12, 28, 12, 18, 30, 533000, tzinfo=UTC)
    assert transcript.ended_at == datetime(2025, 12, 28, 12, 21, 52, 360000, tzinfo=UTC)


def test_the_git_branch_a_shell_command_an_image_and_a_compaction(tmp_path: Path) -> None:
    shell = (
        "<user_shell_command>\n<command>git status</command>\n<result>\nExit code: 0\n"
        "Duration: 0.1s\nOutput:\nclean\n</result>\n</user_shell_command>"
    )
    picture = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "Why does this page render twice?"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
        ],
    }
    path = _rollout(
        tmp_path / "rollout-2026-02-01T10-00-00-aaaa.jsonl",
        _line("session_meta", META),
        _line("response_item", _user(shell), 1),
        _line("response_item", picture, 2),
        _line("compacted", {"message": "The user fixed a double render."}, 3),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", "npm test"]}),
                "call_id": "c1",
            },
            4,
        ),
        _line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "1 passing\n", "metadata": {"exit_code": 0}}),
            },
            5,
        ),
        _line("response_item", {"type": "message", "role": "developer", "content": []}, 6),
    )
    transcript = _only(path)
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "command", "! git status"),
        ("user", "message", "Why does this page render twice?\n\n[image]"),
        ("system", "summary", "The user fixed a double render."),
        ("assistant", "tool_use", "[shell] npm test"),
        ("tool", "tool_result", "1 passing"),
    ]
    assert transcript.branch == "feature/cart"
    assert transcript.title == "Why does this page render twice? [image]"


def test_a_rollout_with_only_events_is_read_from_them(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "events.jsonl",
        _line("session_meta", META),
        _line("event_msg", {"type": "user_message", "message": "Use pnpm, never npm."}, 1),
        _line("event_msg", {"type": "agent_message", "message": "Noted: pnpm only."}, 2),
        _line("event_msg", {"type": "token_count", "info": None}, 3),
    )
    assert [(t.speaker, t.text) for t in _only(path).turns] == [
        ("user", "Use pnpm, never npm."),
        ("assistant", "Noted: pnpm only."),
    ]


def test_a_rollout_from_before_codex_0_32_has_no_envelope(tmp_path: Path) -> None:
    """Constructed in the shape early rollouts had: a header line with the session's id,
    a state line, then bare items."""
    path = tmp_path / "rollout-2025-05-01T09-00-00-bbbb.jsonl"
    _rollout(
        path,
        {"id": "bbbb-2", "timestamp": "2025-05-01T09:00:00Z", "instructions": None},
        {"record_type": "state"},
        _user("<user_instructions>\nBe terse.\n</user_instructions>"),
        _user("Rename the config loader to settings.py."),
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Renamed."}],
        },
    )
    assert parse_source(path).transcripts[0].source_kind == "codex"
    transcript = _only(path)
    assert transcript.session_id == "bbbb-2"
    assert [(t.speaker, t.text) for t in transcript.turns] == [
        ("user", "Rename the config loader to settings.py."),
        ("assistant", "Renamed."),
    ]


def test_a_sub_agents_prompts_are_the_agents_not_the_users(tmp_path: Path) -> None:
    meta = {**META, "source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent-1"}}}}
    path = _rollout(
        tmp_path / "sub.jsonl",
        _line("session_meta", meta),
        _line("response_item", _user("Review the diff for unused imports."), 1),
    )
    transcript = _only(path)
    assert transcript.is_sidechain and transcript.parent_session_id == "parent-1"
    assert [t.speaker for t in transcript.turns] == ["agent"]


def test_damaged_and_unknown_lines_are_named_and_the_rest_imports(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    lines = [
        json.dumps(_line("session_meta", META)),
        '{"timestamp": "2026-02-01T10:00:01Z", "type": "response_it',  # cut off mid-write
        json.dumps(_line("a_record_of_a_later_codex", {"x": 1}, 2)),
        json.dumps({"type": [], "payload": {}}),
        json.dumps(_line("response_item", _user("Keep the API handlers thin."), 3)),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    parsed = parse_codex(path)
    (problem,) = parsed.problems
    assert problem.line == 2 and "not valid JSON" in problem.message
    assert [t.text for t in parsed.transcripts[0].turns] == ["Keep the API handlers thin."]


def test_a_codex_session_is_stored_with_its_turns(
    service: MemoryService, samples_dir: Path
) -> None:
    report = service.import_paths([samples_dir / "codex"])
    assert report.errors == [] and report.problems == ()
    assert report.resources_added == 2
    by_title = {r.title: r for r in service.resources()}
    synthetic = by_title["List the synthetic files."]
    assert synthetic.source_kind == "codex" and synthetic.turn_count == 9
    assert synthetic.message_count == 2
    _, text = service.get_resource(synthetic.id)
    assert text.startswith("User: List the synthetic files.\n\nAssistant (tool call): [reasoning]")
    assert "Tool: ./alpha.txt\n./beta.txt" in text
