"""Failing open (issue 15): a conversation whose extraction failed is kept "pending" and
extracted again later: by `retry_pending`, by importing it again, by `reextract`, and from
the command line (`memory-app import` lists it, `memory-app retry` retries it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memory_app.cli as cli
from memory_app.extract.base import ExtractedItem
from memory_app.operations.memorize import MAX_PAID_FAILURES
from memory_app.service import MemoryService
from tests.helpers import ScriptedExtractor, conversation
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude

KEY = "ghp_" + "a1B2c3D4e5" * 3 + "ZZZZZZ"
CHAT = (
    "User: We always use async/await, never .then() chains, in this codebase.\n\n"
    f"Assistant: Understood, async/await everywhere. (Your token {KEY} is in the log.)\n"
)
TRANSCRIPT = conversation(
    ("We always use async/await, never .then() chains, in this codebase.", "Understood.")
)
RULE = ExtractedItem("coding_preferences", "Use async/await, never .then() chains.", 0.9)
PNPM_RULE = "Please use pnpm for every install in this repo, never npm."
DOWN = RuntimeError("the Anthropic API is overloaded (HTTP 529)")


@pytest.fixture
def chat_file(tmp_path: Path) -> Path:
    path = tmp_path / "style.md"
    path.write_text(CHAT)
    return path


def counts(service: MemoryService) -> tuple[int, int]:
    stats = service.get_stats()
    return stats.resources, stats.items


# -- the service -----------------------------------------------------------------------------


def test_a_failed_extraction_keeps_the_conversation_redacted_and_pending(
    open_service: Any, chat_file: Path
) -> None:
    service = open_service(ScriptedExtractor(fail_with=DOWN))
    report = service.import_paths([chat_file])

    (result,) = report.results
    assert result.status == "pending" and report.errors == [] and report.pending == [result]
    assert result.reason == "scripted extractor failed: the Anthropic API is overloaded (HTTP 529)"
    assert counts(service) == (1, 0)
    record, text = service.get_resource(result.resource_id)
    assert (record.status, record.status_reason) == ("pending", result.reason)
    assert KEY not in text and "[REDACTED:" in text  # redacted as always
    assert result.redactions == 1
    payload = report.to_json()
    assert payload["errors"] == []
    assert payload["pending"] == [
        {"source": str(chat_file), "reason": result.reason, "resource_id": result.resource_id}
    ]


def test_retry_pending_learns_from_it_with_a_working_extractor(open_service: Any) -> None:
    failing = open_service(ScriptedExtractor(fail_with=DOWN))
    kept = failing.memorize(TRANSCRIPT)
    failing.close()
    service = open_service(ScriptedExtractor(items=[RULE], name="working"))

    report = service.retry_pending()

    (result,) = report.results
    assert result.status == "success" and result.resource_id == kept.resource_id
    assert result.source == f"conversation #{kept.resource_id}"
    (item,) = service.list_items()
    assert item.content == RULE.content and item.source_resource_id == kept.resource_id
    assert item.extractor == "working"
    record, _ = service.get_resource(kept.resource_id)
    assert (record.status, record.status_reason, record.item_count) == ("memorized", None, 1)
    assert RULE.content in service.get_category("coding_preferences").summary_markdown
    assert service.pending_ids() == []
    assert service.retry_pending().results == ()  # nothing left to retry


def test_a_retry_that_fails_again_stays_pending_with_the_new_reason(open_service: Any) -> None:
    service = open_service(ScriptedExtractor(fail_with=DOWN))
    kept = service.memorize(TRANSCRIPT)
    service.extractor = ScriptedExtractor(fail_with=TimeoutError("timed out"))

    (result,) = service.retry_pending().results

    assert result.status == "pending" and result.reason == "scripted extractor failed: timed out"
    record, _ = service.get_resource(kept.resource_id)
    assert (record.status, record.status_reason) == ("pending", result.reason)
    assert counts(service) == (1, 0)


def test_importing_a_pending_file_again_retries_it_instead_of_skipping(
    open_service: Any, chat_file: Path
) -> None:
    service = open_service(ScriptedExtractor(fail_with=DOWN))
    (first,) = service.import_paths([chat_file]).results
    (still,) = service.import_paths([chat_file]).results  # the API is still down
    assert still.status == "pending" and still.resource_id == first.resource_id

    service.extractor = ScriptedExtractor(items=[RULE])
    again = service.import_paths([chat_file])

    (result,) = again.results
    assert result.status == "success" and result.resource_id == first.resource_id
    assert result.source == str(chat_file) and len(result.items_added) == 1
    assert counts(service) == (1, 1)  # extracted in place, not copied
    (last,) = service.import_paths([chat_file]).results
    assert last.status == "skipped" and "already imported" in (last.reason or "")


def test_reextract_of_a_pending_conversation_memorizes_it(open_service: Any) -> None:
    service = open_service(ScriptedExtractor(fail_with=DOWN))
    kept = service.memorize(TRANSCRIPT)
    service.extractor = ScriptedExtractor(items=[RULE])
    assert service.reextract(kept.resource_id).status == "success"
    assert service.resources()[0].status == "memorized"


def test_paid_unusable_answers_stop_the_automatic_retries(open_service: Any) -> None:
    api = FakeMessagesAPI("not json")  # read (and paid for) every time, never usable
    service = open_service(make_claude(api))
    kept = service.memorize(TRANSCRIPT)
    for _ in range(MAX_PAID_FAILURES - 1):
        assert service.pending_ids(automatic=True) == [kept.resource_id]
        (result,) = service.retry_pending(automatic=True).results
        assert result.status == "pending"
    assert "no longer retried automatically" in (result.reason or "")
    assert service.pending_ids(automatic=True) == []
    assert service.retry_pending(automatic=True).results == ()
    assert service.pending_ids() == [kept.resource_id]  # a person may still retry it
    # An API that was down costs nothing and never stops the retries.
    down = open_service(make_claude(FakeMessagesAPI(api_error(529, "overloaded_error", "x"))))
    other = down.memorize(conversation((PNPM_RULE, "Switched the scripts to pnpm."), session="2"))
    for _ in range(MAX_PAID_FAILURES + 1):
        down.retry_pending(automatic=True)
    assert other.resource_id in down.pending_ids(automatic=True)


# -- the command line ------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def use_claude(monkeypatch: pytest.MonkeyPatch, answer: Any) -> FakeMessagesAPI:
    api = FakeMessagesAPI(answer)
    monkeypatch.setattr(cli, "make_extractor", lambda choice: make_claude(api))
    return api


OVERLOADED = "claude extractor failed: the Anthropic API is overloaded (HTTP 529)"
PNPM = {
    "coding_preferences": [
        {"content": "Use async/await, never .then() chains.", "confidence": 0.9, "context": ""}
    ]
}


def test_import_lists_a_pending_conversation_and_exits_0(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    chat_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = str(tmp_path / "d")
    use_claude(monkeypatch, api_error(529, "overloaded_error", "Overloaded"))
    code, out, _ = run(
        capsys, "import", str(chat_file), "--extractor", "claude", "--data-dir", data
    )
    assert code == 0, out
    lines = out.splitlines()
    assert "Conversations added: 1" in lines and "Memories extracted: 0" in lines
    start = lines.index("Pending (extraction failed, kept, will retry): 1")
    assert lines[start + 1 : start + 3] == [
        f"  {chat_file}: {OVERLOADED}",
        "  Retry now with: memory-app retry",
    ]
    assert not any(line.startswith("Errors:") for line in lines)

    code, out, _ = run(capsys, "retry", "--extractor", "claude", "--json", "--data-dir", data)
    assert code == 1  # still overloaded: the extraction asked for failed again
    payload = json.loads(out)
    assert payload["retried"] == 1 and payload["memorized"] == []
    assert payload["pending"] == [
        {"source": f"conversation #1 ({chat_file})", "reason": OVERLOADED, "resource_id": 1}
    ]

    use_claude(monkeypatch, PNPM)
    code, out, _ = run(capsys, "retry", "--extractor", "claude", "--data-dir", data)
    assert code == 0, out
    assert out.splitlines()[:4] == [
        "Pending conversations retried: 1",
        "Memorized now: 1",
        "Memories extracted: 1",
        "Duplicates reinforced: 0",
    ]
    assert "Still pending" not in out

    code, out, _ = run(capsys, "retry", "--data-dir", data)
    assert (code, out.strip()) == (0, "No conversations are pending: nothing to retry.")


def test_import_json_lists_pending_apart_from_errors(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    chat_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_claude(monkeypatch, api_error(529, "overloaded_error", "Overloaded"))
    data = str(tmp_path / "d")
    code, out, _ = run(
        capsys, "import", str(chat_file), "--extractor", "claude", "--json", "--data-dir", data
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["errors"] == [] and payload["resources_added"] == 1
    assert [p["reason"] for p in payload["pending"]] == [OVERLOADED]


def test_import_still_exits_1_when_a_file_was_not_stored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, chat_file: Path
) -> None:
    events = tmp_path / "events.jsonl"  # JSON lines, but no conversation's: not imported
    events.write_text('{"event": "click", "x": 1}\n', encoding="utf-8")
    data = str(tmp_path / "d")
    code, out, _ = run(capsys, "import", str(chat_file), str(events), "--data-dir", data)
    assert code == 1 and "Errors: 1" in out and "Pending" not in out


def test_retry_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    words = " ".join(capsys.readouterr().out.split())  # however argparse wraps it
    assert "retry extract the conversations kept pending (their extraction failed)" in words
