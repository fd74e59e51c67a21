"""Branch memory files (seed 001 §7): `CLAUDE_base.md`, one `CLAUDE_{branch}.md` per
branch with memories, and CLAUDE.md's managed block switched to the checked-out branch.

Puffin's `activateBranch` writes CLAUDE.md as base + branch; here CLAUDE.md is the
person's file, so only its managed block becomes base + the current branch's memories.
Running the export again after a `git checkout` switches the block (the post-checkout
hook of `memory-app branch hook install` does it by itself). Everything is planned
first, so `--dry-run` shows the exact change, and written only if no file changed since,
all files together or none (a branch named `base` gets a file of its own, never
CLAUDE_base.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlmodel import Session

from memory_app.domain.branches import BranchScope, branch_file_names
from memory_app.domain.claude_md import (
    DEFAULT_TITLE,
    BlockPart,
    branch_title,
    render_parts,
    unified_diff,
)
from memory_app.domain.scoring import RankingWeights
from memory_app.retrieval.claude_md_export import (
    ClaudeMdExport,
    block_lines,
    conflicted_ids,
)
from memory_app.retrieval.claude_md_export import plan as plan_block
from memory_app.retrieval.export_file import (
    ExportError,
    ExportPlan,
    FileChange,
    check_unchanged,
    read_text_file,
    write_together,
)
from memory_app.retrieval.git_checkout import Checkout
from memory_app.store import retrieval as store

BASE_FILE = "CLAUDE_base.md"
# The first line of every file this export writes: only such files are ever replaced or
# removed, never a CLAUDE_*.md a person wrote.
FILE_MARK = "<!-- Written by Memory Curator (memory-app export claude-md --branches)"
FILE_NOTE = f"{FILE_MARK}; replaced on every export: edit the memories, not this file. -->"
FILE_PATTERN = "CLAUDE_*.md"


@dataclass(frozen=True)
class BranchFile:
    branch: str | None  # None: the base file
    plan: ExportPlan
    included: tuple[int, ...]
    dropped: tuple[int, ...]


@dataclass(frozen=True)
class BranchExport:
    """A planned branch export: the files, the stale ones to remove, CLAUDE.md's block."""

    checkout: Checkout
    base: tuple[str, ...]  # the branches whose memories are base
    project: str | None
    folder: Path  # where the branch files are
    files: tuple[BranchFile, ...]  # the base file first
    removed: tuple[tuple[Path, str], ...]  # our files of branches without memories now
    block: ClaudeMdExport  # CLAUDE.md's managed block: base + the current branch
    make_folder: bool = False  # `folder` is missing and is made when writing

    @property
    def changed(self) -> bool:
        return bool(self.removed) or self.block.changed or any(f.plan.changed for f in self.files)

    def diff(self) -> str:
        top = self.checkout.top
        parts = [unified_diff(f.plan.old, f.plan.new, _shown(f.plan.path, top)) for f in self.files]
        parts += [unified_diff(old, "", _shown(path, top)) for path, old in self.removed]
        parts.append(self.block.diff())
        return "".join(parts)


def _shown(path: Path, top: Path) -> str:
    """A file as diffs name it: relative to the repository's top when inside it."""
    file = path.absolute()
    return file.relative_to(top).as_posix() if file.is_relative_to(top) else str(file)


