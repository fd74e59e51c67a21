"""A deterministic corpus of coding memories with planted near-duplicates and decoys.

`planted_corpus(total)` returns `total` memories: realistic-looking background statements
(preferences, conventions, decisions, bug patterns, implementation notes) built from
templates with large slot vocabularies, plus

- planted near-duplicates (`duplicate_share` of the total): a copy of a background
  statement with one harmless change: case or punctuation, a filler word added or
  removed, one content word added to a long statement, a synonym swapped in a long
  statement, the reason clause moved to the front;
- planted similar-but-different statements (`different`): a copy with exactly one
  meaning-changing edit: another version or number, a negation, "X over Y" turned
  round, an antonym, another tool or identifier. These must never be merged.

Both kinds keep the category and project of their original. Everything comes from one
`random.Random(seed)`, so the same arguments give the same corpus on every machine.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from memory_app.domain.similarity import content_key, content_words

CATEGORIES = (
    "coding_preferences",
    "architectural_decisions",
    "project_conventions",
    "bug_patterns",
    "implementation_notes",
)
PROJECTS: tuple[str | None, ...] = (
    "atlas",
    "borealis",
    "cobalt",
    "driftwood",
    "ember",
    "fjord",
    "granite",
    "helix",
    "ionosphere",
    "juniper",
    "kestrel",
    "lumen",
    None,
    None,
    None,
)


@dataclass(frozen=True)
class PlantedItem:
    key: int
    category: str
    project: str | None
    content: str
    importance: float
    confidence: float


@dataclass(frozen=True)
class PlantedCorpus:
    items: list[PlantedItem]
    duplicate_pairs: set[tuple[int, int]]  # (original key, planted duplicate key)
    different_pairs: set[tuple[int, int]]  # (original key, similar-but-different key)


# --- vocabularies --------------------------------------------------------------------

# Tools by what they are for, with what one does with them.
TOOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tests": (
        ("pytest", "unittest", "nose2", "ward", "behave", "jest", "vitest", "mocha", "ava"),
        (
            "run the unit tests",
            "run the integration tests",
            "run the smoke tests",
            "run the contract tests",
            "drive the regression suite",
            "exercise the parser edge cases",
            "run the end-to-end tests",
        ),
    ),
    "lint": (
        ("ruff", "flake8", "pylint", "eslint", "biome", "oxlint", "shellcheck", "rubocop"),
        (
            "lint the code",
            "lint pull requests",
            "catch unused imports",
            "flag shadowed names",
            "check the shell scripts",
            "enforce import order",
        ),
    ),
    "format": (
        ("black", "yapf", "autopep8", "prettier", "dprint", "rustfmt", "gofmt", "shfmt"),
        (
            "format the code",
            "format generated files",
            "normalize whitespace",
            "format the templates",
            "reflow long lines",
        ),
    ),
    "types": (
        ("mypy", "pyright", "pytype", "pyre", "tsc"),
        (
            "type check the code",
            "check public signatures",
            "catch optional misuse",
            "verify the stubs",
        ),
    ),
    "packages": (
        ("pip", "uv", "poetry", "pdm", "pipenv", "conda", "hatch", "npm", "pnpm", "yarn"),
        (
            "install dependencies",
            "lock dependencies",
            "build wheels",
            "publish packages",
            "manage virtual environments",
        ),
    ),
    "http": (
        ("httpx", "requests", "aiohttp", "urllib3", "axios", "ky", "reqwest"),
        (
            "call the partner APIs",
            "fetch remote manifests",
            "talk to the payment gateway",
            "download nightly exports",
            "poll the status endpoint",
        ),
    ),
    "orm": (
        ("sqlalchemy", "sqlmodel", "peewee", "tortoise", "prisma", "drizzle", "typeorm"),
        (
            "map the tables",
            "build reporting queries",
            "write schema migrations",
            "load related rows",
        ),
    ),
    "queue": (
        ("celery", "rq", "dramatiq", "arq", "huey", "sidekiq", "bullmq"),
        (
            "run background jobs",
            "schedule periodic tasks",
            "fan out webhook deliveries",
            "retry failed uploads",
        ),
    ),
    "logging": (
        ("structlog", "loguru", "pino", "winston", "zap", "logbook"),
        (
            "emit structured logs",
            "log request ids",
            "write audit trails",
            "tag log lines with tenants",
        ),
    ),
    "validation": (
        ("pydantic", "attrs", "marshmallow", "msgspec", "cattrs", "zod", "valibot"),
        (
            "validate request bodies",
            "parse settings files",
            "serialize API responses",
            "coerce query parameters",
        ),
    ),
    "bundler": (
        ("webpack", "vite", "esbuild", "rollup", "parcel", "rspack"),
        (
            "bundle the frontend",
            "build the embeddable widgets",
            "serve the preview server",
            "split vendor chunks",
        ),
    ),
}
DATABASES = (
    "postgres",
    "sqlite",
    "mysql",
    "mariadb",
    "mongodb",
    "duckdb",
    "clickhouse",
    "cassandra",
    "dynamodb",
    "cockroachdb",
)
CACHES = ("redis", "memcached", "valkey", "dragonfly", "keydb", "hazelcast")
PROXIES = ("nginx", "envoy", "traefik", "caddy", "haproxy", "kong")
MECHANISMS = ("grpc", "rest", "graphql", "webhooks", "websockets", "nats", "polling", "thrift")
MODULES = tuple(
    """billing auth search invoices sessions payments ingest scheduler reports accounts
    notifications inventory pricing checkout uploads webhooks metrics storage mailer audit
    permissions tenants orders catalog shipping analytics feeds importer parser renderer
    indexer crawler tokenizer planner ledger refunds subscriptions coupons onboarding
    profiles avatars comments moderation reviews ratings wishlist cart fulfillment
    warehouse returns tax currency geocoding routing telemetry alerts dashboards backups
    archiver thumbnails transcoder player playlists chat presence calendar reminders
    invites teams roles quotas throttling gateway registry licensing sitemap translations
    glossary forms surveys exporter signup recommendations leaderboard badges payroll
    timesheets expenses procurement contracts""".split()
)
PARTS = (
    "service",
    "package",
    "module",
    "codebase",
    "worker pool",
    "frontend",
    "backend",
    "library",
    "cli",
    "dashboard",
    "sdk",
    "pipeline",
)
DIRS = ("src", "lib", "app", "pkg", "internal", "services", "core", "server", "web", "cmd")
FILES = (
    "handlers",
    "models",
    "views",
    "service",
    "client",
    "utils",
    "schema",
    "tasks",
    "routes",
    "store",
    "cli",
    "settings",
    "jobs",
    "types",
    "errors",
    "helpers",
    "adapters",
    "serializers",
    "validators",
    "queries",
)
EXTENSIONS = ("py", "ts", "go", "rs", "rb", "js", "tsx", "kt")
VERBS = tuple(
    """load save parse render fetch build validate normalize resolve compute flush refresh
    retry schedule dispatch encode decode merge split apply compile collect publish
    register lookup reconcile allocate expire rotate sign verify""".split()
)
NOUNS = tuple(
    """user invoice order token session payload report batch event record cursor snapshot
    manifest schema tenant quota refund coupon webhook receipt ledger profile avatar
    comment review shipment address price plan upload thumbnail playlist invite role
    license sitemap locale form survey badge payslip contract""".split()
)
FIELDS = tuple(
    f"{a}_{b}"
    for a in ("tenant", "user", "order", "account", "device", "region", "shard", "request")
    for b in ("id", "key", "hash", "slug", "ref")
)
DATA = (
    "records",
    "events",
    "audit entries",
    "metrics",
    "snapshots",
    "embeddings",
    "drafts",
    "receipts",
    "payloads",
    "manifests",
    "rollups",
    "checkpoints",
)
STYLES = (
    "docstrings with examples",
    "type hints on every parameter",
    "small pure functions",
    "table-driven tests",
    "property-based tests",
    "snapshot tests",
    "early returns instead of nested branches",
    "keyword-only parameters",
    "explicit error types",
    "structured log fields",
    "frozen dataclasses",
    "guard clauses",
)
THINGS = ("function", "endpoint", "handler", "class", "migration", "query", "component", "job")
EVENTS = (
    "committing",
    "pushing",
    "merging",
    "tagging a release",
    "deploying",
    "opening a pull request",
    "rebasing",
    "publishing",
    "running migrations",
    "shipping a hotfix",
)
CHECKS = (
    "run {tool} on",
    "regenerate the lockfile for",
    "rebuild the stubs for",
    "refresh the fixtures in",
    "update the snapshots in",
    "clear the caches of",
    "bump the changelog for",
)
CONFIG_FILES = (
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    ".editorconfig",
    "package.json",
    "tsconfig.json",
    "ruff.toml",
    ".prettierrc",
    "config/settings.yaml",
    "deploy/values.yaml",
    "Cargo.toml",
    "go.mod",
)
SETTINGS = (
    ("line length", (79, 88, 100, 110, 120)),
    ("indent width", (2, 4, 8)),
    ("test timeout", (10, 30, 60, 120, 300)),
    ("connection pool size", (5, 10, 20, 40, 50)),
    ("batch size", (100, 250, 500, 1000, 2000)),
    ("page size", (20, 25, 50, 100, 200)),
    ("worker count", (2, 4, 6, 8, 16)),
    ("cache lifetime in seconds", (30, 60, 300, 600, 900)),
    ("retry limit", (3, 5, 7, 10)),
)
FLAGS = (
    "strict mode",
    "request tracing",
    "the query cache",
    "gzip compression",
    "debug toolbars",
    "read replicas",
    "feature previews",
    "rate limiting",
    "content security headers",
    "sourcemaps",
    "incremental builds",
    "connection pooling",
)
EXCEPTIONS = (
    "KeyError",
    "ValueError",
    "TimeoutError",
    "IntegrityError",
    "a null pointer error",
    "an unhandled promise rejection",
    "a deadlock",
    "a stack overflow",
    "UnicodeDecodeError",
    "a 502 from the gateway",
)
CONDITIONS = (
    "the {noun} list is empty",
    "two workers claim the same {noun}",
    "the {noun} has a trailing newline",
    "daylight saving time starts",
    "the upstream {noun} arrives twice",
    "the {noun} contains emoji",
    "a {noun} is deleted mid-request",
    "the clock on the worker drifts",
    "the {noun} id overflows a signed int",
    "a tenant has no default {noun}",
)
FIXES = (
    "guard it with a lock around {function}",
    "normalize the {noun} first",
    "retry once with jitter",
    "wrap the call in a transaction",
    "deduplicate on {field}",
    "compare in UTC throughout",
    "check for an empty {noun} early",
    "pin the {noun} schema version",
)
RESOURCES = ("file handles", "connections", "threads", "sockets", "cursors", "locks", "timers")
TEAMS = (
    "platform",
    "payments",
    "growth",
    "search",
    "infra",
    "mobile",
    "data",
    "security",
    "frontend",
    "reliability",
    "developer experience",
    "compliance",
)
PEOPLE = tuple(
    """priya marco chen fatima olga tomas aiko kwame lucia ravi sven amara noor jonas mei
    diego ingrid samir hana pablo""".split()
)
MONTHS = tuple(
    "january february march april may june july august september october november december".split()
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
VENDORS = (
    "stripe",
    "twilio",
    "sentry",
    "datadog",
    "auth0",
    "segment",
    "algolia",
    "mapbox",
    "plaid",
    "sendgrid",
    "okta",
    "launchdarkly",
)
OSES = ("linux", "macos", "windows", "alpine", "debian", "ubuntu", "arm runners")
ENVIRONMENTS = ("staging", "preview", "local development", "qa", "sandbox", "canary")
REASONS = (
    "because the {module} tests kept timing out on {os}",
    "because {vendor} retries webhooks for up to three days",
    "so that reviewers can diff the {module} output by eye",
    "since the {team} team owns the {module} repository",
    "because the staging database is shared with the {team} team",
    "to keep cold starts of the {module} {part} short",
    "because {module} traffic spikes every {weekday}",
    "after the {month} outage in the {module} {part}",
    "so the {module} pipeline stays reproducible",
    "because the {vendor} client library expects it",
    "since {person} found a race in {function}",
    "because mixed styles broke the {module} release in {month}",
    "to match what the {team} team already does",
    "because the old approach leaked {resource} under load",
    "so {env} and production behave the same",
    "because {os} builds kept failing without it",
    "since the documentation for {module} assumes it",
    "because {person} asked for it during the {month} review",
    "so that the configuration of {env} stays small",
    "because the {module} dependencies conflict otherwise",
    "since the function signatures in {path} rely on it",
    "because on-call for {module} gets paged less that way",
    "to keep the {module} directory layout predictable",
    "because profiling showed {resource} piling up in {function}",
    "so new contributors to the {module} {part} find things quickly",
    "because the {vendor} sandbox rejects anything else",
)
# Harmless variations: fillers and synonyms the detector is expected to see through.
FILLER_PREFIXES = ("Please ", "Note: ", "Remember: ", "Reminder: ", "Important: ")
ADDED_WORDS = ("main", "shared", "existing", "current", "whole", "entire")
SYNONYMS = {
    "tests": "test suite",
    "repository": "repo",
    "configuration": "config",
    "database": "db",
    "documentation": "docs",
    "directory": "folder",
    "dependencies": "deps",
    "environments": "envs",
    "function": "func",
    "parameters": "params",
    "production": "prod",
    "signatures": "signature",
}
# Meaning-changing swaps for the decoys.
ANTONYMS = {
    "before": "after",
    "after": "before",
    "enable": "disable",
    "first": "last",
    "sync": "async",
    "async": "sync",
    "include": "exclude",
    "add": "remove",
    "allow": "deny",
    "always": "never",
    "public": "private",
    "local": "remote",
    "minimum": "maximum",
    "maximum": "minimum",
    "lower": "upper",
}


# --- statements ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Draft:
    """One statement before rendering, with what may be edited in it.

    `main` holds two markers: "{n}" where a negation can go, "{+}" where an extra word can
    go before a noun. `clause` is an optional reason ("because ...")."""

    category: str
    main: str
    clause: str = ""
    negations: tuple[str, ...] = ("do not ", "never ")
    swappable: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (word, its replacements)
    number: tuple[str, tuple[str, ...]] | None = None  # (number, other values)
    pair: tuple[str, str] | None = None  # "x over y": x and y can trade places

    def text(self) -> str:
        main = self.main.replace("{n}", "").replace("{+}", "")
        body = f"{main} {self.clause}" if self.clause else main
        first = body.split(" ", 1)[0]
        return (body if "_" in first else body[0].upper() + body[1:]) + "."


class _Slots:
    """Slot values drawn from one random generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: tuple[str, ...] | list[str]) -> str:
        return self.rng.choice(options)

    def function(self) -> str:
        return f"{self.pick(VERBS)}_{self.pick(NOUNS)}"

    def path(self, module: str | None = None) -> str:
        module = module or self.pick(MODULES)
        return f"{self.pick(DIRS)}/{module}/{self.pick(FILES)}.{self.pick(EXTENSIONS)}"

    def others(self, value: str, pool: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(v for v in pool if v != value)

    def reason(self, module: str) -> str:
        template = self.pick(REASONS)
        values = {
            "module": self.pick(MODULES) if self.rng.random() < 0.5 else module,
            "os": self.pick(OSES),
            "vendor": self.pick(VENDORS),
            "team": self.pick(TEAMS),
            "part": self.pick(PARTS),
            "weekday": self.pick(WEEKDAYS),
            "month": self.pick(MONTHS),
            "person": self.pick(PEOPLE),
            "function": self.function(),
            "resource": self.pick(RESOURCES),
            "env": self.pick(ENVIRONMENTS),
            "path": self.path(),
        }
        return template.format(**values)

    def tool(self, kind: str | None = None) -> tuple[str, str, str]:
        """(kind, tool, purpose)."""
        kind = kind or self.pick(tuple(TOOLS))
        tools, purposes = TOOLS[kind]
        return kind, self.pick(tools), self.pick(purposes)


def _prefer(s: _Slots) -> _Draft:
    kind, x, purpose = s.tool()
    y = s.pick(s.others(x, TOOLS[kind][0]))
    module = s.pick(MODULES)
    return _Draft(
        "coding_preferences",
        f"{{n}}prefer {x} over {y} to {purpose} in the {{+}}{module} {s.pick(PARTS)}",
        s.reason(module),
        pair=(x, y),
    )


def _use_tool(s: _Slots) -> _Draft:
    kind, tool, purpose = s.tool()
    module = s.pick(MODULES)
    return _Draft(
        "coding_preferences",
        f"{{n}}use {tool} to {purpose} for the {{+}}{module} {s.pick(PARTS)} in {s.path(module)}",
        s.reason(module) if s.rng.random() < 0.7 else "",
        swappable=((tool, s.others(tool, TOOLS[kind][0])),),
    )


def _style(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    return _Draft(
        "coding_preferences",
        f"{{n}}write {s.pick(STYLES)} for every new {s.pick(THINGS)} in the {{+}}{module} "
        f"{s.pick(PARTS)}",
        s.reason(module),
    )


def _before_event(s: _Slots) -> _Draft:
    kind, tool, _ = s.tool()
    module = s.pick(MODULES)
    check = s.pick(CHECKS).format(tool=tool)
    when = s.pick(("before", "after"))
    swappable = ((tool, s.others(tool, TOOLS[kind][0])),) if tool in check else ()
    return _Draft(
        "project_conventions",
        f"{{n}}always {check} the {{+}}{module} {s.pick(PARTS)} {when} {s.pick(EVENTS)}",
        s.reason(module) if s.rng.random() < 0.8 else "",
        swappable=swappable,
    )


def _setting(s: _Slots) -> _Draft:
    name, values = s.pick(SETTINGS)
    value = str(s.pick(values))
    module = s.pick(MODULES)
    return _Draft(
        "project_conventions",
        f"{{n}}keep the {name} at {value} in {s.pick(CONFIG_FILES)} for the {{+}}{module} "
        f"{s.pick(PARTS)}",
        s.reason(module) if s.rng.random() < 0.7 else "",
        number=(value, tuple(str(v) for v in values if str(v) != value)),
    )


def _pin(s: _Slots) -> _Draft:
    kind, tool, _ = s.tool()
    major, minor, patch = s.rng.randint(0, 9), s.rng.randint(0, 40), s.rng.randint(0, 20)
    version = f"{major}.{minor}.{patch}"
    others = tuple(f"{major}.{minor}.{p}" for p in range(21) if p != patch) + tuple(
        f"{major}.{m}.{patch}" for m in range(41) if m != minor
    )
    module = s.pick(MODULES)
    return _Draft(
        "project_conventions",
        f"{{n}}pin {tool} to version {version} in {s.pick(CONFIG_FILES)} for the {{+}}{module} "
        f"{s.pick(PARTS)}",
        s.reason(module),
        number=(version, others),
        swappable=((tool, s.others(tool, TOOLS[kind][0])),),
    )


def _enable(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    return _Draft(
        "project_conventions",
        f"{{n}}enable {s.pick(FLAGS)} for the {{+}}{module} {s.pick(PARTS)} in "
        f"{s.pick(CONFIG_FILES)}",
        s.reason(module),
    )


def _naming(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    directory = f"{s.pick(DIRS)}/{module}/{s.pick(FILES)}"
    return _Draft(
        "project_conventions",
        f"{{n}}name the {s.pick(THINGS)} files of the {{+}}{module} {s.pick(PARTS)} by the "
        f"{s.pick(NOUNS)} they handle and keep them under {directory}",
        s.reason(module) if s.rng.random() < 0.5 else "",
        swappable=((directory, (f"{s.pick(DIRS)}/{s.pick(MODULES)}/{s.pick(FILES)}",)),),
    )


def _store(s: _Slots) -> _Draft:
    db = s.pick(DATABASES)
    module = s.pick(MODULES)
    return _Draft(
        "architectural_decisions",
        f"we {{n}}use {db} as the primary store for the {{+}}{module} {s.pick(DATA)}",
        s.reason(module),
        negations=("do not ", "no longer "),
        swappable=((db, s.others(db, DATABASES)),),
    )


def _talks(s: _Slots) -> _Draft:
    module, other = s.pick(MODULES), s.pick(MODULES)
    x = s.pick(MECHANISMS)
    y = s.pick(s.others(x, MECHANISMS))
    return _Draft(
        "architectural_decisions",
        f"the {module} {s.pick(PARTS)} should {{n}}talk to the {{+}}{other} {s.pick(PARTS)} "
        f"over {x} instead of {y}",
        s.reason(module),
        negations=("not ", "never "),
        pair=(x, y),
    )


def _jobs(s: _Slots) -> _Draft:
    kind, queue, _ = s.tool("queue")
    module = s.pick(MODULES)
    retries = str(s.rng.randint(2, 9))
    return _Draft(
        "architectural_decisions",
        f"{{n}}run the {module} {s.pick(DATA)} jobs on {queue} with {retries} retries and a "
        f"{s.pick(('short', 'long', 'fixed'))} timeout in {s.path(module)}",
        s.reason(module) if s.rng.random() < 0.5 else "",
        number=(retries, tuple(str(n) for n in range(2, 10) if str(n) != retries)),
        swappable=((queue, s.others(queue, TOOLS[kind][0])),),
    )


def _expose(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    port = str(s.rng.randint(3000, 9999))
    proxy = s.pick(PROXIES)
    return _Draft(
        "architectural_decisions",
        f"{{n}}expose the {module} {s.pick(PARTS)} over {s.pick(MECHANISMS)} on port {port} "
        f"behind {proxy} for the {{+}}{s.pick(TEAMS)} team",
        s.reason(module),
        number=(port, tuple(str(int(port) + d) for d in (1, 2, 10, -1, 100))),
        swappable=((proxy, s.others(proxy, PROXIES)),),
    )


def _cache(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    db, cache = s.pick(DATABASES), s.pick(CACHES)
    minutes = str(s.pick((1, 2, 5, 10, 15, 30, 45, 60)))
    return _Draft(
        "architectural_decisions",
        f"{{n}}keep the {module} {s.pick(DATA)} in {db} and cache hot {s.pick(NOUNS)} lookups "
        f"in {cache} for {minutes} minutes",
        s.reason(module) if s.rng.random() < 0.6 else "",
        number=(minutes, tuple(str(m) for m in (3, 7, 20, 25, 90) if str(m) != minutes)),
        swappable=((cache, s.others(cache, CACHES)),),
    )


def _moved(s: _Slots) -> _Draft:
    kind, x, _ = s.tool()
    y = s.pick(s.others(x, TOOLS[kind][0]))
    module = s.pick(MODULES)
    return _Draft(
        "architectural_decisions",
        f"we {{n}}moved the {{+}}{module} {s.pick(PARTS)} from {x} to {y} in {s.pick(MONTHS)}",
        s.reason(module),
        negations=("never ", "have not "),
        pair=(x, y),
    )


def _fails(s: _Slots) -> _Draft:
    function, noun = s.function(), s.pick(NOUNS)
    module = s.pick(MODULES)
    condition = s.pick(CONDITIONS).format(noun=noun)
    fix = s.pick(FIXES).format(function=s.function(), noun=noun, field=s.pick(FIELDS))
    return _Draft(
        "bug_patterns",
        f"{function} in {s.path(module)} can {{n}}raise {s.pick(EXCEPTIONS)} when {condition}, "
        f"so {fix}",
        negations=("not ", "never "),
        swappable=((function, (s.function(),)),),
    )


def _empty(s: _Slots) -> _Draft:
    function, noun = s.function(), s.pick(NOUNS)
    module = s.pick(MODULES)
    return _Draft(
        "bug_patterns",
        f"calling {function} with an empty {noun} should {{n}}raise {s.pick(EXCEPTIONS)} in the "
        f"{{+}}{module} {s.pick(PARTS)}",
        s.reason(module),
        negations=("not ", "never "),
        swappable=((function, (s.function(),)),),
    )


def _stale(s: _Slots) -> _Draft:
    kind, tool, _ = s.tool()
    module = s.pick(MODULES)
    when = s.pick(("after", "before"))
    return _Draft(
        "bug_patterns",
        f"{tool} serves stale {s.pick(DATA)} for the {{+}}{module} {s.pick(PARTS)} {when} "
        f"{s.pick(EVENTS)}, so {{n}}clear {s.pick(DIRS)}/{module}/.cache first",
        s.reason(module) if s.rng.random() < 0.4 else "",
        negations=("do not ", "never "),
        swappable=((tool, s.others(tool, TOOLS[kind][0])),),
    )


def _leaks(s: _Slots) -> _Draft:
    kind, tool, _ = s.tool("http")
    module = s.pick(MODULES)
    mode = s.pick(("sync", "async"))
    return _Draft(
        "bug_patterns",
        f"the {{+}}{module} worker leaks {s.pick(RESOURCES)} when {tool} retries {mode} calls "
        f"to {s.pick(VENDORS)} from {s.function()}",
        s.reason(module) if s.rng.random() < 0.5 else "",
        negations=("never ",),
        swappable=((tool, s.others(tool, TOOLS[kind][0])),),
    )


def _stores(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    db, key = s.pick(DATABASES), s.pick(FIELDS)
    return _Draft(
        "implementation_notes",
        f"the {{+}}{module} {s.pick(PARTS)} {{n}}stores {s.pick(DATA)} in {db} keyed by {key} "
        f"and {s.pick(('compacts', 'prunes', 'archives', 'reindexes'))} them every "
        f"{s.pick(WEEKDAYS)}",
        s.reason(module) if s.rng.random() < 0.5 else "",
        negations=("never ",),
        swappable=((key, s.others(key, FIELDS)), (db, s.others(db, DATABASES))),
    )


def _retries(s: _Slots) -> _Draft:
    function = s.function()
    times = str(s.rng.randint(2, 12))
    module = s.pick(MODULES)
    return _Draft(
        "implementation_notes",
        f"{function} in the {{+}}{module} {s.pick(PARTS)} {{n}}retries {times} times with "
        f"exponential backoff before giving up on {s.pick(VENDORS)}",
        s.reason(module) if s.rng.random() < 0.6 else "",
        negations=("never ",),
        number=(times, tuple(str(n) for n in range(2, 13) if str(n) != times)),
        swappable=((function, (s.function(),)),),
    )


def _calls(s: _Slots) -> _Draft:
    function = s.function()
    module = s.pick(MODULES)
    mode = s.pick(("sync", "async"))
    kind, tool, _ = s.tool("http")
    return _Draft(
        "implementation_notes",
        f"{{n}}make {mode} {tool} calls in {function} for the {{+}}{module} {s.pick(PARTS)}",
        s.reason(module),
        swappable=((tool, s.others(tool, TOOLS[kind][0])),),
    )


def _add_field(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    field_name = s.pick(FIELDS)
    verb = s.pick(("add", "include"))
    return _Draft(
        "implementation_notes",
        f"{{n}}{verb} {field_name} to the {{+}}{module} {s.pick(NOUNS)} model whenever "
        f"{s.pick(EVENTS)} touches {s.path(module)}",
        s.reason(module) if s.rng.random() < 0.5 else "",
        swappable=((field_name, s.others(field_name, FIELDS)),),
    )


def _limits(s: _Slots) -> _Draft:
    module = s.pick(MODULES)
    bound = s.pick(("minimum", "maximum"))
    value = str(s.pick((16, 32, 64, 128, 256, 512)))
    return _Draft(
        "implementation_notes",
        f"the {bound} {s.pick(NOUNS)} size the {{+}}{module} {s.pick(PARTS)} accepts is "
        f"{{n}}{value} kilobytes per {s.pick(('request', 'tenant', 'upload', 'batch'))}",
        s.reason(module) if s.rng.random() < 0.6 else "",
        negations=("not ",),
        number=(value, tuple(str(v) for v in (8, 24, 48, 96, 1024))),
    )


TEMPLATES: tuple[Callable[[_Slots], _Draft], ...] = (
    _prefer,
    _use_tool,
    _style,
    _before_event,
    _setting,
    _pin,
    _enable,
    _naming,
    _store,
    _talks,
    _jobs,
    _expose,
    _cache,
    _moved,
    _fails,
    _empty,
    _stale,
    _leaks,
    _stores,
    _retries,
    _calls,
    _add_field,
    _limits,
)


# --- edits ---------------------------------------------------------------------------


def _sub(text: str, old: str, new: str) -> str | None:
    """`text` with the first whole-word `old` replaced by `new`, or None if absent."""
    pattern = re.compile(rf"(?<![\w./-]){re.escape(old)}(?![\w/-]|\.\w)")
    result, count = pattern.subn(new, text, count=1)
    return result if count else None


def _long(draft: _Draft) -> bool:
    return len(content_words(draft.text())) >= 8


def _duplicate(draft: _Draft, rng: random.Random) -> str:
    """A harmless rewording of the draft's statement."""
    text = draft.text()
    kinds = ["case", "filler"]
    if "{+}" in draft.main and _long(draft):
        kinds.append("word")
    if _long(draft) and any(_sub(text, w, w) for w in SYNONYMS):
        kinds.append("synonym")
    if draft.clause:
        kinds.append("reorder")
    kind = rng.choice(kinds)
    if kind == "case":
        changed = rng.choice(
            (
                text.lower(),
                text.rstrip("."),
                text.rstrip(".") + "!",
                text.upper(),
                text.replace(" because", ", because").replace(" so ", ", so "),
            )
        )
        return changed if changed != text else text.lower()
    if kind == "filler":
        if " the " in text and rng.random() < 0.4:
            return text.replace(" the ", " ", 1)
        prefix = rng.choice(FILLER_PREFIXES)
        return prefix + text[0].lower() + text[1:]
    if kind == "word":
        return replace(draft, main=draft.main.replace("{+}", rng.choice(ADDED_WORDS) + " ")).text()
    if kind == "synonym":
        words = [w for w in SYNONYMS if _sub(text, w, w)]
        word = rng.choice(words)
        return _sub(text, word, SYNONYMS[word]) or text
    main = draft.main.replace("{n}", "").replace("{+}", "")
    clause = draft.clause
    return f"{clause[0].upper()}{clause[1:]}, {main}."


def _different(draft: _Draft, kind: str, rng: random.Random) -> str | None:
    """The draft's statement with one meaning-changing edit of `kind`, if it has one."""
    if kind == "number" and draft.number:
        value, others = draft.number
        main = _sub(draft.main, value, rng.choice(others))
        return replace(draft, main=main).text() if main else None
    if kind == "negation" and "{n}" in draft.main:
        negated = draft.main.replace("{n}", rng.choice(draft.negations))
        if negated.startswith(("do not always", "never always")):
            negated = negated.replace(" always", "", 1)
        return replace(draft, main=negated).text()
    if kind == "swap" and draft.pair:
        x, y = map(re.escape, draft.pair)
        main = re.sub(rf"\b{x}\b(.*?)\b{y}\b", rf"{y}\1{x}", draft.main, count=1)
        return replace(draft, main=main).text() if main != draft.main else None
    if kind == "antonym":
        for word, opposite in ANTONYMS.items():
            main = _sub(draft.main, word, opposite)
            if main:
                return replace(draft, main=main).text()
        return None
    if kind == "tool" and draft.swappable:
        word, others = rng.choice(draft.swappable)
        main = _sub(draft.main, word, rng.choice(others))
        return replace(draft, main=main).text() if main else None
    return None


DIFFERENT_KINDS = ("number", "negation", "swap", "antonym", "tool")


def planted_corpus(
    total: int = 100_000, duplicate_share: float = 0.05, different: int = 2_000, seed: int = 7
) -> PlantedCorpus:
    """`total` memories: background, `duplicate_share` planted duplicates, `different`
    planted similar-but-different statements; keys are 0..total-1 in a shuffled order."""
    rng = random.Random(seed)
    slots = _Slots(rng)
    duplicates = round(total * duplicate_share)
    background = total - duplicates - different
    if background < duplicates + different:
        raise ValueError("too few background memories for the planted ones")
    drafts: list[tuple[_Draft, str | None]] = []
    seen: set[str] = set()
    while len(drafts) < background:
        draft = rng.choice(TEMPLATES)(slots)
        key = content_key(draft.text())
        if key not in seen:
            seen.add(key)
            drafts.append((draft, rng.choice(PROJECTS)))
    # (index of the original, text, is a duplicate)
    planted: list[tuple[int, str, bool]] = []
    chosen = rng.sample(range(background), duplicates + different)
    for index in chosen[:duplicates]:
        planted.append((index, _duplicate(drafts[index][0], rng), True))
    pool = chosen[duplicates:]
    for n, index in enumerate(pool):
        text = None
        for kind in (DIFFERENT_KINDS[n % len(DIFFERENT_KINDS)], *DIFFERENT_KINDS):
            text = _different(drafts[index][0], kind, rng)
            if text and content_key(text) not in seen:
                break
        if text is None or content_key(text) in seen:
            raise AssertionError(f"no meaning-changing edit for {drafts[index][0].text()!r}")
        seen.add(content_key(text))
        planted.append((index, text, False))

    entries = [(draft.category, project, draft.text()) for draft, project in drafts]
    origin: list[int | None] = [None] * background
    for index, text, is_duplicate in planted:
        draft, project = drafts[index]
        entries.append((draft.category, project, text))
        origin.append(index if is_duplicate else -1 - index)
    order = list(range(total))
    rng.shuffle(order)
    key_of = {position: key for key, position in enumerate(order)}
    items = []
    for key, position in enumerate(order):
        category, project, text = entries[position]
        items.append(
            PlantedItem(
                key=key,
                category=category,
                project=project,
                content=text,
                importance=round(rng.uniform(0.1, 1.0), 2),
                confidence=round(rng.uniform(0.3, 1.0), 2),
            )
        )
    duplicate_pairs: set[tuple[int, int]] = set()
    different_pairs: set[tuple[int, int]] = set()
    for position in range(background, total):
        source = origin[position]
        assert source is not None
        if source >= 0:
            duplicate_pairs.add((key_of[source], key_of[position]))
        else:
            different_pairs.add((key_of[-1 - source], key_of[position]))
    return PlantedCorpus(items, duplicate_pairs, different_pairs)
