"""The Claude contradiction judge (seed 004 "Contradiction Scanner"), optional.

Asked only about the few candidate pairs the full-text search found, and only once per
pair (the detector caches every verdict). It names one of the rules judge's relations
(update, contradiction, restatement, compatible: see `judge.RELATIONS`), so an update
can supersede its older memory while a contradiction waits for a person. It fails open:
any API problem or unusable answer returns None and the detector uses the rule verdict
instead, so a flaky network never blocks memorizing and never invents a conflict.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import anthropic
import pydantic

from memory_app.conflicts.judge import CONFLICTING, Verdict
from memory_app.extract.claude import message_problem
from memory_app.extract.claude_settings import ClaudeSettings

log = logging.getLogger(__name__)

_PROMPT = """Two memories an AI coding assistant keeps about the same user or project. B was
learnt after A.

A (older): {older}
B (newer): {newer}

How does B relate to A? Answer with exactly one `relation`:
- "update": the same rule with a new value (another literal, suffix, number, tool,
  library, service or naming pattern), and B presents it as a change ("switched to",
  "from now on", "no longer", "now", "instead of", "changed to") or names A's value as
  the one it replaces. B supersedes A.
- "contradiction": both cannot be followed, and nothing in B says it replaces A:
  opposite stances on the same thing ("always X" vs "never X"), or a different value
  for the same rule stated flatly, with no sign of a change, as if both held.
- "restatement": the same rule said again, agreeing, even in other words or with other
  polarity words ("use pytest, never unittest" and "we use pytest and not unittest").
- "compatible": both can be followed: different things, or one only adds detail to
  the other.

Also give a `reason` of at most ten words (e.g. "indentation changed from tabs to
spaces")."""

Relation = Literal["update", "contradiction", "restatement", "compatible"]


class JudgeAnswer(pydantic.BaseModel):
    relation: Relation
    reason: str = pydantic.Field(max_length=200, description="At most ten words")


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
            # The SDK passes any 200 body through: a proxy's page or `{"foo": 1}` must
            # fall back to the rules, not crash the write that asked.
            problem = message_problem(message)
            if problem is not None:
                raise ValueError(f"the answer is not a Messages response: {problem}")
            text = "".join(b.text for b in message.content if b.type == "text")
            answer = JudgeAnswer.model_validate_json(text)
        except (anthropic.AnthropicError, ValueError) as exc:
            log.warning("Claude could not judge a pair, using the rules instead: %s", exc)
            return None
        return Verdict(
            answer.relation in CONFLICTING,
            answer.reason.strip() or "Claude",
            judge=self.name,
            relation=answer.relation,
        )
