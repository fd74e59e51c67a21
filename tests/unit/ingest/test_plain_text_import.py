"""Text and markdown conversations: speaker labels, encodings, binary and empty files."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_app.domain.transcripts import Transcript
from memory_app.ingest.plain_text import parse_text


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def only_transcript(path: Path) -> Transcript:
    parsed = parse_text(path)
    assert parsed.problems == ()
    assert len(parsed.transcripts) == 1
    return parsed.transcripts[0]


def turns_of(transcript: Transcript) -> list[tuple[str, str]]:
    return [(t.speaker, t.text) for t in transcript.turns]


def test_plain_labels_split_turns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "chat.txt",
        "User: we deploy with docker compose\nand never on Fridays\n\n"
        "Assistant: Noted.\nHuman: also use pnpm\nClaude: Will do.\n"
        "You: thanks\nAI: welcome\nMe: one more\nChatGPT: sure\n",
    )
    transcript = only_transcript(path)
    assert turns_of(transcript) == [
        ("user", "we deploy with docker compose\nand never on Fridays"),
        ("assistant", "Noted."),
        ("user", "also use pnpm"),
        ("assistant", "Will do."),
        ("user", "thanks"),
        ("assistant", "welcome"),
        ("user", "one more"),
        ("assistant", "sure"),
    ]
    assert [t.position for t in transcript.turns] == list(range(8))
    assert [t.source_line for t in transcript.turns] == [1, 4, 5, 6, 7, 8, 9, 10]
    assert all(t.kind == "message" and t.timestamp is None for t in transcript.turns)
    assert transcript.source_kind == "text"
    assert transcript.session_id is None
    assert transcript.title == "chat"


def test_markdown_headings_and_bold_labels(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "session.md",
        "# Choosing a database\n\n"
        "## User\n\nShould we use SQLite?\n\n"
        "### Assistant\n\nYes, for a local app.\n\n"
        "**User:** and for tests?\n"
        "**Claude**: a fresh file per test.\n"
        "**User**\n"
        "**Claude** is great at this, right?\n"
        "__AI:__ it helps.\n",
    )
    transcript = only_transcript(path)
    assert transcript.source_kind == "markdown"
    assert transcript.title == "Choosing a database"
    assert turns_of(transcript) == [
        ("user", "Should we use SQLite?"),
        ("assistant", "Yes, for a local app."),
        ("user", "and for tests?"),
        ("assistant", "a fresh file per test."),
        ("user", "**Claude** is great at this, right?"),
        ("assistant", "it helps."),
    ]


def test_labels_inside_code_blocks_are_not_turns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "notes.md",
        "User: how do I parse this?\n```\nUser: quoted\nAssistant: quoted too\n```\n"
        "Assistant: with a regex\n",
    )
    assert turns_of(only_transcript(path)) == [
        ("user", "how do I parse this?\n```\nUser: quoted\nAssistant: quoted too\n```"),
        ("assistant", "with a regex"),
    ]


def test_text_without_labels_is_one_user_turn(tmp_path: Path) -> None:
    text = "Remember: the staging DB is read-only.\nYou can read it, though.\n"
    transcript = only_transcript(write(tmp_path, "memo.txt", "\n" + text))
    assert turns_of(transcript) == [("user", text.strip())]
    assert transcript.turns[0].source_line == 2
    assert transcript.title == "memo"


def test_text_before_the_first_label_is_kept_as_the_users(tmp_path: Path) -> None:
    path = write(tmp_path, "log.md", "# Title\nContext I wrote.\n\nUser: hi\nAssistant: hello\n")
    transcript = only_transcript(path)
    assert turns_of(transcript) == [
        ("user", "# Title\nContext I wrote."),
        ("user", "hi"),
        ("assistant", "hello"),
    ]
    assert transcript.title == "Title"


def test_prose_starting_with_a_label_word_is_not_a_label(tmp_path: Path) -> None:
    text = (
        "You can use either.\nAI is a broad field.\n## User stories\nAs a user I want...\n"
        "System: Ubuntu 24.04"
    )
    transcript = only_transcript(write(tmp_path, "prose.md", text))
    assert turns_of(transcript) == [("user", text)]
    assert transcript.title == "User stories"


@pytest.mark.parametrize("content", ["", "   \n\n\t\n"])
def test_empty_file_is_a_transcript_without_turns(tmp_path: Path, content: str) -> None:
    transcript = only_transcript(write(tmp_path, "empty.md", content))
    assert transcript.turns == ()
    assert transcript.title == "empty"


def test_latin1_file_is_read_with_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path, "old.txt", "User: caf\u00e9 cr\u00e8me \u00fcber\n".encode("latin-1"))
    parsed = parse_text(path)
    assert turns_of(parsed.transcripts[0]) == [("user", "caf\u00e9 cr\u00e8me \u00fcber")]
    assert [(p.line, p.message) for p in parsed.problems] == [
        (None, "not valid UTF-8; read as Windows-1252, some characters may be wrong")
    ]


def test_bytes_undefined_in_cp1252_fall_back_to_latin1(tmp_path: Path) -> None:
    path = write(tmp_path, "odd.txt", b"a \x81 b \xe9")
    parsed = parse_text(path)
    assert parsed.transcripts[0].turns[0].text == "a \x81 b \u00e9"
    assert "Latin-1" in parsed.problems[0].message


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8-sig", b""), ("utf-16", b""), ("utf-16-be", b"\xfe\xff")],
)
def test_files_with_a_byte_order_mark(tmp_path: Path, encoding: str, bom: bytes) -> None:
    data = bom + "User: gr\u00fc\u00dfe\r\nAssistant: hallo\r\n".encode(encoding)
    transcript = only_transcript(write(tmp_path, "bom.txt", data))
    assert turns_of(transcript) == [("user", "gr\u00fc\u00dfe"), ("assistant", "hallo")]


def test_binary_file_yields_no_transcript(tmp_path: Path) -> None:
    path = write(tmp_path, "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    parsed = parse_text(path)
    assert parsed.transcripts == ()
    assert [p.message for p in parsed.problems] == ["not a text file (binary content); skipped"]


def test_control_characters_without_nul_are_binary_too(tmp_path: Path) -> None:
    parsed = parse_text(write(tmp_path, "blob.md", bytes([1, 2, 3, 4, 5, 6, 7, 8]) * 100))
    assert parsed.transcripts == ()


def test_a_file_over_200_mb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as stream:
        stream.truncate(250 * 1024 * 1024)  # sparse: nothing is written
    parsed = parse_text(path)
    assert parsed.transcripts == ()
    assert [p.message for p in parsed.problems] == ["file too large (250 MB, limit 200 MB)"]


def test_source_kind_follows_the_extension_unless_given(tmp_path: Path) -> None:
    assert only_transcript(write(tmp_path, "a.MARKDOWN", "x")).source_kind == "markdown"
    assert only_transcript(write(tmp_path, "b.txt", "x")).source_kind == "text"
    forced = parse_text(write(tmp_path, "c.txt", "x"), source_kind="markdown")
    assert forced.transcripts[0].source_kind == "markdown"
