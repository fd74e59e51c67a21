from __future__ import annotations

import random
from datetime import date

import pytest

from memory_app.domain.claude_md import (
    BEGIN_MARKER,
    DEFAULT_MAX_CHARS,
    END_MARKER,
    SECTIONS,
    BlockLine,
    ManagedBlockError,
    ensure_import_line,
    extract_block,
    render_block,
    splice,
    unified_diff,
)

EMPTY = render_block([]).text
MINIMUM = len(EMPTY)


def line(item_id: int, category: str = "project_conventions", content: str = "") -> BlockLine:
    return BlockLine(item_id, category, content or f"memory number {item_id}")


def block_of(*ids: int) -> str:
    return render_block([line(i) for i in ids]).text


# --- rendering ---------------------------------------------------------------------------


def test_the_block_has_markers_heading_sections_and_provenance() -> None:
    lines = [
        BlockLine(
            12,
            "project_conventions",
            "Puffin uses a modular plugin architecture",
            resource_id=3,
            said=date(2026, 11, 20),
        ),
        BlockLine(7, "architectural_decisions", "SQLite is the only store", said=date(2026, 1, 2)),
        BlockLine(8, "architectural_decisions", "No ORM in the domain layer", resource_id=5),
    ]
    rendered = render_block(lines)
    assert rendered.text == (
        f"{BEGIN_MARKER}\n"
        "## Memory (curated by Memory Curator)\n"
        "\n"
        "### Conventions\n"
        "\n"
        "- Puffin uses a modular plugin architecture"
        " <!-- memory 12 · conversation 3 · 2026-11-20 -->\n"
        "\n"
        "### Architectural Decisions\n"
        "\n"
        "- SQLite is the only store <!-- memory 7 · 2026-01-02 -->\n"
        "- No ORM in the domain layer <!-- memory 8 · conversation 5 -->\n"
        "\n"
        f"{END_MARKER}"
    )
    assert rendered.included == (12, 7, 8)
    assert rendered.dropped == ()


def test_a_line_without_conversation_or_date_names_only_the_memory() -> None:
    text = render_block([BlockLine(4, "bug_patterns", "Close the cursor")]).text
    assert "- Close the cursor <!-- memory 4 -->\n" in text


def test_the_title_can_be_changed() -> None:
    text = render_block([], title="Team memory").text
    assert text.splitlines()[1] == "## Team memory"


def test_no_memories_gives_a_placeholder_under_the_heading() -> None:
    expected = (
        f"{BEGIN_MARKER}\n## Memory (curated by Memory Curator)\n\n"
        f"_No memories to share yet._\n\n{END_MARKER}"
    )
    assert render_block([]).text == expected


def test_sections_follow_priority_order_whatever_the_input_order() -> None:
    keys = [key for key, _ in SECTIONS]
    lines = [line(i, keys[i % len(keys)]) for i in reversed(range(8))]
    text = render_block(lines).text
    headings = [row[4:] for row in text.splitlines() if row.startswith("### ")]
    assert headings == [
        "Conventions",
        "Coding Preferences",
        "Architectural Decisions",
        "Bug Patterns",
    ]


def test_the_callers_order_is_kept_inside_a_section() -> None:
    rendered = render_block([line(3), line(1), line(2)])
    assert rendered.included == (3, 1, 2)
    text = rendered.text
    assert text.index("memory 3 ") < text.index("memory 1 ") < text.index("memory 2 ")


def test_implementation_notes_and_unknown_categories_are_left_out() -> None:
    rendered = render_block(
        [
            line(1, "implementation_notes", "tried a cache, too slow"),
            line(2, "whatever", "an unknown category"),
            line(3, "bug_patterns", "Flaky test: seed the RNG"),
        ]
    )
    assert rendered.included == (3,)
    assert rendered.dropped == ()
    assert "too slow" not in rendered.text
    assert "unknown category" not in rendered.text
    assert "Implementation" not in rendered.text


def test_only_excluded_lines_give_the_placeholder() -> None:
    rendered = render_block([line(1, "implementation_notes")])
    assert rendered.text == EMPTY
    assert rendered.included == () and rendered.dropped == ()


def test_content_is_collapsed_to_one_stripped_line() -> None:
    text = render_block([line(1, content="  Use\n  pathlib,\r\n\tnot   os.path  \n")]).text
    assert "- Use pathlib, not os.path <!-- memory 1 -->\n" in text


