"""What the model contributed to one retrieval, or why it did not, and the tokens it
cost: the report every caller shows (`--json`'s "assisted", the MCP tools', the API's)
and the usage run the dashboard counts."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_app.domain.usage import CallUsage, TokenMeter

if TYPE_CHECKING:
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

UNAVAILABLE = "assisted retrieval unavailable"
NO_TASK = "there is no task to search for"
USAGE_KIND = "retrieve"


class Unavailable(Exception):
    """Claude could not help; the message is the reason shown to the person."""


@dataclass(frozen=True)
class CategorySummary:
    key: str
    name: str
    text: str

    def render(self) -> str:
        return f"## {self.name} (summary)\n{self.text.strip()}\n"


@dataclass(frozen=True)
class Assistance:
    """What the model contributed to one retrieval, or why it did not."""

    used: bool
    queries: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    ignored_categories: tuple[str, ...] = ()  # named by the model, unknown to the store
    sufficient: bool | None = None  # None: not asked, or the check failed
    check_failed: str | None = None  # why the check has no answer (the queries still count)
    fallback: str | None = None  # why the offline ranking alone was returned
    summaries: tuple[CategorySummary, ...] = ()  # lead the answer when sufficient
    added: tuple[int, ...] = ()  # memories only the synthesized queries found
    usage: CallUsage | None = None

    @property
    def note(self) -> str | None:
        """The line a caller shows when the model was not used."""
        return f"{UNAVAILABLE}: {self.fallback}" if self.fallback else None

    def to_json(self) -> dict[str, Any]:
        usage = self.usage
        return {
            "used": self.used,
            "queries": list(self.queries),
            "categories": list(self.categories),
            "ignored_categories": list(self.ignored_categories),
            "sufficient": self.sufficient,
            "check_failed": self.check_failed,
            "fallback": self.note,
            "summaries": [{"key": s.key, "name": s.name, "text": s.text} for s in self.summaries],
            "added": list(self.added),
            "tokens": {
                "requests": usage.requests if usage else 0,
                "input": usage.input_tokens if usage else 0,
                "output": usage.output_tokens if usage else 0,
                "cost_usd": usage.cost_usd if usage else None,
            },
        }


class Meter(TokenMeter):
    """The requests and tokens of one assisted call (recorded as kind `retrieve`)."""

    def call_usage(self, model: str, error: str | None) -> CallUsage | None:
        """None when no request was sent (nothing to record)."""
        return self.usage(USAGE_KIND, model, error) if self.requests else None


def fallback(reason: str, meter: Meter, model: str) -> Assistance:
    """The report of a call that fell back to the offline ranking, and why."""
    log.info("%s: %s", UNAVAILABLE, reason)
    return Assistance(used=False, fallback=reason, usage=meter.call_usage(model, reason))


def record_usage(service: MemoryService, usage: CallUsage | None) -> None:
    """The requests' tokens in the usage table, beside the extractor's runs."""
    if usage is None:
        return
    from memory_app.store import usage as usage_store

    try:
        with service.db.writing() as session:
            usage_store.record_run(session, usage, extractor="claude", source="retrieval")
    except Exception:  # a read-only store must not fail a retrieval
        log.exception("could not record the tokens of an assisted retrieval")
