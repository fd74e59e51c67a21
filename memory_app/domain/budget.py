"""Packing context into a token budget: seed 000 §4.4 and seed 004's four tiers.

Token counts are estimated, not measured: `ceil(characters / 4)` (seed 000 §4.4, seed
003 "~4 chars/token"). For English prose and code Claude's tokenizer lands near that;
the estimate is deliberately simple so the CLI, the GUI and tests agree exactly. Every
piece of the rendered text (headings and separators included) is counted, and since
`ceil((a + b) / 4) <= ceil(a / 4) + ceil(b / 4)`, the estimate of the whole rendered
context never exceeds the sum of its pieces, which never exceeds the budget.

Tiers (seed 004 "Context Assembly"): critical 25%, relevant 37.5%, background 25%,
index 12.5%. A tier that does not use its share passes the rest to the next tier; what
is left after the last tier goes back to the tiers in order, for entries that did not
fit their own share.

Compression levels (seed 004, domain/compression.py): an entry may carry shorter forms
of itself (summary, compressed, index). The tiers are first filled in full exactly as
above; then each entry that did not fit takes the richest shorter form that fits what is
left, of its tier's share first and then of the whole budget, instead of being dropped.
So every entry placed in full without levels is placed in full, in the same order, and
the shortened ones follow it in their tier.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memory_app.domain.scoring import ScoreBreakdown

CHARS_PER_TOKEN = 4
TIERS: tuple[tuple[str, str, float], ...] = (
    ("critical", "Critical", 0.25),
    ("relevant", "Relevant to the task", 0.375),
    ("background", "Background", 0.25),
    ("index", "Index", 0.125),
)
MIN_BUDGET = 50
MAX_BUDGET = 200_000
TITLE = "# Memory for this task"


def estimate_tokens(text: str) -> int:
    """Seed 000 §4.4: about one token per four characters, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class BudgetError(ValueError):
    """A budget nothing sensible fits in."""


@dataclass(frozen=True)
class ContextEntry:
    """One line of context: a memory, a conflict or an index line."""

    text: str
    item_id: int | None = None
    conflict_id: int | None = None
    category: str | None = None
    breakdown: ScoreBreakdown | None = None
    pinned: bool = False
    level: str = "full"  # a compression level (domain/compression.py LEVELS)
    shorter: tuple[ContextEntry, ...] = ()  # the same memory in shorter forms, richest first

    @property
    def forms(self) -> tuple[ContextEntry, ...]:
        """This entry and its shorter forms, richest first."""
        return (self, *self.shorter)

    @property
    def piece(self) -> str:
        return f"- {self.text}\n"

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.piece)


@dataclass
class TierPlan:
    key: str
    title: str
    share: float
    allowance: int  # its share of the budget, before rebalancing
    entries: list[ContextEntry] = field(default_factory=list)
    left_out: list[ContextEntry] = field(default_factory=list)

    @property
    def heading(self) -> str:
        return f"\n## {self.title}\n"

    @property
    def used(self) -> int:
        if not self.entries:
            return 0
        return estimate_tokens(self.heading) + sum(e.tokens for e in self.entries)


@dataclass
class ContextPlan:
    budget: int
    tiers: list[TierPlan]

    @property
    def used(self) -> int:
        return estimate_tokens(TITLE + "\n") + sum(t.used for t in self.tiers)

    @property
    def remaining(self) -> int:
        return self.budget - self.used

    @property
    def item_ids(self) -> list[int]:
        return [e.item_id for t in self.tiers for e in t.entries if e.item_id is not None]

    def render(self) -> str:
        parts = [TITLE + "\n"]
        for tier in self.tiers:
            if tier.entries:
                parts.append(tier.heading)
                parts.extend(e.piece for e in tier.entries)
        return "".join(parts)

    def tier(self, key: str) -> TierPlan:
        return next(t for t in self.tiers if t.key == key)


def validate_budget(budget: int) -> None:
    if not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise BudgetError(
            f"the token budget must be a whole number from {MIN_BUDGET} to {MAX_BUDGET:,}, "
            f"got {budget!r}"
        )


def allocate(candidates: Mapping[str, Sequence[ContextEntry]], budget: int) -> ContextPlan:
    """Fill the tiers from their candidates (each list best first) within `budget`."""
    validate_budget(budget)
    available = budget - estimate_tokens(TITLE + "\n")
    tiers = [TierPlan(key, title, share, int(available * share)) for key, title, share in TIERS]
    slots = {t.key: [_Slot(entry) for entry in candidates.get(t.key, ())] for t in tiers}
    spent = 0
    carry = 0
    for tier in tiers:
        allowance = tier.allowance + carry
        used = _fill(tier, slots[tier.key], allowance, shorter=False)
        spent += used
        carry = allowance - used
    # Rebalance: what is left goes back to tiers, in priority order, for what they left out.
    for tier in tiers:
        spent += _fill(tier, slots[tier.key], available - spent, shorter=False)
    # Then what still did not fit comes in shorter, first within what is left of each
    # tier's share, then anywhere there is room (which may also restore a form towards full).
    carry = 0
    for tier in tiers:
        room = min(max(tier.allowance + carry - tier.used, 0), available - spent)
        added = _fill(tier, slots[tier.key], room, shorter=True)
        spent += added
        carry = room - added
    for tier in tiers:
        spent += _fill(tier, slots[tier.key], available - spent, shorter=True)
        tier.left_out = [slot.entry for slot in slots[tier.key] if slot.placed is None]
    return ContextPlan(budget, tiers)


@dataclass
class _Slot:
    """A candidate and where it stands: the form placed (an index into entry.forms) and
    its position among the tier's entries, None while left out."""

    entry: ContextEntry
    placed: int | None = None
    position: int = -1


def _fill(tier: TierPlan, slots: list[_Slot], allowance: int, *, shorter: bool) -> int:
    """Place each slot not yet in full in the richest form that fits what is left of
    `allowance` (in full only unless `shorter`; skipping ones that do not fit at all, as
    seed 000 §4.4 does); returns the tokens added, the tier's heading included when it is
    new."""
    added = 0
    for slot in slots:
        if slot.placed == 0:
            continue
        forms = slot.entry.forms if shorter else slot.entry.forms[:1]
        if slot.placed is None:
            now = 0 if tier.entries else estimate_tokens(tier.heading)
        else:
            now = -forms[slot.placed].tokens
            forms = forms[: slot.placed]
        for n, form in enumerate(forms):
            cost = form.tokens + now
            if added + cost <= allowance:
                if slot.placed is None:
                    slot.position = len(tier.entries)
                    tier.entries.append(form)
                else:
                    tier.entries[slot.position] = form
                slot.placed = n
                added += cost
                break
    return added
