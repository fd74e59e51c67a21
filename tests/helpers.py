"""Builders shared by tests: conversations and a scripted extractor."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_app.domain.categories import Category
from memory_app.domain.transcripts import Transcript, Turn
from memory_app.extract.base import ExtractedItem


def conversation(*exchanges: tuple[str, str], session: str = "s1", **meta: object) -> Transcript:
    """A transcript of (user, assistant) exchanges, one minute apart."""
    start = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    turns: list[Turn] = []
    for user, assistant in exchanges:
        for speaker, text in (("user", user), ("assistant", assistant)):
            if text:
                at = start + timedelta(minutes=len(turns))
                turns.append(Turn(len(turns), speaker, text, timestamp=at))
    return Transcript(
        source_kind="text",
        turns=tuple(turns),
        session_id=session,
        started_at=start,
        ended_at=start + timedelta(minutes=len(turns)),
        **meta,  # type: ignore[arg-type]
    )


@dataclass
class ScriptedExtractor:
    """Returns prepared items, to test what the pipeline does with an extractor's output."""

    items: list[ExtractedItem] = field(default_factory=list)
    fail_with: Exception | None = None
    name: str = "scripted"

    def extract(
        self, transcript: Transcript, categories: Sequence[Category]
    ) -> list[ExtractedItem]:
        if self.fail_with is not None:
            raise self.fail_with
        return list(self.items)


def system_tool(name: str) -> str:
    """The path of a system program a test needs. Missing, the test is skipped on a
    developer's machine but fails where `.ci/run` promised to install it
    (MEMORY_APP_REQUIRE_TOOLS=1), so CI can never pass by skipping."""
    import os
    import shutil

    import pytest

    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed (Debian: see .ci/run)"
    if os.environ.get("MEMORY_APP_REQUIRE_TOOLS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def make_version_9(db: Path) -> None:
    """Turn a current store into one made by schema version 9: without personal and team
    memories (version 10), so opening it migrates (and backs it up first)."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE team_link")
        conn.execute("DROP INDEX ix_memory_item_uid")
        conn.execute("DROP INDEX ix_memory_item_sharing")
        for column in ("uid", "sharing", "team_seq", "team_dirty"):
            conn.execute(f"ALTER TABLE memory_item DROP COLUMN {column}")
        conn.execute("PRAGMA user_version = 9")
    conn.close()


def make_version_8(db: Path) -> None:
    """Turn a current store into one made by schema version 8: without episode runs
    (version 9), so opening it migrates (and backs it up first)."""
    make_version_9(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX ix_episode_run_id")
        for column in ("run_id", "run_reason", "run_from_turn", "enrichment"):
            conn.execute(f"ALTER TABLE episode DROP COLUMN {column}")
        conn.execute("PRAGMA user_version = 8")
    conn.close()


def make_version_7(db: Path) -> None:
    """Turn a current store into one made by schema version 7: without conversation
    chunks (version 8), so opening it migrates (and backs it up first)."""
    make_version_8(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE conversation_chunk")
        conn.execute("PRAGMA user_version = 7")
    conn.close()


def make_version_6(db: Path) -> None:
    """Turn a current store into one made by schema version 6: without links between
    memories (version 7), so opening it migrates (and backs it up first)."""
    make_version_7(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE memory_link")
        conn.execute("PRAGMA user_version = 6")
    conn.close()


def make_version_5(db: Path) -> None:
    """Turn a current store into one made by schema version 5: without episodes
    (version 6), so opening it migrates (and backs it up first)."""
    make_version_6(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE episode")
        conn.execute("PRAGMA user_version = 5")
    conn.close()


def make_version_4(db: Path) -> None:
    """Turn a current store into one made by schema version 4: without the memories'
    branch (version 5) and what later versions add, so opening it migrates (and backs
    it up first)."""
    make_version_5(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX ix_memory_item_branch")
        conn.execute("ALTER TABLE memory_item DROP COLUMN branch")
        conn.execute("PRAGMA user_version = 4")
    conn.close()


def make_version_2(db: Path) -> None:
    """Turn a current store into one made by schema version 2: without what versions 3
    to 6 add, so opening it migrates (and backs it up first)."""
    make_version_4(db)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE injection_memory")
        conn.execute("DROP TABLE injection")
        conn.execute("DROP TRIGGER resource_au")
        for column in ("injected_count", "cited_count", "ignored_count"):
            conn.execute(f"ALTER TABLE memory_item DROP COLUMN {column}")
        conn.execute("DROP TABLE maintenance_change")
        conn.execute("DROP TABLE maintenance_schedule")
        conn.execute("ALTER TABLE memory_item DROP COLUMN decay_factor")
        conn.execute("ALTER TABLE category_summary DROP COLUMN digest")
        conn.execute("ALTER TABLE maintenance_run DROP COLUMN group_id")
        conn.execute("PRAGMA user_version = 2")
    conn.close()


def claude_session_file(
    path: Path,
    session: str,
    cwd: str,
    exchanges: Sequence[tuple[datetime, str, str]],
    branch: str | None = None,
) -> Path:
    """A Claude Code session file: (time of the prompt, prompt, answer) per exchange, the
    answer four seconds after its prompt; `branch`: the `gitBranch` every line carries."""
    lines: list[dict[str, Any]] = []
    for when, prompt, answer in exchanges:
        for role, text, at in (("user", prompt, when), ("assistant", answer, when)):
            at = at + timedelta(seconds=4) if role == "assistant" else at
            content: Any = text if role == "user" else [{"type": "text", "text": text}]
            lines.append(
                {
                    "type": role,
                    "sessionId": session,
                    "cwd": cwd,
                    "timestamp": at.isoformat().replace("+00:00", "Z"),
                    "uuid": f"{role}-{len(lines)}",
                    "message": {"role": role, "content": content},
                    **({"gitBranch": branch} if branch is not None else {}),
                }
            )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
