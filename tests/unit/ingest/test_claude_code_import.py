"""Claude Code sessions: real sample files, damaged copies and constructed edge cases."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_app.domain.transcripts import SPEAKERS, TURN_KINDS, Transcript, Turn
from memory_app.ingest.claude_code import parse_claude_code, render_tool_use

SHORT_SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
COMPACT_PARENT = "4d5611e5-241a-462a-8d15-5122611a9569"


@pytest.fixture
def claude_dir(samples_dir: Path) -> Path:
    return samples_dir / "claude-code"


def only_transcript(path: Path) -> Transcript:
    parsed = parse_claude_code(path)
    assert parsed.problems == ()
    assert len(parsed.transcripts) == 1
    return parsed.transcripts[0]


def texts(transcript: Transcript, speaker: str | None = None, kind: str | None = None) -> list[str]:
    return [
        t.text
        for t in transcript.turns
        if (speaker is None or t.speaker == speaker) and (kind is None or t.kind == kind)
    ]


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_jsonl(path: Path, records: list[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def user(content: object, line_ts: str = "2026-03-01T10:00:00Z", **extra: object) -> dict[str, Any]:
    return {
        "type": "user",
        "sessionId": "sess-1",
        "cwd": "/work/app",
        "gitBranch": "main",
        "timestamp": line_ts,
        "message": {"role": "user", "content": content},
        **extra,
    }


def assistant(
    content: list[dict[str, Any]], message_id: str, line_ts: str = "2026-03-01T10:00:05Z"
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "sessionId": "sess-1",
        "timestamp": line_ts,
        "message": {"id": message_id, "role": "assistant", "content": content},
    }


# --- every sample ---------------------------------------------------------------------


def test_every_sample_parses_into_one_clean_transcript(claude_dir: Path) -> None:
    files = sorted(claude_dir.glob("*.jsonl"))
    assert len(files) == 5
    for path in files:
        transcript = only_transcript(path)
        assert transcript.source_kind == "claude-code"
        assert transcript.source_path == str(path)
        assert [t.position for t in transcript.turns] == list(range(len(transcript.turns)))
        assert transcript.turns, path.name
        for turn in transcript.turns:
            assert turn.speaker in SPEAKERS
            assert turn.kind in TURN_KINDS
            assert turn.text.strip() and turn.text.rstrip() == turn.text
            assert "<system-reminder>" not in turn.text
            assert turn.timestamp is not None and turn.timestamp.tzinfo is UTC
            assert turn.source_line is not None and turn.source_line >= 1
        assert transcript.started_at is not None and transcript.ended_at is not None
        assert transcript.started_at <= transcript.ended_at


def test_thinking_is_never_stored(claude_dir: Path) -> None:
    for path in sorted(claude_dir.glob("*.jsonl")):
        thoughts = [
            block["thinking"]
            for record in raw_records(path)
            if isinstance(record.get("message"), dict)
            and isinstance(record["message"].get("content"), list)
            for block in record["message"]["content"]
            if block.get("type") == "thinking"
        ]
        stored = "\n".join(t.text for t in only_transcript(path).turns)
        for thought in thoughts:
            assert thought[:60] not in stored


# --- spotter_short.jsonl: a real Claude Code 2.1.38 session ----------------------------


def test_short_session_metadata_comes_from_the_lines(claude_dir: Path) -> None:
    transcript = only_transcript(claude_dir / "spotter_short.jsonl")
    assert transcript.session_id == SHORT_SESSION
    assert transcript.branch == "master"
    assert transcript.project == "/home/marco/projects/spotter"
    assert transcript.title == "mix phx.server doesnt seem to start"  # the first prompt
    assert transcript.parent_session_id is None
    assert not transcript.is_sidechain
    assert transcript.started_at == datetime(2026, 2, 10, 21, 11, 52, 438000, tzinfo=UTC)
    assert transcript.ended_at == datetime(2026, 2, 10, 21, 16, 12, 381000, tzinfo=UTC)


def test_short_session_turns(claude_dir: Path) -> None:
    transcript = only_transcript(claude_dir / "spotter_short.jsonl")
    first = transcript.turns[0]
    assert first == Turn(
        position=0,
        speaker="user",
        text="mix phx.server doesnt seem to start",
        kind="message",
        timestamp=datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC),
        source_line=4,
    )
    # msg_01MKH1cc... is split over lines 5-8 and 10 (a hook progress line in between):
    # one text turn (the "\n\n" block and the thinking block leave nothing) and two tools.
    assert [(t.speaker, t.kind, t.text, t.source_line) for t in transcript.turns[1:4]] == [
        (
            "assistant",
            "message",
            "Let me check the project structure and try running the server to see the error.",
            5,
        ),
        ("assistant", "tool_use", "[Bash] mix phx.server 2>&1 | head -80", 8),
        ("assistant", "tool_use", "[Glob] mix.exs", 10),
    ]
    assert texts(transcript, "assistant", "message") == [
        "Let me check the project structure and try running the server to see the error."
    ]
    results = texts(transcript, "tool", "tool_result")
    assert len(results) == 2
    assert all(
        r.startswith("The user doesn't want to proceed with this tool use.") for r in results
    )
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns[6:]] == [
        ("user", "command", "[Request interrupted by user for tool use]"),
        ("user", "command", "/model"),
        ("system", "command", "Kept model as Default (recommended)"),
    ]
    assert len(transcript.turns) == 9
    assert transcript.message_count == 2


def test_short_session_skips_snapshots_and_hook_progress(claude_dir: Path) -> None:
    stored = "\n".join(t.text for t in only_transcript(claude_dir / "spotter_short.jsonl").turns)
    for chatter in ("bd prime", "tmux-waiting", "guardian.ts", "trackedFileBackups", "7d48cbd2"):
        assert chatter not in stored
    assert "\x1b" not in stored


# --- spotter_subagent.jsonl: a real session that runs a Task sub-agent ------------------


def test_session_with_a_task_keeps_commands_and_skips_meta_and_hook_lines(
    claude_dir: Path,
) -> None:
    transcript = only_transcript(claude_dir / "spotter_subagent.jsonl")
    assert transcript.session_id == "491e126e-1e71-469c-ade2-fcc8af567c74"
    first = transcript.turns[0]
    assert (first.speaker, first.kind, first.source_line) == ("user", "command", 4)
    assert first.text.startswith(
        "/handgemacht:create-beads websearch to learn how to fastest setup credo"
    )
    assert first.text.endswith("Maybe there are igniter scripts?")
    stored = "\n".join(t.text for t in transcript.turns)
    assert "Create beads (epic + tasks + dependencies)" not in stored  # the isMeta skill body
    assert "hookInfos" not in stored and "stop-hook" not in stored  # stop_hook_summary
    assert texts(transcript, "user", "message") == ["create the beads"]
    assert "[Request interrupted by user]" in texts(transcript, "user", "command")
    assert "[Task] Draft beads for linting setup" in texts(transcript, "assistant", "tool_use")


def test_a_message_id_resumed_after_a_tool_result_keeps_the_order(claude_dir: Path) -> None:
    # msg_01FqB3... is on lines 17-19 and again on line 22, after the result on line 21.
    transcript = only_transcript(claude_dir / "spotter_subagent.jsonl")
    by_line = [
        (t.source_line, t.kind) for t in transcript.turns if 17 <= (t.source_line or 0) <= 23
    ]
    assert by_line == [
        (17, "message"),
        (19, "tool_use"),
        (21, "tool_result"),
        (22, "tool_use"),
        (23, "tool_result"),
    ]


def test_split_text_blocks_of_one_message_become_one_turn(claude_dir: Path) -> None:
    # msg_01LvWnndr3... has a blank text block on line 6, thinking on 7, text on 8, then
    # one tool use on each of lines 9-12.
    transcript = only_transcript(claude_dir / "spotter_subagent.jsonl")
    records = raw_records(claude_dir / "spotter_subagent.jsonl")
    assert records[5]["message"]["content"][0]["text"].strip() == ""
    turn = transcript.turns[1]
    assert (turn.speaker, turn.kind, turn.source_line) == ("assistant", "message", 6)
    assert turn.text == "I'll research the setup options and then draft beads for you."
    assert [(t.kind, t.source_line) for t in transcript.turns[2:6]] == [
        ("tool_use", 9),
        ("tool_use", 10),
        ("tool_use", 11),
        ("tool_use", 12),
    ]


def test_text_blocks_split_over_lines_are_joined(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("explain"),
            assistant([{"type": "text", "text": "First part."}], "msg_1"),
            {"type": "progress", "data": {"type": "hook_progress"}},
            assistant([{"type": "thinking", "thinking": "secret plan", "signature": "x"}], "msg_1"),
            assistant([{"type": "text", "text": "Second part."}], "msg_1"),
            assistant([{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}], "msg_1"),
            assistant([{"type": "text", "text": "Next message."}], "msg_2"),
        ],
    )
    transcript = only_transcript(path)
    assert [(t.speaker, t.kind, t.text, t.source_line) for t in transcript.turns] == [
        ("user", "message", "explain", 1),
        ("assistant", "message", "First part.\n\nSecond part.", 2),
        ("assistant", "tool_use", "[Bash] ls", 6),
        ("assistant", "message", "Next message.", 7),
    ]


# --- small hand-made samples ------------------------------------------------------------


def test_simonw_sample(claude_dir: Path) -> None:
    transcript = only_transcript(claude_dir / "simonw_sample_session.jsonl")
    assert transcript.title == "Test session for JSONL parsing"
    assert (transcript.session_id, transcript.project, transcript.branch) == (
        "test-session-id",
        "/project",
        "main",
    )
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", "Create a hello world function"),
        ("assistant", "message", "I'll create that function for you."),
        ("assistant", "tool_use", "[Write] /project/hello.py"),
        ("tool", "tool_result", "File written successfully"),
        ("assistant", "tool_use", "[Bash] git add . && git commit -m 'Add hello function'"),
        ("tool", "tool_result", "[main abc1234] Add hello function\n 1 file changed"),
        ("user", "message", "Now add a goodbye function"),
        ("assistant", "message", "Done! The hello function is ready."),
    ]


def test_daaain_sample_takes_its_title_from_the_last_summary(claude_dir: Path) -> None:
    transcript = only_transcript(claude_dir / "daaain_representative_messages.jsonl")
    assert transcript.title is not None
    assert transcript.title.startswith("User learned about Python decorators")
    assert transcript.session_id == "test_session"
    assert transcript.branch is None
    assert len(texts(transcript, "user", "message")) == 4
    assert len(texts(transcript, "tool", "tool_result")) == 2
    assert "[Edit] /tmp/decorator_example.py" in texts(transcript, "assistant", "tool_use")
    assert transcript.turns[-1].text.startswith("This is really helpful!")


# --- sub-agents -----------------------------------------------------------------------


def test_compaction_sidechain_is_a_sub_agent_transcript(claude_dir: Path) -> None:
    transcript = only_transcript(claude_dir / "spotter_subagents_agent-acompact-e1f845.jsonl")
    assert transcript.is_sidechain
    assert transcript.parent_session_id == COMPACT_PARENT
    assert transcript.session_id == f"{COMPACT_PARENT}:acompact-e1f845"
    assert transcript.branch == "spotter-dov"
    assert transcript.project == "/home/USER/projects/spotter-worktrees/spotter-dov"
    assert [(t.speaker, t.kind, t.source_line) for t in transcript.turns] == [
        ("agent", "message", 4),
        ("assistant", "message", 5),
    ]
    assert transcript.turns[0].text.startswith("Your task is to create a detailed summary")
    assert transcript.turns[1].text.startswith("<analysis>")
    # Lines 1-3 are isMeta hook reminders.
    assert "PostToolUse" not in "\n".join(t.text for t in transcript.turns)
    assert transcript.message_count == 1  # the agent's prompt is not the user's word


def test_sub_agent_file_in_its_session_folder(claude_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "-home-USER-projects-spotter" / COMPACT_PARENT / "subagents"
    target.mkdir(parents=True)
    path = target / "agent-acompact-e1f845.jsonl"
    shutil.copy(claude_dir / "spotter_subagents_agent-acompact-e1f845.jsonl", path)
    transcript = only_transcript(path)
    assert transcript.parent_session_id == COMPACT_PARENT
    assert transcript.session_id == f"{COMPACT_PARENT}:acompact-e1f845"


def test_sub_agent_without_agent_id_lines_is_named_by_its_file(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "parent-1" / "subagents" / "agent-a1b2c3.jsonl",
        [
            user("Find every TODO in src/", isSidechain=True),
            assistant([{"type": "text", "text": "Found 3 TODOs."}], "msg_1"),
        ],
    )
    transcript = only_transcript(path)
    assert transcript.session_id == "sess-1:a1b2c3"
    assert transcript.parent_session_id == "sess-1"
    assert [t.speaker for t in transcript.turns] == ["agent", "assistant"]


# --- damaged files --------------------------------------------------------------------


def test_damaged_lines_become_problems_and_the_rest_imports(
    claude_dir: Path, tmp_path: Path
) -> None:
    lines = (claude_dir / "spotter_short.jsonl").read_bytes().split(b"\n")
    damaged = [
        *lines[:4],  # lines 1-4: snapshot, two progress lines, the user prompt
        b"",  # line 5: blank, ignored
        lines[4][: len(lines[4]) // 2],  # line 6: the "\n\n" assistant line, cut midway
        b"\xff\xfe garbage \x00\x01 not json",  # line 7
        b"[1, 2, 3]",  # line 8: valid JSON, not an object
        *lines[5:],  # lines 9 onwards: the rest of the session
    ]
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"\n".join(damaged))

    parsed = parse_claude_code(path)
    problems = {(p.line, p.message.split(" (")[0].split(";")[0]) for p in parsed.problems}
    assert problems == {
        (6, "not valid JSON, line truncated or corrupt"),
        (7, "not valid JSON, line truncated or corrupt"),
        (7, "invalid UTF-8 bytes replaced by U+FFFD"),
        (8, "expected a JSON object, got list"),
    }
    assert all(p.path == str(path) for p in parsed.problems)
    transcript = parsed.transcripts[0]
    assert transcript.turns[0].text == "mix phx.server doesnt seem to start"
    assert "[Bash] mix phx.server 2>&1 | head -80" in texts(transcript, kind="tool_use")
    assert texts(transcript)[-1] == "Kept model as Default (recommended)"
    assert transcript.session_id == SHORT_SESSION


def test_hostile_json_lines_are_problems_not_crashes(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [user("before"), "[" * 100_000 + "]" * 100_000, '{"n": ' + "9" * 5000 + "}", user("after")],
    )
    parsed = parse_claude_code(path)
    assert [(p.line, p.message.startswith("unreadable JSON")) for p in parsed.problems] == [
        (2, True),
        (3, True),
    ]
    assert texts(parsed.transcripts[0]) == ["before", "after"]


def test_invalid_utf8_inside_a_line_is_replaced_and_reported_once(tmp_path: Path) -> None:
    good = json.dumps(user("caf\u00e9 is fine"))
    bad = json.dumps(user("PLACEHOLDER")).encode().replace(b"PLACEHOLDER", b"bad \xe9 byte")
    path = tmp_path / "enc.jsonl"
    path.write_bytes(b"\n".join([good.encode(), bad, bad]) + b"\n")
    parsed = parse_claude_code(path)
    assert [(p.line, p.message) for p in parsed.problems] == [
        (2, "invalid UTF-8 bytes replaced by U+FFFD (2 lines, first 2)")
    ]
    assert texts(parsed.transcripts[0], "user") == [
        "caf\u00e9 is fine",
        "bad \ufffd byte",
        "bad \ufffd byte",
    ]


def test_a_file_over_200_mb_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as stream:
        stream.truncate(201 * 1024 * 1024)  # sparse: nothing is written
    parsed = parse_claude_code(path)
    assert parsed.transcripts == ()
    assert [(p.line, p.message) for p in parsed.problems] == [
        (None, "file too large (201 MB, limit 200 MB)")
    ]


def test_an_empty_file_is_an_empty_transcript(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    transcript = only_transcript(path)
    assert transcript.turns == ()
    assert transcript.session_id is None


# --- constructed edge cases -----------------------------------------------------------


def test_attachment_lines_are_never_learnt_again(tmp_path: Path) -> None:
    injected = "Remembered: the user prefers pnpm over npm."
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {
                "type": "attachment",
                "sessionId": "sess-1",
                "timestamp": "2026-03-01T09:59:59Z",
                "attachment": {
                    "type": "hook_additional_context",
                    "content": [injected],
                    "hookName": "UserPromptSubmit",
                },
            },
            user("install the deps"),
            assistant([{"type": "text", "text": "Running pnpm install."}], "msg_1"),
        ],
    )
    transcript = only_transcript(path)
    assert injected not in "\n".join(t.text for t in transcript.turns)
    assert texts(transcript) == ["install the deps", "Running pnpm install."]


def test_queue_operations_and_meta_lines_are_skipped(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"type": "queue-operation", "operation": "enqueue", "content": "queued prompt"},
            user("Caveat: the messages below were generated by the user", isMeta=True),
            user("real prompt"),
        ],
    )
    assert texts(only_transcript(path)) == ["real prompt"]


def test_user_blocks_images_tool_results_and_reminders(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user(
                [
                    {"type": "image", "source": {"type": "base64", "data": "iVBORw0KGgo="}},
                    {"type": "text", "text": "what is wrong in this screenshot?"},
                ]
            ),
            user(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {"type": "text", "text": "line one"},
                            {"type": "image", "source": {}},
                            {"type": "text", "text": "line two"},
                        ],
                    }
                ]
            ),
            user("<system-reminder>\nThe TodoWrite tool is unused.\n</system-reminder>"),
            user("fix it please\n<system-reminder>Injected context.</system-reminder>"),
            user("<bash-input>ls -la</bash-input>"),
            user("<bash-stdout>total 0</bash-stdout><bash-stderr></bash-stderr>"),
        ],
    )
    transcript = only_transcript(path)
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("user", "message", "[image]\n\nwhat is wrong in this screenshot?"),
        ("tool", "tool_result", "line one\n[image]\nline two"),
        ("system", "command", "The TodoWrite tool is unused."),
        ("user", "message", "fix it please"),
        ("user", "command", "! ls -la"),
        ("system", "command", "total 0"),
    ]


def test_compact_summary_is_not_the_users_word(tmp_path: Path) -> None:
    summary = "This session is being continued from a previous conversation. Summary: ..."
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
            user(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True),
            user("continue with the tests"),
        ],
    )
    transcript = only_transcript(path)
    assert [(t.speaker, t.kind, t.text) for t in transcript.turns] == [
        ("system", "summary", summary),
        ("user", "message", "continue with the tests"),
    ]


def test_synthetic_assistant_lines_are_system_turns(tmp_path: Path) -> None:
    error = assistant([{"type": "text", "text": "API Error: 529 overloaded"}], "e1")
    error["isApiErrorMessage"] = True
    error["message"]["model"] = "<synthetic>"
    path = write_jsonl(tmp_path / "s.jsonl", [user("hello"), error])
    assert [(t.speaker, t.kind) for t in only_transcript(path).turns] == [
        ("user", "message"),
        ("system", "command"),
    ]


def test_timestamps_are_utc_even_with_offsets(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("a", "2026-03-01T12:00:00+02:00"),
            user("b", "2026-03-01T09:30:00"),
            user("c", "bad"),
        ],
    )
    transcript = only_transcript(path)
    assert transcript.started_at == datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    assert transcript.ended_at == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert [t.timestamp for t in transcript.turns] == [
        datetime(2026, 3, 1, 10, 0, tzinfo=UTC),
        datetime(2026, 3, 1, 9, 30, tzinfo=UTC),
        None,
    ]


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        ("Bash", {"command": "ls\n  -la", "description": "List"}, "[Bash] ls -la"),
        ("Read", {"file_path": "/a/b.py", "offset": 3}, "[Read] /a/b.py"),
        ("Grep", {"pattern": "TODO", "path": "src"}, "[Grep] TODO"),
        ("Task", {"description": "Explore", "prompt": "Look around"}, "[Task] Explore"),
        ("TodoWrite", {"todos": [{"content": "x"}]}, '[TodoWrite] {"todos": [{"content": "x"}]}'),
        ("ExitPlanMode", {}, "[ExitPlanMode]"),
        (None, None, "[tool]"),
    ],
)
def test_tool_use_rendering(name: str | None, tool_input: object, expected: str) -> None:
    assert render_tool_use(name, tool_input) == expected


def test_tool_use_rendering_is_truncated() -> None:
    text = render_tool_use("Bash", {"command": "echo " + "x" * 1000})
    assert len(text) == len("[Bash] ") + 300
    assert text.endswith("…")