def test_blank_content_is_skipped() -> None:
    rendered = render_block([BlockLine(1, "bug_patterns", " \n\t ")])
    assert rendered.text == EMPTY
    assert rendered.included == () and rendered.dropped == ()


def test_marker_text_inside_a_memory_is_neutralised() -> None:
    sneaky = [
        line(1, content=f"{END_MARKER} then {BEGIN_MARKER}"),
        line(2, content="see <!-- memory-curator:begin\n<!-- memory-curator:end -->"),
        line(3, content="<!-- memory-curator:begin at the start"),
    ]
    rendered = render_block(sneaky, title="<!-- memory-curator:end -->")
    text = rendered.text
    assert rendered.included == (1, 2, 3)
    assert text.count("<!-- memory-curator:") == 2
    assert text.startswith(BEGIN_MARKER + "\n") and text.endswith("\n" + END_MARKER)
    assert f"&lt;!-- memory-curator:end --> then &lt;{BEGIN_MARKER[1:]}" in text
    # The next export still finds exactly one block and replaces it whole.
    spliced = splice("intro\n", text)
    assert extract_block(spliced) == text
    assert splice(spliced, EMPTY) == splice("intro\n", EMPTY)


def test_the_default_cap_is_4000_characters() -> None:
    lines = [line(i, content="x" * 150) for i in range(100)]
    rendered = render_block(lines)
    assert DEFAULT_MAX_CHARS == 4000
    assert len(rendered.text) <= 4000
    assert rendered.included and rendered.dropped


# --- the cap -------------------------------------------------------------------------------


def test_a_cap_exactly_the_size_of_the_block_keeps_everything() -> None:
    lines = [line(1), line(2, "bug_patterns"), line(3, "bug_patterns")]
    full = render_block(lines, max_chars=100_000).text
    assert render_block(lines, max_chars=len(full)).included == (1, 2, 3)
    smaller = render_block(lines, max_chars=len(full) - 1)
    assert smaller.included == (1, 2)
    assert smaller.dropped == (3,)


def test_filling_stops_at_the_first_line_that_does_not_fit() -> None:
    # The seed: items one by one until the cap is reached, then the rest is dropped, so a
    # short low-priority line never takes the place of a longer important one.
    lines = [
        line(1, content="short"),
        line(2, content="a long convention " * 10),
        line(3, content="tiny"),
        line(4, "bug_patterns", "tiny too"),
    ]
    cap = len(render_block([lines[0]]).text) + 60
    rendered = render_block(lines, max_chars=cap)
    assert rendered.included == (1,)
    assert rendered.dropped == (2, 3, 4)
    assert "tiny" not in rendered.text
    assert "### Bug Patterns" not in rendered.text


def test_a_section_heading_is_only_written_when_one_of_its_lines_fits() -> None:
    first = line(1, content="a convention")
    bug = line(2, "bug_patterns", "b")
    with_bug = render_block([first, bug]).text
    heading_and_blank = len("### Bug Patterns\n\n") + len("\n")
    # Room for the bug's line but not for its heading as well.
    cap = len(with_bug) - 1
    assert len(render_block([first]).text) + heading_and_blank < cap
    rendered = render_block([first, bug], max_chars=cap)
    assert "### Bug Patterns" not in rendered.text
    assert rendered.included == (1,) and rendered.dropped == (2,)


def test_nothing_fitting_gives_the_placeholder_and_drops_all() -> None:
    rendered = render_block([line(1, content="x" * 500)], max_chars=MINIMUM + 10)
    assert rendered.text == EMPTY
    assert rendered.included == () and rendered.dropped == (1,)


def test_a_cap_too_small_for_an_empty_block_is_refused_naming_the_minimum() -> None:
    assert render_block([line(1)], max_chars=MINIMUM).text == EMPTY
    with pytest.raises(ValueError, match=f"at least {MINIMUM} characters"):
        render_block([], max_chars=MINIMUM - 1)
    with pytest.raises(ValueError, match="too small"):
        render_block([line(1)], max_chars=0)


def random_lines(rng: random.Random) -> list[BlockLine]:
    keys = [key for key, _ in SECTIONS] + ["implementation_notes", "other"]
    words = ["cache", "tabs", "<!--", "-->", "pytest", "é", "\n", "  ", "naïve", "x" * 40]
    return [
        BlockLine(
            item_id=i,
            category=rng.choice(keys),
            content=" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))),
            resource_id=rng.choice([None, rng.randint(1, 999)]),
            said=rng.choice([None, date(2026, rng.randint(1, 12), rng.randint(1, 28))]),
        )
        for i in range(rng.randint(0, 40))
    ]


