"""Every route of the API in one table, and the OpenAPI 3.1 document made from it: the
schemas here both validate requests (schema.py) and describe them, so the document
cannot drift from what the server accepts."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memory_app import __version__
from memory_app.api import endpoints
from memory_app.domain.maintenance import RUN_KINDS
from memory_app.domain.records import ITEM_STATUSES

if TYPE_CHECKING:
    from memory_app.service import MemoryService

Handler = Callable[["MemoryService", dict[str, Any], endpoints.Call], Any]

DEFAULT_PORT = 7410  # `memory-app serve` and the app's Settings; `--port` changes it
DEFAULT_BUDGET = 2000
MAX_LIMIT = 500
MAX_TEXT = 100_000


def _text(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": ["string", "null"], "default": None, "description": description, **extra}


def _words(description: str) -> dict[str, Any]:
    return {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "default": None,
        "description": description,
    }


BRANCH = _text("only what that git branch sees: its own memories and the base ones")
BASE_BRANCHES = _words("the default branch(es) every branch sees (default: main and master)")
PROJECT = _text("the project's folder: its memories and global ones")
ASSISTED = (
    "ask Claude too (LLM-assisted retrieval, as the CLI's --assisted) when the server runs "
    "with MEMORY_APP_ASSISTED_RETRIEVAL=1 and an Anthropic API key; the answer's "
    '"assisted" says what Claude did, or under "fallback" why the answer is the one '
    "without it"
)


@dataclass(frozen=True)
class Route:
    """One method on one path. `public`: answers without a token too (the handler is
    told whether the caller proved who they are)."""

    method: str
    path: str  # OpenAPI template: /contradictions/{id}/resolve
    handler: Handler | None  # None: the OpenAPI document itself (served by the server)
    summary: str
    parameters: list[dict[str, Any]] = field(default_factory=list)
    body: dict[str, Any] | None = None
    path_parameters: dict[str, dict[str, Any]] = field(default_factory=dict)
    public: bool = False
    errors: tuple[int, ...] = ()

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters when `path` is this route's, else None."""
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.path))
        found = re.fullmatch(pattern, path)
        return found.groupdict() if found else None


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/health",
        endpoints.health,
        "Liveness without a token; with it, the version, schema version and counts.",
        public=True,
    ),
    Route(
        "GET",
        "/memories",
        endpoints.memories,
        "Memories: a full-text search (q, best first, as `memory-app search`) or a list "
        "(newest first, as `memory-app list`).",
        parameters=[
            _query("q", {"type": "string", "maxLength": MAX_TEXT}, "search syntax, as search"),
            _query("category", {"type": "string"}, "a category key"),
            _query("project", {"type": "string"}, "a project's memories and global ones"),
            _query("branch", {"type": "string"}, "learnt on that git branch"),
            _query(
                "status",
                {"type": "string", "enum": list(ITEM_STATUSES), "default": "active"},
                "memory status",
            ),
            _query(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20},
                "page size",
            ),
            _query("offset", {"type": "integer", "minimum": 0, "default": 0}, "page start"),
            _query("assisted", {"type": "boolean", "default": False}, ASSISTED + " (with q)"),
        ],
    ),
    Route(
        "POST",
        "/context/assemble",
        endpoints.assemble,
        "The tiered context for a task within a token budget (as `memory-app context --json`).",
        body={
            "type": "object",
            "properties": {
                "task": {"type": "string", "default": "", "maxLength": MAX_TEXT},
                "project": PROJECT,
                "budget": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 200_000,
                    "default": DEFAULT_BUDGET,
                    "description": "tokens (about 4 characters each)",
                },
                "branch": BRANCH,
                "base_branches": BASE_BRANCHES,
                "exclude": {
                    "type": ["array", "null"],
                    "items": {"type": "integer"},
                    "default": None,
                    "description": "memory ids to leave out",
                },
                "conversation": {
                    "type": ["string", "null"],
                    "default": None,
                    "maxLength": 200,
                    "description": "a Claude Code session id (or a unique prefix of 6+ "
                    "characters) or a conversation's number: its chunk summaries fill what "
                    "the memories leave of the budget",
                },
                "assisted": {"type": "boolean", "default": False, "description": ASSISTED},
            },
        },
        errors=(404,),
    ),
    Route(
        "POST",
        "/context/predict",
        endpoints.predict,
        "Memories ranked for the signals of the work at hand (files, branch, last error, "
        "project, time of day), before any prompt, each with why.",
        body={
            "type": "object",
            "properties": {
                "files": _words("open or recently edited files"),
                "branch": _text("the checked-out git branch"),
                "last_error": _text("the last error message", maxLength=MAX_TEXT),
                "project": PROJECT,
                "time": _text("an ISO 8601 time whose time of day counts (default: none)"),
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            },
        },
    ),
    Route(
        "POST",
        "/consolidate",
        endpoints.consolidate,
        "Run a maintenance job (as `memory-app maintenance run`): a dry run by default; "
        "the proposed changes come back.",
        body={
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": list(RUN_KINDS), "default": "nightly"},
                "dry_run": {"type": "boolean", "default": True},
                "review": {
                    "type": "boolean",
                    "default": False,
                    "description": "leave the changes for review instead of applying them",
                },
            },
        },
    ),
    Route(
        "POST",
        "/contradictions/{id}/resolve",
        endpoints.resolve,
        "Decide an open conflict (as `memory-app conflicts resolve`); undoable.",
        path_parameters={"id": {"type": "integer", "minimum": 1}},
        body={
            "type": "object",
            "properties": {
                "keep": {
                    "type": ["string", "null"],
                    "enum": list(endpoints.KEEP_CHOICES),
                    "default": None,
                    "description": "which memory stays valid",
                },
                "merge": _text("replace both with this one statement", maxLength=MAX_TEXT),
                "note": _text("why, or when each applies", maxLength=MAX_TEXT),
            },
        },
        errors=(404, 409),
    ),
    Route(
        "GET",
        "/openapi.json",
        None,
        "This document.",
        public=True,
    ),
)


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of ROUTES."""
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        operation: dict[str, Any] = {
            "operationId": _operation_id(route),
            "summary": route.summary,
            "responses": _responses(route),
        }
        parameters = [
            {"name": name, "in": "path", "required": True, "schema": schema}
            for name, schema in route.path_parameters.items()
        ] + route.parameters
        if parameters:
            operation["parameters"] = parameters
        if route.body is not None:
            body = {**route.body, "additionalProperties": False}
            operation["requestBody"] = {
                "required": False,
                "content": {"application/json": {"schema": body}},
            }
        if route.public:
            operation["security"] = [{}, {"bearer": []}]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Memory Curator local API",
            "version": __version__,
            "description": "`memory-app serve`: 127.0.0.1 only. Send the token of the "
            "data folder's api-token file as `Authorization: Bearer TOKEN`.",
        },
        "servers": [
            {
                "url": "http://127.0.0.1:{port}",
                "variables": {"port": {"default": str(DEFAULT_PORT)}},
            }
        ],
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "properties": {"error": {"type": "string"}},
                    "required": ["error"],
                }
            },
        },
        "paths": paths,
    }


def _operation_id(route: Route) -> str:
    words = re.findall(r"[a-z]+", route.path)
    return route.method.lower() + "".join(w.capitalize() for w in words)


def _responses(route: Route) -> dict[str, Any]:
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    reasons = {
        400: "bad JSON, an unknown field or a value out of range",
        401: "no token or a wrong one",
        404: "no such id",
        409: "the conflict is already resolved",
        413: "the request is larger than the limit",
    }
    codes = [400] if route.parameters or route.body or route.path_parameters else []
    codes += [] if route.public else [401]
    codes += [413] if route.body is not None else []
    codes += list(route.errors)
    responses: dict[str, Any] = {
        "200": {
            "description": "OK",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    }
    for code in sorted(set(codes)):
        responses[str(code)] = {"description": reasons[code], **error}
    return responses
