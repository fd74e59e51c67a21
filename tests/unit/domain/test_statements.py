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


def test_lowercase_values_are_read_from_where_a_thing_lives_and_what_it_moves_to() -> None:
    """Typed fast, names are lowercase: the verb, not the capital, says what the value is."""
    assert frame("our runbooks live in notion").endorsed == {"notion"}
    moved = frame("we moved the runbooks to confluence last week")
    assert "confluence" in moved.endorsed
    assert moved.change_cue


def test_a_preference_over_another_rejects_the_other() -> None:
    read = frame("For HTTP clients, httpx is preferred over requests.")
    assert "request" in read.rejected
    assert "request" not in read.endorsed


def test_a_ban_outside_an_exception_is_not_a_ban() -> None:
    assert frame("Never use print() outside of the debug scripts.").negative is False
    assert frame("Never use print() in the service code.").negative is True


def test_a_ban_said_after_its_object_rejects_it() -> None:
    """ "Time.now is banned", "the Provider package we are not using": the ban comes last."""
    banned = frame(
        "Time.now is banned in the app code; the zone-aware Time.current is what we call."
    )
    assert "time.now" in banned.rejected
    assert "time.current" in banned.endorsed
    topical = frame("We are going with Riverpod, the Provider package we are not using.")
    assert topical.rejected == {"provider"}
    assert "riverpod" in topical.endorsed
    field = frame("Field injection with @Autowired is not used in this codebase.")
    assert "autowir" in field.rejected and not field.endorsed
    # Nothing before a ban said elsewhere in the sentence is touched.
    assert frame("We use Jira for tickets.").rejected == frozenset()


def test_words_before_a_later_ban_are_said_against() -> None:
    from memory_app.domain.statements import said_for_and_against

    said_for, said_against = said_for_and_against("Inline style objects are not allowed.")
    assert {"inline", "style", "object"} <= said_against
    assert not said_for & said_against
