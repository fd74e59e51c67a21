"""Strings that look generated, not written: a possible secret that no rule names.

Redaction (redaction.py) removes what it is sure of. A random-looking token no rule
knows (a vendor's key format, a password pasted alone) is not certain enough to cut
from a conversation, but a memory holding one must not flow into CLAUDE.md unseen: the
memory is held for a person to keep or remove. "Random-looking" is measured, not
listed: long enough, letters and digits mixed, and a high Shannon entropy per
character; identifiers, hashes and ids people paste every day are left alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from memory_app.domain.redaction import PLACEHOLDER_PREFIX

MIN_LENGTH = 20
MIN_ENTROPY = 3.5  # bits per character; English words in camelCase stay near 3
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/=_.-]{20,200}(?![A-Za-z0-9+/=_.-])")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_WORDS = re.compile(r"[A-Za-z]+")
_JOINS = re.compile(r"[-_./]")
_FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")  # ".tsx", ".py", ".docx"
# What follows these is a digest or inline data, published on purpose.
_DIGEST = re.compile(r"(?:sha(?:1|256|384|512)[:-]|md5:|base64,)$", re.IGNORECASE)
_DIGEST_NAMED = re.compile(r"(?:sha(?:1|256|384|512)|md5)-", re.IGNORECASE)  # "sha512-..."
_PART = re.compile(r"[A-Za-z]{2,}\d*|\d+")


def entropy(text: str) -> float:
    """Shannon entropy of the characters, in bits per character."""
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _looks_generated(token: str) -> bool:
    if len(token) < MIN_LENGTH or PLACEHOLDER_PREFIX[1:] in token:
        return False
    if _UUID.fullmatch(token) or _HEX.fullmatch(token):
        return False  # ids and hashes (git SHAs, digests) are pasted all the time
    if token.count("/") >= 2 or _FILE.search(token):
        return False  # a path ("src/i18n/LocaleProvider.tsx"), not a key
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    mixed_case = any(c.islower() for c in token) and any(c.isupper() for c in token)
    if digits < 2 or letters < 6 or not mixed_case:
        return False
    # An identifier is words joined: few long runs of letters, or parts that are each a
    # word, a word with a version ("amd64") or a number ("python3.12-slim-bookworm").
    runs = _WORDS.findall(token)
    if len(runs) <= 3 and all(len(r) >= 4 for r in runs):
        return False
    parts = [p for p in _JOINS.split(token) if p]
    if len(parts) >= 2 and all(_PART.fullmatch(p) for p in parts):
        return False
    return entropy(token) >= MIN_ENTROPY


def possible_secret(text: str) -> str | None:
    """The first random-looking token in `text`, or None."""
    for found in _CANDIDATE.finditer(text):
        token = found.group(0).strip("._-=")
        if _DIGEST.search(text, max(0, found.start() - 8), found.start()) or _DIGEST_NAMED.match(
            token
        ):
            continue
        if _looks_generated(token):
            return token
    return None


def masked(token: str) -> str:
    """A token shown without giving it away: its first and last two characters."""
    return f"{token[:2]}…{token[-2:]} ({len(token)} characters)"
