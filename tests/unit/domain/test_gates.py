"""Seed 001 §8: empty/trivial gates and transcript truncation."""

from __future__ import annotations

import pytest

from memory_app.domain.gates import prompt_skip_reason, skip_reason, truncate_for_extraction
from memory_app.domain.transcripts import Transcript, Turn


def transcript(*turns: tuple[str, str] | Turn) -> Transcript:
    built = [t if isinstance(t, Turn) else Turn(i, t[0], t[1]) for i, t in enumerate(turns)]
    return Transcript("text", tuple(built))


def test_no_prompt_is_empty() -> None:
    assert skip_reason(transcript()) == "empty"
    assert skip_reason(transcript(("assistant", "I can help with that!" * 5))) == "empty"
    assert skip_reason(transcript(("user", "   "), ("assistant", ""))) == "empty"


def test_tool_traffic_alone_is_empty() -> None:
    only_tools = transcript(
        Turn(0, "assistant", "[Bash] ls -la", kind="tool_use"),
        Turn(1, "tool", "total 0\n" * 40, kind="tool_result"),
    )
    assert skip_reason(only_tools) == "empty"


def test_short_exchanges_are_trivial() -> None:
    assert skip_reason(transcript(("user", "hi"), ("assistant", "hello!"))) == "trivial"
    assert skip_reason(transcript(("user", "thanks"))) == "trivial"


def test_one_substantive_exchange_is_enough() -> None:
    # 24 + 27 characters: the exchange reaches 50 combined.
    assert skip_reason(transcript(("user", "x" * 24), ("assistant", "y" * 27))) is None
    assert skip_reason(transcript(("user", "x" * 24), ("assistant", "y" * 25))) == "trivial"
    lone = "We always use tabs in this repo, and four-space tabs at that."
    assert skip_reason(transcript(("user", lone))) is None
    assert skip_reason(transcript(("user", "We always use tabs in this repo."))) == "trivial"


def test_sub_agent_prompts_count_as_prompts() -> None:
    assert skip_reason(transcript(("agent", "Summarize the conversation so far " * 3))) is None


def test_turns_are_capped_at_2000_characters() -> None:
    cut, dropped = truncate_for_extraction(transcript(("user", "a" * 5000)))
    assert dropped == 0
    assert cut.turns[0].text == "a" * 2000 + " [...truncated]"


def test_the_total_is_capped_and_the_rest_noted() -> None:
    turns = [("user" if i % 2 == 0 else "assistant", "b" * 1500) for i in range(80)]
    cut, dropped = truncate_for_extraction(transcript(*turns))
    kept = cut.turns[:-1]
    assert sum(len(t.text) for t in kept) <= 80_000
    assert len(kept) == 53
    assert dropped == 27
    assert cut.turns[-1].text == "[...27 remaining turns truncated for length]"
    assert cut.turns[-1].kind == "command"


@pytest.mark.parametrize(
    ("prompt", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("?!...", "punctuation"),
        ("ok", "trivial"),
        ("OK!", "trivial"),
        ("Thanks.", "trivial"),
        ("thank you", "trivial"),
        ("continue", "trivial"),
        ("Yes, go ahead", "trivial"),
        ("hm", "short"),
        ("fix the flaky pagination test", None),
        ("ok, now add retries to the uploader", None),
    ],
)
def test_prompt_skip_reason(prompt: str, reason: str | None) -> None:
    assert prompt_skip_reason(prompt) == reason
