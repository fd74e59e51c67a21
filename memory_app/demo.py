"""A demo store a developer would recognise: four invented projects (a FastAPI service,
a React storefront, a Rust CLI, a data pipeline) and six weeks of Claude Code sessions,
written as real session files and imported through the real pipeline with the offline
extractor. Used by `memory-app demo` and the screenshots. `generated_rows` (at the end)
makes thousands of synthetic memories for the benchmarks' scale; the demo itself never
uses it unless asked to (`generated`).

The conversations are hand-written data in `demo_data/<project>.txt`:

    # comment                          ignored
    project: orders-api                the file's project: its folder is ~/code/orders-api
    == d12 09:40 feat/pagination | Add cursor pagination to the orders list
    > a prompt                         the user's message
      an indented line                 continues the message above (a new paragraph)
    $ Bash: uv run pytest -q           a tool call by the assistant
    = 42 passed in 3.1s                a line of that tool's output
    < an answer                        the assistant's message

`d12` is twelve working days before the last working day before "now"; the time is UTC;
the text after `|` is the summary Claude Code writes for a session (without one, the
session's first prompt names it). Everything is deterministic for a given "now": the
session ids, the order of the imports and therefore every id in the store.
"""

from __future__ import annotations

import json
import random
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import select, update
from sqlmodel import SQLModel

from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.records import MemoryRecord
from memory_app.service import MemoryService
from memory_app.store import repository as repo
from memory_app.store.tables import MemoryItemRow
from memory_app.store.types import UTCDateTime

HOME = "/home/dev"  # the invented developer's home folder
PROJECTS = ("orders-api", "storefront", "logsift", "sales-pipeline")
CLAUDE_CODE_VERSION = "2.0.37"
MODEL = "claude-sonnet-4-5-20250929"
_NAMESPACE = uuid.UUID("6f1c3b8e-2d4a-4f7e-9c61-0a5b7d3e9f21")

# Memories a person pinned (by the start of their content): the rules they want in every
# session.
PINNED = (
    "Never commit directly to main",
    "All money amounts are integer cents",
    "Never log request bodies",
    "No fetching in useEffect",
    "Components are named in PascalCase",
    "Library code returns typed errors",
    "Never write to the raw bucket",
)
# Notes of the old Airflow prototype a person marked as minor (importance 0.3): unused
# for months, the weekly maintenance archives them.
MINOR = (
    "Turns out Airflow's scheduler",
    "Keep in mind that XComs",
    "Note for later: the prototype's",
)
MINOR_IMPORTANCE = 0.3
MINOR_MARKED = 26  # working days ago: the day after the move from Airflow to Dagster
PIN_AFTER = timedelta(minutes=25)
NIGHTLY_AT = time(2, 30)  # UTC
# Working days ago the person installed the Claude Code hooks: from then on each prompt
# was answered by the recall hooks, and each answer judged cited or ignored on import.
HOOKS_SINCE = 9


# -- the conversations as data ---------------------------------------------------------


@dataclass
class Message:
    """One line of a conversation: the user's or the assistant's words, or a tool call
    with its output."""

    kind: str  # "user" | "assistant" | "tool"
    text: str
    tool: str = ""
    output: list[str] = field(default_factory=list)


@dataclass
class DemoSession:
    project: str
    workday: int  # working days before the last working day before now
    at: time
    branch: str
    summary: str
    messages: list[Message] = field(default_factory=list)

    @property
    def folder(self) -> str:
        return f"{HOME}/code/{self.project}"

    @property
    def session_id(self) -> str:
        return str(uuid.uuid5(_NAMESPACE, f"{self.project}/{self.workday}/{self.at}"))


def demo_sessions() -> list[DemoSession]:
    """Every session of every demo project, in the files' order."""
    sessions: list[DemoSession] = []
    for project in PROJECTS:
        text = resources.files("memory_app").joinpath("demo_data", f"{project}.txt")
        sessions += parse_sessions(text.read_text("utf-8"), project)
    return sessions


