"""Weekly compression with Claude configured: the model writes the digest through the real
SDK (mocked HTTP transport); a failing call falls back to the deterministic digest with a
note; a dry run never calls the model; every call's tokens are recorded."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.config import Settings
from memory_app.service import MemoryService
from tests.unit.extract.fake_anthropic import FakeMessagesAPI, api_error, make_claude
from tests.unit.maintenance.test_jobs import add

OLD = datetime.now(UTC) - timedelta(days=60)


def topics(body: dict[str, Any]) -> dict[str, Any]:
    ids = [int(i) for i in re.findall(r'"id": (\d+)', body["messages"][0]["content"])]
    return {
        "topics": [{"topic": "testing", "summary": "Fixtures for database tests.", "item_ids": ids}]
    }


def open_with(settings: Settings, api: FakeMessagesAPI) -> MemoryService:
    service = MemoryService.open(settings, make_claude(api))
    add(service, "Use pytest fixtures for database tests", extracted_at=OLD, tags=["testing"])
    add(service, "Run the slow tests nightly only", extracted_at=OLD, tags=["testing"])
    return service


def test_claude_writes_the_digest_and_its_tokens_are_recorded(settings: Settings) -> None:
    api = FakeMessagesAPI(topics)
    service = open_with(settings, api)
    try:
        dry = service.run_maintenance("weekly", dry_run=True)
        assert api.calls == 0 and dry.result["categories_to_compress"] == 1
        run = service.run_maintenance("weekly")
        assert api.calls == 1 and run.status == "success", run.error
        summary = service.get_category("coding_preferences").summary_markdown
        assert "- **testing** (2): Fixtures for database tests." in summary
        assert [r.kind for r in service.extraction_runs()] == ["compress"]
    finally:
        service.close()


def test_a_failing_model_falls_back_to_the_deterministic_digest(settings: Settings) -> None:
    api = FakeMessagesAPI(api_error(500, "api_error", "overloaded"))
    service = open_with(settings, api)
    try:
        run = service.run_maintenance("weekly")
        assert run.status == "success", run.error
        assert "could not compress" in run.result["notes"][0]
        summary = service.get_category("coding_preferences").summary_markdown
        assert "- **testing** (2): Use pytest fixtures for database tests" in summary
        assert [r.status for r in service.extraction_runs()] == ["error"]
    finally:
        service.close()
