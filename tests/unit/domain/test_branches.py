"""Branch memory's rules: what a memory keeps as its branch, file names, which memories a
branch sees (in Python and in the store's SQL), and a block of base + branch parts."""

from __future__ import annotations

import dataclasses

import pytest

from memory_app.domain.branches import (
    BranchScope,
    branch_file_names,
    learnt_branch,
    sanitized,
)
from memory_app.domain.claude_md import BlockLine, BlockPart, render_block, render_parts
from memory_app.retrieval.context import ContextRequest
from memory_app.service import MemoryService
from tests.unit.test_conflicts_service import SPACES, TABS, said


@pytest.mark.parametrize(
    ("recorded", "kept"),
    [
        ("feature/auth", "feature/auth"),
        (" main ", "main"),
        ("", None),
        ("HEAD", None),
        (None, None),
    ],
)
def test_a_conversation_on_no_branch_gives_memories_no_branch(
    recorded: str | None, kept: str | None
) -> None:
    assert learnt_branch(recorded) == kept


def test_file_names_are_sanitized_like_puffins_and_never_shared() -> None:
    assert sanitized("feature/auth") == "feature_auth"
    assert sanitized("bug-fixes") == "bug-fixes"
    names = branch_file_names(["feature/auth", "feature_auth", "Feature_Auth", "bug-fixes"])
    assert names["bug-fixes"] == "CLAUDE_bug-fixes.md"
    assert names["Feature_Auth"] == "CLAUDE_Feature_Auth.md"  # sorts first: the plain name
    assert len({n.lower() for n in names.values()}) == 4
    assert names["feature/auth"].startswith("CLAUDE_feature_auth-")


def test_a_branch_sees_its_own_memories_and_the_base_ones() -> None:
    auth = BranchScope.working_on("feature/auth", ("main",))
    assert [auth.sees(b) for b in ("feature/auth", "main", None, "feature/billing")] == [
        True,
        True,
        True,
        False,
    ]
    assert not BranchScope.only("feature/auth").sees(None)
    assert BranchScope.base().branches == ("main", "master")


def test_the_branch_part_is_filled_first_and_shown_after_the_base() -> None:
    base = tuple(BlockLine(i, "project_conventions", f"base rule {i} " + "x" * 60) for i in (1, 2))
    own = (BlockLine(3, "bug_patterns", "branch rule " + "y" * 60),)
    parts = [BlockPart("Memory", base), BlockPart("Branch memory: feature/auth", own, -1)]
    full = render_parts(parts, max_chars=10_000)
    assert (
        full.text.index("base rule 2")
        < full.text.index("## Branch memory")
        < full.text.index("branch rule")
    )
    assert full.included == (3, 1, 2)
    tight = render_parts(parts, max_chars=len(full.text) - 10)
    assert tight.included == (3, 1) and tight.dropped == (2,)  # the branch's rule stays
    assert len(tight.text) <= len(full.text) - 10
    # One part: exactly the block it always was.
    assert render_parts([BlockPart("Memory", base)]).text == render_block(base, title="Memory").text


def test_a_conflict_with_another_branchs_memory_is_not_this_branchs(
    service: MemoryService,
) -> None:
    """Tabs said on feature/a, spaces on feature/b: a conflict among every branch's
    memories, but on feature/a the tabs rule stands alone (the other is not its own)."""
    service.memorize(dataclasses.replace(said(TABS, 3, "a"), branch="feature/a"))
    service.memorize(dataclasses.replace(said(SPACES, 1, "b"), branch="feature/b"))
    assert len(service.conflicts()) == 1
    everywhere = service.build_context(ContextRequest()).render()
    assert "UNRESOLVED CONFLICT" in everywhere
    scope = BranchScope.working_on("feature/a", ("main",))
    on_a = service.build_context(ContextRequest(branch=scope)).render()
    assert "UNRESOLVED CONFLICT" not in on_a
    assert "indent with tabs" in on_a and "indent with spaces" not in on_a
    assert service.branches() == [("feature/a", 1), ("feature/b", 1)]


def test_a_memory_learnt_again_on_another_branch_becomes_base(service: MemoryService) -> None:
    rule = "We use pytest for every test in this repo, never unittest."
    service.memorize(dataclasses.replace(said(rule, 3, "a"), branch="feature/a"))
    service.memorize(dataclasses.replace(said(rule, 2, "b", "Yes."), branch="feature/a"))
    (memory,) = service.list_items()
    assert (memory.branch, memory.reinforcement_count) == ("feature/a", 1)
    service.memorize(dataclasses.replace(said(rule, 1, "c", "Sure."), branch="main"))
    (memory,) = service.list_items()
    assert (memory.branch, memory.reinforcement_count) == (None, 2)
    assert service.item_history(memory.id)[-1].before["branch"] == "feature/a"  # type: ignore[index]


def test_no_branch_file_is_named_like_the_base_file() -> None:
    names = branch_file_names(["base", "Base", "BASE", "feature/auth"])
    assert all(n.lower() != "claude_base.md" for n in names.values())
    assert len({n.lower() for n in names.values()}) == 4
    assert names["base"].startswith("CLAUDE_base-") and names["Base"].startswith("CLAUDE_Base-")
    assert names["feature/auth"] == "CLAUDE_feature_auth.md"


def test_a_branch_named_like_a_hashed_name_does_not_take_it() -> None:
    hashed = branch_file_names(["base"])["base"].removeprefix("CLAUDE_").removesuffix(".md")
    names = branch_file_names(["base", hashed, hashed.upper()])
    assert len({n.lower() for n in names.values()} | {"claude_base.md"}) == 4