def plan(
    session: Session,
    checkout: Checkout,
    *,
    folder: Path,
    target: Path,
    project: str | None,
    base: tuple[str, ...],
    max_chars: int,
    via: Path | None,
    now: datetime,
    weights: RankingWeights,
    make_folder: bool = False,
) -> BranchExport:
    """Every branch file and the block, computed without touching a file; a missing
    `folder` is refused unless `make_folder` (then it is made when writing)."""
    missing = not folder.is_dir()
    if folder.exists() and missing:
        raise ExportError(f"{folder} is a file, not a folder; nothing was changed")
    if missing and (not make_folder or not folder.parent.is_dir()):
        raise ExportError(f"the folder {folder} does not exist; nothing was changed")
    conn = session.connection()
    branches = [b for b, _n in store.branches(conn, project) if b not in base]
    names = branch_file_names(branches)
    excluded = store.excluded_ids(conn, project)

    def file(branch: str | None, name: str) -> BranchFile:
        scope = BranchScope.base(base) if branch is None else BranchScope.working_on(branch, base)
        left_out = excluded | conflicted_ids(conn, project, scope)
        own = BranchScope.base(base) if branch is None else BranchScope.only(branch)
        lines = tuple(block_lines(session, project, now, weights, own, left_out))
        title = DEFAULT_TITLE if branch is None else branch_title(branch)
        rendered = render_parts(
            [BlockPart(title, lines)], max_chars=max_chars, opener=FILE_NOTE + "\n", closer=""
        )
        path = folder / name
        current = read_text_file(path)
        if current is not None and not _ours(current.text):
            raise ExportError(
                f"{path} was not written by Memory Curator (its first line is not ours); "
                "move it aside or export to another folder; nothing was changed"
            )
        text = rendered.text.rstrip("\n") + "\n"
        old = None if current is None else current.text
        return BranchFile(
            branch,
            ExportPlan(path, old, text, bom=current is not None and current.bom),
            rendered.included,
            rendered.dropped,
        )

    files = [file(None, BASE_FILE), *(file(b, names[b]) for b in sorted(names))]
    kept = {f.plan.path.name for f in files}
    removed = []
    for path in sorted(folder.glob(FILE_PATTERN)):
        if path.name in kept or not path.is_file():
            continue
        current = read_text_file(path)
        if current is not None and _ours(current.text):
            removed.append((path, current.text))
    # On a detached checkout the block holds the base alone, as on a base branch.
    block = plan_block(
        session,
        target,
        project=project,
        max_chars=max_chars,
        via=via,
        now=now,
        weights=weights,
        branch=checkout.branch or base[0],
        base=base,
    )
    _distinct(files, block)
    return BranchExport(
        checkout, base, project, folder, tuple(files), tuple(removed), block, missing
    )


def _file_of(branch: str | None) -> str:
    return "the base memories" if branch is None else f"branch {branch}'s memories"


def _ours(text: str) -> bool:
    return text.startswith(FILE_MARK)


def apply(export: BranchExport) -> None:
    """Write the planned files, remove the stale ones and switch the block, all together:
    nothing at all when any of them changed since the plan, and a failed write puts back
    the files already written (`write_together`)."""
    for f in export.files:
        check_unchanged(f.plan)
    for path, old in export.removed:
        current = read_text_file(path)
        if current is None or current.text != old:
            raise ExportError(f"{path} changed since the preview; nothing written")
    check_unchanged(export.block.files)
    if export.make_folder:
        try:
            export.folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise ExportError(f"cannot make the folder {export.folder}: {exc}") from exc
    changes = [change for f in export.files for change in _changes(f.plan)]
    changes += [FileChange(path, old, None) for path, old in export.removed]
    # The block last: CLAUDE.md never imports a file that is not written yet.
    changes += _changes(export.block.files)
    write_together(changes)


def _changes(plan: ExportPlan) -> list[FileChange]:
    """The files a plan changes: its file, then the CLAUDE.md importing it."""
    changes = []
    if plan.old != plan.new:
        changes.append(FileChange(plan.path, plan.old, plan.new, plan.bom))
    path, new = plan.import_path, plan.import_new
    if path is not None and new is not None and new != plan.import_old:
        changes.append(FileChange(path, plan.import_old, new, plan.import_bom))
    return changes


def _distinct(files: list[BranchFile], block: ClaudeMdExport) -> None:
    """Refuse a plan that would write one file twice (also where case does not count):
    the second write would silently replace the first."""
    seen: dict[str, str] = {}
    planned = [(f.plan.path, _file_of(f.branch)) for f in files]
    planned += [(block.files.path, "the managed block")]
    if block.files.import_path is not None:
        planned.append((block.files.import_path, "the file importing the block"))
    for path, what in planned:
        key = str(path.absolute()).casefold()
        if key in seen:
            raise ExportError(
                f"{path} would hold both {seen[key]} and {what}; give another --via or "
                "folder; nothing was changed"
            )
        seen[key] = what
