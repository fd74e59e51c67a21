"""Whether the window can ask Claude, and the clients for its one-off requests (reading an
episode, assisted context).

The same rule as Sources' "Extract with Claude": Claude can be asked when it is the
extractor in use (Settings > Extractor) or an Anthropic API key is in the environment or
the keyring. The extractor's own client is reused when it is Claude's, so the key,
model and transport chosen in Settings apply (and tests reach the SDK's HTTP transport).
The keyring may be slow: these functions run on a worker, never on the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import anthropic

from memory_app.extract.credentials import find_api_key

if TYPE_CHECKING:
    from memory_app.episodes.enrich import EpisodeEnricher
    from memory_app.retrieval.assisted import RetrievalAssistant
    from memory_app.service import MemoryService


def _claude_client(service: MemoryService) -> anthropic.Anthropic | None:
    """The Anthropic client of the extractor in use, when that extractor is Claude's API."""
    extractor = service.extractor
    client = getattr(extractor, "client", None)
    if getattr(extractor, "name", "") == "claude" and isinstance(client, anthropic.Anthropic):
        return client
    return None


def claude_ready(service: MemoryService) -> bool:
    """Claude can be asked: its API is the extractor in use, or a key is set."""
    return _claude_client(service) is not None or find_api_key() is not None


def episode_enricher(service: MemoryService) -> EpisodeEnricher | str:
    """The enricher for "Enrich with Claude", or why there is none."""
    from memory_app.episodes.enrich import make_enricher

    return make_enricher(service.extractor)


@dataclass
class AssistantLease:
    """A retrieval assistant and whether closing it is ours to do (the extractor's client
    stays open for the extractor)."""

    assistant: RetrievalAssistant
    owned: bool

    def close(self) -> None:
        if self.owned:
            self.assistant.close()


def retrieval_assistant(service: MemoryService) -> AssistantLease:
    """The assistant for "Ask Claude" in Context: the extractor's client when it is
    Claude's, else one for the configured key (one that falls back and says why without)."""
    from memory_app.retrieval.assisted import RetrievalAssistant, assistant_from_env

    client = _claude_client(service)
    if client is not None:
        settings = getattr(service.extractor, "settings", None)
        return AssistantLease(RetrievalAssistant(client, settings), owned=False)
    return AssistantLease(assistant_from_env(), owned=True)
