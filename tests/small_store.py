"""A small store for tests that need a few real memories fast: six short conversations
(two projects, one open conflict: tabs against four spaces) run through the real
pipeline, plus generated memories for scale when asked. The demo store
(memory_app/demo.py) is the realistic one; it takes seconds to build, this a fraction
of one, so tests that build a store each time use this."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory_app.demo import generated_rows
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.service import MemoryService
from memory_app.store import repository as repo

CONVERSATIONS: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Refactor the API client",
        "/home/dev/shop",
        "main",
        (
            ("Can you refactor the fetch helpers in src/api.ts?", "Sure, reading the file now."),
            (
                "One rule for this codebase: we always use async/await, never .then() chains.",
                "Understood. I'll convert the promise chains to async/await.",
            ),
            (
                "Also, we decided to use zod for validating API responses because the "
                "backend changes often.",
                "Good call, I'll add zod schemas next to each endpoint.",
            ),
        ),
    ),
    (
        "Flaky test hunt",
        "/home/dev/shop",
        "fix/flaky-tests",
        (
            (
                "The checkout tests fail about one run in five, can you look?",
                "The root cause was a shared event loop between tests; the fix is a "
                "fresh loop per test in the fixture.",
            ),
            (
                "Great. Tests live in tests/ and mirror the package layout, please keep it so.",
                "Will do, I put the new test in tests/checkout/test_cart.py.",
            ),
            (
                "Please use pytest fixtures instead of unittest setUp methods.",
                "Switched the new tests to fixtures.",
            ),
        ),
    ),
    (
        "Background jobs",
        "/home/dev/shop",
        "feature/emails",
        (
            (
                "Let's go with Celery for background jobs instead of RQ, we need retries "
                "with backoff.",
                "Okay, I'll add a Celery app and move the email sending into a task.",
            ),
            (
                "Commit messages follow Conventional Commits, like feat(emails): ...",
                "Noted, I'll word the commit that way.",
            ),
            (
                "Turns out the SMTP client times out after 30 seconds, so keep tasks short.",
                "I'll split the digest into one task per recipient.",
            ),
        ),
    ),
    (
        "Desktop app style",
        "/home/dev/memory-curator",
        "main",
        (
            (
                "I prefer pathlib over os.path for anything touching files.",
                "I'll use pathlib throughout.",
            ),
            (
                "Never call the database from the GUI thread; all queries go through the worker.",
                "Right, I'll route the new query through the database worker.",
            ),
            (
                "We use ruff for linting and formatting, run make lint before committing.",
                "Ran it, everything passes.",
            ),
        ),
    ),
)


# Two statements of one rule with different values and no word of a change: the conflict
# inbox has something to decide. (Said as a change, "we switched to spaces from now on",
# the newer would supersede the older by itself.)
CHANGED_MIND: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (40, "Formatting setup", (("We always indent with tabs in this repo.", "Understood."),)),
    (
        2,
        "Formatter switch",
        (
            (
                "We always indent with four spaces in this repo, never tabs.",
                "Got it, I reformatted the files with four spaces.",
            ),
        ),
    ),
)


def small_transcripts(now: datetime | None = None) -> list[Transcript]:
    now = now or datetime.now(UTC)
    dated = [
        (now - timedelta(days=3 * (len(CONVERSATIONS) - n), hours=n), *conversation)
        for n, conversation in enumerate(CONVERSATIONS)
    ]
    dated += [
        (now - timedelta(days=days), title, "/home/dev/shop", "main", exchanges)
        for days, title, exchanges in CHANGED_MIND
    ]
    dated.sort(key=lambda entry: entry[0])
    transcripts = []
    for number, (start, title, project, branch, exchanges) in enumerate(dated):
        turns: list[Turn] = []
        for user, assistant in exchanges:
            for speaker, text in (("user", user), ("assistant", assistant)):
                turns.append(Turn(len(turns), speaker, text, timestamp=start))
                start += timedelta(minutes=2)
        transcripts.append(
            Transcript(
                source_kind="text",
                turns=tuple(turns),
                session_id=f"demo-{number + 1}",
                project=project,
                branch=branch,
                title=title,
                started_at=turns[0].timestamp,
                ended_at=turns[-1].timestamp,
            )
        )
    return transcripts


def build_small_store(service: MemoryService, generated: int = 0) -> dict[str, int]:
    """Fill a store with the six conversations and `generated` extra memories."""
    added = 0
    for transcript in small_transcripts():
        added += len(service.memorize(transcript).items_added)
    if generated:
        with service.db.writing() as session:
            repo.bulk_add_items(
                session,
                service.db.dialect,
                generated_rows(generated),
                actor="system",
                group_id="demo",
            )
        service.regenerate_summaries()
    return {"conversations": len(CONVERSATIONS) + len(CHANGED_MIND), "memories": added + generated}
