"""A demo store: real conversations run through the real pipeline, plus generated
memories for scale. Used by `memory-app demo`, the screenshots and the benchmarks."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow

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


def demo_transcripts(now: datetime | None = None) -> list[Transcript]:
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


TOOLS = (
    "pytest ruff mypy black poetry pip uv docker kubernetes terraform postgres sqlite redis "
    "celery rq kafka rabbitmq nginx gunicorn uvicorn fastapi django flask sqlalchemy alembic "
    "pydantic react vue svelte typescript javascript node pnpm npm yarn vite webpack eslint "
    "prettier jest vitest playwright cypress rust cargo go gradle maven java kotlin swift "
    "graphql grpc protobuf openapi jwt oauth sessions websockets asyncio threads pathlib "
    "logging structlog sentry prometheus grafana github gitlab actions makefile bash zsh "
    "tmux neovim vscode pyside6 qt qasync markdown yaml toml json csv pandas numpy polars"
).split()
AREAS = (
    "tests api handlers migrations models views components hooks services workers cli "
    "config settings fixtures docs scripts deployment ci builds imports logging errors "
    "retries caching auth payments search indexing uploads emails notifications reports "
    "dashboard admin schema queries transactions pagination serialization validation"
).split()
VERBS = (
    "parse load save render fetch sync merge split build check send retry cache index "
    "import export encode decode resolve schedule notify archive compress validate "
    "migrate refresh rotate publish subscribe register dispatch format normalize "
    "compute estimate reconcile upload download sanitize redact"
).split()
NOUNS = (
    "invoice order customer cart payment refund ledger account profile session token "
    "report chart widget table column row filter query cursor batch queue job worker "
    "event message channel thread socket stream buffer file folder path image thumbnail "
    "video audio transcript summary category memory conflict resource snapshot backup "
    "config setting flag feature release build artifact package module plugin theme "
    "layout dialog window menu shortcut icon font locale timezone currency address "
    "email webhook endpoint route handler middleware schema model view template"
).split()
TEMPLATES = (
    "Always use {t1} for {a1}, never {t2}",
    "Prefer {t1} over {t2} in {a1}",
    "We decided to use {t1} for {a1} because {t2} was too slow",
    "The {a1} folder mirrors the {a2} layout and is checked by {t1}",
    "Bug in {fn}: {t1} retried forever when {t2} timed out; fix by capping retries",
    "Run {t1} before committing changes to {path}",
    "Root cause of flaky {a1}: {fn} shared state between {a2}",
    "{t1} config lives in {path}; do not duplicate it in {a2}",
    "Switched from {t2} to {t1} for {a1} after the {fn} rewrite",
    "Keep {fn} small; move {a2} logic into {t1} helpers",
    "{fn} must validate its input before calling {t1}",
    "Tests for {path} use {t1} fixtures, not {t2} mocks",
)


RESTATEMENTS = ("Reminder: {}", "Note: {}", "Please remember: {}", "{}, please")
RESTATED_EVERY = 50  # real stores learn the same thing twice now and then


def generated_rows(count: int, seed: int = 7, now: datetime | None = None) -> list[MemoryItemRow]:
    """`count` varied, realistic-looking memories spread over the last year; one in
    RESTATED_EVERY restates the memory before it, as maintenance would find it."""
    rng = random.Random(seed)
    now = now or datetime.now(UTC)
    rows: list[MemoryItemRow] = []
    for n in range(count):
        t1, t2 = rng.sample(TOOLS, 2)
        a1, a2 = rng.sample(AREAS, 2)
        fn = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
        path = f"src/{a1}/{rng.choice(NOUNS)}_{rng.choice(NOUNS)}.py"
        content = rng.choice(TEMPLATES).format(t1=t1, t2=t2, a1=a1, a2=a2, fn=fn, path=path)
        tags = sorted({t1, t2})
        slot = n  # picks the category and project
        if n % RESTATED_EVERY == RESTATED_EVERY - 1:
            content = rng.choice(RESTATEMENTS).format(rows[-1].content.rstrip("."))
            tags, slot = rows[-1].tags, n - 1
        category = DEFAULT_CATEGORIES[slot % len(DEFAULT_CATEGORIES)]
        when = now - timedelta(minutes=rng.randrange(0, 60 * 24 * 365))
        used = rng.random() < 0.3
        rows.append(
            MemoryItemRow(
                category=category.key,
                type=category.default_type,
                content=content + ".",
                content_key="",
                confidence=round(rng.uniform(0.75, 1.0), 3),
                importance=round(rng.uniform(0.3, 0.9), 3),
                scope="project",
                project=f"/home/dev/project-{slot % 40}",
                tags=tags,
                extracted_at=when,
                updated_at=when,
                valid_from=when,
                access_count=rng.randrange(1, 40) if used else 0,
                last_accessed_at=when + (now - when) * rng.random() if used else None,
                pinned=rng.random() < 0.02,
            )
        )
    return rows


def build_demo_store(service: MemoryService, generated: int = 0) -> dict[str, int]:
    """Fill a store with the demo conversations (through the real pipeline) and
    `generated` extra memories; returns what was added."""
    added = 0
    for transcript in demo_transcripts():
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
