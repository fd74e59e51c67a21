"""`<private>...</private>`: what a person marks as never to be remembered (seed 002
gates).

The span is cut before anything is stored, so neither the conversation kept in Sources
nor a memory, a log line or an injection can hold it. A `<private>` never closed (a
message cut short, a tool call shortened) hides everything after it: leaking the rest
of a secret is worse than losing the end of a turn.
"""

from __future__ import annotations

import re

MARK = "[private]"
_SPAN = re.compile(r"<private\s*>.*?(?:</private\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_CLOSE = re.compile(r"</private\s*>", re.IGNORECASE)


def without_private(text: str) -> tuple[str, int]:
    """The text with each private span replaced by `[private]`, and how many there were."""
    if "<private" not in text.lower():
        return text, 0
    cleaned, count = _SPAN.subn(MARK, text)
    return _STRAY_CLOSE.sub("", cleaned), count
