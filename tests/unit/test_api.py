"""The local HTTP API (`memory-app serve`, memory_app/api/) over a real socket: a server
on a free port of 127.0.0.1 in a thread, a small store (tests/small_store.py), and
http.client on the other side. Each endpoint answers what the CLI's command gives."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app import __version__
from memory_app.api import token as tokens
from memory_app.api.routes import ROUTES, openapi
from memory_app.api.server import MAX_BODY, ApiServer, make_server
from memory_app.cli_retrieval import plan_json
from memory_app.config import resolve_settings
from memory_app.retrieval.context import ContextRequest
from memory_app.retrieval.predict import predict, signals_from
from memory_app.service import MemoryService
from tests.small_store import build_small_store

SHOP = "/home/dev/shop"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("api") / "data"
    service = MemoryService.open(resolve_settings(folder, env={}))
    try:
        build_small_store(service)
    finally:
        service.close()
    shutil.copytree(folder, folder.parent / "pristine")  # for `fresh`: never served
    return folder


class Client:
    """Requests to one server, with the data folder's token unless told otherwise."""

    def __init__(self, server: ApiServer, token: str) -> None:
        self.server = server
        self.token = token

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = "",
        raw: bytes | None = None,
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        headers = {"Content-Type": "application/json"}
        given = self.token if token == "" else token
        if given is not None:
            headers["Authorization"] = f"Bearer {given}"
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = json.loads(response.read())
            self.headers = dict(response.getheaders())
            return response.status, payload
        finally:
            conn.close()


def _serve(folder: Path) -> Iterator[tuple[Client, MemoryService]]:
    service = MemoryService.open(resolve_settings(folder, env={}))
    server = make_server(service, folder, 0)
    server.start()
    try:
        yield Client(server, tokens.load_or_create(folder)), service
    finally:
        server.stop()
        service.close()


@pytest.fixture(scope="module")
def api(store: Path) -> Iterator[tuple[Client, MemoryService]]:
    yield from _serve(store)


@pytest.fixture
def fresh(store: Path, tmp_path: Path) -> Iterator[tuple[Client, MemoryService]]:
    """A server over a copy of the store, for a test that changes it."""
    folder = tmp_path / "data"
    shutil.copytree(store.parent / "pristine", folder)
    yield from _serve(folder)


# -- the endpoints ------------------------------------------------------------------------


def test_health_says_only_alive_without_a_token_and_counts_with_it(
    api: tuple[Client, MemoryService],
) -> None:
    client, service = api
    assert client.call("GET", "/health", token=None) == (200, {"status": "ok"})
    status, body = client.call("GET", "/health")
    stats = service.get_stats()
    assert status == 200
    assert body["version"] == __version__
    assert body["schema_version"] == service.db.dialect.schema_version
    assert body["counts"] == {
        "memories": stats.items,
        "pinned": stats.pinned,
        "conversations": stats.resources,
        "categories": stats.categories,
        "open_conflicts": 1,
    }
    assert stats.items == 13


def test_memories_search_and_list_as_the_cli(api: tuple[Client, MemoryService]) -> None:
    client, service = api
    status, body = client.call("GET", "/memories?q=pytest+fixtures&limit=5")
    assert status == 200 and body["mode"] == "search"
    expected = service.search("pytest fixtures", limit=5)
    assert [m["id"] for m in body["memories"]] == [r.id for r in expected]
    assert "pytest fixtures" in body["memories"][0]["content"]

    status, body = client.call("GET", "/memories?limit=4&offset=2")
    assert [m["id"] for m in body["memories"]] == [
        r.id for r in service.list_items(limit=4, offset=2)
    ]
    status, body = client.call("GET", "/memories?branch=feature/emails")
    assert {m["content"][:10] for m in body["memories"]} == {
        "Turns out ",
        "Commit mes",
        "Let's go w",
    }
    status, body = client.call("GET", "/memories?project=/home/dev/memory-curator")
    assert len(body["memories"]) == 3
    assert {m["project"] for m in body["memories"]} == {"/home/dev/memory-curator"}
    status, body = client.call("GET", "/memories?q=tests&branch=fix/flaky-tests")
    assert body["memories"] and {m["branch"] for m in body["memories"]} == {"fix/flaky-tests"}


