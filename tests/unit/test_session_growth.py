"""A Claude Code session captured at PreCompact and again, longer, at SessionEnd (or by
the app's own import) is one conversation that grows: never two, never a shorter text
over a longer one, never its new turns learnt twice, and nothing lost when the
extractor fails on them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_app.extract.offline import OfflineExtractor
from memory_app.service import MemoryService
from tests.helpers import claude_session_file

SESSION = "9a0e-growth"
PROJECT = "/home/user/shop"
T0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
EXCHANGES = [
    (T0, "Always use uv instead of pip for every install here.", "Noted: uv from now on."),
    (
        T0 + timedelta(minutes=5),
        "We use ruff for linting and formatting, never black.",
        "Understood, ruff it is.",
    ),
    (
        T0 + timedelta(minutes=9),
        "Never commit directly to main; open a pull request instead.",
        "Will do: branches and pull requests only.",
    ),
]


def capture(folder: Path, exchanges: int) -> Path:
    """The session file as it stands after `exchanges` exchanges."""
    return claude_session_file(folder / f"{SESSION}.jsonl", SESSION, PROJECT, EXCHANGES[:exchanges])


def consistent(service: MemoryService, resource_id: int) -> None:
    """Every turn's span lies in the stored text and the turns follow each other."""
    record, text = service.get_resource(resource_id)
    turns = service.resource_turns(resource_id)
    assert record.turn_count == len(turns)
    end = -2
    for turn in turns:
        assert turn.start == end + 2 and turn.end <= len(text)
        end = turn.end
    assert end == len(text)


def test_a_grown_session_is_one_conversation_whose_new_turns_are_read_once(
    service: MemoryService, tmp_path: Path
) -> None:
    first = service.import_paths([capture(tmp_path, 1)]).results[0]
    assert first.status == "success"
    grown = service.import_paths([capture(tmp_path, 3)]).results[0]
    assert grown.resource_id == first.resource_id
    assert any("grew by 4 turns" in note for note in grown.notes)
    (resource,) = service.resources()
    consistent(service, resource.id)
    contents = [m.content for m in service.list_items()]
    assert any("ruff" in c for c in contents) and any("pull request" in c for c in contents)
    assert all(m.reinforcement_count == 0 for m in service.list_items())  # none read twice

    # The shorter capture arriving late adds nothing and shortens nothing.
    late = service.import_paths([capture(tmp_path, 2)]).results[0]
    assert late.status == "skipped" and "with more of it" in (late.reason or "")
    assert service.get_resource(resource.id)[0].turn_count == 6


def test_an_import_that_grew_it_meanwhile_wins(
    open_service: Callable[[Any], MemoryService], tmp_path: Path
) -> None:
    """While one import's extractor reads the new turns, another grows the same
    conversation further: the first must not write its shorter text over it."""
    service = open_service(OfflineExtractor())
    service.import_paths([capture(_dir(tmp_path / "a"), 1)])
    middle, longest = capture(_dir(tmp_path / "b"), 2), capture(_dir(tmp_path / "c"), 3)
    original = service._run_extractor
    raced = []

    def extract_while_another_grows(*args: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            service.import_paths([longest])  # the other import, to the end
        return original(*args, **kwargs)

    service._run_extractor = extract_while_another_grows  # type: ignore[method-assign]
    result = service.import_paths([middle]).results[0]
    assert raced
    assert result.status == "skipped" and "with more of it" in (result.reason or "")
    (resource,) = service.resources()
    assert resource.turn_count == 6
    consistent(service, resource.id)
    assert all(m.reinforcement_count == 0 for m in service.list_items())


def test_when_the_extractor_fails_on_the_new_turns_nothing_grows(
    open_service: Callable[[Any], MemoryService], tmp_path: Path
) -> None:
    service = open_service(OfflineExtractor())
    first = service.import_paths([capture(tmp_path, 1)]).results[0]
    original = service._run_extractor
    service._run_extractor = lambda *a, **k: ([], "the API timed out", [])  # type: ignore[method-assign]
    failed = service.import_paths([capture(tmp_path, 3)]).results[0]
    assert failed.status == "error" and "the next import retries" in (failed.reason or "")
    (resource,) = service.resources()
    assert resource.status == "memorized" and resource.turn_count == 2
    consistent(service, resource.id)

    service._run_extractor = original  # type: ignore[method-assign]
    again = service.import_paths([capture(tmp_path, 3)]).results[0]
    assert again.resource_id == first.resource_id and again.status == "success"
    assert len(service.resources()) == 1
    assert service.get_resource(resource.id)[0].turn_count == 6


def test_a_last_turn_that_grew_is_not_taken_for_new_turns(
    service: MemoryService, tmp_path: Path
) -> None:
    """A message continued on a later line makes the last turn longer: treating that as
    a continuation would leave the stored turn's span short of its text."""
    path = capture(tmp_path, 1)
    service.import_paths([path])
    lines = path.read_text(encoding="utf-8").splitlines()
    longer = lines[-1].replace("Noted: uv from now on.", "Noted: uv from now on.\\n\\nAnd more.")
    path.write_text("\n".join([*lines[:-1], longer]) + "\n", encoding="utf-8")
    service.import_paths([path])
    for resource in service.resources():
        consistent(service, resource.id)


def _dir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
