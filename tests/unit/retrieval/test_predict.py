"""Predictive context (seed 004) on a small planted project: conversations stored through
the real pipeline (resource, turns, tool calls), memories learnt from them, and the
memories about the open file and the branch ranked first, each saying why."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.domain.categories import Category
from memory_app.domain.file_signals import file_signal, mention
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem
from memory_app.retrieval.predict import Signals, error_terms, predict
from memory_app.service import MemoryService

SHOP = "/home/dev/shop"
BLOG = "/home/dev/blog"
WHEN = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
NOW = WHEN + timedelta(days=3)

CONVENTION = "Commit messages follow Conventional Commits."
NAMED = "Retries in client.ts back off exponentially, at most five attempts."
SILENT = "Keep request timeouts at ten seconds: the gateway cuts longer calls."
DB_CLIENT = "The db client pools eight connections per worker."
BRANCH_ONLY = "Feature flags for the retry work live in flags.yaml."
ERROR_FIX = "A TypeError reading retryAfter means the server omitted the Retry-After header."
BLOG_NAMED = "In client.ts of the blog, use fetch rather than axios."


class Planted:
    """The pipeline's extractor: the memories planted for each conversation."""

    name = "planted"

    def __init__(self) -> None:
        self.items: dict[str, list[ExtractedItem]] = {}

    def extract(
        self, transcript: Transcript, categories: Sequence[Category]
    ) -> list[ExtractedItem]:
        return list(self.items.get(transcript.session_id or "", []))


def _session(
    planted: Planted,
    session: str,
    project: str,
    branch: str,
    turns: list[tuple[str, str, str]],
    learnt: dict[int, str],
) -> Transcript:
    """`turns`: (speaker, kind, text); `learnt`: turn position -> memory said there."""
    planted.items[session] = [
        ExtractedItem("implementation_notes", text, 0.9, turn_start=n, turn_end=n)
        for n, text in learnt.items()
    ]
    return Transcript(
        source_kind="claude-code",
        turns=tuple(
            Turn(n, speaker, text, kind, timestamp=WHEN + timedelta(minutes=n))
            for n, (speaker, kind, text) in enumerate(turns)
        ),
        session_id=session,
        branch=branch,
        project=project,
        started_at=WHEN,
    )


def _filler(count: int) -> list[tuple[str, str, str]]:
    return [("assistant", "tool_use", f"[Bash] npm test -- --shard {n}") for n in range(count)]


@pytest.fixture
def shop(open_service: Callable[[Any], MemoryService]) -> tuple[MemoryService, dict[str, int]]:
    planted = Planted()
    service = open_service(planted)
    service.clock = lambda: NOW
    retry = [
        ("user", "message", CONVENTION),
        *_filler(12),
        ("user", "message", NAMED),
        ("user", "message", SILENT),
        ("assistant", "tool_use", f"[Edit] {SHOP}/src/api/client.ts"),
        ("tool", "tool_result", "The file has been updated."),
        ("user", "message", BRANCH_ONLY),
        *_filler(12),
        ("user", "message", ERROR_FIX),
    ]
    database = [
        ("user", "message", DB_CLIENT),
        ("assistant", "tool_use", f"[Edit] {SHOP}/src/db/client.py"),
    ]
    blog = [("user", "message", BLOG_NAMED), ("assistant", "tool_use", f"[Edit] {BLOG}/client.ts")]
    sessions = (
        ("retry", SHOP, "feature/retry", retry, {0: CONVENTION, 13: NAMED, 14: SILENT}),
        ("flags", SHOP, "feature/retry", [("user", "message", BRANCH_ONLY)], {0: BRANCH_ONLY}),
        ("fix", SHOP, "main", [("user", "message", ERROR_FIX)], {0: ERROR_FIX}),
        ("db", SHOP, "main", database, {0: DB_CLIENT}),
        ("blog", BLOG, "feature/retry", blog, {0: BLOG_NAMED}),
    )
    for session, project, branch, turns, learnt in sessions:
        service.memorize(_session(planted, session, project, branch, turns, learnt))
    ids = {r.content: r.id for r in service.list_items(limit=50)}
    return service, {text: ids[text] for text in ids}


def test_the_memories_about_the_open_file_on_its_branch_rank_first(
    shop: tuple[MemoryService, dict[str, int]],
) -> None:
    service, ids = shop
    signals = Signals(project=SHOP, branch="feature/retry", files=("src/api/client.ts",))
    found = predict(service, signals, 5, now=NOW)
    assert [p.id for p in found[:2]] == [ids[NAMED], ids[SILENT]]
    named, silent = found[0], found[1]
    assert "mentions client.ts" in named.reasons
    assert "learnt while editing src/api/client.ts" in named.reasons
    assert silent.reasons[0] == "learnt while editing src/api/client.ts"  # never names it
    assert "learnt on this branch (feature/retry)" in silent.reasons
    # Then the branch's other memories; another project's client.ts never comes.
    assert ids[BRANCH_ONLY] in [p.id for p in found[2:]]
    assert ids[BLOG_NAMED] not in [p.id for p in found]
    # The convention said at the session's start, far from the edit, ranks below both.
    rank = [p.id for p in found]
    assert ids[CONVENTION] not in rank[:2]


def test_an_absolute_path_inside_the_project_is_the_same_file(
    shop: tuple[MemoryService, dict[str, int]],
) -> None:
    service, ids = shop
    found = predict(service, Signals(project=SHOP, files=(f"{SHOP}/src/api/client.ts",)), 2, NOW)
    assert [p.id for p in found] == [ids[NAMED], ids[SILENT]]


