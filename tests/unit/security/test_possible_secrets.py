"""A random-looking token no redaction rule names holds its memory back for review:
never in context or CLAUDE.md until a person keeps it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_app.cli import main
from memory_app.domain.possible_secrets import entropy, masked, possible_secret
from memory_app.domain.validation import ValidationError
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from tests.helpers import conversation

# Assembled from pieces, so secret scanners do not flag this file.
GENERATED = "Zx8Qp2Lm" + "9Kv4Tr7W" + "y1Bn5Hd3Fs6Gj0"


@pytest.mark.parametrize(
    "text",
    [
        f"use key {GENERATED} for staging",
        "the vendor token is " + "I9xK2mQ7" + "vB4nL8pZ3wR6tY1uE5oA0sD",
        "https://example.com/hook?id=" + "AbC123xyZ" + "456qwe789RtY",
    ],
)
def test_generated_tokens_are_possible_secrets(text: str) -> None:
    assert possible_secret(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a fixed it",
        "session 550e8400-e29b-41d4-a716-446655440000 resumed",
        "use the model claude-sonnet-4-5-20250929 always",
        "base image python3.12.4-slim-bookworm-amd64",
        "see src/memory_app/domain/possible_secrets.py",
        "LoadProfileAsyncHandlerFactory2 is the entry point",
        "node_modules/.pnpm/react-dom@18.2.0_react@18.2.0",
        "ghcr.io/acme/api-server:v2.14.3-rc1-linux-arm64",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "Always run pytest before pushing; [REDACTED:password] stays out of git.",
        "the provider lives in src/i18n/LocaleProvider.tsx",
        "open C:/Users/Bob/Documents/Q3Report2023/Final_v2.docx",
        "utils/encoding/Base64Url.ts handles it",
        "integrity sha512-" + "Q1w2E3r4T5y6U7i8O9p0aSdFgHjKlZxCvBnM0987654321",
        "fingerprint SHA256:" + "nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
        "logo data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ",
    ],
)
def test_identifiers_hashes_and_ids_are_not(text: str) -> None:
    assert possible_secret(text) is None


def test_entropy_and_masking() -> None:
    assert entropy("aaaa") == 0
    assert entropy("abcd") == 2
    assert masked(GENERATED) == f"Zx…j0 ({len(GENERATED)} characters)"


def _import_with_token(service: MemoryService) -> tuple[int, int]:
    service.memorize(
        conversation(
            (f"Always deploy staging with the key {GENERATED} from now on.", "Noted."),
            ("Always run the linter before committing.", "Will do."),
        )
    )
    items = {i.content: i for i in service.list_items(status=None, limit=50)}
    (held,) = [i for c, i in items.items() if GENERATED in c]
    (plain,) = [i for c, i in items.items() if "linter" in c]
    return held.id, plain.id


def test_a_memory_with_a_possible_secret_is_held_until_kept(service: MemoryService) -> None:
    held_id, plain_id = _import_with_token(service)
    assert service.get_item(held_id).status == "held"
    assert service.get_item(plain_id).status == "active"
    plan = service.build_context(ContextRequest(task="deploy staging with the key"))
    assert held_id not in plan.item_ids and plain_id in plan.item_ids
    with pytest.raises(ValidationError):
        service.keep(plain_id)  # only a held memory can be kept
    assert service.keep(held_id).status == "active"
    assert service.undo() == [held_id]
    assert service.get_item(held_id).status == "held"


def test_the_cli_lists_held_memories_and_keeps_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = tmp_path / "chat.md"
    chat.write_text(
        f"User: Always deploy staging with the key {GENERATED} from now on.\n\n"
        "Assistant: Noted, I will use it for staging deploys.\n"
    )
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["import", str(chat), *data]) == 0
    capsys.readouterr()
    assert main(["list", "--status", "held", "--json", *data]) == 0
    listed = json.loads(capsys.readouterr().out)
    (held,) = [i for i in listed if GENERATED in i["content"]]
    claude_md = tmp_path / "CLAUDE.md"
    assert main(["export", "claude-md", str(claude_md), *data]) == 0
    assert GENERATED not in claude_md.read_text(encoding="utf-8")
    assert main(["keep", str(held["id"]), *data]) == 0
    assert f"Kept memory #{held['id']}" in capsys.readouterr().out
    assert main(["export", "claude-md", str(claude_md), *data]) == 0
    assert GENERATED in claude_md.read_text(encoding="utf-8")