def test_context_assemble_is_the_cli_context(api: tuple[Client, MemoryService]) -> None:
    client, service = api
    request = {"task": "fix the flaky checkout tests", "project": SHOP, "budget": 800}
    expected = plan_json(
        service.build_context(
            ContextRequest(task=request["task"], project=SHOP, budget=800)  # type: ignore[arg-type]
        )
    )
    status, body = client.call("POST", "/context/assemble", request)
    assert status == 200
    assert body["context"] == expected["context"]
    assert body["budget"] == 800 and body["used_tokens"] <= 800
    assert "shared event loop" in body["context"]


def test_context_assemble_adds_a_named_conversation_so_far(
    api: tuple[Client, MemoryService],
) -> None:
    client, service = api
    with service.db.reading() as session:
        resource_id = session.connection().exec_driver_sql("SELECT min(id) FROM resource").scalar()
    request = {"task": "the checkout tests", "budget": 2000, "conversation": str(resource_id)}
    expected = plan_json(
        service.build_context(
            ContextRequest(task=request["task"], budget=2000, conversation=str(resource_id))
        )
    )
    status, body = client.call("POST", "/context/assemble", request)
    assert status == 200
    assert body["context"] == expected["context"]
    assert "This conversation so far" in body["context"] and body["used_tokens"] <= 2000
    status, body = client.call(
        "POST", "/context/assemble", {"task": "x", "conversation": "no-such-session"}
    )
    assert status == 404 and "no-such-session" in body["error"]


def test_context_predict_ranks_the_branchs_memories_first(
    api: tuple[Client, MemoryService],
) -> None:
    client, service = api
    signals = {
        "files": ["tests/checkout/test_cart.py"],
        "branch": "fix/flaky-tests",
        "project": SHOP,
        "limit": 3,
    }
    status, body = client.call("POST", "/context/predict", signals)
    assert status == 200
    expected = predict(
        service,
        signals_from(SHOP, "fix/flaky-tests", ["tests/checkout/test_cart.py"], None),
        limit=3,
    )
    assert [m["id"] for m in body["memories"]] == [p.id for p in expected]
    assert {m["branch"] for m in body["memories"]} == {"fix/flaky-tests"}
    assert all(m["reasons"] for m in body["memories"])


def test_consolidate_is_a_dry_run_by_default(api: tuple[Client, MemoryService]) -> None:
    client, service = api
    before = [r.to_json() for r in service.list_items(limit=100)]
    status, body = client.call("POST", "/consolidate", {})
    assert status == 200
    assert body["run"]["kind"] == "nightly" and body["run"]["dry_run"] is True
    assert body["run"]["status"] == "success"
    assert isinstance(body["changes"], list)
    assert all(c["run_id"] == body["run"]["id"] for c in body["changes"])
    assert [r.to_json() for r in service.list_items(limit=100)] == before


def test_resolve_a_contradiction_as_conflicts_resolve(fresh: tuple[Client, MemoryService]) -> None:
    client, service = fresh
    status, body = client.call("POST", "/contradictions/1/resolve", {"keep": "newer"})
    assert status == 200
    assert body["status"] == "accepted_newer" and body["decision"] == "keep_newer"
    assert service.get_item(1).status != "active" and service.get_item(13).status == "active"
    status, body = client.call("POST", "/contradictions/1/resolve", {"keep": "older"})
    assert status == 409 and "already resolved" in body["error"]
    assert service.undo()  # one undoable step, as from the CLI
    status, body = client.call(
        "POST", "/contradictions/1/resolve", {"merge": "Tabs in Makefiles, four spaces elsewhere"}
    )
    assert status == 200 and body["decision"] == "merge"


# -- refusals ----------------------------------------------------------------------------


def test_a_wrong_or_missing_token_is_401(api: tuple[Client, MemoryService]) -> None:
    client, _ = api
    for token in (None, "not-the-token", client.token[:-1], ""):
        status, body = client.call("GET", "/memories", token=token or None)
        assert status == 401, token
        assert "token" in body["error"]
        assert client.headers["WWW-Authenticate"].startswith("Bearer")
    status, _ = client.call("GET", "/health", token="wrong")  # a wrong one never passes
    assert status == 401
    status, _ = client.call("POST", "/consolidate", {"dry_run": False}, token=None)
    assert status == 401
    status, _ = client.call("GET", "/nowhere", token=None)  # no token: not even a 404
    assert status == 401


