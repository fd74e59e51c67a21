"""What model calls cost: token counts per run, a price table, and totals for the dashboard.

Prices are recorded with each run (not recomputed later), so a change to the table never
rewrites what a past import was estimated to cost.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

USAGE_KINDS = ("extract", "evolve", "compress", "retrieve", "episode")

# USD per million tokens (input, output), matched by model-id prefix, longest first.
# Source: the models overview and pricing pages of platform.claude.com (checked when this
# table was written). These are list prices for the standard tier: batch and prompt-cache
# discounts are ignored, and cache reads/writes are counted as plain input, so the figure
# is an upper-bound estimate, not a bill. A model missing here gets no cost (None) rather
# than a guess; add it when a new family ships.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-haiku-5-5": (0.10, 0.50),  # "from": the lowest tier of a tiered price
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-sonnet-5-5": (2.00, 10.00),
    "claude-sonnet-5": (2.00, 10.00),
    "claude-sonnet-4": (3.00, 15.00),  # 4, 4.5, 4.6
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-opus-5-5": (4.00, 20.00),
    "claude-opus-5": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4-0": (15.00, 75.00),
    "claude-opus-4-2025": (15.00, 75.00),
    "claude-opus-4": (5.00, 25.00),  # 4.5 and later
    "claude-fable-5-2": (8.00, 40.00),
    "claude-fable-5-1": (10.00, 50.00),
}
_BY_LENGTH = sorted(PRICES_PER_MTOK, key=len, reverse=True)


def price_for(model: str) -> tuple[float, float] | None:
    """The (input, output) USD price per million tokens of a model, if known."""
    name = model.strip().lower()
    for prefix in _BY_LENGTH:
        if name.startswith(prefix):
            return PRICES_PER_MTOK[prefix]
    return None


def billed_input_tokens(usage: Any) -> int:
    """A Messages API answer's input tokens, cache writes and reads included (all three
    are billed as input here: see PRICES_PER_MTOK)."""
    return (
        (usage.input_tokens or 0)
        + (getattr(usage, "cache_creation_input_tokens", None) or 0)
        + (getattr(usage, "cache_read_input_tokens", None) or 0)
    )


class TokenMeter:
    """Requests and tokens of one step (an extraction, an assisted search), added up
    across the threads its requests answer on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.started = time.monotonic()

    def request(self) -> None:
        with self.lock:
            self.requests += 1

    def add(self, usage: Any) -> None:
        tokens_in = billed_input_tokens(usage)
        with self.lock:
            self.input_tokens += tokens_in
            self.output_tokens += usage.output_tokens or 0

    def usage(
        self, kind: str, model: str, error: str | None, category: str | None = None
    ) -> CallUsage:
        return CallUsage(
            kind=kind,
            model=model,
            requests=self.requests,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            status="error" if error else "success",
            error=error,
            category=category,
        )


def estimate_cost(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """Estimated USD cost of the tokens, or None for a model with no known price."""
    price = price_for(model)
    if price is None:
        return None
    cost = (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
    return round(cost, 6)


@dataclass(frozen=True)
class CallUsage:
    """The tokens one extractor step (one or more API requests) consumed."""

    kind: str  # extract | evolve | compress
    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    duration_ms: int = 0
    status: str = "success"  # success | error
    error: str | None = None
    category: str | None = None  # for evolution: the category whose summary it merged

    @property
    def cost_usd(self) -> float | None:
        return estimate_cost(self.model, self.input_tokens, self.output_tokens)


@dataclass(frozen=True)
class ExtractionRunRecord:
    """One recorded extractor step, as the dashboard or a usage report lists it."""

    id: int
    at: datetime
    kind: str
    extractor: str
    model: str | None
    status: str
    requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    duration_ms: int = 0
    resource_id: int | None = None
    source: str | None = None
    category: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = self.at.isoformat()
        return data


@dataclass(frozen=True)
class ModelUsage:
    model: str
    runs: int
    requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class UsageSummary:
    """Totals of recorded model usage; `unpriced_runs` counts runs whose model had no price
    (their tokens are in the totals, their cost is not)."""

    runs: int = 0
    errors: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    by_model: tuple[ModelUsage, ...] = ()
    unpriced_runs: int = 0
    since: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["since"] = self.since.isoformat() if self.since else None
        data["cost_usd"] = round(self.cost_usd, 6)
        return data
