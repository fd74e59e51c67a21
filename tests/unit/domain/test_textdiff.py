from __future__ import annotations

from memory_app.domain.textdiff import word_differences


def changed(runs: list[tuple[str, bool]]) -> list[str]:
    return [piece for piece, differs in runs if differs]


def test_the_differing_words_are_marked_on_both_sides() -> None:
    older, newer = word_differences(
        "Indent with tabs.", "We switched to spaces, indent with spaces"
    )
    assert changed(older) == ["tabs."]
    assert changed(newer) == ["We", "switched", "to", "spaces,", "spaces"]
    assert "".join(p for p, _ in older) == "Indent with tabs."


def test_identical_statements_have_no_differences() -> None:
    a, b = word_differences("Use pathlib", "use  pathlib!")
    assert changed(a) == [] and changed(b) == []
    assert "".join(p for p, _ in b) == "use  pathlib!"