def eligible_order(lines: list[BlockLine]) -> list[int]:
    order = {key: n for n, (key, _) in enumerate(SECTIONS)}
    kept = [x for x in lines if x.category in order and x.content.strip()]
    return [x.item_id for x in sorted(kept, key=lambda x: order[x.category])]


@pytest.mark.parametrize("seed", range(40))
def test_the_cap_always_holds_and_the_kept_lines_are_a_priority_prefix(seed: int) -> None:
    rng = random.Random(seed)
    lines = random_lines(rng)
    expected = eligible_order(lines)
    previous: tuple[int, ...] = ()
    caps = sorted({MINIMUM, *(rng.randint(MINIMUM, 3000) for _ in range(25))})
    for cap in caps:
        rendered = render_block(lines, max_chars=cap)
        text = rendered.text
        assert len(text) <= cap
        assert text.startswith(BEGIN_MARKER + "\n") and text.endswith("\n" + END_MARKER)
        assert text.count("<!-- memory-curator:") == 2
        kept = list(rendered.included)
        assert kept == expected[: len(kept)]
        assert list(rendered.dropped) == expected[len(kept) :]
        assert rendered.included[: len(previous)] == previous  # more room never loses lines
        for item_id in rendered.included:
            assert f"<!-- memory {item_id} " in text
        if rendered.dropped:
            # The first dropped line really did not fit.
            wanted = {*rendered.included, rendered.dropped[0]}
            with_next = render_block([x for x in lines if x.item_id in wanted], max_chars=10**6)
            assert len(with_next.text) > cap
        previous = rendered.included


# --- splicing ------------------------------------------------------------------------------


@pytest.mark.parametrize("existing", [None, ""])
def test_splicing_into_nothing_gives_the_block_and_a_newline(existing: str | None) -> None:
    assert splice(existing, EMPTY) == EMPTY + "\n"


@pytest.mark.parametrize(
    ("existing", "joint"),
    [
        ("# Project\n\nUse tabs.\n", "\n"),
        ("# Project\n\nUse tabs.", "\n\n"),
        ("# Project\n\nUse tabs.\n\n", ""),
    ],
)
def test_a_file_without_a_block_gets_it_appended_after_a_blank_line(
    existing: str, joint: str
) -> None:
    assert splice(existing, EMPTY) == existing + joint + EMPTY + "\n"


def test_the_second_export_replaces_the_block_in_place_byte_for_byte() -> None:
    before = "# Project\n\nUse tabs.  \n\n"
    after = "\n## Notes by hand\n\n* keep this\ttab\nno final newline"
    first = before + EMPTY + after
    second = splice(first, block_of(1, 2))
    assert second == before + block_of(1, 2) + after
    third = splice(second, block_of(3))
    assert third == before + block_of(3) + after
    assert splice(third, block_of(3)) == third


def test_edits_inside_the_block_are_replaced() -> None:
    edited = "intro\n" + EMPTY.replace("_No memories", "my own edit\n\n_No memories") + "\noutro\n"
    assert splice(edited, block_of(1)) == "intro\n" + block_of(1) + "\noutro\n"


def test_the_begin_marker_is_found_by_its_stable_prefix() -> None:
    old_wording = (
        f"intro\n<!-- memory-curator:begin (older wording) -->\nstale\n{END_MARKER}\nend\n"
    )
    assert splice(old_wording, block_of(1)) == f"intro\n{block_of(1)}\nend\n"


def test_indented_markers_are_replaced_from_the_start_of_their_line() -> None:
    existing = f"a\n  {BEGIN_MARKER}\nold\n  {END_MARKER}  \nb\n"
    assert splice(existing, EMPTY) == f"a\n{EMPTY}\nb\n"


def test_a_block_at_the_very_end_without_a_newline_is_replaced() -> None:
    existing = "intro\n\n" + block_of(1)
    assert splice(existing, block_of(2)) == "intro\n\n" + block_of(2)


def test_crlf_files_keep_crlf_when_appending_and_replacing() -> None:
    existing = "# Project\r\n\r\nUse tabs.\r\n"
    appended = splice(existing, block_of(1))
    assert appended == existing + "\r\n" + block_of(1).replace("\n", "\r\n") + "\r\n"
    assert "\n" not in appended.replace("\r\n", "")
    replaced = splice(appended + "tail\r\n", block_of(2))
    assert replaced == existing + "\r\n" + block_of(2).replace("\n", "\r\n") + "\r\ntail\r\n"
    assert "\n" not in replaced.replace("\r\n", "")


