"""JSON-lines session files (Claude Code, Codex CLI): one object per line, read line by line.

A session file is written while the session runs, so its last line may be cut off, and a
crash can leave a damaged line anywhere: each unreadable line becomes a `ParseProblem` with
its line number and the rest still imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_app.domain.transcripts import ParseProblem
from memory_app.ingest.files import (
    SURROGATE_ESCAPE,
    has_lone_surrogate,
    shown_path,
    without_lone_surrogates,
)


def json_records(path: Path, problems: list[ParseProblem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line number, object) for each readable line, noting the rest."""
    source = shown_path(path)
    bad_encoding: list[int] = []
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", errors="replace")
                bad_encoding.append(number)
            if number == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            record = _decode_line(line, number, source, problems)
            if record is not None:
                yield number, record
    if bad_encoding:
        lines = "line" if len(bad_encoding) == 1 else f"{len(bad_encoding)} lines, first"
        problems.append(
            ParseProblem(
                source,
                bad_encoding[0],
                f"invalid UTF-8 bytes replaced by U+FFFD ({lines} {bad_encoding[0]})",
            )
        )


def _decode_line(
    line: str, number: int, source: str, problems: list[ParseProblem]
) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
        if SURROGATE_ESCAPE.search(line) and _has_lone_surrogate(value):
            value = without_lone_surrogates(value)
            problems.append(
                ParseProblem(source, number, "half of a UTF-16 surrogate pair replaced by U+FFFD")
            )
    except json.JSONDecodeError as exc:
        message = f"not valid JSON, line truncated or corrupt ({exc.msg} at column {exc.colno})"
        problems.append(ParseProblem(source, number, f"{message}; skipped"))
        return None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, [[[[...]]]]
        problems.append(ParseProblem(source, number, f"unreadable JSON ({exc}); skipped"))
        return None
    if not isinstance(value, dict):
        kind = type(value).__name__
        problems.append(
            ParseProblem(source, number, f"expected a JSON object, got {kind}; skipped")
        )
        return None
    return value


def _has_lone_surrogate(value: object) -> bool:
    return has_lone_surrogate(json.dumps(value, ensure_ascii=False))
