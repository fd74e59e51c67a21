"""The HTTP server: 127.0.0.1 only, a bearer token on every request (compared in constant
time), a size limit checked before a body is read, JSON in and out, and one lock so
requests reach the MemoryService one at a time (SQLite and the service's caches expect
one writer). Each request runs on its own thread; a slow client holds only its own.
"""

from __future__ import annotations

import json
import logging
import socketserver
import threading
from contextlib import AbstractContextManager, nullcontext
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit

from memory_app import __version__
from memory_app.api import token as tokens
from memory_app.api.endpoints import Call
from memory_app.api.routes import DEFAULT_PORT, ROUTES, Route, openapi
from memory_app.api.schema import RequestError, check_body, check_query
from memory_app.domain.validation import ValidationError
from memory_app.store.errors import NotFoundError, StoreError

if TYPE_CHECKING:
    from memory_app.config import Settings
    from memory_app.retrieval.assisted import RetrievalAssistant
    from memory_app.service import MemoryService

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
MAX_BODY = 1_000_000  # bytes; a larger request is refused (413) before it is read
REQUEST_TIMEOUT = 30  # seconds a client may take to send a request


class ApiServer(ThreadingHTTPServer):
    """Serves ROUTES over `service`; `port` 0 picks a free one (see `port`).
    `assistant`: what answers a request for assisted retrieval (None: it is off, and
    such a request gets the offline answer saying so); closed when the server stops."""

    daemon_threads = True

    def __init__(
        self,
        service: MemoryService,
        token: str,
        port: int,
        assistant: RetrievalAssistant | None = None,
    ) -> None:
        self.service = service
        self.token = token
        self.assistant = assistant
        self.lock = threading.Lock()
        self.owns_service = False  # start_background's: closed when the server stops
        self._thread: threading.Thread | None = None
        super().__init__((HOST, port), _Handler)

    def server_bind(self) -> None:
        """As HTTPServer's, without its reverse DNS lookup of the address."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, self.port

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        """Serve on a background thread (the GUI's checkbox); `stop` ends it."""
        self._thread = threading.Thread(target=self.serve_forever, name="memory-api", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, wait for the thread, and let go of the socket."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()
        if self.assistant is not None:
            self.assistant.close()
            self.assistant = None
        if self.owns_service:
            self.owns_service = False
            self.service.close()


class _Handler(BaseHTTPRequestHandler):
    server: ApiServer
    server_version = f"memory-app/{__version__}"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = REQUEST_TIMEOUT

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_OPTIONS(self) -> None:
        self._handle("OPTIONS")

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("api %s - %s", self.address_string(), format % args)

    def _handle(self, method: str) -> None:
        try:
            status, payload = self._answer(method)
        except RequestError as exc:
            status, payload = exc.status, {"error": str(exc)}
            self.close_connection = True  # a body may be left unread: start afresh
        self._send(status, payload)

    def _answer(self, method: str) -> tuple[int, Any]:
        parts = urlsplit(self.path)
        matches = [(r, found) for r in ROUTES if (found := r.match(parts.path)) is not None]
        public = bool(matches) and all(r.public for r, _ in matches)
        authenticated = self._authenticated(required=not public)
        if not matches:
            raise RequestError(404, f"no endpoint {parts.path}; see GET /openapi.json")
        chosen = [(r, found) for r, found in matches if r.method == method]
        if not chosen:
            allowed = ", ".join(r.method for r, _ in matches)
            self._allow = allowed
            raise RequestError(405, f"{parts.path} takes {allowed}, not {method}")
        route, path_args = chosen[0]
        body = self._body(route)
        if route.handler is None:
            return 200, openapi()
        args = check_query(route.parameters, parse_qs(parts.query, keep_blank_values=True))
        if route.body is not None:
            args.update(check_body(route.body, body))
        args.update(
            check_query(
                [{"name": n, "schema": s} for n, s in route.path_parameters.items()],
                {n: [v] for n, v in path_args.items()},
            )
        )
        return 200, self._call(route, args, authenticated)

    def _authenticated(self, *, required: bool) -> bool:
        """True with the right token; None given is fine for a public route; a wrong
        one never is."""
        given = self.headers.get("Authorization")
        if given is None and not required:
            return False
        scheme, _, value = (given or "").partition(" ")
        if scheme.lower() != "bearer" or not tokens.matches(value.strip(), self.server.token):
            raise RequestError(
                401,
                "missing or wrong token: send `Authorization: Bearer TOKEN` with the token "
                "of the api-token file in the data folder",
            )
        return True

    def _body(self, route: Route) -> Any:
        """The JSON body (an empty one is {}); 413 before reading one over MAX_BODY."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.close_connection = True
            raise RequestError(411, "send a Content-Length (chunked bodies are not read)")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise RequestError(400, "Content-Length is not a number") from None
        if length > MAX_BODY:
            self.close_connection = True  # the unread body must not be taken for a request
            raise RequestError(413, f"the request is {length:,} bytes; the limit is {MAX_BODY:,}")
        raw = self.rfile.read(length) if length > 0 else b""
        if route.body is None:
            if raw.strip():
                raise RequestError(400, f"{route.method} {route.path} takes no body")
            return None
        if not raw.strip():
            return {}
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RequestError(400, f"the body is not valid JSON: {exc}") from None

    def _call(self, route: Route, args: dict[str, Any], authenticated: bool) -> Any:
        assert route.handler is not None
        # Asking Claude takes seconds: such a request holds the lock only around its store
        # work (the handler takes `call.guard`), so other requests are not held up.
        asks_claude = bool(args.get("assisted")) and self.server.assistant is not None
        lock: AbstractContextManager[Any] = nullcontext() if asks_claude else self.server.lock
        guard: AbstractContextManager[Any] = self.server.lock if asks_claude else nullcontext()
        with lock:
            try:
                call = Call(authenticated, self.server.assistant, guard)
                return route.handler(self.server.service, args, call)
            except NotFoundError as exc:
                raise RequestError(404, str(exc)) from None
            except ValidationError as exc:
                status = 409 if "conflict" in exc.errors else 400
                raise RequestError(status, str(exc)) from None
            except (ValueError, LookupError) as exc:
                raise RequestError(400, str(exc)) from None
            except StoreError as exc:
                log.warning("api %s %s: %s", route.method, route.path, exc)
                raise RequestError(503, str(exc)) from None
            except Exception as exc:
                log.exception("api %s %s failed", route.method, route.path)
                raise RequestError(500, f"internal error: {type(exc).__name__}") from None

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="memory-app"')
        if status == 405:
            self.send_header("Allow", getattr(self, "_allow", ""))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


def make_server(
    service: MemoryService,
    data_dir: Path,
    port: int = DEFAULT_PORT,
    assistant: RetrievalAssistant | Literal["from settings"] | None = "from settings",
) -> ApiServer:
    """A server on 127.0.0.1:`port` with the data folder's token (made on first use) and,
    unless given, the retrieval assistant the settings give (server_assistant). OSError
    when the port is taken or the token file cannot be written."""
    helper = server_assistant() if isinstance(assistant, str) else assistant
    try:
        return ApiServer(service, tokens.load_or_create(data_dir), port, helper)
    except BaseException:
        if helper is not None:
            helper.close()
        raise


def server_assistant() -> RetrievalAssistant | None:
    """The assistant for requests asking for assisted retrieval when
    MEMORY_APP_ASSISTED_RETRIEVAL is on, else None. The setting is read first: the
    Anthropic SDK is imported only when it is on (it costs half a second at startup)."""
    from memory_app.config import assisted_retrieval_enabled

    if not assisted_retrieval_enabled():
        return None
    from memory_app.retrieval.assisted import configured_assistant

    return configured_assistant()


def start_background(settings: Settings, port: int = DEFAULT_PORT) -> ApiServer:
    """A server over its own MemoryService of the store `settings` names, serving on a
    thread (the app's Settings checkbox): the app's service belongs to its database
    worker thread, and SQLite lets two connections share the file as the hooks do.
    `stop()` closes that service too. OSError (and StoreError) when it cannot start."""
    from memory_app.service import MemoryService

    service = MemoryService.open(settings)
    try:
        server = make_server(service, settings.data_dir, port)
    except BaseException:
        service.close()
        raise
    server.owns_service = True
    server.start()
    log.info("local API serving on %s", server.url)
    return server