def parse_sessions(text: str, project: str) -> list[DemoSession]:
    """One project's file (the format in this module's docstring) as sessions."""
    sessions: list[DemoSession] = []
    last: Message | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("project:"):
            if line.removeprefix("project:").strip() != project:
                raise ValueError(f"{project}.txt:{number}: names another project")
            continue
        if line.startswith("== "):
            head, _, summary = line[3:].partition(" | ")
            day, clock, branch = head.split()
            hour, minute = (int(part) for part in clock.split(":"))
            sessions.append(
                DemoSession(
                    project, int(day.removeprefix("d")), time(hour, minute), branch, summary.strip()
                )
            )
            last = None
            continue
        if not sessions:
            raise ValueError(f"{project}.txt:{number}: a line before the first session")
        messages = sessions[-1].messages
        mark, body = line[:1], line[2:].strip()
        if line.startswith("  ") and last is not None:
            if last.kind == "tool":
                last.output.append(line.strip())
            else:
                last.text += "\n\n" + line.strip()
        elif mark == ">":
            last = Message("user", body)
            messages.append(last)
        elif mark == "<":
            last = Message("assistant", body)
            messages.append(last)
        elif mark == "$":
            tool, _, argument = body.partition(": ")
            last = Message("tool", argument, tool=tool)
            messages.append(last)
        elif mark == "=" and last is not None and last.kind == "tool":
            last.output.append(line[2:])
        else:
            raise ValueError(f"{project}.txt:{number}: cannot read {line[:40]!r}")
    return sessions


# -- time --------------------------------------------------------------------------------


def last_workday(now: datetime) -> date:
    """The last working day before `now`'s day: the demo's newest sessions are from then."""
    day = now.date() - timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def workday_before(end: date, count: int) -> date:
    day = end
    while count:
        day -= timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def default_now() -> datetime:
    """Now, to the minute: the demo's sessions end on the working day before it."""
    return datetime.now(UTC).replace(second=0, microsecond=0)


# -- Claude Code session files -------------------------------------------------------------


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tool_input(tool: str, argument: str, folder: str) -> dict[str, Any]:
    """A tool call's input as Claude Code writes it (files by absolute path)."""
    if tool == "Bash":
        return {"command": argument}
    if tool in ("Read", "Write", "Edit"):
        return {"file_path": f"{folder}/{argument}"}
    if tool in ("Grep", "Glob"):
        return {"pattern": argument, "path": folder}
    return {"description": argument}


_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789"


def _api_id(rng: random.Random, prefix: str) -> str:
    """An id in the shape of the API's (`msg_01…`, `toolu_01…`)."""
    return prefix + "".join(rng.choice(_LETTERS) for _ in range(22))


def session_lines(session: DemoSession, start: datetime) -> list[dict[str, Any]]:
    """The session as Claude Code writes it: one JSON object per line (a summary first
    when it has one), each prompt a few minutes after the answer before it."""
    rng = random.Random(session.session_id)
    common = {
        "isSidechain": False,
        "userType": "external",
        "cwd": session.folder,
        "sessionId": session.session_id,
        "version": CLAUDE_CODE_VERSION,
        "gitBranch": session.branch,
    }
    ids = (uuid.UUID(int=rng.getrandbits(128), version=4) for _ in iter(int, 1))
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    moment = start

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent
        node = str(next(ids))
        lines.append(
            {
                "parentUuid": parent,
                **common,
                "type": kind,
                "message": message,
                "uuid": node,
                "timestamp": _stamp(moment),
                **extra,
            }
        )
        parent = node

    def assistant(content: list[dict[str, Any]]) -> None:
        message_id = _api_id(rng, "msg_01")
        add(
            "assistant",
            {
                "model": MODEL,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": content,
                "stop_reason": None,
                "stop_sequence": None,
            },
            requestId="req_011C" + message_id[6:24],
        )

    for message in session.messages:
        if message.kind == "user":
            moment += timedelta(seconds=rng.randrange(60, 420))
            add("user", {"role": "user", "content": message.text})
        elif message.kind == "assistant":
            moment += timedelta(seconds=rng.randrange(8, 70))
            assistant([{"type": "text", "text": message.text}])
        else:
            moment += timedelta(seconds=rng.randrange(4, 25))
            tool_id = _api_id(rng, "toolu_01")
            assistant(
                [
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": message.tool,
                        "input": _tool_input(message.tool, message.text, session.folder),
                    }
                ]
            )
            moment += timedelta(seconds=rng.randrange(1, 12))
            output = "\n".join(message.output) or "(no output)"
            add(
                "user",
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
                },
                toolUseResult={"stdout": output, "stderr": "", "interrupted": False},
            )
    if not session.summary:  # Claude Code writes none for many sessions
        return lines
    return [{"type": "summary", "summary": session.summary, "leafUuid": parent}, *lines]


