"""The API's bearer token: 32 random bytes (URL-safe text) in a private file of the data
folder, made on first use. Anyone who can read that file is the user, so no other
secret is needed; a looser mode found on the file is repaired before it is trusted."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

TOKEN_FILE = "api-token"
TOKEN_BYTES = 32


class TokenFileError(OSError):
    """The token file cannot be read or written; the message names it."""


def token_path(data_dir: Path) -> Path:
    return data_dir / TOKEN_FILE


def load_or_create(data_dir: Path) -> str:
    """The token in DATA_DIR/api-token, made (mode 0600) when there is none."""
    path = token_path(data_dir)
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return new_token(data_dir)
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"cannot read the API token file {path}: {exc}") from exc
    if not text:
        return new_token(data_dir)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        path.chmod(0o600)
    return text


def new_token(data_dir: Path) -> str:
    """Write a fresh token (replacing any), readable by the user alone."""
    path = token_path(data_dir)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = path.with_name(f".{TOKEN_FILE}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(token + "\n")
        os.chmod(partial, 0o600)  # whatever the umask
        os.replace(partial, path)
    except OSError as exc:
        raise TokenFileError(f"cannot write the API token file {path}: {exc}") from exc
    return token


def matches(given: str, token: str) -> bool:
    """Constant time, so the answer's timing tells nothing about the token."""
    return secrets.compare_digest(given.encode(), token.encode())