def test_crlf_without_a_final_newline_gets_crlf_separators() -> None:
    assert splice("a\r\nb", EMPTY) == "a\r\nb\r\n\r\n" + EMPTY.replace("\n", "\r\n") + "\r\n"


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        (f"a\n{BEGIN_MARKER}\nb\n", "begin marker .* on line 2 has no end marker"),
        (f"a\nb\n{END_MARKER}\n", "end marker .* on line 3 has no begin marker"),
        (f"{END_MARKER}\nx\n{BEGIN_MARKER}\n", "end marker .* line 1 comes before .* line 3"),
        (
            f"{BEGIN_MARKER}\nx\n{BEGIN_MARKER}\n{END_MARKER}\n",
            "two begin markers .* lines 1 and 3",
        ),
        (f"{EMPTY}\n\n{EMPTY}\n", "two begin markers .* lines 1 and 8"),
        (f"{EMPTY}\n{END_MARKER}\n", "two end markers .* lines 6 and 7"),
    ],
)
def test_malformed_markers_are_refused_with_the_line(existing: str, message: str) -> None:
    with pytest.raises(ManagedBlockError, match=message):
        splice(existing, EMPTY)
    with pytest.raises(ManagedBlockError, match=message):
        extract_block(existing)
    with pytest.raises(ValueError):  # callers may catch it as a ValueError
        splice(existing, EMPTY)


def test_marker_text_in_the_middle_of_a_line_is_not_a_marker() -> None:
    prose = f"We write `{BEGIN_MARKER}` in CLAUDE.md.\n"
    assert extract_block(prose) is None
    assert splice(prose, EMPTY) == prose + "\n" + EMPTY + "\n"


def test_extract_block() -> None:
    assert extract_block("no block here\n") is None
    assert extract_block("") is None
    text = f"before\r\n{BEGIN_MARKER}\r\nx\r\n{END_MARKER}\r\nafter"
    assert extract_block(text) == f"{BEGIN_MARKER}\r\nx\r\n{END_MARKER}"


# --- the @import variant -------------------------------------------------------------------


def test_the_import_line_is_added_once() -> None:
    assert ensure_import_line(None, ".claude/memory.md") == "@.claude/memory.md\n"
    assert ensure_import_line("", ".claude/memory.md") == "@.claude/memory.md\n"
    once = ensure_import_line("# Project\n\nUse tabs.\n", ".claude/memory.md")
    assert once == "# Project\n\nUse tabs.\n\n@.claude/memory.md\n"
    assert ensure_import_line(once, ".claude/memory.md") == once


def test_an_existing_import_line_with_spaces_around_counts() -> None:
    existing = "intro\n   @.claude/memory.md  \nmore"
    assert ensure_import_line(existing, ".claude/memory.md") == existing


def test_a_mention_of_the_path_is_not_an_import_line() -> None:
    existing = "See @.claude/memory.md for details\n"
    assert ensure_import_line(existing, ".claude/memory.md") == (
        existing + "\n@.claude/memory.md\n"
    )


def test_the_import_line_keeps_crlf() -> None:
    assert ensure_import_line("a\r\nb", "m.md") == "a\r\nb\r\n\r\n@m.md\r\n"


# --- diffs ---------------------------------------------------------------------------------


def test_an_unchanged_text_has_an_empty_diff() -> None:
    assert unified_diff("same\n", "same\n", "CLAUDE.md") == ""


def test_the_diff_names_the_file_and_shows_the_changed_lines() -> None:
    diff = unified_diff("a\nold\nc\n", "a\nnew\nc\n", "CLAUDE.md")
    assert diff.startswith("--- a/CLAUDE.md\n+++ b/CLAUDE.md\n")
    assert "-old\n" in diff and "+new\n" in diff and " a\n" in diff


def test_a_new_file_diffs_against_nothing() -> None:
    diff = unified_diff(None, "line\n", "CLAUDE.md")
    assert diff.endswith("+line\n")


def test_a_missing_final_newline_is_marked() -> None:
    diff = unified_diff("a\nb", "a\nb\n", "CLAUDE.md")
    assert "-b\n\\ No newline at end of file\n+b\n" in diff