def write_session(root: Path, session: DemoSession, start: datetime) -> tuple[Path, datetime]:
    """Write the session file where Claude Code keeps it (under `root`, the stand-in for
    ~/.claude/projects); returns the file and the time of its last line."""
    lines = session_lines(session, start)
    folder = root / session.folder.replace("/", "-").replace(".", "-")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session.session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    ended = datetime.fromisoformat(lines[-1]["timestamp"].replace("Z", "+00:00"))
    return path, ended


# -- the store -------------------------------------------------------------------------------


def build_demo_store(
    service: MemoryService, generated: int = 0, *, now: datetime | None = None
) -> dict[str, int]:
    """Fill a store with the demo and return what was added.

    Each session is written as a Claude Code session file and imported through the real
    import path, one at a time in the order they ended, with the service's clock at the
    moment the capture hook would have imported it (two minutes after its last line).
    Then what a person and the scheduler did: a few memories pinned after the sessions
    that taught them, the old prototype's notes marked minor, last night's maintenance
    (changes left for review) and this morning's review, which archived those notes.

    The store stamps some rows with the wall clock rather than the service's (imports,
    history, conflicts, maintenance runs); each step's rows are moved to the moment it
    stands for, so the history reads as six weeks of use rather than one minute.
    `generated` adds that many synthetic memories for scale (benchmarks only)."""
    now = now or default_now()
    end = last_workday(now)
    sessions = demo_sessions()
    added = 0
    timeline = _Timeline(service)
    with tempfile.TemporaryDirectory(prefix="memory-app-demo-") as folder:
        root = Path(folder) / "projects"
        written = []
        for demo_session in sessions:
            day = workday_before(end, demo_session.workday)
            start = datetime.combine(day, demo_session.at, UTC)
            path, ended = write_session(root, demo_session, start)
            hooked = start if demo_session.workday <= HOOKS_SINCE else None
            written.append((ended, path, hooked))
        written.sort()
        try:
            for ended, path, hooked in written:
                if hooked is not None:
                    _ask_the_hooks(service, path, hooked)
                with timeline.at(min(ended + timedelta(minutes=2), now)):
                    report = service.import_paths([path])
                added += sum(len(result.items_added) for result in report.results)
            _curate(service, timeline, end, now)
        finally:
            service.clock = timeline.restore
    timeline.move_rows()
    if generated:
        with service.db.writing() as session:
            repo.bulk_add_items(
                session,
                service.db.dialect,
                generated_rows(generated, now=now),
                actor="system",
                group_id="demo",
            )
        service.regenerate_summaries()
    return {"conversations": len(sessions), "memories": added + generated}