def test_a_request_over_the_limit_is_413_before_its_body_is_read(
    api: tuple[Client, MemoryService],
) -> None:
    """Headers announce 2 MB and no byte of the body is sent: the answer comes at once,
    so the server did not wait for the body."""
    client, _ = api
    with socket.create_connection(("127.0.0.1", client.server.port), timeout=5) as sock:
        sock.sendall(
            (
                "POST /context/assemble HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {client.token}\r\n"
                "Content-Type: application/json\r\n"
                f"Content-Length: {2 * MAX_BODY}\r\n\r\n"
            ).encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ")
    assert "limit is 1,000,000" in json.loads(body)["error"]
    status, _ = client.call("POST", "/context/assemble", {"task": "x" * 1000})
    assert status == 200  # a request under the limit passes


def test_bad_json_and_bad_fields_are_400(api: tuple[Client, MemoryService]) -> None:
    client, _ = api
    status, body = client.call("POST", "/context/assemble", raw=b'{"task": ')
    assert status == 400 and "not valid JSON" in body["error"]
    cases = [
        ("/context/assemble", [1, 2], "JSON object"),
        ("/context/assemble", {"budget": "lots"}, "'budget' must be integer"),
        ("/context/assemble", {"budget": 0}, "'budget' must be at least 1"),
        ("/context/assemble", {"tsak": "typo"}, "unknown field 'tsak'"),
        ("/context/predict", {"files": "a.py"}, "'files' must be array"),
        ("/consolidate", {"kind": "hourly"}, "'kind' must be one of"),
        ("/contradictions/1/resolve", {}, "exactly one of 'keep' and 'merge'"),
        ("/contradictions/1/resolve", {"keep": "newest"}, "'keep' must be one of"),
        ("/contradictions/x/resolve", {"keep": "newer"}, "'id' must be a whole number"),
    ]
    for path, payload, reason in cases:
        status, body = client.call("POST", path, payload)
        assert status == 400, (path, payload)
        assert reason in body["error"], body
    for query, reason in (
        ("limit=ten", "'limit' must be a whole number"),
        ("limit=0", "'limit' must be at least 1"),
        ("status=gone", "'status' must be one of"),
        ("qq=x", "unknown parameter 'qq'"),
    ):
        status, body = client.call("GET", f"/memories?{query}")
        assert status == 400 and reason in body["error"], query


def test_unknown_ids_paths_and_methods(api: tuple[Client, MemoryService]) -> None:
    client, _ = api
    status, body = client.call("POST", "/contradictions/999/resolve", {"keep": "newer"})
    assert status == 404 and body == {"error": "no conflict with id 999"}
    status, body = client.call("GET", "/nowhere")
    assert status == 404 and "openapi.json" in body["error"]
    status, body = client.call("DELETE", "/memories")
    assert status == 405 and client.headers["Allow"] == "GET"
    status, body = client.call("GET", "/consolidate")
    assert status == 405 and client.headers["Allow"] == "POST"


# -- the OpenAPI document ----------------------------------------------------------------


def test_the_openapi_document_has_every_route(api: tuple[Client, MemoryService]) -> None:
    client, _ = api
    status, document = client.call("GET", "/openapi.json", token=None)
    assert status == 200 and document == json.loads(json.dumps(openapi()))
    assert document["openapi"] == "3.1.0"
    served = {(r.method.lower(), r.path) for r in ROUTES}
    described = {(m, p) for p, ops in document["paths"].items() for m in ops}
    assert described == served
    assert {p for _, p in served} >= {
        "/health",
        "/memories",
        "/context/assemble",
        "/context/predict",
        "/consolidate",
        "/contradictions/{id}/resolve",
        "/openapi.json",
    }
    for route in ROUTES:  # what is described is served: never a 404 or a 405
        path = route.path.replace("{id}", "1")
        status, _ = client.call(route.method, path, {} if route.method == "POST" else None)
        assert status not in (404, 405), route.path
    ids = [op["operationId"] for ops in document["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))


# -- the token file ----------------------------------------------------------------------


def test_the_token_file_is_private_random_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    first = tokens.load_or_create(folder)
    path = folder / "api-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) == 43 and set(first) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    assert tokens.load_or_create(folder) == first
    path.chmod(0o644)
    assert tokens.load_or_create(folder) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # repaired
    second = tokens.new_token(folder)
    assert second != first and tokens.load_or_create(folder) == second
    assert tokens.matches(second, second) and not tokens.matches(first, second)
