"""Reading one statement as slot, values and stances (domain/statements.py)."""

from __future__ import annotations

from memory_app.domain.statements import frame


def test_a_memory_of_two_sentences_is_read_sentence_by_sentence() -> None:
    # The second sentence's "don't" is its own: it must not turn the first one's values.
    read = frame(
        "We change to slog from the standard library, no more zap. Go 1.21 has it, and we "
        "don't want an extra dependency."
    )
    assert "slog" in read.endorsed
    assert "zap" in read.rejected
    assert read.change_cue
