"""One request to Claude waited for no longer than the assisted call's deadline, however
the SDK's retries go: the request runs on a daemon thread the caller stops waiting for.
The thread may still finish later; its answer is then dropped."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anthropic

from memory_app.retrieval.assisted.report import Unavailable

log = logging.getLogger(__name__)

T = TypeVar("T")


def within(
    call: Callable[[], T], deadline: float, timeout: float, reason: Callable[[BaseException], str]
) -> T:
    """`call()` on a daemon thread, waited for until `deadline`; Unavailable otherwise.
    Any error of the call becomes Unavailable with `reason` (the offline ranking is still
    an answer; an unexpected one, such as a closed client's RuntimeError, is logged)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="assisted-retrieval", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise Unavailable(f"no answer within {timeout:g} s")
    if "error" in outcome:
        error = outcome["error"]
        if not isinstance(error, Exception):  # KeyboardInterrupt, SystemExit: not ours
            raise error
        if not isinstance(error, anthropic.AnthropicError | ValueError):
            log.warning("assisted retrieval: unexpected error from Claude's client", exc_info=error)
        raise Unavailable(reason(error)) from None
    value: T = outcome["value"]
    return value
