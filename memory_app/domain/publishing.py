"""What publishing a memory to the team sends (issue 20): exactly this, and nothing else.

A memory leaves the machine only as an `OutgoingMemory`: its text with the redaction
rules applied again (a person's edit may have typed a key into it since the import
redacted the conversation), its category, type, tags and validity, and its project under
the team's name for it (the git remote's repository, domain/sharing.py) or none: a
folder of this laptop never leaves. The conversation it came from never leaves: the team
store has no place for a transcript, and a memory is written to stand on its own.

A memory that cannot be published says why (`blocked`): held for review as a possible
secret, a random-looking token still in its text (possible_secrets.py: a person kept it
for themselves, which is not a decision to show it to a team), or not an active memory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from memory_app.domain.possible_secrets import masked, possible_secret
from memory_app.domain.redaction import redact

PUBLISHABLE_STATUSES = ("active",)


@dataclass(frozen=True)
class OutgoingMemory:
    """One memory as the team store would receive it, or why it cannot go."""

    item_id: int
    uid: str
    content: str
    context: str | None
    category: str
    type: str
    tags: tuple[str, ...]
    confidence: float
    importance: float
    scope: str
    project: str | None  # the team's name for the project ("acme/shop"), or None
    project_note: str | None  # what became of the local project, when it is not sent as is
    branch: str | None
    valid_from: datetime | None
    valid_until: datetime | None
    redactions: tuple[str, ...] = ()  # kinds of secrets the re-check took out
    # Why it cannot be published; then nothing is sent, and its text is left out here.
    blocked: str | None = None
    already_team: bool = False

    @property
    def sendable(self) -> bool:
        return self.blocked is None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("valid_from", "valid_until"):
            value = out[name]
            out[name] = value.isoformat() if isinstance(value, datetime) else None
        out["tags"] = list(self.tags)
        out["redactions"] = list(self.redactions)
        return out


@dataclass(frozen=True)
class PublishPreview:
    """What `team publish` sends (dry run) or recorded for the next sync."""

    memories: tuple[OutgoingMemory, ...]
    dry_run: bool
    published: tuple[int, ...] = ()  # ids recorded as team memories by this call

    @property
    def sendable(self) -> tuple[OutgoingMemory, ...]:
        return tuple(m for m in self.memories if m.sendable)

    @property
    def blocked(self) -> tuple[OutgoingMemory, ...]:
        return tuple(m for m in self.memories if not m.sendable)

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "published": list(self.published),
            "memories": [m.to_json() for m in self.memories],
        }


@dataclass(frozen=True)
class LocalMemory:
    """What publishing reads of a local memory (a plain view of the row)."""

    item_id: int
    uid: str
    status: str
    content: str
    context: str | None
    category: str
    type: str
    tags: tuple[str, ...]
    confidence: float
    importance: float
    scope: str
    branch: str | None
    valid_from: datetime | None
    valid_until: datetime | None
    sharing: str


def outgoing(
    memory: LocalMemory,
    *,
    project: str | None,
    project_note: str | None,
    excluded: str | None = None,
) -> OutgoingMemory:
    """The memory as it would leave: redaction re-checked, the possible-secret check run
    on what would be sent, `project` already in the team's words. `excluded`: why the
    memory's project is kept out of memory (privacy_gate.py), which blocks it too."""
    found: list[str] = []

    def clean(text: str) -> str:
        result = redact(text)
        found.extend(result.findings)
        return result.text

    content = clean(memory.content)
    context = clean(memory.context) if memory.context else memory.context
    tags = tuple(clean(t) for t in memory.tags)
    blocked = _why_blocked(memory, excluded, content, context, tags)
    if blocked is not None:  # nothing of it goes, and the preview repeats none of it
        content, context, tags = "", None, ()
    return OutgoingMemory(
        item_id=memory.item_id,
        uid=memory.uid,
        content=content,
        context=context,
        category=memory.category,
        type=memory.type,
        tags=tags,
        confidence=memory.confidence,
        importance=memory.importance,
        scope=memory.scope,
        project=project,
        project_note=project_note,
        branch=memory.branch,
        valid_from=memory.valid_from,
        valid_until=memory.valid_until,
        redactions=tuple(found),
        blocked=blocked,
        already_team=memory.sharing == "team",
    )


def _why_blocked(
    memory: LocalMemory,
    excluded: str | None,
    content: str,
    context: str | None,
    tags: tuple[str, ...],
) -> str | None:
    if memory.status == "held":
        return "held for review as a possible secret: keep or remove it first"
    if memory.status not in PUBLISHABLE_STATUSES:
        return f"only active memories are published; this one is {memory.status}"
    if excluded is not None:
        return excluded
    for text in (content, context or "", *tags):
        token = possible_secret(text)
        if token is not None:
            return f"possible secret {masked(token)}: edit it out before publishing"
    return None
