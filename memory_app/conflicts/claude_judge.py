"""The Claude contradiction judge (seed 004 "Contradiction Scanner"), optional.

Asked only about the few candidate pairs the full-text search found, and only once per
pair (the detector caches every verdict). It fails open: any API problem or unusable
answer returns None and the detector uses the rule verdict instead, so a flaky network
never blocks memorizing and never invents a conflict.
"""

from __future__ import annotations

import logging
from typing import Any

import anthropic
import pydantic

from memory_app.conflicts.judge import Verdict
from memory_app.extract.claude_settings import ClaudeSettings

log = logging.getLogger(__name__)

_PROMPT = """Two memories an AI coding assistant keeps about the same user or project.
Do they contradict each other, so that both cannot be followed at the same time? A newer
statement that changes an earlier choice ("we switched from X to Y") contradicts it.
Statements about different things, or that agree, do not contradict.

A (older): {older}
B (newer): {newer}

Answer with `contradicts` and a `reason` of at most ten words (e.g. "tabs vs spaces
for indentation")."""


class JudgeAnswer(pydantic.BaseModel):
    contradicts: bool
    reason: str = pydantic.Field(max_length=200)


class ClaudeJudge:
    """Judges one pair per request with a small structured answer."""

    name = "claude"

    def __init__(self, client: anthropic.Anthropic, settings: ClaudeSettings | None = None):
        self._client = client
        self.settings = settings or ClaudeSettings()

    def __call__(self, older: str, newer: str) -> Verdict | None:
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": 256,
            "messages": [{"role": "user", "content": _PROMPT.format(older=older, newer=newer)}],
            "output_config": {
                "format": {
                    "type": "json_schema",
                    "schema": anthropic.transform_schema(JudgeAnswer),
                }
            },
        }
        try:
            message = self._client.messages.create(**kwargs)
            text = "".join(b.text for b in message.content if b.type == "text")
            answer = JudgeAnswer.model_validate_json(text)
        except (anthropic.AnthropicError, ValueError) as exc:
            log.warning("Claude could not judge a pair, using the rules instead: %s", exc)
            return None
        return Verdict(answer.contradicts, answer.reason.strip() or "Claude", judge=self.name)
