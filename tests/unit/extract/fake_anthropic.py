"""A stand-in for the Anthropic Messages API behind the real SDK.

The SDK (`anthropic` 2.x, built on httpx2) runs for real: request building, retries with
backoff, error classes, response parsing. Only the HTTP transport is replaced, by a
handler that answers each request with the next scripted reply in the API's own JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2

from memory_app.extract.claude import ClaudeExtractor
from memory_app.extract.claude_settings import ClaudeSettings

TEST_KEY = "test-key"

Reply = dict[str, Any] | str | httpx2.Response | Exception | Callable[[dict[str, Any]], Any]


def message(
    payload: dict[str, Any] | str,
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 1000,
    output_tokens: int = 200,
    model: str = "claude-haiku-4-5",
) -> httpx2.Response:
    """A 200 Messages API response whose text is `payload` (JSON-encoded unless a str)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return httpx2.Response(
        200,
        json={
            "id": "msg_01TEST",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
    )


def api_error(status: int, kind: str, text: str) -> httpx2.Response:
    """An error response as the API sends it; retry-after-ms keeps SDK retries instant."""
    return httpx2.Response(
        status,
        json={"type": "error", "error": {"type": kind, "message": text}},
        headers={"retry-after-ms": "1", "request-id": "req_TEST"},
    )


class FakeMessagesAPI:
    """Answers each request with the next reply; the last reply repeats."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[httpx2.Headers] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(request.headers)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if callable(reply) and not isinstance(reply, httpx2.Response | Exception):
            reply = reply(body)
        if isinstance(reply, Exception):
            if isinstance(reply, httpx2.TransportError):
                raise type(reply)(str(reply), request=request)
            raise reply
        if isinstance(reply, httpx2.Response):
            return reply
        return message(reply)

    @property
    def calls(self) -> int:
        return len(self.requests)

    def prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests]


def schema_title(body: dict[str, Any]) -> str:
    """Which answer a request asks for: "ExtractionResponse" or "EvolutionResponse"."""
    return body["output_config"]["format"]["schema"].get("title", "")


def make_claude(
    api: FakeMessagesAPI,
    *,
    max_retries: int = 0,
    settings: ClaudeSettings | None = None,
    api_key: str = TEST_KEY,
) -> ClaudeExtractor:
    client = anthropic.Anthropic(
        api_key=api_key,
        http_client=httpx2.Client(transport=httpx2.MockTransport(api)),
        max_retries=max_retries,
    )
    return ClaudeExtractor(settings=settings or ClaudeSettings(concurrency=1), client=client)
