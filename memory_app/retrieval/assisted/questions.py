"""The two questions of the read path, asked of Claude: how to search for what a task
needs (`SearchPlan`: keyword queries and categories) and whether the chosen categories'
summaries already answer it (`Sufficiency`). Each is one bounded request: a capped
prompt, a capped answer, a JSON schema the answer must follow, and the assisted call's
deadline; anything that goes wrong becomes `Unavailable` with the reason to show."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anthropic
import pydantic

from memory_app.domain.records import CategoryInfo
from memory_app.extract.claude import message_problem
from memory_app.extract.claude_settings import ClaudeSettings
from memory_app.extract.credentials import NO_KEY_MESSAGE, ApiKey
from memory_app.retrieval.assisted.deadline import within
from memory_app.retrieval.assisted.report import CategorySummary, Meter, Unavailable

M = TypeVar("M", bound=pydantic.BaseModel)

MAX_QUERIES = 4


@dataclass(frozen=True)
class AssistLimits:
    """The caps of one assisted retrieval (see the package docstring for the figures)."""

    input_chars: int = 8_000  # one request's prompt, at most (about 2,000 tokens)
    task_chars: int = 2_000  # the task as sent
    description_chars: int = 120  # one category's description as sent
    summary_chars: int = 1_500  # one category summary as sent to the check
    plan_max_tokens: int = 400  # the queries-and-categories answer
    check_max_tokens: int = 120  # the sufficiency answer
    timeout: float = 20.0  # seconds for the whole assisted call
    max_retries: int = 1  # the SDK's retries of 429/5xx/timeouts, inside `timeout`
    check_sufficiency: bool = True

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError("the assisted retrieval timeout must be positive")


class SearchPlan(pydantic.BaseModel):
    """The first answer: how to search for what the task needs."""

    queries: list[str] = pydantic.Field(
        description="2 to 4 short keyword queries (words only, no sentences)"
    )
    categories: list[str] = pydantic.Field(description="keys of the categories listed")


REASON_CHARS = 200  # the sufficiency answer's reason, as kept


class Sufficiency(pydantic.BaseModel):
    """The second answer: do the summaries alone answer the task? A wordier reason than
    asked for is cut, not refused: the verdict is what matters."""

    sufficient: bool
    reason: str = pydantic.Field(default="", description="At most ten words")

    @pydantic.field_validator("reason", mode="before")
    @classmethod
    def _cut_reason(cls, value: object) -> object:
        return _cut(value, REASON_CHARS) if isinstance(value, str) else value


class RetrievalAssistant:
    """Asks Claude the two questions of the read path; `Unavailable` when it cannot."""

    def __init__(
        self,
        client: anthropic.Anthropic | None,
        settings: ClaudeSettings | None = None,
        limits: AssistLimits | None = None,
        *,
        missing: str = NO_KEY_MESSAGE,
        key: ApiKey | None = None,
    ) -> None:
        """`client` None: not configured (every call falls back with `missing`)."""
        self._client = client
        self.settings = settings or ClaudeSettings()
        self.limits = limits or AssistLimits()
        self._missing = missing
        self._key = key

    @property
    def configured(self) -> bool:
        return self._client is not None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    # -- the two questions -----------------------------------------------------------

    def plan_prompt(self, task: str, categories: Sequence[CategoryInfo]) -> str:
        limits = self.limits
        lines = [
            f"- {c.key}: {c.name}, {_cut(c.description, limits.description_chars)} "
            f"({c.item_count} memories)"
            for c in categories
        ]
        head = (
            "An AI coding assistant keeps memories about its user and projects. They are "
            "found by full-text search (a memory is found only by the words it contains), "
            "so a question worded differently from a memory misses it.\n\n"
            f"Task or question: {_cut(task, limits.task_chars)}\n\nCategories (key: name, "
            "what it holds, how many memories):\n"
        )
        tail = (
            "\n\nAnswer with:\n"
            f"- `queries`: 2 to {MAX_QUERIES} short keyword queries that would find the "
            "memories this needs: synonyms and the concrete names it implies (tools, "
            'libraries, services, files, identifiers); e.g. "which database" -> '
            '"database PostgreSQL MySQL SQLite". Words only, no sentences.\n'
            "- `categories`: the keys of the categories above that may hold the answer "
            "(an empty list if unsure)."
        )
        return head + _fit(lines, limits.input_chars - len(head) - len(tail)) + tail

    def check_prompt(self, task: str, summaries: Sequence[CategorySummary]) -> str:
        limits = self.limits
        head = (
            "An AI coding assistant keeps memories about its user and projects, with a "
            f"summary per category.\n\nTask or question: {_cut(task, limits.task_chars)}\n\n"
            "Summaries of the categories that may answer it:\n"
        )
        tail = (
            "\n\nDo these summaries alone answer the task well enough that the individual "
            "memories are not needed? `sufficient`: true or false; `reason`: at most ten words."
        )
        blocks = [
            f"### {s.name} ({s.key})\n{_cut(s.text, limits.summary_chars)}" for s in summaries
        ]
        return head + _fit(blocks, limits.input_chars - len(head) - len(tail)) + tail

    def plan(
        self, task: str, categories: Sequence[CategoryInfo], meter: Meter, deadline: float
    ) -> SearchPlan:
        return self._ask(
            self.plan_prompt(task, categories),
            SearchPlan,
            self.limits.plan_max_tokens,
            meter,
            deadline,
        )

    def check(
        self, task: str, summaries: Sequence[CategorySummary], meter: Meter, deadline: float
    ) -> Sufficiency:
        return self._ask(
            self.check_prompt(task, summaries),
            Sufficiency,
            self.limits.check_max_tokens,
            meter,
            deadline,
        )

    # -- one bounded request ---------------------------------------------------------

    def _ask(
        self, prompt: str, answer: type[M], max_tokens: int, meter: Meter, deadline: float
    ) -> M:
        if self._client is None:
            raise Unavailable(self._missing)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Unavailable(f"no answer within {self.limits.timeout:g} s")
        client = self._client.with_options(
            timeout=anthropic.Timeout(
                remaining, connect=min(remaining, self.settings.connect_timeout)
            ),
            max_retries=self.limits.max_retries,
        )
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": prompt}],
            "output_config": {
                "format": {"type": "json_schema", "schema": anthropic.transform_schema(answer)}
            },
        }
        meter.request()

        def call() -> anthropic.types.Message:
            message = client.messages.create(**kwargs)
            if message_problem(message) is None:
                meter.add(message.usage)
            return message

        message = within(call, deadline, self.limits.timeout, self._reason)
        problem = message_problem(message)
        if problem is not None:
            raise Unavailable(
                f"the API answered with a body that is not a Messages response: {problem}"
            )
        if message.stop_reason == "max_tokens":
            raise Unavailable(f"the answer was cut off at max_tokens={max_tokens}")
        text = "".join(b.text for b in message.content if b.type == "text")
        try:
            return answer.model_validate_json(text)
        except ValueError:
            raise Unavailable(f"the answer is not a valid {answer.__name__}") from None

    def _reason(self, exc: BaseException) -> str:
        retries = self.limits.max_retries
        after = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
        status = getattr(exc, "status_code", None)
        if isinstance(exc, anthropic.APITimeoutError):
            text = f"the request to Claude timed out{after}"
        elif isinstance(exc, anthropic.APIConnectionError):
            text = f"could not reach the Anthropic API (network error){after}"
        elif isinstance(exc, anthropic.AuthenticationError):
            text = "invalid API key: Anthropic rejected it (HTTP 401)"
        elif isinstance(exc, anthropic.APIStatusError) and status is not None and status >= 500:
            text = f"the Anthropic API failed (HTTP {status}){after}"
        elif isinstance(exc, anthropic.APIStatusError):
            text = f"the Anthropic API refused the request (HTTP {status})"
        elif isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
            text = "the API answered with a body that is not JSON"
        else:
            text = f"the Anthropic client failed: {type(exc).__name__}"
        return self._key.scrub(text) if self._key is not None else text


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit(blocks: Sequence[str], room: int) -> str:
    """The blocks, one a line, as many as fit in `room` characters (the rest left out)."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        if used + len(block) + 1 > room:
            break
        kept.append(block)
        used += len(block) + 1
    return "\n".join(kept)