class _Timeline:
    """The demo's steps: the service's clock set to each one's moment while it runs, and
    the wall-clock span it ran in, so the rows it stamped with the wall clock can be
    moved to that moment afterwards."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.restore = service.clock
        self.steps: list[tuple[datetime, datetime, datetime]] = []  # wall from, to; moment

    @contextmanager
    def at(self, moment: datetime) -> Iterator[None]:
        self.service.clock = _fixed(moment)
        began = datetime.now(UTC)
        try:
            yield
        finally:
            self.steps.append((began, datetime.now(UTC), moment))

    def moment_of(self, stamp: datetime) -> datetime | None:
        for began, ended, moment in self.steps:
            if began <= stamp <= ended:
                return moment + (stamp - began)
        return None

    def move_rows(self) -> None:
        """Every date-time column of every table: a value written during a step becomes
        that step's moment (plus the same fraction of a second, to keep the order)."""
        if not self.steps:
            return
        first, last = self.steps[0][0], self.steps[-1][1]
        with self.service.db.writing() as session:
            connection = session.connection()
            for table in SQLModel.metadata.sorted_tables:
                keys = list(table.primary_key.columns)
                for column in table.columns:
                    if not isinstance(column.type, UTCDateTime) or not keys:
                        continue
                    rows = connection.execute(
                        select(*keys, column).where(column >= first, column <= last)
                    ).all()
                    for *ident, stamp in rows:
                        moment = self.moment_of(stamp)
                        if moment is None:
                            continue
                        where = [key == value for key, value in zip(keys, ident, strict=True)]
                        connection.execute(update(table).where(*where).values({column: moment}))


def _ask_the_hooks(service: MemoryService, path: Path, started: datetime) -> None:
    """The recall hooks' own code answering the session as Claude Code ran it: at its
    start and at each prompt (a second before Claude Code wrote it down). They log their
    answers beside the store, which the import then takes and judges."""
    if service.db.path is None:
        return  # not a SQLite file: the hooks cannot read it
    from memory_app.hooks import runtime

    env = {
        "MEMORY_APP_DATA_DIR": str(service.db.path.parent),
        "MEMORY_APP_DB_URL": f"sqlite:///{service.db.path}",
        "MEMORY_APP_HOOK_WORKER": "0",
    }
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first = next(line for line in lines if line.get("sessionId"))
    common = {"session_id": first["sessionId"], "cwd": first["cwd"]}
    payload = {**common, "source": "startup"}
    runtime.handle("SessionStart", json.dumps(payload).encode(), env, started)
    for line in lines:
        content = line.get("message", {}).get("content") if line.get("type") == "user" else None
        if isinstance(content, str):
            at = datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00"))
            payload = {**common, "prompt": content}
            runtime.handle(
                "UserPromptSubmit", json.dumps(payload).encode(), env, at - timedelta(seconds=1)
            )


def _fixed(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def _starting(service: MemoryService, prefixes: tuple[str, ...]) -> list[MemoryRecord]:
    """The active memories whose content starts with one of `prefixes`, one each."""
    items = service.list_items(status="active", limit=100_000)
    found = []
    for prefix in prefixes:
        match = next((item for item in items if item.content.startswith(prefix)), None)
        if match is None:
            raise LookupError(f"the demo has no memory starting {prefix!r}")
        found.append(match)
    return found


def _curate(service: MemoryService, timeline: _Timeline, end: date, now: datetime) -> None:
    """What a person and the scheduler did besides the sessions."""
    for item in _starting(service, PINNED):  # pinned soon after the session taught it
        with timeline.at(min(item.extracted_at + PIN_AFTER, now)):
            service.set_pinned(item.id, True)
    minor = _starting(service, MINOR)
    marked = datetime.combine(workday_before(end, MINOR_MARKED), time(16, 40), UTC)
    with timeline.at(min(marked, now)):
        for item in minor:
            service.edit_item(item.id, importance=MINOR_IMPORTANCE)
    # Last night's scheduled maintenance, its changes left for review (the default)...
    night = datetime.combine((now - timedelta(hours=1)).date(), NIGHTLY_AT, UTC)
    if night > now - timedelta(hours=1):
        night -= timedelta(days=1)
    runs = {}
    for kind in ("nightly", "weekly", "monthly"):
        with timeline.at(night):
            runs[kind] = service.run_maintenance(kind, apply=False)
        night += timedelta(minutes=3)
    # ...and this morning's review: the unused prototype notes archived, the rest waits.
    changes = service.maintenance_changes(run_id=runs["weekly"].id)
    ids = {item.id for item in minor}
    archive = [c.id for c in changes if c.kind == "archive" and set(c.item_ids) <= ids]
    with timeline.at(now - timedelta(minutes=20)):
        service.decide_changes(archive, "accepted")
        service.apply_changes(archive)


# -- generated memories, for the benchmarks' scale ------------------------------------

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
