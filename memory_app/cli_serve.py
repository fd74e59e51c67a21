"""`memory-app serve`: the local HTTP API (memory_app/api/) until Ctrl+C.

    memory-app serve [--port N]       # 127.0.0.1 only; --port 0 picks a free port
    memory-app serve --token          # print the token (made on first use) and exit
    memory-app serve --new-token      # replace it

Argument parsing and printing only; the server is memory_app/api/server.py.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import TYPE_CHECKING, Any

from memory_app.api.routes import DEFAULT_PORT

if TYPE_CHECKING:
    from memory_app.service import MemoryService

Output = tuple[Any, str]


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 1 to 65535, or 0")
    return port


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    text = (
        "serve the memory over HTTP on 127.0.0.1 for local tools, until Ctrl+C "
        "(GET /openapi.json describes the endpoints; every request sends the token of "
        "the data folder's api-token file as `Authorization: Bearer TOKEN`)"
    )
    p = sub.add_parser("serve", help=text, description=text, parents=[common])
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"the port (default {DEFAULT_PORT}); 0 picks a free one and prints it",
    )
    token = p.add_mutually_exclusive_group()
    token.add_argument(
        "--token", action="store_true", help="print the token (made on first use) and exit"
    )
    token.add_argument(
        "--new-token",
        action="store_true",
        help="replace the token with a new one, print it and exit (clients need the new one)",
    )


def serve(service: MemoryService, args: argparse.Namespace) -> Output:
    from memory_app.api import token as tokens
    from memory_app.api.server import make_server
    from memory_app.config import resolve_settings

    data_dir = resolve_settings(getattr(args, "data_dir", None), getattr(args, "db_url", None))
    folder = data_dir.data_dir
    path = tokens.token_path(folder)
    try:
        if args.token or args.new_token:
            token = tokens.new_token(folder) if args.new_token else tokens.load_or_create(folder)
            return {"token": token, "token_file": str(path)}, token
        server = make_server(service, folder, args.port)
    except tokens.TokenFileError as exc:
        raise ValueError(str(exc)) from None
    except OSError as exc:
        raise ValueError(
            f"cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc} (is another "
            "program using the port? choose one with --port, or --port 0 for a free one)"
        ) from None
    started = {"url": server.url, "port": server.port, "token_file": str(path)}
    if getattr(args, "json", False):
        print(json.dumps(started), flush=True)
    else:
        print(
            f"Serving the memory API on {server.url} (token: {path}). Ctrl+C stops it.",
            flush=True,
        )
    previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it cleanly too
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
    return {**started, "stopped": True}, "Stopped."


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


HANDLERS = {"serve": serve}
