"""What a link is: its kinds, who made it, and how a memory's links read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("related", "depends-on", "contradicts", "supersedes", "part-of")
# The kinds a person adds by hand; the others follow from conflicts, merges and episodes.
HAND_KINDS = ("related", "depends-on")
# Said the same both ways: stored once, smaller id first, so (1, 2) and (2, 1) are one link.
SYMMETRIC = ("related", "contradicts")
# discovered: rewritten by every discovery; person: made by hand, never removed by it;
# rejected: a discovered link a person removed, kept hidden so discovery does not bring
# it back.
ORIGINS = ("discovered", "person", "rejected")
# The links along which a memory brings another into a context or a prediction
# (links/pull.py, retrieval/predict.py): what it depends on first, then a related one.
PULLED_KINDS = ("depends-on", "related")  # in this order of preference
MIN_STRENGTH = 0.1  # a person's links are 1.0; discovered related ones from 0.1
PULLED_PER_MEMORY = 1  # linked memories each placed memory may bring
# How a link reads from its target's side.
INVERSE = {"depends-on": "needed by", "supersedes": "superseded by"}


def link_key(source: int, target: int, kind: str) -> tuple[int, int, str]:
    """The stored (source, target, kind) of a link."""
    if kind in SYMMETRIC and source > target:
        source, target = target, source
    return source, target, kind


@dataclass(frozen=True)
class LinkInfo:
    """One link as a memory's page shows it: from this memory's side."""

    kind: str  # the stored kind
    label: str  # how it reads from this side ("related", "needed by", ...)
    other_id: int
    other_is_episode: bool
    other_text: str  # the other memory's content, or the episode's title
    origin: str
    strength: float
    outgoing: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "target": self.other_id,
            "target_type": "episode" if self.other_is_episode else "memory",
            "text": self.other_text,
            "origin": self.origin,
            "strength": round(self.strength, 3),
            "direction": "out" if self.outgoing else "in",
        }

    def line(self, width: int = 60) -> str:
        """`related: #12 Use pytest fixtures…`"""
        text = " ".join(self.other_text.split())
        if len(text) > width:
            text = text[: width - 1].rstrip() + "…"
        mark = "episode " if self.other_is_episode else ""
        return f"{self.label}: {mark}#{self.other_id} {text}"