def test_the_last_error_finds_the_memory_that_explains_it(
    shop: tuple[MemoryService, dict[str, int]],
) -> None:
    service, ids = shop
    error = "TypeError: Cannot read properties of undefined (reading 'retryAfter')"
    found = predict(service, Signals(project=SHOP, error=error), 3, now=NOW)
    assert found[0].id == ids[ERROR_FIX]
    assert found[0].reasons[0].startswith("shares typeerror, retryafter")
    assert error_terms(error)[:2] == ["typeerror", "retryafter"]  # identifiers first


def test_no_signal_predicts_nothing(shop: tuple[MemoryService, dict[str, int]]) -> None:
    service, _ = shop
    assert predict(service, Signals(project=SHOP), 5, now=NOW) == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Retries in src/api/client.ts are capped", "mentions src/api/client.ts"),
        ("Retries in client.ts are capped", "mentions client.ts"),
        ("The api client retries", "mentions the api client"),
        ("The API-client retries", "mentions the api client"),
        ("Every client retries", "mentions client"),
        ("myclient.ts retries", None),
        ("clients retry", None),
    ],
)
def test_how_a_memory_names_a_file(text: str, why: str | None) -> None:
    signal = file_signal("src/api/client.ts")
    assert signal is not None
    found = mention(signal, text)
    assert (found[1] if found else None) == why


def test_a_generic_name_needs_more_than_its_stem() -> None:
    signal = file_signal("./src/ui/index.tsx")
    assert signal is not None and signal.path == "src/ui/index.tsx"
    assert mention(signal, "The index page lists products") is None
    assert mention(signal, "index.tsx re-exports the components") is not None


def test_the_command_prints_the_reasons_and_json(
    shop: tuple[MemoryService, dict[str, int]],
    capsys: pytest.CaptureFixture[str],
    settings: Any,
) -> None:
    service, ids = shop
    service.close()
    data = ["--data-dir", str(settings.data_dir)]
    argv = ["predict", "--file", "src/api/client.ts", "--branch", "feature/retry"]
    assert main([*data, *argv, "--project", SHOP, "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"#{ids[NAMED]}")
    assert "mentions client.ts" in out and "learnt while editing src/api/client.ts" in out
    assert main([*data, *argv, "--project", SHOP, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload[0]["id"] == ids[NAMED] and payload[0]["parts"]["file"] > 0
    assert main([*data, "predict", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert "--file PATH, --branch NAME or --error TEXT" in error
    service.reopen()


def test_the_readme_lines_run_as_written(
    shop: tuple[MemoryService, dict[str, int]],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service, ids = shop
    service.close()
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    block = readme.split("### Predictive context", 1)[1].split("```sh\n", 1)[1].split("```")[0]
    lines = block.strip().splitlines()
    assert len(lines) == 3
    monkeypatch.setenv("MEMORY_APP_DATA_DIR", str(settings.data_dir))
    home = os.environ["HOME"]
    outputs = []
    for line in lines:
        words = [home + w[1:] if w.startswith("~/") else w for w in shlex.split(line)]
        assert words[0] == "memory-app"
        assert main(words[1:]) == 0, line
        outputs.append(capsys.readouterr().out)
    assert outputs[0].startswith(f"#{ids[NAMED]} ")  # about the file, on the branch
    assert outputs[1].startswith(f"#{ids[ERROR_FIX]} ")
    assert json.loads(outputs[2]) == []  # no memory of that project
    service.reopen()


def test_a_store_path_is_read_from_the_data_dir(tmp_path: Path) -> None:
    """`predict` on an empty store answers, without a traceback."""
    assert main(["--data-dir", str(tmp_path / "d"), "predict", "--branch", "main"]) == 0


NEEDED = "The retry budget is shared with the payments service: keep both in step."


def test_a_predicted_memory_brings_its_linked_memory_along(
    shop: tuple[MemoryService, dict[str, int]],
) -> None:
    """As context assembly does: right after the memory that needs it, marked, within
    the limit, never twice, and never a memory the moment may not see."""
    service, ids = shop
    _, needed = service.remember(NEEDED, project=SHOP)
    signals = Signals(project=SHOP, branch="feature/retry", files=("src/api/client.ts",))
    before = predict(service, signals, 5, now=NOW)
    assert needed.id not in [p.id for p in before]  # nothing about the file or branch

    service.add_link(ids[NAMED], needed.id, "depends-on")
    service.add_link(ids[NAMED], ids[SILENT], "related")  # both predicted: no duplicate
    service.add_link(ids[SILENT], ids[BLOG_NAMED], "related")  # another project's
    found = predict(service, signals, 5, now=NOW)
    assert [p.id for p in found[:3]] == [ids[NAMED], needed.id, ids[SILENT]]
    brought = found[1]
    assert brought.linked_to == ids[NAMED]
    assert brought.reasons[0] == f"linked to #{ids[NAMED]} (needed by it)"
    assert brought.to_json()["linked_to"] == ids[NAMED]
    assert len(found) == 5 and len({p.id for p in found}) == 5
    assert ids[BLOG_NAMED] not in [p.id for p in found]
    # The last prediction made room for it.
    assert [p.id for p in found if p.linked_to is None] == [p.id for p in before[:4]]
    assert [p.id for p in predict(service, signals, 2, now=NOW)] == [ids[NAMED], needed.id]

    # The hook's path (its own sqlite3 connection, standard library only) says the same.
    import sqlite3

    assert service.db.path is not None
    with sqlite3.connect(f"file:{service.db.path}?mode=ro", uri=True) as conn:
        direct = predict(conn, signals, 5, now=NOW)
    conn.close()
    assert [(p.id, p.linked_to) for p in direct] == [(p.id, p.linked_to) for p in found]

    # A removed link brings nothing any more.
    service.remove_link(ids[NAMED], needed.id, "depends-on")
    assert needed.id not in [p.id for p in predict(service, signals, 5, now=NOW)]
